import { useId } from 'react';
import type { ServerView } from '../api';
import { useMessages } from '../i18n';

/** One credential row of the snippet: a server with passUpstreamAuth (or * for all) and its value. */
export interface UpstreamAuthRow {
  key: number;
  server: string;
  value: string;
}

/** The Connect page's rows as Snippet takes them (SERVER=VALUE); rows without a server or a value are left out. */
export function upstreamAuthEntries(rows: UpstreamAuthRow[]): string[] {
  return rows.filter((r) => r.server !== '' && r.value.trim() !== '').map((r) => `${r.server}=${r.value.trim()}`);
}

const ALL = '*';

/**
 * The client's own credentials for servers that pass a client's
 * X-Upstream-Authorization (mcp-router snippet --upstream-auth). The values
 * live in this form's state only: they go into the snippet shown below and
 * nowhere else (nothing stores or logs them).
 */
export function UpstreamAuthFields({
  servers,
  rows,
  onChange,
}: {
  servers: ServerView[];
  rows: UpstreamAuthRow[];
  onChange: (rows: UpstreamAuthRow[]) => void;
}) {
  const t = useMessages();
  const introId = useId();
  const passing = servers.filter((s) => s.passUpstreamAuth).map((s) => s.name);
  const set = (key: number, patch: Partial<UpstreamAuthRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const nextKey = rows.reduce((m, r) => Math.max(m, r.key), 0) + 1;

  return (
    <details className="upstream-auth" open={rows.length > 0 || undefined} data-testid="upstream-auth">
      <summary>{t.upstreamAuthTitle}</summary>
      <p className="field-hint" id={introId}>
        {t.upstreamAuthIntro(t.fieldPassUpstreamAuth)}
      </p>
      {passing.length === 0 ? (
        <p className="muted" data-testid="upstream-auth-none">
          {t.upstreamAuthNone(t.fieldPassUpstreamAuth)}
        </p>
      ) : (
        <>
          <p className="callout" role="note" data-testid="upstream-auth-warning">
            {t.upstreamAuthInConfig}
          </p>
          {rows.map((r, i) => {
            const others = new Set(rows.filter((x) => x.key !== r.key).map((x) => x.server));
            return (
              <div className="row" key={r.key} data-testid={`upstream-auth-row-${i}`}>
                <select
                  aria-label={t.upstreamAuthServer}
                  aria-describedby={introId}
                  value={r.server}
                  onChange={(e) => set(r.key, { server: e.target.value })}
                  data-testid={`upstream-auth-server-${i}`}
                >
                  <option value="">{t.upstreamAuthPick}</option>
                  <option value={ALL} disabled={others.has(ALL)}>
                    {t.upstreamAuthAll}
                  </option>
                  {passing.map((n) => (
                    <option key={n} value={n} disabled={others.has(n)}>
                      {n}
                    </option>
                  ))}
                </select>
                <input
                  type="password"
                  className="grow"
                  // Never the browser's saved password (the login's admin token) filled in here.
                  autoComplete="new-password"
                  spellCheck={false}
                  placeholder="Bearer …"
                  aria-label={t.upstreamAuthValue(r.server === ALL ? t.upstreamAuthAll : r.server)}
                  value={r.value}
                  onChange={(e) => set(r.key, { value: e.target.value })}
                  data-testid={`upstream-auth-value-${i}`}
                />
                <button type="button" className="small" onClick={() => onChange(rows.filter((x) => x.key !== r.key))} data-testid={`upstream-auth-remove-${i}`}>
                  {t.remove}
                </button>
              </div>
            );
          })}
          <button
            type="button"
            className="small"
            // One row a server, and one for *.
            disabled={rows.length > passing.length}
            onClick={() => onChange([...rows, { key: nextKey, server: '', value: '' }])}
            data-testid="upstream-auth-add"
          >
            {t.upstreamAuthAdd}
          </button>
        </>
      )}
    </details>
  );
}
