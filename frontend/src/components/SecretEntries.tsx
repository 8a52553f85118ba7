import { useState } from 'react';
import { looksSecret, secretPlaceholder, toApiError, type SecretKind, type SecretRef } from '../api';
import { useMessages, type Messages } from '../i18n';
import { useServers } from '../stores';

// The server form's env and header entries, one row each with a "secret"
// toggle: a secret value is kept by the router in the OS keychain and never
// shown again (docs/limits.md, "Secret env and header values").

export interface EntryRow {
  key: string;
  value: string;
  secret: boolean;
  /** The router keeps a value for this secret (under storedKey); an empty value keeps it. */
  stored: boolean;
  storedKey: string;
  /** The toggle follows the name's suggestion until the user sets it. */
  auto: boolean;
}

export const blankRow = (): EntryRow => ({ key: '', value: '', secret: false, stored: false, storedKey: '', auto: true });

/** Rows of a stored definition's map: secret ones keep their value out of sight. */
export function rowsOf(map: Record<string, string> | undefined, secret: string[] | undefined): EntryRow[] {
  const names = new Set(secret ?? []);
  return Object.entries(map ?? {}).map(([key, value]) =>
    names.has(key)
      ? { key, value: '', secret: true, stored: true, storedKey: key, auto: false }
      : { key, value, secret: false, stored: false, storedKey: '', auto: false },
  );
}

/**
 * The map and secret names to send for rows, or an error message. A
 * stored secret left empty is sent as its placeholder (the router keeps
 * the value); one made plain with its value left empty too (the router
 * brings the value back into the definition).
 */
export function entriesOf(
  rows: EntryRow[],
  kind: SecretKind,
  t: Messages,
): { map: Record<string, string>; secret: string[] } | { error: string } {
  const map: Record<string, string> = {};
  const secret: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const key = r.key.trim();
    if (key === '' && r.value === '' && !r.stored) continue;
    if (key === '') return { error: t.errEntryNoName(i + 1) };
    if (kind === 'env' ? key.includes('=') : !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) return { error: t.errEntryName(i + 1, key) };
    if (key in map) return { error: t.errEntryTwice(key) };
    const keeps = r.stored && r.value === '';
    if (keeps && key !== r.storedKey) return { error: t.errSecretRenamed(key, r.storedKey) };
    if (r.secret && r.value === '' && !r.stored) return { error: t.errSecretEmpty(key) };
    map[key] = keeps ? secretPlaceholder(key) : kind === 'env' ? r.value : r.value.trim();
    if (r.secret) secret.push(key);
  }
  return { map, secret };
}

export function EntryRows({
  kind,
  rows,
  onChange,
  invalid,
}: {
  kind: SecretKind;
  rows: EntryRow[];
  onChange: (rows: EntryRow[]) => void;
  invalid?: boolean;
}) {
  const t = useMessages();
  const id = `form-${kind === 'env' ? 'env' : 'headers'}`;
  const patch = (i: number, p: Partial<EntryRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...p } : r)));
  return (
    <div className="entry-rows" data-testid={id}>
      {rows.map((r, i) => (
        <div className="row entry-row" key={i}>
          <input
            value={r.key}
            placeholder={kind === 'env' ? 'API_KEY' : 'Authorization'}
            aria-label={t.entryName(i + 1)}
            aria-invalid={invalid ? true : undefined}
            spellCheck={false}
            data-testid={`${id}-key-${i}`}
            // Until the user sets the toggle, it follows what the name suggests.
            onChange={(e) => patch(i, r.auto ? { key: e.target.value, secret: looksSecret(e.target.value) } : { key: e.target.value })}
          />
          <input
            type={r.secret ? 'password' : 'text'}
            value={r.value}
            placeholder={r.stored ? (r.secret ? t.secretKept : t.secretMadePlain) : undefined}
            aria-label={t.entryValue(i + 1)}
            autoComplete="off"
            spellCheck={false}
            data-testid={`${id}-value-${i}`}
            onChange={(e) => patch(i, { value: e.target.value })}
          />
          <label className="check" title={t.secretToggleHint}>
            <input
              type="checkbox"
              checked={r.secret}
              onChange={(e) => patch(i, { secret: e.target.checked, auto: false })}
              data-testid={`${id}-secret-${i}`}
            />
            {t.secretToggle}
          </label>
          <button type="button" className="small" aria-label={t.entryRemove(i + 1)} data-testid={`${id}-remove-${i}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            ×
          </button>
          {r.auto && r.secret && (
            <span className="field-hint" data-testid={`${id}-suggested-${i}`}>
              {t.secretSuggested}
            </span>
          )}
        </div>
      ))}
      <div className="row">
        <button type="button" className="small" onClick={() => onChange([...rows, blankRow()])} data-testid={`${id}-add`}>
          {kind === 'env' ? t.entryAddEnv : t.entryAddHeader}
        </button>
      </div>
    </div>
  );
}

/**
 * The import report's secret entries that have no value yet: one password
 * field each; Save sends them to the router (SetServerSecret), which then
 * starts the server.
 */
export function NeededSecrets({ refs }: { refs: SecretRef[] }) {
  const t = useMessages();
  const setSecret = useServers((s) => s.setSecret);
  const [values, setValues] = useState<Record<number, string>>({});
  const [done, setDone] = useState<Record<number, boolean>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setError(null);
    setBusy(true);
    try {
      for (let i = 0; i < refs.length; i++) {
        const v = values[i] ?? '';
        if (done[i] || v === '') continue;
        const r = refs[i]!;
        await setSecret(r.server, r.kind, r.name, v);
        setDone((d) => ({ ...d, [i]: true }));
        setValues((old) => ({ ...old, [i]: '' }));
      }
    } catch (err) {
      setError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    // Not a form of its own: it shows inside the paste form's report.
    <div className="needed-secrets" data-testid="needed-secrets">
      <p>{t.secretsNeeded(refs.length)}</p>
      {refs.map((r, i) => (
        <label className="field" key={i}>
          <span>{t.secretNeededLabel(r.server, r.kind, r.name)}</span>
          {done[i] ? (
            <span className="muted" data-testid={`needed-secret-done-${i}`}>
              {t.secretSaved}
            </span>
          ) : (
            <input
              type="password"
              autoComplete="off"
              value={values[i] ?? ''}
              onChange={(e) => setValues((old) => ({ ...old, [i]: e.target.value }))}
              data-testid={`needed-secret-${i}`}
            />
          )}
        </label>
      ))}
      {error && (
        <p className="inline-error" role="alert" data-testid="needed-secrets-error">
          {error}
        </p>
      )}
      <div className="row">
        <button type="button" className="primary small" disabled={busy || refs.every((_, i) => done[i])} onClick={() => void submit()}
          data-testid="needed-secrets-save">
          {busy && <span className="spinner" />} {t.secretsSave}
        </button>
      </div>
    </div>
  );
}
