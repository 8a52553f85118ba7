import { useEffect, useState, type FormEvent } from 'react';
import { toApiError, type RegistryAnswers, type RegistryCheck, type RegistryEntry, type RegistryEntryView, type RegistryField, type RegistryTargetView } from '../api';
import { Dialog, LoadError } from '../components/Dialog';
import { useMessages } from '../i18n';
import { useCatalog, useServers } from '../stores';
import './pages.css';

/** What an entry installs as: its package types, and "remote". */
function installsAs(e: RegistryEntry): string {
  const kinds = [...new Set(e.server.packages.map((p) => p.registryType))];
  if (e.server.remotes.length > 0) kinds.push('remote');
  return kinds.join(', ') || '-';
}

/** The Catalog: the MCP Registry browsed, and its servers installed (docs/registry.md). */
export default function CatalogPage() {
  const t = useMessages();
  const page = useCatalog((s) => s.page);
  const status = useCatalog((s) => s.status);
  const error = useCatalog((s) => s.error);
  const query = useCatalog((s) => s.query);
  const cursors = useCatalog((s) => s.cursors);
  const search = useCatalog((s) => s.search);
  const next = useCatalog((s) => s.next);
  const previous = useCatalog((s) => s.previous);
  const [text, setText] = useState(query);
  const [selected, setSelected] = useState<{ name: string; version: string } | null>(null);

  useEffect(() => {
    if (status === 'idle') void search('');
  }, [status, search]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSelected(null);
    void search(text);
  };

  return (
    <section className="page" data-testid="catalog-page">
      <header className="page-header">
        <h1>{t.catalogTitle}</h1>
      </header>
      <p className="muted">{t.catalogIntro}</p>
      <form className="row" onSubmit={submit} role="search">
        <label className="field grow">
          <span>{t.catalogSearch}</span>
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} data-testid="catalog-query" />
          <small className="muted">{t.catalogSearchHint}</small>
        </label>
        <button type="submit" className="primary" data-testid="catalog-search">
          {t.catalogSearchButton}
        </button>
      </form>
      {error && <LoadError title={t.catalogLoadFailed} message={error} retry={() => void search(query)} />}
      <div className="card">
        {status === 'loading' && <span className="spinner" role="status" />}
        {page && page.servers.length === 0 && status === 'ready' && <p className="muted">{t.catalogEmpty}</p>}
        {page && page.servers.length > 0 && (
          <table className="table" data-testid="catalog-table">
            <thead>
              <tr>
                <th>{t.catalogColName}</th>
                <th>{t.catalogColVersion}</th>
                <th>{t.catalogColInstalls}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {page.servers.map((e) => (
                <tr key={`${e.server.name}@${e.server.version}`} data-testid={`catalog-row-${e.server.name}`}>
                  <td>
                    <strong>{e.server.title || e.server.name}</strong>
                    {e.server.title && <div className="muted">{e.server.name}</div>}
                    {e.server.description && <div className="muted">{e.server.description}</div>}
                  </td>
                  <td>{e.server.version}</td>
                  <td>{installsAs(e)}</td>
                  <td>
                    <button type="button" className="small" onClick={() => setSelected({ name: e.server.name, version: e.server.version })} data-testid={`catalog-details-${e.server.name}`}>
                      {t.catalogDetails}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="row">
          <button type="button" onClick={() => void previous()} disabled={cursors.length <= 1 || status === 'loading'} data-testid="catalog-previous">
            {t.catalogPrevious}
          </button>
          <button type="button" onClick={() => void next()} disabled={!page?.nextCursor || status === 'loading'} data-testid="catalog-next">
            {t.catalogNext}
          </button>
        </div>
      </div>
      {selected && <EntryDetail key={`${selected.name}@${selected.version}`} name={selected.name} version={selected.version} />}
      <Outdated />
    </section>
  );
}

/** The installed servers whose registry has a newer version (servers outdated). */
function Outdated() {
  const t = useMessages();
  const outdated = useCatalog((s) => s.outdated);
  const [checks, setChecks] = useState<RegistryCheck[] | null>(null);
  useEffect(() => {
    let live = true;
    outdated().then(
      (c) => live && setChecks(c),
      () => live && setChecks([]),
    );
    return () => {
      live = false;
    };
  }, [outdated]);
  const newer = (checks ?? []).filter((c) => c.outdated);
  const failed = (checks ?? []).filter((c) => c.error);
  if (newer.length === 0 && failed.length === 0) return null;
  return (
    <div className="card" data-testid="catalog-outdated">
      <h2>{t.catalogUpdates}</h2>
      <ul>
        {newer.map((c) => (
          <li key={c.server} data-testid={`catalog-outdated-${c.server}`}>
            {t.catalogUpdate(c.server, c.source.version, c.latest)} <span className="muted">{c.source.name}</span>
          </li>
        ))}
        {failed.map((c) => (
          <li key={c.server} className="muted">
            {c.server}: {c.error}
          </li>
        ))}
      </ul>
    </div>
  );
}

function EntryDetail({ name, version }: { name: string; version: string }) {
  const t = useMessages();
  const show = useCatalog((s) => s.show);
  const [view, setView] = useState<RegistryEntryView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [installing, setInstalling] = useState<RegistryTargetView | null>(null);
  const [installed, setInstalled] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    show(name, version).then(
      (v) => live && setView(v),
      (err: unknown) => live && setError(toApiError(err).message),
    );
    return () => {
      live = false;
    };
  }, [show, name, version]);

  if (error) return <LoadError title={t.catalogDetailFailed} message={error} retry={() => setError(null)} />;
  if (!view) return <span className="spinner" role="status" />;
  const s = view.entry.server;
  const packages = view.targets.filter((x) => x.target.kind === 'package');
  const remotes = view.targets.filter((x) => x.target.kind === 'remote');
  const targetRow = (x: RegistryTargetView) => (
    <li key={`${x.target.kind}-${x.target.index}`} data-testid={`catalog-target-${x.target.kind}-${x.target.index}`}>
      <code>{x.label}</code>{' '}
      {x.installable ? (
        <>
          <span className="muted">{t.catalogAsks(x.fields.length)}</span>{' '}
          <button type="button" className="small primary" onClick={() => setInstalling(x)} data-testid={`catalog-install-${x.target.kind}-${x.target.index}`}>
            {t.catalogInstall}
          </button>
        </>
      ) : (
        <span className="muted">{t.catalogNotInstallable(x.reason)}</span>
      )}
    </li>
  );
  return (
    <div className="card" data-testid="catalog-detail">
      <h2>
        {s.title || s.name} <span className="muted">{s.version}</span>
        {view.entry.isLatest && <span className="badge">{t.catalogLatest}</span>}
      </h2>
      {s.title && <p className="muted">{s.name}</p>}
      {s.description && <p>{s.description}</p>}
      {s.repositoryUrl && (
        <p>
          <code>{s.repositoryUrl}</code>
        </p>
      )}
      {installed && (
        <p className="ok" role="status" data-testid="catalog-installed">
          {t.catalogInstalled(installed)}
        </p>
      )}
      {view.targets.length === 0 && <p className="muted">{t.catalogNothing}</p>}
      {packages.length > 0 && (
        <>
          <h3>{t.catalogPackages}</h3>
          <ul>{packages.map(targetRow)}</ul>
        </>
      )}
      {remotes.length > 0 && (
        <>
          <h3>{t.catalogRemotes}</h3>
          <ul>{remotes.map(targetRow)}</ul>
        </>
      )}
      {installing && (
        <InstallDialog
          view={view}
          target={installing}
          onClose={() => setInstalling(null)}
          onInstalled={(server) => {
            setInstalling(null);
            setInstalled(server);
          }}
        />
      )}
    </div>
  );
}

const fieldId = (f: RegistryField) => `${f.kind}:${f.key}`;

function InstallDialog({ view, target, onClose, onInstalled }: { view: RegistryEntryView; target: RegistryTargetView; onClose: () => void; onInstalled: (server: string) => void }) {
  const t = useMessages();
  const install = useCatalog((s) => s.install);
  const loadServers = useServers((s) => s.load);
  const s = view.entry.server;
  const [serverName, setServerName] = useState(view.defaultName);
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(target.fields.map((f) => [fieldId(f), f.default])));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const missing = target.fields.find((f) => f.required && !values[fieldId(f)]);
    if (missing) {
      setError(t.catalogMissing(missing.key));
      return;
    }
    const answers: RegistryAnswers = { args: {}, env: {}, headers: {} };
    for (const f of target.fields) {
      const v = values[fieldId(f)];
      if (!v) continue;
      if (f.kind === 'env') answers.env[f.key] = v;
      else if (f.kind === 'header') answers.headers[f.key] = v;
      else answers.args[f.key] = v;
    }
    setBusy(true);
    install(s.name, s.version, target.target, serverName.trim(), answers).then(
      (v) => {
        setBusy(false);
        void loadServers();
        onInstalled(v.name);
      },
      (err: unknown) => {
        setBusy(false);
        setError(toApiError(err).message);
      },
    );
  };

  return (
    <Dialog title={t.catalogInstallTitle(s.name)} onClose={onClose} closeOnBackdrop={false} testId="catalog-install-dialog">
      <form onSubmit={submit}>
        <p>
          <code>{target.label}</code>
        </p>
        <label className="field">
          <span>{t.catalogServerName}</span>
          <input value={serverName} onChange={(e) => setServerName(e.target.value)} data-testid="catalog-server-name" />
        </label>
        {target.fields.map((f) => {
          const id = fieldId(f);
          const set = (v: string) => setValues({ ...values, [id]: v });
          return (
            <label key={id} className="field">
              <span>
                {f.kind === 'env' ? '$' : f.kind === 'header' ? '' : '--'}
                {f.key}
                {f.required && <span className="muted"> ({t.catalogRequired})</span>}
              </span>
              {f.choices.length > 0 ? (
                <select value={values[id] ?? ''} onChange={(e) => set(e.target.value)} data-testid={`catalog-field-${f.key}`}>
                  {!f.required && <option value="" />}
                  {f.choices.map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  type={f.secret ? 'password' : 'text'}
                  autoComplete={f.secret ? 'off' : undefined}
                  value={values[id] ?? ''}
                  onChange={(e) => set(e.target.value)}
                  aria-required={f.required}
                  data-testid={`catalog-field-${f.key}`}
                />
              )}
              {f.description && <small className="muted">{f.description}</small>}
              {f.secret && <small className="muted">{t.catalogSecret}</small>}
            </label>
          );
        })}
        {error && (
          <p className="error" role="alert" data-testid="catalog-install-error">
            {error}
          </p>
        )}
        <div className="row">
          <button type="button" onClick={onClose}>
            {t.catalogClose}
          </button>
          <button type="submit" className="primary" disabled={busy} data-testid="catalog-install-submit">
            {busy ? t.catalogInstalling : t.catalogInstall}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
