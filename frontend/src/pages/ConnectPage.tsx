import { useEffect, useId, useState, type FormEvent } from 'react';
import {
  ADDABLE_CLIENTS,
  ADMIN_TOKEN_COMMAND,
  LINK_CLIENTS,
  SNIPPET_CLIENTS,
  SNIPPET_MODES,
  toApiError,
  type ClientAddPlan,
  type CreatedToken,
  type SnippetClient,
  type SnippetMode,
  type TokenView,
} from '../api';
import { ConfirmDialog, LoadError } from '../components/Dialog';
import { upstreamAuthEntries, UpstreamAuthFields, type UpstreamAuthRow } from '../components/UpstreamAuthFields';
import { useLocale, useMessages } from '../i18n';
import { copyText } from '../lib/clipboard';
import { formatTime } from '../lib/format';
import { useApp, useProfiles, useServers, useTokens } from '../stores';
import './pages.css';

export default function ConnectPage() {
  const t = useMessages();
  const pageReady = useApp((s) => s.pageReady);
  const status = useTokens((s) => s.status);
  const load = useTokens((s) => s.load);
  const loadEndpoint = useTokens((s) => s.loadEndpoint);
  const loadServers = useServers((s) => s.load);
  const listenServers = useServers((s) => s.listen);
  const [created, setCreated] = useState<CreatedToken | null>(null);

  useEffect(() => {
    void load();
    void loadEndpoint();
  }, [load, loadEndpoint]);
  // The servers a token may be scoped to, and those that take a client's
  // credential (the snippet's), as they are now and as they change.
  useEffect(() => {
    const stop = listenServers();
    void loadServers();
    return stop;
  }, [listenServers, loadServers]);
  useEffect(() => {
    if (status === 'ready') pageReady('connect');
  }, [status, pageReady]);

  return (
    <section className="page" data-testid="connect-page" aria-labelledby="connect-title">
      <header className="page-header">
        <h1 id="connect-title">{t.connectTitle}</h1>
      </header>
      <EndpointCard />
      <SnippetCard secret={created?.token ?? ''} />
      <TokensCard created={created} onCreated={setCreated} />
    </section>
  );
}

export function CopyButton({ text, testId }: { text: string; testId?: string }) {
  const t = useMessages();
  const [state, setState] = useState<'idle' | 'ok' | 'fail'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const id = setTimeout(() => setState('idle'), 1800);
    return () => clearTimeout(id);
  }, [state]);
  return (
    <button type="button" className="small" disabled={!text} onClick={() => void copyText(text).then((ok) => setState(ok ? 'ok' : 'fail'))} data-testid={testId}>
      {state === 'ok' ? t.copied : state === 'fail' ? t.copyFailed : t.copy}
    </button>
  );
}

function EndpointCard() {
  const t = useMessages();
  const endpoint = useTokens((s) => s.endpoint);
  const error = useTokens((s) => s.endpointError);
  const loadEndpoint = useTokens((s) => s.loadEndpoint);
  return (
    <div className="card" data-testid="endpoint">
      <h2>{t.endpointTitle}</h2>
      {error && <LoadError title={t.endpointLoadFailed} message={error} retry={() => void loadEndpoint()} />}
      {!endpoint && !error && (
        <p className="muted">
          <span className="spinner" />
        </p>
      )}
      {endpoint && (
        <div className="row">
          <span className={`badge ${endpoint.running ? 'badge-running' : 'badge-errored'}`} data-testid="endpoint-state">
            <span className="badge-dot" aria-hidden="true" />
            {endpoint.running ? t.endpointRunning : t.endpointStopped}
          </span>
          <code className="endpoint-url" data-testid="endpoint-url">
            {endpoint.url}
          </code>
          <CopyButton text={endpoint.url} />
          <span className="muted">{endpoint.authEnabled ? t.authOn : t.authOff}</span>
          {endpoint.error && (
            <span className="inline-error" role="alert">
              {endpoint.error}
            </span>
          )}
        </div>
      )}
    </div>
  );
}

export const CLIENT_LABELS: Record<SnippetClient, string> = {
  'claude-code': 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  vscode: 'VS Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  windsurf: 'Windsurf',
  cline: 'Cline',
  lmstudio: 'LM Studio',
  zed: 'Zed',
  opencode: 'opencode',
  continue: 'Continue',
};

function SnippetCard({ secret }: { secret: string }) {
  const t = useMessages();
  const defaultSnippet = useTokens((s) => s.snippet);
  const profileSnippet = useProfiles((s) => s.snippet);
  const profiles = useProfiles((s) => s.profiles);
  const profilesStatus = useProfiles((s) => s.status);
  const loadProfiles = useProfiles((s) => s.load);
  // "" is the default endpoint (/mcp); else a profile's (/mcp/NAME).
  const [profile, setProfile] = useState('');
  const [client, setClient] = useState<SnippetClient>('claude-code');
  const [mode, setMode] = useState<SnippetMode>('http');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const servers = useServers((s) => s.servers);
  const [authRows, setAuthRows] = useState<UpstreamAuthRow[]>([]);
  // The credentials go to the router a moment after typing stops, not at
  // every key.
  const authKey = JSON.stringify(upstreamAuthEntries(authRows));
  const [sentAuthKey, setSentAuthKey] = useState(authKey);
  const authPending = authKey !== sentAuthKey;
  useEffect(() => {
    if (!authPending) return;
    const id = setTimeout(() => setSentAuthKey(authKey), 300);
    return () => clearTimeout(id);
  }, [authKey, authPending]);

  useEffect(() => {
    if (profilesStatus === 'idle') void loadProfiles();
  }, [profilesStatus, loadProfiles]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    const auth = JSON.parse(sentAuthKey) as string[];
    (profile ? profileSnippet(profile, client, mode, secret, auth) : defaultSnippet(client, mode, secret, auth)).then(
      (s) => {
        if (!live) return;
        setText(s);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (!live) return;
        // Never leave the previous client's snippet on screen (or in the
        // Copy button) under this tab's error.
        setText('');
        setError(toApiError(err).message);
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [client, mode, secret, sentAuthKey, profile, defaultSnippet, profileSnippet]);

  return (
    <div className="card" data-testid="snippets">
      <h2>{t.snippetTitle}</h2>
      <div className="tabs" role="tablist">
        {SNIPPET_CLIENTS.map((c) => (
          <button key={c} type="button" role="tab" aria-selected={client === c} onClick={() => setClient(c)} data-testid={`snippet-client-${c}`}>
            {CLIENT_LABELS[c]}
          </button>
        ))}
      </div>
      <div className="row">
        {profiles.length > 0 && (
          <label className="check">
            {t.snippetProfile}
            <select value={profile} onChange={(e) => setProfile(e.target.value)} data-testid="snippet-profile">
              <option value="">{t.snippetProfileDefault}</option>
              {profiles.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name} ({p.path})
                </option>
              ))}
            </select>
          </label>
        )}
        <div className="segmented" role="radiogroup" aria-label={t.snippetMode}>
          {SNIPPET_MODES.map((m) => (
            <label key={m} className="check">
              <input type="radio" name="snippet-mode" checked={mode === m} onChange={() => setMode(m)} data-testid={`snippet-mode-${m}`} />
              {m === 'http' ? t.snippetHttp : t.snippetStdio}
            </label>
          ))}
        </div>
        <span className="grow" />
        <span className="muted">{secret ? t.snippetWithToken : t.snippetPlaceholder}</span>
        <CopyButton text={authPending ? '' : text} testId="snippet-copy" />
      </div>
      <UpstreamAuthFields servers={servers} rows={authRows} onChange={setAuthRows} />
      {error && (
        <p className="inline-error" role="alert" data-testid="snippet-error">
          {error}
        </p>
      )}
      {!error && (
        <pre className={`code${loading || authPending ? ' is-loading' : ''}`} data-testid="snippet-text">
          {text}
        </pre>
      )}
      {LINK_CLIENTS.includes(client) && <InstallLink profile={profile} client={client} mode={mode} secret={secret} />}
      {ADDABLE_CLIENTS.includes(client) && (
        <AddToClient profile={profile} client={client} mode={mode} secret={secret} withUpstreamAuth={upstreamAuthEntries(authRows).length > 0} />
      )}
    </div>
  );
}

type SnippetTarget = { profile: string; client: SnippetClient; mode: SnippetMode; secret: string };

// InstallLink shows the client's install link (Cursor, VS Code, LM Studio),
// holding the same entry as the snippet.
function InstallLink({ profile, client, mode, secret }: SnippetTarget) {
  const t = useMessages();
  const installLink = useTokens((s) => s.installLink);
  const [link, setLink] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    // Another client's link must not stay on screen (or be copied) while
    // this one's is asked for.
    setLink('');
    setError(null);
    installLink(profile, client, mode, secret).then(
      (l) => {
        if (!live) return;
        setLink(l);
        setError(null);
      },
      (err: unknown) => {
        if (!live) return;
        setLink('');
        setError(toApiError(err).message);
      },
    );
    return () => {
      live = false;
    };
  }, [installLink, profile, client, mode, secret]);
  return (
    <div className="install-link" data-testid="install-link">
      <h3>{t.installLinkTitle}</h3>
      {error ? (
        <p className="inline-error" role="alert">
          {error}
        </p>
      ) : !link ? (
        <p className="muted" data-testid="install-link-loading">
          {t.loadingPage}
        </p>
      ) : (
        <div className="row">
          <code className="endpoint-url" data-testid="install-link-text">
            {link}
          </code>
          <CopyButton text={link} testId="install-link-copy" />
          <a className="button small" href={link} data-testid="install-link-open">
            {t.installLinkOpen}
          </a>
        </div>
      )}
      <p className="muted">{t.installLinkNote}</p>
    </div>
  );
}

// AddToClient writes the entry into the client's own config file: the
// change is shown as a diff in a confirm dialog, and only that diff is
// written (the router refuses if the file changed since).
function AddToClient({ profile, client, mode, secret, withUpstreamAuth }: SnippetTarget & { withUpstreamAuth: boolean }) {
  const t = useMessages();
  const planAdd = useTokens((s) => s.planAddToClient);
  const add = useTokens((s) => s.addToClient);
  const [plan, setPlan] = useState<ClientAddPlan | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [dialogError, setDialogError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // A new client, mode, profile or token: the last result is not about it.
  useEffect(() => {
    setDone(null);
    setError(null);
  }, [profile, client, mode, secret]);

  const start = () => {
    setBusy(true);
    setError(null);
    setDone(null);
    planAdd(profile, client, mode, secret).then(
      (p) => {
        setBusy(false);
        if (p.unchanged) setDone(t.addToClientUnchanged(p.path));
        else {
          setDialogError(null);
          setPlan(p);
        }
      },
      (err: unknown) => {
        setBusy(false);
        setError(toApiError(err).message);
      },
    );
  };
  const write = () => {
    if (!plan) return;
    setBusy(true);
    add(profile, client, mode, secret, plan.diff).then(
      (r) => {
        setBusy(false);
        setPlan(null);
        setDone(t.addToClientDone(r.path, r.backup));
      },
      (err: unknown) => {
        setBusy(false);
        setDialogError(toApiError(err).message);
      },
    );
  };
  return (
    <div className="add-to-client" data-testid="add-to-client">
      <div className="row">
        <button type="button" onClick={start} disabled={busy} data-testid="add-to-client-button">
          {t.addToClient}
        </button>
        <span className="muted">{withUpstreamAuth ? t.addToClientNoUpstreamAuth : t.addToClientHint}</span>
      </div>
      {error && (
        <p className="inline-error" role="alert" data-testid="add-to-client-error">
          {error}
        </p>
      )}
      {done && (
        <p className="muted" role="status" data-testid="add-to-client-done">
          {done}
        </p>
      )}
      {plan && (
        <ConfirmDialog
          title={t.addToClientTitle(CLIENT_LABELS[client])}
          body={
            <>
              <p>{plan.exists ? t.addToClientBody(plan.path) : t.addToClientNewFile(plan.path)}</p>
              <pre className="code" data-testid="add-to-client-diff">
                {plan.diff}
              </pre>
            </>
          }
          confirm={t.addToClientWrite}
          onConfirm={write}
          onCancel={() => setPlan(null)}
          busy={busy}
          error={dialogError}
        />
      )}
    </div>
  );
}

function TokensCard({ created, onCreated }: { created: CreatedToken | null; onCreated: (c: CreatedToken | null) => void }) {
  const t = useMessages();
  const locale = useLocale();
  const tokens = useTokens((s) => s.tokens);
  const status = useTokens((s) => s.status);
  const error = useTokens((s) => s.error);
  const actionError = useTokens((s) => s.actionError);
  const load = useTokens((s) => s.load);
  const revoke = useTokens((s) => s.revoke);
  const remove = useTokens((s) => s.remove);
  const [confirm, setConfirm] = useState<TokenView | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<TokenView | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [editingRoles, setEditingRoles] = useState<string | null>(null);
  const active = tokens.filter((x) => !x.revokedAt);
  const revoked = tokens.filter((x) => x.revokedAt);

  return (
    <div className="card" data-testid="tokens">
      <h2>{t.tokensTitle}</h2>
      <p className="muted">{t.tokensIntro}</p>
      <p className="muted" data-testid="tokens-admin-note">
        {t.tokensAdminNote} <code>{ADMIN_TOKEN_COMMAND}</code>
      </p>
      <CreateTokenForm onCreated={onCreated} />
      {created && (
        <div className="secret callout" role="status" data-testid="token-secret">
          <div>
            <strong>{t.tokenCreated(created.view.name)}</strong>
            <p>{t.tokenShownOnce}</p>
            <code className="secret-value" data-testid="token-secret-value">
              {created.token}
            </code>
          </div>
          <div className="row">
            <CopyButton text={created.token} testId="token-copy" />
            <button type="button" className="small" onClick={() => onCreated(null)}>
              {t.dismiss}
            </button>
          </div>
        </div>
      )}
      {status === 'error' && <LoadError title={t.tokensLoadFailed} message={error} retry={() => void load()} />}
      {actionError && (
        <p className="inline-error" role="alert">
          {actionError}
        </p>
      )}
      {status === 'ready' && tokens.length === 0 && <p className="muted">{t.tokensEmpty}</p>}
      {tokens.length > 0 && (
        <table className="data" data-testid="tokens-table">
          <thead>
            <tr>
              <th scope="col">{t.colName}</th>
              <th scope="col">{t.tokenPrefix}</th>
              <th scope="col">{t.tokenRole}</th>
              <th scope="col">{t.tokenRoles}</th>
              <th scope="col">{t.tokenScope}</th>
              <th scope="col">{t.tokenCreatedAt}</th>
              <th scope="col">{t.tokenLastUsed}</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {[...active, ...revoked].map((x) => (
              <tr key={x.name} className={x.revokedAt ? 'is-disabled' : undefined} data-testid={`token-row-${x.name}`}>
                <th scope="row">{x.name}</th>
                <td>
                  <code>{x.prefix}…</code>
                </td>
                <td>
                  <span className={`tag role-${x.role}`} title={t.roleHint[x.role]} data-testid={`token-role-${x.name}`}>
                    {t.roleLabel[x.role]}
                  </span>
                </td>
                <td data-testid={`token-roles-${x.name}`}>
                  {editingRoles === x.name ? (
                    <RolesEditor token={x} onDone={() => setEditingRoles(null)} />
                  ) : x.roles.length === 0 ? (
                    <span className="muted">{t.tokenNoRoles}</span>
                  ) : (
                    x.roles.map((r) => (
                      <span key={r} className="tag">
                        {r}
                      </span>
                    ))
                  )}
                </td>
                <td>
                  {editing === x.name ? (
                    <ScopeEditor token={x} onDone={() => setEditing(null)} />
                  ) : x.servers.length === 0 ? (
                    t.allServers
                  ) : (
                    x.servers.join(', ')
                  )}
                  {x.role !== 'admin' && !x.revokedAt && <TokenProfile token={x} />}
                </td>
                <td className="nowrap">{formatTime(x.createdAt, locale)}</td>
                <td className="nowrap">{x.lastUsedAt ? formatTime(x.lastUsedAt, locale) : t.never}</td>
                <td className="actions">
                  {x.revokedAt ? (
                    <span className="tag">{t.revoked}</span>
                  ) : (
                    <>
                      {editing !== x.name && x.role !== 'admin' && (
                        <button type="button" className="small" onClick={() => setEditing(x.name)} data-testid={`token-edit-${x.name}`}>
                          {t.tokenEditServers}
                        </button>
                      )}
                      {editingRoles !== x.name && (
                        <button type="button" className="small" onClick={() => setEditingRoles(x.name)} data-testid={`token-edit-roles-${x.name}`}>
                          {t.tokenEditRoles}
                        </button>
                      )}
                      <button type="button" className="small danger" onClick={() => setConfirm(x)} data-testid={`token-revoke-${x.name}`}>
                        {t.revoke}
                      </button>
                    </>
                  )}
                  <button type="button" className="small danger" onClick={() => setConfirmDelete(x)} data-testid={`token-delete-${x.name}`}>
                    {t.tokenDelete}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {confirm && (
        <ConfirmDialog
          title={t.revokeTitle(confirm.name)}
          body={<p>{t.revokeBody}</p>}
          confirm={t.revoke}
          onCancel={() => setConfirm(null)}
          onConfirm={() => {
            const name = confirm.name;
            setConfirm(null);
            void revoke(name);
          }}
        />
      )}
      {confirmDelete && (
        <ConfirmDialog
          title={t.deleteTokenTitle(confirmDelete.name)}
          body={<p>{t.deleteTokenBody}</p>}
          confirm={t.tokenDelete}
          onCancel={() => setConfirmDelete(null)}
          onConfirm={() => {
            const name = confirmDelete.name;
            setConfirmDelete(null);
            if (editing === name) setEditing(null);
            if (editingRoles === name) setEditingRoles(null);
            void remove(name);
          }}
        />
      )}
    </div>
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (c: CreatedToken) => void }) {
  const t = useMessages();
  const create = useTokens((s) => s.create);
  const tokens = useTokens((s) => s.tokens);
  const servers = useServers((s) => s.servers);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const n = name.trim();
    if (!n) return setError(t.errNameRequired);
    const same = tokens.find((x) => x.name === n);
    if (same) return setError(same.revokedAt ? t.errNameTakenRevoked(n) : t.errNameTaken(n));
    setError(null);
    setBusy(true);
    try {
      const c = await create(n, scope);
      onCreated(c);
      setName('');
      setScope([]);
    } catch (err) {
      setError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="token-form" onSubmit={(e) => void submit(e)} noValidate data-testid="token-form">
      <div className="row">
        <input
          placeholder={t.tokenNamePlaceholder}
          aria-label={t.fieldName}
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setError(null);
          }}
          aria-invalid={error ? true : undefined}
          data-testid="token-name"
        />
        <button type="submit" className="primary" disabled={busy} data-testid="token-create">
          {busy && <span className="spinner" />} {t.tokenCreate}
        </button>
      </div>
      {servers.length > 0 && (
        <fieldset className="scope">
          <legend>{t.tokenScopeLegend}</legend>
          {servers.map((s) => (
            <label key={s.name} className="check">
              <input
                type="checkbox"
                checked={scope.includes(s.name)}
                onChange={(e) => setScope(e.target.checked ? [...scope, s.name] : scope.filter((x) => x !== s.name))}
                data-testid={`token-scope-${s.name}`}
              />
              {s.name}
            </label>
          ))}
        </fieldset>
      )}
      {error && (
        <p className="inline-error" role="alert" data-testid="token-error">
          {error}
        </p>
      )}
    </form>
  );
}

/** Edits the servers a token may use: checked servers, or none for all. */
function ScopeEditor({ token, onDone }: { token: TokenView; onDone: () => void }) {
  const t = useMessages();
  const servers = useServers((s) => s.servers);
  const setServers = useTokens((s) => s.setServers);
  const [scope, setScope] = useState<string[]>(token.servers);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Servers the token names that no longer exist stay visible, to uncheck.
  const names = [...new Set([...servers.map((s) => s.name), ...token.servers])];
  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      await setServers(token.name, scope);
      onDone();
    } catch (err) {
      setError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="scope-editor" data-testid={`token-scope-editor-${token.name}`}>
      <fieldset className="scope">
        <legend>{t.tokenScopeLegend}</legend>
        {names.map((n) => (
          <label key={n} className="check">
            <input
              type="checkbox"
              checked={scope.includes(n)}
              onChange={(e) => setScope(e.target.checked ? [...scope, n] : scope.filter((x) => x !== n))}
              data-testid={`token-edit-scope-${token.name}-${n}`}
            />
            {n}
          </label>
        ))}
      </fieldset>
      {error && (
        <p className="inline-error" role="alert" data-testid="token-scope-error">
          {error}
        </p>
      )}
      <div className="row">
        <button type="button" className="small primary" disabled={busy} onClick={() => void save()} data-testid={`token-save-scope-${token.name}`}>
          {busy && <span className="spinner" />} {t.tokenSaveServers}
        </button>
        <button type="button" className="small" onClick={onDone}>
          {t.cancel}
        </button>
      </div>
    </div>
  );
}

/** The roles typed as "a, b": trimmed, no empties (the router checks the names). */
function parseRoles(text: string): string[] {
  return text
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
}

/** Edits a token's own roles, the names state_gate matches; the router refuses bad or reserved ones. */
function RolesEditor({ token, onDone }: { token: TokenView; onDone: () => void }) {
  const t = useMessages();
  const setRoles = useTokens((s) => s.setRoles);
  const [text, setText] = useState(token.roles.join(', '));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const hintId = useId();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await setRoles(token.name, parseRoles(text));
      onDone();
    } catch (err) {
      setError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="scope-editor" onSubmit={(e) => void save(e)} noValidate data-testid={`token-roles-editor-${token.name}`}>
      <input
        value={text}
        aria-label={t.tokenRolesField}
        aria-describedby={hintId}
        placeholder="reviewer, maintainer"
        onChange={(e) => {
          setText(e.target.value);
          setError(null);
        }}
        aria-invalid={error ? true : undefined}
        data-testid={`token-roles-input-${token.name}`}
      />
      <p className="muted" id={hintId}>
        {t.tokenRolesHint}
      </p>
      {error && (
        <p className="inline-error" role="alert" data-testid="token-roles-error">
          {error}
        </p>
      )}
      <div className="row">
        <button type="submit" className="small primary" disabled={busy} data-testid={`token-save-roles-${token.name}`}>
          {busy && <span className="spinner" />} {t.tokenSaveRoles}
        </button>
        <button type="button" className="small" onClick={onDone}>
          {t.cancel}
        </button>
      </div>
    </form>
  );
}

/** The profile a client token is bound to, changed in place (docs/profiles.md). */
function TokenProfile({ token }: { token: TokenView }) {
  const t = useMessages();
  const profiles = useProfiles((s) => s.profiles);
  const setProfile = useTokens((s) => s.setProfile);
  const [error, setError] = useState<string | null>(null);
  if (profiles.length === 0 && !token.profile) return null;
  return (
    <div>
      <label className="check">
        {t.tokenProfile}
        <select
          value={token.profile}
          onChange={(e) => {
            setError(null);
            setProfile(token.name, e.target.value).catch((err: unknown) => setError(toApiError(err).message));
          }}
          data-testid={`token-profile-${token.name}`}
        >
          <option value="">{t.tokenProfileNone}</option>
          {token.profile && !profiles.some((p) => p.name === token.profile) && <option value={token.profile}>{token.profile}</option>}
          {profiles.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p className="inline-error" role="alert" data-testid="token-profile-error">
          {error}
        </p>
      )}
    </div>
  );
}
