import { useEffect, useState } from 'react';
import { toApiError, type ElectronDatabase, type ElectronPlan, type ElectronSourceKind } from '../api';
import { useMessages } from '../i18n';
import { useProfiles, useServers } from '../stores';

/**
 * The Electron MCP Router import (docs/import.md): finds its database,
 * previews what an import would do, imports. The preview and the import
 * show the same plan; changing the file drops the preview, so Import always
 * follows a preview of what is on screen.
 */
export function ElectronImport() {
  const t = useMessages();
  const findElectron = useServers((s) => s.findElectron);
  const previewElectron = useServers((s) => s.previewElectron);
  const importElectron = useServers((s) => s.importElectron);
  const loadProfiles = useProfiles((s) => s.load);
  const [found, setFound] = useState<ElectronDatabase | null>(null);
  const [kind, setKind] = useState<ElectronSourceKind>('database');
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState<'preview' | 'import' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [plan, setPlan] = useState<{ plan: ElectronPlan; done: boolean } | null>(null);

  useEffect(() => {
    findElectron().then(
      (db) => {
        setFound(db);
        if (db.exists) setPath((p) => p || db.path);
      },
      (err: unknown) => setError(toApiError(err).message),
    );
  }, [findElectron]);

  const change = (k: ElectronSourceKind, p: string) => {
    setKind(k);
    setPath(p);
    setPlan(null);
    setError(null);
  };

  const run = async (what: 'preview' | 'import') => {
    setBusy(what);
    setError(null);
    try {
      if (what === 'preview') {
        setPlan({ plan: await previewElectron(kind, path), done: false });
      } else {
        setPlan({ plan: await importElectron(kind, path), done: true });
        void loadProfiles();
      }
    } catch (err) {
      setError(toApiError(err).message);
      if (what === 'import') setPlan(null);
    } finally {
      setBusy(null);
    }
  };

  const adds = plan !== null && (plan.plan.servers.length > 0 || plan.plan.profiles.length > 0);
  return (
    <section data-testid="electron-import">
      <h3>{t.electronTitle}</h3>
      <p className="muted">{t.electronIntro}</p>
      {found && <p className="muted mono" data-testid="electron-found">{found.exists ? t.electronFound(found.path) : t.electronNotFound(found.path)}</p>}
      <div className="field">
        <span>{t.electronPath}</span>
        <div className="row">
          <select aria-label={t.electronPath} value={kind} onChange={(e) => change(e.target.value as ElectronSourceKind, path)} data-testid="electron-kind">
            <option value="database">{t.electronKindDatabase}</option>
            <option value="export">{t.electronKindExport}</option>
          </select>
          <input className="mono" aria-label={t.electronPath} value={path} onChange={(e) => change(kind, e.target.value)} data-testid="electron-path" />
          <button type="button" className="small" disabled={busy !== null || path.trim() === ''} onClick={() => void run('preview')}>
            {busy === 'preview' && <span className="spinner" />} {t.electronPreview}
          </button>
        </div>
      </div>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {plan && <PlanView plan={plan.plan} done={plan.done} />}
      {plan && !plan.done && adds && (
        <button type="button" className="primary" disabled={busy !== null} onClick={() => void run('import')} data-testid="electron-import-button">
          {busy === 'import' && <span className="spinner" />} {t.electronImport}
        </button>
      )}
    </section>
  );
}

function PlanView({ plan, done }: { plan: ElectronPlan; done: boolean }) {
  const t = useMessages();
  const adds = plan.servers.length > 0 || plan.profiles.length > 0;
  return (
    <div className="report" role="status" data-testid={done ? 'electron-done' : 'electron-preview'}>
      <p>
        <strong>{done ? t.electronDoneTitle : t.electronPreviewTitle}</strong> <span className="muted mono">{t.electronSource(plan.source, plan.workspace)}</span>
      </p>
      {!adds && <p>{t.electronNothing}</p>}
      {plan.servers.length > 0 && (
        <>
          <p>{t.electronServers(plan.servers.length)}</p>
          <ul>
            {plan.servers.map((s) => {
              const extra = [
                s.from !== s.name ? t.electronFrom(s.from) : '',
                s.enabled ? '' : t.electronDisabled,
                s.disabledTools.length ? t.electronToolsOff(s.disabledTools.length, s.disabledTools.join(', ')) : '',
                s.secretEnv.length + s.secretHeaders.length ? t.electronSecrets([...s.secretEnv, ...s.secretHeaders].join(', ')) : '',
                s.project ? t.electronProject(s.project) : '',
              ].filter(Boolean);
              return (
                <li key={s.name}>
                  <strong>{s.name}</strong> <span className="muted">{s.transport}</span> <span className="mono">{s.target}</span>
                  {extra.length > 0 && <span className="item-sub">{extra.join(' · ')}</span>}
                </li>
              );
            })}
          </ul>
        </>
      )}
      {plan.profiles.length > 0 && (
        <>
          <p>{t.electronProfiles(plan.profiles.length)}</p>
          <ul>
            {plan.profiles.map((p) => (
              <li key={p.name}>
                <strong>{p.name}</strong> <span className="muted">({t.electronProject(p.from)})</span>: {p.servers.join(', ')}
              </li>
            ))}
          </ul>
        </>
      )}
      {plan.skipped.length > 0 && (
        <>
          <p className="inline-error">{t.electronSkipped(plan.skipped.length)}</p>
          <ul className="inline-error">
            {plan.skipped.map((s) => (
              <li key={`${s.kind}:${s.name}`}>
                <strong>{s.name}</strong>: {s.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {plan.tokens > 0 && (
        <p data-testid="electron-tokens">
          {t.electronTokens(plan.tokens)} <a href="#/connect">{t.electronNewTokens}</a>
        </p>
      )}
      {plan.notes.length > 0 && (
        <>
          <p className="muted">{t.electronNotes}</p>
          <ul className="muted">
            {plan.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
