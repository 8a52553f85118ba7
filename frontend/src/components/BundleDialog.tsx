import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { BundlePreview, BundleSignature, BundleUserOption } from '../api';
import { useMessages, type Messages } from '../i18n';
import { useServers } from '../stores';
import { Dialog } from './Dialog';

/**
 * Installs a dropped or picked .mcpb file (docs/bundles.md): sends it to the
 * router, shows its name, version, author, signature and tools, and asks for
 * its user_config. Cancelling drops the upload.
 */
export function BundleDialog({ file, onClose }: { file: File; onClose: (installed?: string) => void }) {
  const t = useMessages();
  const openBundle = useServers((s) => s.openBundle);
  const installBundle = useServers((s) => s.installBundle);
  const discardBundle = useServers((s) => s.discardBundle);
  const [sent, setSent] = useState(0);
  const [opened, setOpened] = useState<{ id: string; preview: BundlePreview } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const installed = useRef(false);
  const idRef = useRef<string | null>(null);

  useEffect(() => {
    let live = true;
    openBundle(file, (n) => live && setSent(n)).then(
      (o) => {
        if (!live) {
          void discardBundle(o.id).catch(() => {});
          return;
        }
        idRef.current = o.id;
        setOpened(o);
        setName(o.preview.serverName);
        setValues(Object.fromEntries(o.preview.userConfig.map((u) => [u.key, u.default.join('\n')])));
      },
      (err: unknown) => live && setLoadError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
      // A dialog closed without installing leaves no upload behind.
      if (idRef.current && !installed.current) void discardBundle(idRef.current).catch(() => {});
    };
  }, [file, openBundle, discardBundle]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!opened) return;
    const missing: Record<string, string> = {};
    for (const u of opened.preview.userConfig) {
      if (u.required && !(values[u.key] ?? '').trim()) missing[u.key] = t.bundleRequired(u.title || u.key);
    }
    setErrors(missing);
    if (Object.keys(missing).length) return;
    const config: Record<string, string[]> = {};
    for (const u of opened.preview.userConfig) {
      const raw = values[u.key] ?? '';
      const list = u.multiple ? raw.split('\n').map((v) => v.trim()).filter(Boolean) : raw === '' ? [] : [raw];
      if (list.length) config[u.key] = list;
    }
    setBusy(true);
    setError(null);
    try {
      const view = await installBundle(opened.id, name.trim(), config);
      installed.current = true;
      onClose(view.name);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title={t.bundleDialogTitle} onClose={() => onClose()} testId="bundle-dialog" closeOnBackdrop={false}>
      {!opened && !loadError && (
        <p className="muted" role="status" data-testid="bundle-reading">
          <span className="spinner" /> {t.bundleReading(formatBytes(sent, file.size))}
        </p>
      )}
      {loadError && (
        <>
          <p className="inline-error" role="alert" data-testid="bundle-error">
            {loadError}
          </p>
          <div className="dialog-actions">
            <button type="button" onClick={() => onClose()}>
              {t.close}
            </button>
          </div>
        </>
      )}
      {opened && (
        <form onSubmit={(e) => void submit(e)} data-testid="bundle-form">
          <Summary p={opened.preview} t={t} />
          <label className="field">
            <span className="required">{t.bundleServerName}</span>
            <input value={name} onChange={(e) => setName(e.target.value)} data-testid="bundle-server-name" />
          </label>
          {opened.preview.userConfig.length > 0 && (
            <fieldset className="bundle-config">
              <legend>{t.bundleConfig}</legend>
              {opened.preview.userConfig.map((u) => (
                <ConfigField
                  key={u.key}
                  u={u}
                  value={values[u.key] ?? ''}
                  error={errors[u.key]}
                  onChange={(v) => setValues((cur) => ({ ...cur, [u.key]: v }))}
                  t={t}
                />
              ))}
            </fieldset>
          )}
          {error && (
            <p className="inline-error" role="alert" data-testid="bundle-install-error">
              {error}
            </p>
          )}
          <div className="dialog-actions">
            <button type="button" onClick={() => onClose()}>
              {t.cancel}
            </button>
            <button type="submit" className="primary" disabled={busy} data-testid="bundle-install">
              {busy && <span className="spinner" />} {t.bundleInstall}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

function Summary({ p, t }: { p: BundlePreview; t: Messages }) {
  return (
    <div className="bundle-summary" data-testid="bundle-summary">
      <p>
        <strong data-testid="bundle-name">{p.displayName || p.name}</strong> <span data-testid="bundle-version">{p.version}</span>{' '}
        <span className="muted" data-testid="bundle-author">
          {t.bundleBy(p.author)}
        </span>
      </p>
      {p.description && <p className="muted">{p.description}</p>}
      <p className="muted">{t.bundleServerType(p.serverType)}</p>
      <p data-testid="bundle-signature" data-status={p.signature.status}>
        <span className="field-label">{t.bundleSignature}: </span>
        {signatureText(p.signature, t)}
        {p.signature.fingerprint && (
          <span className="field-hint" data-testid="bundle-fingerprint">
            {' '}
            {t.bundleFingerprint}: <code>{p.signature.fingerprint}</code>
          </span>
        )}
      </p>
      <div>
        <span className="field-label">{t.bundleTools}</span>
        {p.tools.length === 0 ? (
          <p className="muted">{t.bundleNoTools}</p>
        ) : (
          <ul data-testid="bundle-tools">
            {p.tools.map((tool) => (
              <li key={tool.name}>
                <code>{tool.name}</code> {tool.description && <span className="muted">— {tool.description}</span>}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

export function signatureText(s: Pick<BundleSignature, 'status' | 'publisher'>, t: Messages): string {
  switch (s.status) {
    case 'signed':
      return t.bundleSigned(s.publisher);
    case 'self-signed':
      return t.bundleSelfSigned(s.publisher);
    case 'untrusted':
      return t.bundleUntrusted(s.publisher);
    default:
      return t.bundleUnsigned;
  }
}

function ConfigField({
  u,
  value,
  error,
  onChange,
  t,
}: {
  u: BundleUserOption;
  value: string;
  error?: string;
  onChange: (v: string) => void;
  t: Messages;
}) {
  const id = `bundle-config-${u.key}`;
  let input;
  if (u.type === 'boolean') {
    input = (
      <input id={id} type="checkbox" checked={value === 'true'} onChange={(e) => onChange(e.target.checked ? 'true' : 'false')} data-testid={id} />
    );
  } else if (u.multiple) {
    input = <textarea id={id} rows={3} value={value} onChange={(e) => onChange(e.target.value)} data-testid={id} />;
  } else {
    const type = u.sensitive ? 'password' : u.type === 'number' ? 'number' : 'text';
    input = (
      <input
        id={id}
        type={type}
        value={value}
        autoComplete="off"
        placeholder={u.type === 'directory' || u.type === 'file' ? '/absolute/path' : undefined}
        aria-invalid={error ? true : undefined}
        onChange={(e) => onChange(e.target.value)}
        data-testid={id}
      />
    );
  }
  return (
    <label className="field" htmlFor={id}>
      <span className={u.required ? 'required' : undefined}>
        {u.title || u.key} <code className="muted">{u.key}</code>
      </span>
      {input}
      {u.description && <span className="field-hint">{u.description}</span>}
      {u.sensitive && <span className="field-hint">{t.bundleSensitiveHint}</span>}
      {u.multiple && <span className="field-hint">{t.bundleMultipleHint}</span>}
      {error && (
        <span className="field-error" role="alert" data-testid={`bundle-error-${u.key}`}>
          {error}
        </span>
      )}
    </label>
  );
}

function formatBytes(sent: number, total: number): string {
  const mb = (n: number) => (n / (1024 * 1024)).toFixed(1);
  return `${mb(sent)} / ${mb(total)} MB`;
}
