import { useEffect, useState, type FormEvent } from 'react';
import { toApiError, type ClientConfigFile, type Discovery, type GateConfig, type ImportReport, type Isolation, type ProtocolSetting, type ServerConfig, type Transport } from '../api';
import { useMessages, type Messages } from '../i18n';
import { parseJSONC } from '../lib/jsonc';
import { useServers, useSettings } from '../stores';
import { Dialog } from './Dialog';
import { ElectronImport } from './ElectronImport';
import '../pages/pages.css';
import { ServerChatFields, chatOf, cleanChat, type ServerChat } from './ServerChatFields';
import { EntryRows, NeededSecrets, blankRow, entriesOf, rowsOf, type EntryRow } from './SecretEntries';

type Tab = 'json' | 'form' | 'import';

export interface FormValues {
  name: string;
  transport: Transport;
  command: string;
  /** One argument per line. */
  args: string;
  /** One row per variable, each with its secret toggle (SecretEntries.tsx). */
  env: EntryRow[];
  cwd: string;
  url: string;
  /** One row per header, each with its secret toggle. */
  headers: EntryRow[];
  enabled: boolean;
  /** Seconds; empty: the timeout setting. */
  timeout: string;
  gateEnabled: boolean;
  gateMessage: string;
  gateInitTool: string;
  /** A JSON object, or empty. */
  gateInitArgs: string;
  /** name=/absolute/path per line. */
  gateInitArgFiles: string;
  gateOverviewTool: string;
  gateHideTools: boolean;
  /** HTTP/SSE only: a client's X-Upstream-Authorization goes upstream (docs/auth.md). */
  passUpstreamAuth: boolean;
  /** One instance for every client, or one per client (docs/perclient.md). */
  isolation: Isolation;
  /** The revision of the router's connection to the server (docs/endpoint.md). */
  protocol: ProtocolSetting;
}

export type FormErrors = Partial<Record<keyof FormValues, string>>;

export const emptyForm: FormValues = {
  name: '',
  transport: 'stdio',
  command: '',
  args: '',
  env: [blankRow()],
  cwd: '',
  url: '',
  headers: [blankRow()],
  enabled: true,
  timeout: '',
  gateEnabled: false,
  gateMessage: '',
  gateInitTool: '',
  gateInitArgs: '',
  gateInitArgFiles: '',
  gateOverviewTool: '',
  gateHideTools: false,
  passUpstreamAuth: false,
  isolation: 'shared',
  protocol: 'auto',
};

export function configToForm(c: ServerConfig): FormValues {
  return {
    name: c.name,
    transport: c.transport,
    command: c.command ?? '',
    args: (c.args ?? []).join('\n'),
    env: withBlank(rowsOf(c.env, c.secretEnv)),
    cwd: c.cwd ?? '',
    url: c.url ?? '',
    headers: withBlank(rowsOf(c.headers, c.secretHeaders)),
    enabled: c.enabled,
    timeout: c.timeoutSeconds ? String(c.timeoutSeconds) : '',
    gateEnabled: c.gate?.enabled ?? false,
    gateMessage: c.gate?.message ?? '',
    gateInitTool: c.gate?.initTool ?? '',
    gateInitArgs: c.gate?.initArgs ? JSON.stringify(c.gate.initArgs, null, 2) : '',
    gateInitArgFiles: Object.entries(c.gate?.initArgFiles ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    gateOverviewTool: c.gate?.overviewTool ?? '',
    gateHideTools: c.gate?.hideTools ?? false,
    passUpstreamAuth: c.passUpstreamAuth === true,
    isolation: c.isolation === 'per-client' ? 'per-client' : 'shared',
    protocol: c.protocol ?? 'auto',
  };
}

const withBlank = (rows: EntryRow[]) => (rows.length > 0 ? rows : [blankRow()]);

const absolutePath = (p: string) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');

/** The gate from the form, or undefined when nothing about it is set; errors go into `errors`. */
function gateFromForm(v: FormValues, t: Messages, errors: FormErrors): GateConfig | undefined {
  const gate: GateConfig = { enabled: v.gateEnabled };
  const message = v.gateMessage.trim();
  const initTool = v.gateInitTool.trim();
  const overview = v.gateOverviewTool.trim();
  if (message) gate.message = message;
  if (initTool) gate.initTool = initTool;
  if (overview) gate.overviewTool = overview;
  if (v.gateHideTools) gate.hideTools = true;
  if (v.gateInitArgs.trim()) {
    const r = parseJSONC(v.gateInitArgs);
    if (!r.ok || typeof r.value !== 'object' || r.value === null || Array.isArray(r.value)) errors.gateInitArgs = t.errGateArgs;
    else gate.initArgs = r.value as Record<string, unknown>;
  }
  const files: Record<string, string> = {};
  const all = v.gateInitArgFiles.split('\n');
  for (let i = 0; i < all.length; i++) {
    const l = all[i]!.trim();
    if (l === '') continue;
    const at = l.indexOf('=');
    const key = l.slice(0, at).trim();
    const path = l.slice(at + 1).trim();
    if (at <= 0 || !key || !absolutePath(path)) {
      errors.gateInitArgFiles = t.errGateFileLine(i + 1);
      break;
    }
    files[key] = path;
  }
  if (Object.keys(files).length > 0) gate.initArgFiles = files;
  if ((gate.initArgs || gate.initArgFiles) && !initTool) errors.gateInitTool = t.errGateNeedsTool;
  const set = gate.enabled || message || initTool || overview || gate.hideTools || gate.initArgs || gate.initArgFiles;
  return set ? gate : undefined;
}

const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** Checks the form; returns the config to send or the errors per field. */
export function validateForm(
  v: FormValues,
  t: Messages,
  existing: string[],
  base?: ServerConfig,
): { config: ServerConfig } | { errors: FormErrors } {
  const errors: FormErrors = {};
  const name = v.name.trim();
  if (!name) errors.name = t.errNameRequired;
  else if (!/^[A-Za-z0-9._-]+$/.test(name)) errors.name = t.errNameChars;
  else if (existing.includes(name) && name !== base?.name) errors.name = t.errNameTaken(name);

  const cfg: ServerConfig = {
    ...(base ?? {}),
    name,
    transport: v.transport,
    enabled: v.enabled,
    prefixMode: base?.prefixMode ?? 'always',
  };
  const timeout = v.timeout.trim();
  if (timeout === '') delete cfg.timeoutSeconds;
  else if (!/^\d+$/.test(timeout) || Number(timeout) < 1 || Number(timeout) > 86400) errors.timeout = t.errTimeoutField;
  else cfg.timeoutSeconds = Number(timeout);
  const gate = gateFromForm(v, t, errors);
  if (gate) cfg.gate = gate;
  else delete cfg.gate;
  // Shared is stored as absent, as the CLI stores it.
  if (v.isolation === 'per-client') cfg.isolation = 'per-client';
  else delete cfg.isolation;
  // Auto is stored as absent, as the CLI stores it.
  if (v.protocol === 'auto') delete cfg.protocol;
  else cfg.protocol = v.protocol;
  if (v.protocol === '2026-07-28' && v.transport === 'sse') errors.protocol = t.errProtocolSSE;
  if (v.transport === 'stdio') {
    if (!v.command.trim()) errors.command = t.errCommandRequired;
    const env = entriesOf(v.env, 'env', t);
    if ('error' in env) errors.env = env.error;
    else {
      cfg.env = env.map;
      if (env.secret.length > 0) cfg.secretEnv = env.secret;
      else delete cfg.secretEnv;
    }
    cfg.command = v.command.trim();
    cfg.args = lines(v.args);
    cfg.cwd = v.cwd.trim() || undefined;
    delete cfg.url;
    delete cfg.headers;
    delete cfg.secretHeaders;
    delete cfg.passUpstreamAuth; // the router refuses it for stdio servers
  } else {
    const url = v.url.trim();
    if (!url) errors.url = t.errUrlRequired;
    else {
      try {
        const u = new URL(url);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') errors.url = t.errUrlScheme;
      } catch {
        errors.url = t.errUrlInvalid;
      }
    }
    const headers = entriesOf(v.headers, 'header', t);
    if ('error' in headers) errors.headers = headers.error;
    else {
      cfg.headers = headers.map;
      if (headers.secret.length > 0) cfg.secretHeaders = headers.secret;
      else delete cfg.secretHeaders;
    }
    cfg.url = url;
    if (v.passUpstreamAuth) cfg.passUpstreamAuth = true;
    else delete cfg.passUpstreamAuth;
    delete cfg.command;
    delete cfg.args;
    delete cfg.env;
    delete cfg.secretEnv;
    delete cfg.cwd;
  }
  return Object.keys(errors).length > 0 ? { errors } : { config: cfg };
}

/**
 * Checks pasted JSON before sending: it must parse (comments and trailing
 * commas allowed) and hold `mcpServers` or `servers`. Returns an error message
 * or null.
 */
export function checkPastedJSON(text: string, t: Messages): string | null {
  if (!text.trim()) return t.errJsonEmpty;
  const r = parseJSONC(text);
  if (!r.ok) return t.errJsonParse(r.line, r.column, r.message);
  const v = r.value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return t.errJsonShape;
  const servers = v.mcpServers ?? v.servers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) return t.errJsonShape;
  if (Object.keys(servers).length === 0) return t.errJsonNoServers;
  return null;
}

export function ServerDialog({ editing, onClose }: { editing?: string; onClose: () => void }) {
  const t = useMessages();
  const [tab, setTab] = useState<Tab>(editing ? 'form' : 'json');
  const title = editing ? t.editServerTitle(editing) : t.addServerTitle;
  return (
    <Dialog title={title} onClose={onClose} testId="server-dialog" closeOnBackdrop={false}>
      {!editing && (
        <div className="tabs" role="tablist">
          {(['json', 'form', 'import'] as const).map((k) => (
            <button key={k} type="button" role="tab" aria-selected={tab === k} onClick={() => setTab(k)} data-testid={`add-tab-${k}`}>
              {k === 'json' ? t.addTabJson : k === 'form' ? t.addTabForm : t.addTabImport}
            </button>
          ))}
        </div>
      )}
      {/* Every tab stays mounted so switching never loses what was typed. */}
      <div hidden={tab !== 'json'}>{!editing && <PasteJSON onDone={onClose} />}</div>
      <div hidden={tab !== 'form'}>
        <ServerForm editing={editing} onDone={onClose} />
      </div>
      <div hidden={tab !== 'import'}>{!editing && tab === 'import' && <ImportFile onDone={onClose} />}</div>
    </Dialog>
  );
}

function Report({ report }: { report: ImportReport }) {
  const t = useMessages();
  return (
    <div className="report" data-testid="import-report" role="status">
      {report.added.length > 0 && <p>{t.importAdded(report.added.join(', '))}</p>}
      {report.skipped.length > 0 && (
        <>
          <p className="inline-error">{t.importSkipped(report.skipped.length)}</p>
          <ul className="inline-error">
            {report.skipped.map((s) => (
              <li key={s.name}>
                <strong>{s.name}</strong>: {s.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {report.added.length === 0 && report.skipped.length === 0 && <p>{t.importNothing}</p>}
      {report.needsSecrets.length > 0 && <NeededSecrets refs={report.needsSecrets} />}
    </div>
  );
}

const SAMPLE = `{
  "mcpServers": {
    "everything": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"]
    }
  }
}`;

function PasteJSON({ onDone }: { onDone: () => void }) {
  const t = useMessages();
  const importJSON = useServers((s) => s.importJSON);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problem = checkPastedJSON(text, t);
    setError(problem);
    setReport(null);
    if (problem) return;
    setBusy(true);
    try {
      const r = await importJSON(text);
      setReport(r);
      // Close only when everything went in and nothing is left to ask;
      // otherwise keep the text and say why (or ask for the secret values).
      if (r.skipped.length === 0 && r.added.length > 0 && r.needsSecrets.length === 0) onDone();
    } catch (err) {
      setError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)}>
      <label className="field">
        <span>{t.pasteLabel}</span>
        <textarea
          rows={12}
          value={text}
          spellCheck={false}
          placeholder={SAMPLE}
          aria-invalid={error ? true : undefined}
          onChange={(e) => setText(e.target.value)}
          data-testid="paste-json"
        />
        <span className="field-hint">{t.pasteHint}</span>
      </label>
      {error && (
        <p className="inline-error" role="alert" data-testid="paste-error">
          {error}
        </p>
      )}
      {report && <Report report={report} />}
      <div className="dialog-actions">
        <button type="button" onClick={onDone}>
          {report ? t.close : t.cancel}
        </button>
        <button type="submit" className="primary" disabled={busy} data-testid="paste-submit">
          {busy && <span className="spinner" />} {t.addServers}
        </button>
      </div>
    </form>
  );
}

function ServerForm({ editing, onDone }: { editing?: string; onDone: () => void }) {
  const t = useMessages();
  const servers = useServers((s) => s.servers);
  const add = useServers((s) => s.add);
  const update = useServers((s) => s.update);
  const getConfig = useServers((s) => s.getConfig);
  const discover = useServers((s) => s.discover);
  const [discovering, setDiscovering] = useState(false);
  const [discovery, setDiscovery] = useState<Discovery | null>(null);
  const [discoverError, setDiscoverError] = useState<string | null>(null);
  const [values, setValues] = useState<FormValues>(emptyForm);
  const [base, setBase] = useState<ServerConfig | undefined>();
  const [loading, setLoading] = useState(!!editing);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [errors, setErrors] = useState<FormErrors>({});
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const settings = useSettings((s) => s.settings);
  const settingsStatus = useSettings((s) => s.status);
  const loadSettings = useSettings((s) => s.load);
  const settingTimeout = settings?.timeoutSeconds ?? 60;
  // Open when the server's gate is on; then only the user folds it (turning
  // the gate off must not fold the fields away under the pointer).
  const [gateOpen, setGateOpen] = useState(false);
  const [chat, setChat] = useState<ServerChat>({}); // ServerChatFields.tsx

  useEffect(() => {
    if (settingsStatus === 'idle') void loadSettings();
  }, [settingsStatus, loadSettings]);

  useEffect(() => {
    if (!editing) return;
    let live = true;
    getConfig(editing).then(
      (c) => {
        if (!live) return;
        setBase(c);
        setValues(configToForm(c));
        setGateOpen(c.gate?.enabled ?? false);
        setChat(chatOf(c));
        setLoading(false);
      },
      (err: unknown) => {
        if (!live) return;
        setLoadError(toApiError(err).message);
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [editing, getConfig]);

  const set = <K extends keyof FormValues>(k: K, v: FormValues[K]) => {
    setValues((old) => ({ ...old, [k]: v }));
    if (errors[k]) setErrors((old) => ({ ...old, [k]: undefined }));
  };

  // "Find endpoint": discovery behind the URL typed (a bare base URL);
  // what it finds goes into the URL and transport, what it tried is shown.
  const findEndpoint = async () => {
    setDiscoverError(null);
    setDiscovery(null);
    setDiscovering(true);
    try {
      const d = await discover(values.url.trim());
      setDiscovery(d);
      if (d.endpoint && d.transport) {
        const endpoint = d.endpoint;
        const transport = d.transport;
        setValues((old) => ({ ...old, url: endpoint, transport }));
        if (errors.url) setErrors((old) => ({ ...old, url: undefined }));
      }
    } catch (err) {
      setDiscoverError(toApiError(err).message);
    } finally {
      setDiscovering(false);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitError(null);
    const r = validateForm(values, t, servers.map((s) => s.name), base);
    if ('errors' in r) {
      setErrors(r.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    const config = { ...r.config, chat: cleanChat(chat) };
    try {
      if (editing) await update(editing, config);
      else await add(config);
      onDone();
    } catch (err) {
      setSubmitError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  };

  if (loading) return <p className="muted">{t.loadingConfig}</p>;
  if (loadError)
    return (
      <p className="inline-error" role="alert">
        {loadError}
      </p>
    );

  const field = (k: keyof FormValues, label: string, input: React.ReactNode, hint?: string, required?: boolean) => (
    <label className="field">
      <span className={required ? 'required' : undefined}>{label}</span>
      {input}
      {hint && <span className="field-hint">{hint}</span>}
      {errors[k] && (
        <span className="field-error" role="alert" data-testid={`form-error-${k}`}>
          {errors[k]}
        </span>
      )}
    </label>
  );
  // A field of several inputs (the env and header rows): a group, not a label.
  const group = (k: 'env' | 'headers', label: string, input: React.ReactNode, hint: string) => (
    <div className="field" role="group" aria-label={label}>
      <span className="field-label">{label}</span>
      {input}
      <span className="field-hint">{hint}</span>
      {errors[k] && (
        <span className="field-error" role="alert" data-testid={`form-error-${k}`}>
          {errors[k]}
        </span>
      )}
    </div>
  );
  const text = (k: 'name' | 'command' | 'cwd' | 'url' | 'timeout' | 'gateMessage' | 'gateInitTool' | 'gateOverviewTool', placeholder?: string) => (
    <input
      value={values[k]}
      placeholder={placeholder}
      aria-invalid={errors[k] ? true : undefined}
      onChange={(e) => set(k, e.target.value)}
      data-testid={`form-${k}`}
      spellCheck={false}
    />
  );
  const area = (k: 'args' | 'gateInitArgs' | 'gateInitArgFiles', placeholder: string) => (
    <textarea
      rows={3}
      value={values[k]}
      placeholder={placeholder}
      aria-invalid={errors[k] ? true : undefined}
      onChange={(e) => set(k, e.target.value)}
      data-testid={`form-${k}`}
      spellCheck={false}
    />
  );

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      {field('name', t.fieldName, text('name', 'everything'), t.fieldNameHint, true)}
      <div className="field">
        <span className="field-label">{t.fieldTransport}</span>
        <div className="row" role="radiogroup">
          {(['stdio', 'http', 'sse'] as const).map((tr) => (
            <label key={tr} className="check">
              <input type="radio" name="transport" checked={values.transport === tr} onChange={() => set('transport', tr)} data-testid={`form-transport-${tr}`} />
              {tr === 'stdio' ? t.transportStdio : tr === 'http' ? t.transportHttp : t.transportSse}
            </label>
          ))}
        </div>
      </div>
      {values.transport === 'stdio' ? (
        <>
          {field('command', t.fieldCommand, text('command', 'npx'), undefined, true)}
          {field('args', t.fieldArgs, area('args', '-y\n@modelcontextprotocol/server-everything'), t.fieldArgsHint)}
          {group('env', t.fieldEnv, <EntryRows kind="env" rows={values.env} onChange={(rows) => set('env', rows)} invalid={!!errors.env} />, t.fieldEnvHint)}
          {field('cwd', t.fieldCwd, text('cwd'))}
        </>
      ) : (
        <>
          {field('url', t.fieldUrl, text('url', 'http://127.0.0.1:9000/mcp'), t.discoverHint, true)}
          <div className="row">
            <button type="button" onClick={() => void findEndpoint()} disabled={discovering || !values.url.trim()} data-testid="form-discover">
              {discovering ? t.discoverBusy : t.discoverButton}
            </button>
          </div>
          {discoverError && (
            <p className="inline-error" role="alert" data-testid="discover-error">
              {discoverError}
            </p>
          )}
          {discovery && (
            <div className="field-hint" data-testid="discover-result">
              <p>
                {discovery.endpoint
                  ? t.discoverFound(discovery.endpoint, discovery.transport === 'sse' ? t.transportSse : t.transportHttp)
                  : t.discoverNone}
                {discovery.needsAuth && ' ' + t.discoverNeedsAuth(discovery.authorizationServers.join(', '))}
              </p>
              <ul data-testid="discover-steps">
                {discovery.steps.map((st, i) => (
                  <li key={i}>
                    {st.ok ? '✓' : '✗'} {st.what} {st.url}: {st.result}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {group(
            'headers',
            t.fieldHeaders,
            <EntryRows kind="header" rows={values.headers} onChange={(rows) => set('headers', rows)} invalid={!!errors.headers} />,
            t.fieldHeadersHint,
          )}
          <label className="check">
            <input
              type="checkbox"
              checked={values.passUpstreamAuth}
              onChange={(e) => set('passUpstreamAuth', e.target.checked)}
              data-testid="form-passUpstreamAuth"
            />
            {t.fieldPassUpstreamAuth}
          </label>
          <p className="field-hint">{t.fieldPassUpstreamAuthHint}</p>
        </>
      )}
      {field('timeout', t.fieldTimeout, text('timeout', String(settingTimeout)), t.fieldTimeoutHint(settingTimeout))}
      {field(
        'isolation',
        t.fieldIsolation,
        <select value={values.isolation} onChange={(e) => set('isolation', e.target.value as Isolation)} data-testid="form-isolation">
          <option value="shared">{t.isolationShared}</option>
          <option value="per-client">{t.isolationPerClient}</option>
        </select>,
        t.fieldIsolationHint,
      )}
      {field(
        'protocol',
        t.fieldProtocol,
        <select value={values.protocol} onChange={(e) => set('protocol', e.target.value as ProtocolSetting)} data-testid="form-protocol">
          <option value="auto">{t.protocolAuto}</option>
          <option value="2025-11-25">2025-11-25</option>
          <option value="2026-07-28">2026-07-28</option>
        </select>,
        t.fieldProtocolHint,
      )}
      <label className="check">
        <input type="checkbox" checked={values.enabled} onChange={(e) => set('enabled', e.target.checked)} />
        {t.fieldEnabled}
      </label>
      <details className="gate-fields" open={gateOpen} onToggle={(e) => setGateOpen(e.currentTarget.open)} data-testid="form-gate">
        <summary>{t.gateTitle}</summary>
        <p className="field-hint">{t.gateIntro}</p>
        <label className="check">
          <input type="checkbox" checked={values.gateEnabled} onChange={(e) => set('gateEnabled', e.target.checked)} data-testid="form-gateEnabled" />
          {t.gateEnabled}
        </label>
        {field('gateMessage', t.gateMessage, text('gateMessage'), t.gateMessageHint)}
        {field('gateInitTool', t.gateInitTool, text('gateInitTool', 'execute_code'), t.gateInitToolHint)}
        {field('gateInitArgs', t.gateInitArgs, area('gateInitArgs', '{"mode": "init"}'))}
        {field('gateInitArgFiles', t.gateInitArgFiles, area('gateInitArgFiles', 'code=/home/me/init.js'), t.gateInitArgFilesHint)}
        {field('gateOverviewTool', t.gateOverviewTool, text('gateOverviewTool', 'high_level_overview'), t.gateOverviewToolHint)}
        <label className="check">
          <input type="checkbox" checked={values.gateHideTools} onChange={(e) => set('gateHideTools', e.target.checked)} data-testid="form-gateHideTools" />
          {t.gateHideTools}
        </label>
      </details>
      <ServerChatFields value={chat} onChange={setChat} />
      {submitError && (
        <p className="inline-error" role="alert" data-testid="form-submit-error">
          {submitError}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onDone}>
          {t.cancel}
        </button>
        <button type="submit" className="primary" disabled={busy} data-testid="form-submit">
          {busy && <span className="spinner" />} {editing ? t.save : t.addServer}
        </button>
      </div>
    </form>
  );
}

function ImportFile({ onDone }: { onDone: () => void }) {
  const t = useMessages();
  const clientConfigs = useServers((s) => s.clientConfigs);
  const importFile = useServers((s) => s.importFile);
  const [files, setFiles] = useState<ClientConfigFile[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [result, setResult] = useState<{ path: string; report?: ImportReport; error?: string } | null>(null);

  const load = () => {
    setLoadError(null);
    setFiles(null);
    clientConfigs().then(setFiles, (err: unknown) => setLoadError(toApiError(err).message));
  };
  useEffect(load, [clientConfigs]);

  const run = async (path: string) => {
    setBusy(path);
    setResult(null);
    try {
      setResult({ path, report: await importFile(path) });
    } catch (err) {
      setResult({ path, error: toApiError(err).message });
    } finally {
      setBusy(null);
    }
  };

  return (
    <div>
      <p className="muted">{t.importIntro}</p>
      {loadError && (
        <div className="callout callout-error" role="alert">
          <span>{loadError}</span>
          <button type="button" onClick={load}>
            {t.retry}
          </button>
        </div>
      )}
      {!files && !loadError && (
        <p className="muted">
          <span className="spinner" /> {t.importSearching}
        </p>
      )}
      {files && files.length === 0 && <p className="muted">{t.importNone}</p>}
      {files && files.length > 0 && (
        <table className="data">
          <tbody>
            {files.map((f) => (
              <tr key={f.path}>
                <td>
                  <strong>{f.client}</strong>
                  <span className="item-sub mono">{f.path}</span>
                  {f.error && <span className="field-error">{f.error}</span>}
                </td>
                <td className="num">{t.importServers(f.servers)}</td>
                <td>
                  <button type="button" className="small" disabled={busy !== null || f.servers === 0 || !!f.error} onClick={() => void run(f.path)}>
                    {busy === f.path && <span className="spinner" />} {t.importButton}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {result?.error && (
        <p className="inline-error" role="alert">
          {result.error}
        </p>
      )}
      {result?.report && <Report report={result.report} />}
      <ElectronImport />
      <div className="dialog-actions">
        <button type="button" onClick={onDone}>
          {t.close}
        </button>
      </div>
    </div>
  );
}
