import { useEffect, useState, type FormEvent } from 'react';
import { LANGUAGES, THEMES, TOOL_CHANGE_MODES, toApiError, type AppSettings, type Language, type Theme, type ToolChangeMode } from '../api';
import { LoadError } from '../components/Dialog';
import { useMessages, type Messages } from '../i18n';
import { useApp, useSettings, useTokens } from '../stores';
import { ChatSettings } from '../components/ChatSettings';
import { AboutSection } from '../components/AboutSection';
import './pages.css';

interface Form {
  port: string;
  authEnabled: boolean;
  separator: string;
  retentionDays: string;
  timeoutSeconds: string;
  startAtLogin: boolean;
  closeToTray: boolean;
  hookTimeoutSeconds: string;
  hookMemoryMB: string;
  approvalTimeoutSeconds: string;
  sessionsPerCredential: string;
  sessionsTotal: string;
  sessionIdleTimeoutSeconds: string;
  toolChanges: ToolChangeMode;
}

type Errors = Partial<Record<keyof Form, string>>;

function toForm(s: AppSettings): Form {
  return {
    port: String(s.port),
    authEnabled: s.authEnabled,
    separator: s.separator,
    retentionDays: String(s.retentionDays),
    timeoutSeconds: String(s.timeoutSeconds),
    startAtLogin: s.startAtLogin,
    closeToTray: s.closeToTray,
    hookTimeoutSeconds: String(s.hookTimeoutSeconds),
    hookMemoryMB: String(s.hookMemoryMB),
    approvalTimeoutSeconds: String(s.approvalTimeoutSeconds),
    sessionsPerCredential: String(s.sessionsPerCredential),
    sessionsTotal: String(s.sessionsTotal),
    sessionIdleTimeoutSeconds: String(s.sessionIdleTimeoutSeconds),
    toolChanges: s.toolChanges,
  };
}

function int(v: string): number | null {
  const n = Number(v.trim());
  return v.trim() !== '' && Number.isInteger(n) ? n : null;
}

export function validateSettings(f: Form, base: AppSettings, t: Messages): { settings: AppSettings } | { errors: Errors } {
  const errors: Errors = {};
  const port = int(f.port);
  if (port === null || port < 1 || port > 65535) errors.port = t.errPort;
  if (f.separator === '' || /\s/.test(f.separator)) errors.separator = t.errSeparator;
  const retention = int(f.retentionDays);
  if (retention === null || retention < 0) errors.retentionDays = t.errRetention;
  const timeout = int(f.timeoutSeconds);
  if (timeout === null || timeout < 1) errors.timeoutSeconds = t.errTimeout;
  const hookTimeout = int(f.hookTimeoutSeconds);
  if (hookTimeout === null || hookTimeout < 1 || hookTimeout > 300) errors.hookTimeoutSeconds = t.errHookTimeout;
  const hookMemory = int(f.hookMemoryMB);
  if (hookMemory === null || hookMemory < 16 || hookMemory > 4096) errors.hookMemoryMB = t.errHookMemory;
  // The same bounds as the approvalTimeoutSeconds setting (backend/settings).
  const approvalTimeout = int(f.approvalTimeoutSeconds);
  if (approvalTimeout === null || approvalTimeout < 1 || approvalTimeout > 3600) errors.approvalTimeoutSeconds = t.errApprovalTimeout;
  // The session settings' bounds (backend/settings/sessions.go).
  const perCredential = int(f.sessionsPerCredential);
  if (perCredential === null || perCredential < 1 || perCredential > 100000) errors.sessionsPerCredential = t.errSessionCount;
  const sessionsTotal = int(f.sessionsTotal);
  if (sessionsTotal === null || sessionsTotal < 1 || sessionsTotal > 100000) errors.sessionsTotal = t.errSessionCount;
  const idle = int(f.sessionIdleTimeoutSeconds);
  if (idle === null || idle < 60 || idle > 86400) errors.sessionIdleTimeoutSeconds = t.errSessionIdle;
  if (Object.keys(errors).length > 0) return { errors };
  return {
    settings: {
      ...base,
      port: port!,
      authEnabled: f.authEnabled,
      separator: f.separator,
      retentionDays: retention!,
      timeoutSeconds: timeout!,
      startAtLogin: f.startAtLogin,
      closeToTray: f.closeToTray,
      hookTimeoutSeconds: hookTimeout!,
      hookMemoryMB: hookMemory!,
      approvalTimeoutSeconds: approvalTimeout!,
      sessionsPerCredential: perCredential!,
      sessionsTotal: sessionsTotal!,
      sessionIdleTimeoutSeconds: idle!,
      toolChanges: f.toolChanges,
    },
  };
}

export default function SettingsPage() {
  const t = useMessages();
  const settings = useSettings((s) => s.settings);
  const status = useSettings((s) => s.status);
  const error = useSettings((s) => s.error);
  const load = useSettings((s) => s.load);
  const pageReady = useApp((s) => s.pageReady);

  useEffect(() => {
    if (status === 'idle') void load();
  }, [status, load]);
  useEffect(() => {
    if (settings) pageReady('settings');
  }, [settings, pageReady]);

  return (
    <section className="page" data-testid="settings-page" aria-labelledby="settings-title">
      <header className="page-header">
        <h1 id="settings-title">{t.settingsTitle}</h1>
      </header>
      {status === 'error' && !settings && <LoadError title={t.settingsLoadFailed} message={error} retry={() => void load()} />}
      {!settings && status !== 'error' && (
        <p className="muted" role="status">
          <span className="spinner" /> {t.loadingSettings}
        </p>
      )}
      {settings && (
        <>
          <Appearance settings={settings} />
          <SettingsForm settings={settings} />
          <LogFileCard />
          <ChatSettings />
          <AboutSection />
        </>
      )}
    </section>
  );
}

function Appearance({ settings }: { settings: AppSettings }) {
  const t = useMessages();
  const saveAppearance = useSettings((s) => s.saveAppearance);
  const error = useSettings((s) => s.error);
  return (
    <div className="card">
      <h2>{t.appearance}</h2>
      <div className="row settings-row">
        <label className="field">
          <span>{t.theme}</span>
          <select value={settings.theme} onChange={(e) => void saveAppearance({ theme: e.target.value as Theme })} data-testid="setting-theme">
            {THEMES.map((x) => (
              <option key={x} value={x}>
                {t.themeLabel[x]}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>{t.language}</span>
          <select value={settings.language} onChange={(e) => void saveAppearance({ language: e.target.value as Language })} data-testid="setting-language">
            {LANGUAGES.map((x) => (
              <option key={x} value={x}>
                {t.languageLabel[x]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function SettingsForm({ settings }: { settings: AppSettings }) {
  const t = useMessages();
  const save = useSettings((s) => s.save);
  const [form, setForm] = useState<Form>(() => toForm(settings));
  const [errors, setErrors] = useState<Errors>({});
  const [saveError, setSaveError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [movedTo, setMovedTo] = useState<string | null>(null);
  const loadEndpoint = useTokens((s) => s.loadEndpoint);
  const dirty = JSON.stringify(form) !== JSON.stringify(toForm(settings));

  const set = <K extends keyof Form>(k: K, v: Form[K]) => {
    setForm((old) => ({ ...old, [k]: v }));
    setErrors((old) => ({ ...old, [k]: undefined }));
    setSaved(false);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaveError(null);
    const r = validateSettings(form, settings, t);
    if ('errors' in r) return setErrors(r.errors);
    setBusy(true);
    try {
      const s = await save(r.settings);
      setForm(toForm(s));
      setSaved(true);
      // The endpoint moves to a new port by itself (within a second): say
      // where, so clients set up with the old one can be updated.
      if (s.port !== settings.port) {
        const host = window.location.protocol === 'http:' && window.location.port ? window.location.hostname : '127.0.0.1';
        setMovedTo(`http://${host}:${s.port}/mcp`);
        setTimeout(() => void loadEndpoint(), 1500);
      } else setMovedTo(null);
    } catch (err) {
      setSaveError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  };

  const num = (k: Exclude<keyof Form, 'separator' | 'authEnabled' | 'startAtLogin' | 'closeToTray'>, label: string, hint?: string) => (
    <label className="field">
      <span>{label}</span>
      <input inputMode="numeric" value={form[k]} onChange={(e) => set(k, e.target.value)} aria-invalid={errors[k] ? true : undefined} data-testid={`setting-${k}`} />
      {hint && <span className="field-hint">{hint}</span>}
      {errors[k] && (
        <span className="field-error" role="alert" data-testid={`setting-${k}-error`}>
          {errors[k]}
        </span>
      )}
    </label>
  );
  const check = (k: 'authEnabled' | 'startAtLogin' | 'closeToTray', label: string, hint: string) => (
    <label className="check setting-check">
      <input type="checkbox" checked={form[k]} onChange={(e) => set(k, e.target.checked)} data-testid={`setting-${k}`} />
      <span>
        {label}
        <span className="field-hint block">{hint}</span>
      </span>
    </label>
  );

  return (
    <form className="card settings-form" onSubmit={(e) => void submit(e)} noValidate data-testid="settings-form">
      <h2>{t.routerSettings}</h2>
      <div className="settings-grid">
        {num('port', t.port, t.portHint)}
        <label className="field">
          <span>{t.separator}</span>
          <input value={form.separator} onChange={(e) => set('separator', e.target.value)} aria-invalid={errors.separator ? true : undefined} data-testid="setting-separator" />
          <span className="field-hint">{t.separatorHint(form.separator || '__')}</span>
          {errors.separator && (
            <span className="field-error" role="alert">
              {errors.separator}
            </span>
          )}
        </label>
        {num('timeoutSeconds', t.timeout, t.timeoutHint)}
        {num('retentionDays', t.retention, t.retentionHint)}
        {num('approvalTimeoutSeconds', t.approvalTimeout, t.approvalTimeoutHint)}
        <label className="field">
          <span>{t.toolChangesSetting}</span>
          <select value={form.toolChanges} onChange={(e) => set('toolChanges', e.target.value as ToolChangeMode)} data-testid="setting-toolChanges">
            {TOOL_CHANGE_MODES.map((m) => (
              <option key={m} value={m}>
                {t.toolChangeMode[m]}
              </option>
            ))}
          </select>
          <span className="field-hint">{t.toolChangesSettingHint}</span>
        </label>
      </div>
      {check('authEnabled', t.auth, t.authHint)}
      {check('startAtLogin', t.startAtLogin, t.startAtLoginHint)}
      {check('closeToTray', t.closeToTray, t.closeToTrayHint)}
      <section aria-labelledby="hook-limits-title" data-testid="hook-limits">
        <h3 id="hook-limits-title">{t.hookLimits}</h3>
        <p className="field-hint">{t.hookLimitsHint}</p>
        <div className="settings-grid">
          {num('hookTimeoutSeconds', t.hookTimeout)}
          {num('hookMemoryMB', t.hookMemory)}
        </div>
      </section>
      <section aria-labelledby="session-limits-title" data-testid="session-limits">
        <h3 id="session-limits-title">{t.sessionLimits}</h3>
        <p className="field-hint">{t.sessionLimitsHint}</p>
        <div className="settings-grid">
          {num('sessionsPerCredential', t.sessionsPerCredential)}
          {num('sessionsTotal', t.sessionsTotal)}
          {num('sessionIdleTimeoutSeconds', t.sessionIdleTimeout)}
        </div>
      </section>
      {saveError && (
        <p className="inline-error" role="alert" data-testid="settings-save-error">
          {saveError}
        </p>
      )}
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !dirty} data-testid="settings-save">
          {busy && <span className="spinner" />} {t.save}
        </button>
        {dirty && (
          <button type="button" onClick={() => { setForm(toForm(settings)); setErrors({}); setSaveError(null); }}>
            {t.revert}
          </button>
        )}
        {saved && !dirty && (
          <span className="muted" role="status">
            {t.saved}
          </span>
        )}
      </div>
      {movedTo && (
        <p className="callout" role="status" data-testid="settings-port-moved">
          {t.portMoved(movedTo)}
        </p>
      )}
    </form>
  );
}

/** Where the app writes its log, and a way to get there. */
function LogFileCard() {
  const t = useMessages();
  const logFile = useSettings((s) => s.logFile);
  const loadLogFile = useSettings((s) => s.loadLogFile);
  const openLogFolder = useSettings((s) => s.openLogFolder);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void loadLogFile();
  }, [loadLogFile]);
  if (!logFile) return null;
  return (
    <div className="card" data-testid="log-file">
      <h2>{t.logFileTitle}</h2>
      {logFile.path ? (
        <>
          <p className="muted">{t.logFileIntro}</p>
          <div className="row">
            <code className="endpoint-url" data-testid="log-file-path">
              {logFile.path}
            </code>
            <button
              type="button"
              className="small"
              onClick={() => {
                setError(null);
                openLogFolder().catch((err: unknown) => setError(toApiError(err).message));
              }}
              data-testid="log-file-open"
            >
              {t.openLogFolder}
            </button>
          </div>
          {error && (
            <p className="inline-error" role="alert">
              {error}
            </p>
          )}
        </>
      ) : (
        <p className="muted">{t.logFileNone}</p>
      )}
    </div>
  );
}
