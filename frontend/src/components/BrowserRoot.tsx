import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { ADMIN_TOKEN_COMMAND, createApi, getSession, httpTransport, tokenStore, toApiError, type Api } from '../api';
import { App } from '../App';
import { I18nProvider, detectLocale, useMessages } from '../i18n';
import { StoresProvider, createStores } from '../stores';
import { Logo } from './Logo';

type LoginReason = 'expired' | 'rejected' | 'client';
type Phase = { kind: 'checking' } | { kind: 'login'; reason?: LoginReason } | { kind: 'ready'; authRequired: boolean } | { kind: 'error'; message: string };

/**
 * The browser shell: asks the router whether a token is needed, shows the
 * login form when it is, and returns to it when a call answers 401. Only
 * an admin token logs in; a client token is refused with the command that
 * makes an admin one.
 */
export function BrowserRoot({ session = getSession, api: given }: { session?: typeof getSession; api?: Api } = {}) {
  const [phase, setPhase] = useState<Phase>({ kind: 'checking' });
  const onUnauthorized = useCallback(() => {
    tokenStore.set('');
    setPhase({ kind: 'login', reason: 'expired' });
  }, []);
  const api = useMemo(() => given ?? createApi(httpTransport({ onUnauthorized })), [given, onUnauthorized]);
  const stores = useMemo(() => createStores(api), [api]);

  const check = useCallback(async (afterLogin = false) => {
    try {
      const s = await session();
      if (s.authRequired && !s.valid) {
        const had = tokenStore.get() !== '';
        tokenStore.set('');
        const reason: LoginReason | undefined = s.role === 'client' ? 'client' : afterLogin ? 'rejected' : had ? 'expired' : undefined;
        setPhase({ kind: 'login', reason });
      } else setPhase({ kind: 'ready', authRequired: s.authRequired });
    } catch (err) {
      setPhase({ kind: 'error', message: toApiError(err).message });
    }
  }, [session]);

  useEffect(() => {
    void check();
  }, [check]);

  const logout = () => {
    tokenStore.set('');
    setPhase({ kind: 'login' });
  };

  if (phase.kind === 'ready') {
    return (
      <StoresProvider stores={stores}>
        <App footer={phase.authRequired ? <LogoutButton onClick={logout} /> : undefined} />
      </StoresProvider>
    );
  }
  return (
    <I18nProvider locale={detectLocale()}>
      {phase.kind === 'checking' && <Centered><span className="spinner" /></Centered>}
      {phase.kind === 'error' && <ConnectError message={phase.message} retry={() => void check()} />}
      {phase.kind === 'login' && (
        <Login
          reason={phase.reason}
          onSubmit={async (token) => {
            tokenStore.set(token);
            await check(true);
          }}
        />
      )}
    </I18nProvider>
  );
}

function LogoutButton({ onClick }: { onClick: () => void }) {
  const t = useMessages();
  return (
    <button type="button" className="link" onClick={onClick} data-testid="logout">
      {t.logout}
    </button>
  );
}

function Centered({ children }: { children: React.ReactNode }) {
  return <div className="login-wrap">{children}</div>;
}

function ConnectError({ message, retry }: { message: string; retry: () => void }) {
  const t = useMessages();
  return (
    <Centered>
      <div className="card login-card" role="alert">
        <h1>{t.connectFailed}</h1>
        <p className="inline-error">{message}</p>
        <button type="button" onClick={retry}>
          {t.retry}
        </button>
      </div>
    </Centered>
  );
}

function Login({ reason, onSubmit }: { reason?: LoginReason; onSubmit: (token: string) => Promise<void> }) {
  const t = useMessages();
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!token.trim()) return;
    setBusy(true);
    try {
      await onSubmit(token.trim());
    } finally {
      setBusy(false);
    }
  };
  return (
    <Centered>
      <form className="card login-card" onSubmit={(e) => void submit(e)} data-testid="login">
        <div className="row">
          <Logo size={32} />
          <h1>{t.loginTitle}</h1>
        </div>
        <p className="muted">{t.loginBody}</p>
        {reason && (
          <p className="inline-error" role="alert" data-testid="login-error">
            {reason === 'client' ? t.loginClientToken : reason === 'rejected' ? t.loginRejected : t.loginExpired}
          </p>
        )}
        <label className="field">
          <span>{t.loginToken}</span>
          <input
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            placeholder="mcpr_…"
            data-testid="login-token"
            autoFocus
          />
        </label>
        <p className="field-hint">
          {t.loginHint} <code data-testid="login-command">{ADMIN_TOKEN_COMMAND}</code>
        </p>
        <button type="submit" className="primary" disabled={busy || !token.trim()} data-testid="login-submit">
          {t.loginSubmit}
        </button>
      </form>
    </Centered>
  );
}
