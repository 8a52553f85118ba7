// The shapes the UI works with, as docs/ui-api.md defines them. Values are
// checked once at the boundary (convert.ts), so pages get exact unions.
// Imports flow one way: base.ts ← about/approvals/chat.ts ← types.ts.
import type { AboutApi } from './about';
import type { MetricsApi } from './metrics';
import type { ApprovalsApi } from './approvals';
import type { ProfilesApi } from './profiles';
import type { ElectronImportApi } from './electron';
import type { BundleInfo, BundlesApi } from './bundles';
import type { RegistryApi } from './registry';
import { ApiError, type Unsubscribe } from './base';
import type { ChatApi } from './chat';

export { ApiError, type Unsubscribe };

// builtin: a server that runs inside the router (state_gate); no form edits it.
export const TRANSPORTS = ['stdio', 'http', 'sse', 'builtin'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export const SERVER_STATES = ['stopped', 'starting', 'running', 'restarting', 'errored', 'needs_login'] as const;
export type ServerState = (typeof SERVER_STATES)[number];

export const PREFIX_MODES = ['always', 'never'] as const;
export type PrefixMode = (typeof PREFIX_MODES)[number];

export const ISOLATIONS = ['shared', 'per-client'] as const;
export type Isolation = (typeof ISOLATIONS)[number];

/** A server's protocol setting (docs/endpoint.md, "Protocol revisions"); auto is stored as absent. */
export const PROTOCOL_SETTINGS = ['auto', '2025-11-25', '2026-07-28'] as const;
export type ProtocolSetting = (typeof PROTOCOL_SETTINGS)[number];

/** One running instance of a per-client server (docs/perclient.md). */
export interface InstanceView {
  id: number;
  /** Who it serves: the client's name, its token, a short id. */
  client: string;
  /** Its process; 0 for an HTTP session. */
  pid: number;
  /** Started, ms since the epoch. */
  since: number;
  calls: number;
  state: ServerState;
}

/** A shared server asked its client something while `clients` clients used it. */
export interface PerClientSuggestion {
  what: string;
  clients: number;
  at: number;
}

/** Why a server left to `start: auto` is lazy (docs/lazy.md). */
export type LazyWhy = 'gated' | 'search-only';

export interface ServerView {
  name: string;
  transport: Transport;
  enabled: boolean;
  state: ServerState;
  /** When the state last changed, ms since the epoch; 0 when the router does not say. */
  stateSince: number;
  /** Why the server is errored; empty when it is not. */
  error?: string;
  restarts: number;
  tools: number;
  /** Command line (stdio) or URL (http, sse). */
  target: string;
  prefixMode: PrefixMode;
  /** An OAuth login of this HTTP/SSE server is stored and holds (Log out is offered). */
  loggedIn: boolean;
  /** The MCP revision of the router's connection to it (e.g. 2025-11-25); empty until it first connected. */
  protocol: string;
  /** The revisions the server named in its answer to server/discover; empty when it has none or was not asked. */
  protocolsOffered: string[];
  /** A client's X-Upstream-Authorization goes to it (passUpstreamAuth): the Connect page offers it a value. */
  passUpstreamAuth: boolean;
  /** Starts on its first call and stops when idle (docs/lazy.md). */
  lazy: boolean;
  /** Why its auto start made it lazy; absent when it was set lazy, or is not lazy. */
  lazyWhy?: LazyWhy;
  /** shared, or per-client: one instance per client. */
  isolation: Isolation;
  /** A per-client server's running instances. */
  instances: InstanceView[];
  /** Set when this shared server should be per-client (the page offers it). */
  suggestPerClient?: PerClientSuggestion;
  /** The .mcpb bundle the server was installed from (docs/bundles.md). */
  bundle?: BundleInfo;
}

/** LoginServer's answer: the authorization URL and how the router registered. */
export interface LoginStart {
  url: string;
  registration: string;
}

/** spec.Server JSON. Unknown fields the Go side adds are kept as they came. */
export interface ServerConfig {
  name: string;
  transport: Transport;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /**
   * The env (headers) entries whose values are secret: the router keeps the
   * value in the OS keychain and shows the entry's value as its placeholder,
   * SECRET_PLACEHOLDER(name). Sent with a value, the value is stored; with
   * the placeholder (or empty), the stored one is kept.
   */
  secretEnv?: string[];
  secretHeaders?: string[];
  enabled: boolean;
  prefixMode: PrefixMode;
  /** Absent or 0: the timeout setting. */
  timeoutSeconds?: number;
  disabledTools?: string[];
  gate?: GateConfig;
  /** HTTP/SSE only: a client's X-Upstream-Authorization is sent as this server's Authorization. */
  passUpstreamAuth?: boolean;
  /** Absent or shared: one instance for every client; per-client: one per client. */
  isolation?: Isolation;
  /** The revision of the router's connection to it: absent is auto; 2025-11-25 pins the handshake; 2026-07-28 requires that revision. */
  protocol?: Exclude<ProtocolSetting, 'auto'>;
  [extra: string]: unknown;
}

/** spec.Gate JSON: the activate gate of a server (docs/gate.md). */
export interface GateConfig {
  enabled: boolean;
  message?: string;
  initTool?: string;
  /** The init tool's arguments, a JSON object. */
  initArgs?: Record<string, unknown>;
  /** Argument name → absolute path of a file read at each activation. */
  initArgFiles?: Record<string, string>;
  overviewTool?: string;
  hideTools?: boolean;
}

export interface ImportReport {
  added: string[];
  skipped: { name: string; reason: string }[];
  /** Secret entries of added servers that have no value yet: the UI asks for them (setServerSecret). */
  needsSecrets: SecretRef[];
}

export const SECRET_KINDS = ['env', 'header'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

/** One secret env or header entry of one server. */
export interface SecretRef {
  server: string;
  kind: SecretKind;
  name: string;
}

/** What stands for a secret value wherever the router shows a definition (spec.SecretPlaceholder). */
export const secretPlaceholder = (name: string) => '${secret:' + name + '}';

/**
 * Names suggested as secret (*_KEY, *_TOKEN, *_SECRET, *PASSWORD*,
 * Authorization, …): the same pattern as the router's spec.LooksSecret.
 */
const SECRET_NAME =
  /(^|[_-])(KEY|TOKEN|SECRET)$|PASSWORD|PASSWD|^AUTHORIZATION$|^PROXY-AUTHORIZATION$|API[_-]?KEY|ACCESS[_-]?KEY|PRIVATE[_-]?KEY|CREDENTIALS?$/i;
export const looksSecret = (name: string) => SECRET_NAME.test(name.trim());

/** One thing discovery tried (docs/discovery.md). */
export interface DiscoveryStep {
  what: string;
  url: string;
  ok: boolean;
  result: string;
}

/** What discovery found behind a bare base URL; endpoint undefined: nothing answered. */
export interface Discovery {
  input: string;
  endpoint?: string;
  transport?: 'http' | 'sse';
  needsAuth: boolean;
  authorizationServers: string[];
  name?: string;
  steps: DiscoveryStep[];
}

export interface ClientConfigFile {
  client: string;
  path: string;
  servers: number;
  /** Why the file cannot be imported as it is (the router adds this to the contract's fields). */
  error?: string;
}

export interface ServerTool {
  name: string;
  description: string;
  enabled: boolean;
  finalName: string;
}

export interface AggregatedTool {
  /** The final (aggregated) name clients call. */
  name: string;
  server: string;
  /** The upstream's own name. */
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A tool of a server that is not running, as the persisted catalog last saw it. */
export interface CatalogTool {
  server: string;
  /** The server's state now (stopped, error, starting, …). */
  state: string;
  /** The upstream's own name. */
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** When its server last listed it. */
  seenAt: string;
  /** A change of it waits for a person. */
  changed: boolean;
}

/** A tool an upstream changed after it was first seen, waiting for a person (docs/tools.md). */
export interface ToolChange {
  server: string;
  /** The upstream's own name. */
  tool: string;
  oldHash: string;
  /** What acceptToolChange takes: the definition the person saw. */
  newHash: string;
  /** The accepted definition (indented JSON). */
  old: string;
  /** The changed definition. */
  new: string;
  /** Unified diff, old to new. */
  diff: string;
  changedAt: string;
  /** Withheld from clients until accepted (toolChanges: hold). */
  held: boolean;
}

/** One MCP content block as the upstream sent it. */
export type ContentBlock = { type: string; [k: string]: unknown };

export interface ToolCallResult {
  content: ContentBlock[];
  isError: boolean;
  structuredContent?: unknown;
  durationMs: number;
  /** A protocol error (the call failed rather than returning isError). */
  error?: string;
}

export const HOOK_TYPES = ['pre', 'post', 'both'] as const;
export type HookType = (typeof HOOK_TYPES)[number];

export interface HookView {
  id: number;
  name: string;
  enabled: boolean;
  executionOrder: number;
  hookType: HookType;
  script: string;
  failClosed: boolean;
  updatedAt: string;
  /**
   * The stored row cannot be read as a hook (which columns): the hook never
   * runs until it is saved again or removed. Its unreadable fields come as
   * the editor's defaults (hookType "pre" when the stored one is none).
   */
  loadError?: string;
}

export interface HookInput {
  id: number;
  name: string;
  enabled: boolean;
  hookType: HookType;
  script: string;
  failClosed: boolean;
}

export interface ScriptProblem {
  line: number;
  column: number;
  message: string;
}

/** policy.yaml on the Policy page (GetPolicy). */
export interface PolicyView {
  path: string;
  /** The file's text; "" when it does not exist. */
  source: string;
  status: PolicyStatus;
}

export interface PolicyStatus {
  path: string;
  exists: boolean;
  /** A policy is in force (the file's, or the last good one). */
  active: boolean;
  rules: number;
  loadedAt?: string;
  /** The file on disk does not load: its problems. */
  problems: PolicyProblem[];
  errorAt?: string;
}

/** 1-based; 0 when the problem is not at one place. */
export interface PolicyProblem {
  line: number;
  column: number;
  message: string;
}

/** One call an audit rule recorded (AuditRows). */
export interface AuditRow {
  id: number;
  time: string;
  client: string;
  subject?: string;
  server: string;
  tool: string;
  target: string;
  policies: string;
  arguments: string;
  status: 'ok' | 'error' | 'blocked';
  result?: string;
  error?: string;
  prevHash: string;
  hash: string;
}

export interface AuditPage {
  rows: AuditRow[];
  /** The next (older) page's cursor; 0 at the end. */
  before: number;
}

export interface AuditReport {
  rows: number;
  head: string;
  problems: string[];
}

export interface HookTestResult {
  result: unknown;
  console: string[];
  error?: string;
  durationMs: number;
}

/** A client token reaches the MCP endpoint only; an admin token also opens the browser UI. */
export const TOKEN_ROLES = ['client', 'admin'] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];
/** The command that makes an admin token (the UI itself makes client tokens only). */
export const ADMIN_TOKEN_COMMAND = 'mcp-router tokens create NAME --admin';

export interface TokenView {
  id: number;
  name: string;
  prefix: string;
  servers: string[];
  role: TokenRole;
  /** Roles of the token's own, which state_gate matches (roles: [reviewer]); they never widen its reach. */
  roles: string[];
  /** The profile the token is bound to ("" none): it reaches /mcp/<profile> only. */
  profile: string;
  createdAt: string;
  lastUsedAt?: string;
  revokedAt?: string;
}

export interface CreatedToken {
  token: string;
  view: TokenView;
}

export const SNIPPET_CLIENTS = [
  'claude-code',
  'claude-desktop',
  'cursor',
  'vscode',
  'codex',
  'gemini',
  'windsurf',
  'cline',
  'lmstudio',
  'zed',
  'opencode',
  'continue',
] as const;
export type SnippetClient = (typeof SNIPPET_CLIENTS)[number];
/** The clients whose config file "Add to client" writes: all of them. */
export const ADDABLE_CLIENTS: readonly SnippetClient[] = SNIPPET_CLIENTS;
/** The clients that install a server from a link. */
export const LINK_CLIENTS: readonly SnippetClient[] = ['cursor', 'vscode', 'lmstudio'];

/** What "Add to client" would change in the client's config file. */
export interface ClientAddPlan {
  client: string;
  path: string;
  /** false: the file is created. */
  exists: boolean;
  /** The router's entry is there and is replaced. */
  replaces: boolean;
  /** The file already holds exactly this entry. */
  unchanged: boolean;
  /** Unified diff, old → new. */
  diff: string;
}

export interface ClientAddResult {
  path: string;
  /** The copy of the old file; "" when the file was new. */
  backup: string;
}
export const SNIPPET_MODES = ['http', 'stdio'] as const;
export type SnippetMode = (typeof SNIPPET_MODES)[number];

export interface LogFileInfo {
  /** Empty when this router writes no log file (`mcp-router serve`). */
  path: string;
  folder: string;
}

export interface EndpointStatus {
  url: string;
  running: boolean;
  authEnabled: boolean;
  error?: string;
}

export const LOG_STATUSES = ['ok', 'error', 'blocked'] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

export interface LogQuery {
  client?: string;
  server?: string;
  method?: string;
  status?: LogStatus;
  /** RFC 3339. */
  since?: string;
  until?: string;
  beforeId?: number;
  limit?: number;
}

export interface LogRow {
  id: number;
  time: string;
  client: string;
  server: string;
  method: string;
  target: string;
  durationMs: number;
  status: LogStatus;
  error?: string;
  /** A call of an ability: the server's own name of the tool it was routed to (on server). */
  backendTool?: string;
  /** The per-client instance that served it ("#3 (pid 4242)"). */
  instance?: string;
}

export interface LogPage {
  rows: LogRow[];
  /** Absent on the last page. */
  nextBeforeId?: number;
}

export interface LogDetail extends LogRow {
  request?: string;
  response?: string;
}

export const THEMES = ['light', 'dark', 'system'] as const;
export type Theme = (typeof THEMES)[number];
export const LANGUAGES = ['system', 'en', 'ja'] as const;
export type Language = (typeof LANGUAGES)[number];

export interface AppSettings {
  port: number;
  authEnabled: boolean;
  separator: string;
  retentionDays: number;
  timeoutSeconds: number;
  startAtLogin: boolean;
  closeToTray: boolean;
  theme: Theme;
  language: Language;
  /** Limits of one hook run: 1–300 seconds, 16–4096 MB. */
  hookTimeoutSeconds: number;
  hookMemoryMB: number;
  /** Seconds a call waits for a person's approval (1–3600), for policy rules without their own. */
  approvalTimeoutSeconds: number;
  /** The HTTP endpoint's sessions: per credential and in all (1–100000), idle seconds kept (60–86400). */
  sessionsPerCredential: number;
  sessionsTotal: number;
  sessionIdleTimeoutSeconds: number;
  /** What a tool changed upstream does: served and recorded, or held until accepted (docs/tools.md). */
  toolChanges: ToolChangeMode;
}

export const TOOL_CHANGE_MODES = ['notify', 'hold'] as const;
export type ToolChangeMode = (typeof TOOL_CHANGE_MODES)[number];

// ---- state_gate (the Processes page) ----

/** A problem of a process definition, at a line and column of its YAML. */
export interface DefinitionProblem {
  line: number;
  column: number;
  path?: string;
  message: string;
}

export interface ProcessState {
  name: string;
  description: string;
  initial: boolean;
  final: boolean;
  requiredArtifacts: string[];
}

export interface ProcessTransition {
  from: string[];
  event: string;
  to: string;
  guard?: string;
}

/** One definition file: the process, or (id empty) the problems that keep it from loading. */
export interface ProcessView {
  file: string;
  id: string;
  version: string;
  name: string;
  description: string;
  source: string;
  states: ProcessState[];
  events: { name: string; description: string; roles: string[]; payloadSchema?: unknown }[];
  guards: { name: string; description: string; expression: string }[];
  transitions: ProcessTransition[];
  artifacts: { type: string; description: string; patterns: string[] }[];
  problems: DefinitionProblem[];
  error?: string;
}

export interface RunInfo {
  run_id: string;
  process_id: string;
  process_version: string;
  current_state: string;
  revision: number;
  context: Record<string, unknown>;
  workspace: string;
  summary_uri: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  /** Why the run is errored (its context cannot be read, a guard over its budget). */
  error?: string;
}

/** get_state's answer (seed 004). */
export interface RunState {
  current_state: string;
  revision: number;
  missing_guards: { guard_name: string; description: string; current_status: string }[];
  required_artifacts: { type: string; description: string; status: 'missing' | 'present' }[];
  allowed_events: { event_name: string; description: string }[];
}

export interface RunEvents {
  events: {
    event_name: string;
    description: string;
    transitions: { to_state: string; guard?: string; guard_status: string; missing_requirements?: string[] }[];
    is_allowed: boolean;
    blocked_reason: string | null;
  }[];
}

export interface RunDetail {
  run: RunInfo;
  state: RunState;
  events: RunEvents;
  summary: { progress: { completed_states: string[]; current_state: string; remaining_states: string[] } };
  history: {
    seq: number;
    event_id: string;
    event_name: string;
    payload: unknown;
    actor: string;
    from_state: string;
    to_state: string;
    idempotency_key: string;
    time: string;
  }[];
  artifacts: { event_id: string; type: string; path: string; size: number; sha256: string; time: string }[];
}

export interface StateGateStatus {
  added: boolean;
  enabled: boolean;
  state: string;
  dir: string;
}

/** Everything the UI may ask of the Go side. Stores receive one of these. */
export interface Api extends ChatApi, ApprovalsApi, AboutApi, MetricsApi, ProfilesApi, ElectronImportApi, BundlesApi, RegistryApi<ServerView> {
  /** Installs a bundle upload as server `name` ('' : the bundle's own); config: user_config key → values (empty ones are left out: defaults apply). */
  installBundle(id: string, name: string, config: Record<string, string[]>): Promise<ServerView>;
  // Servers
  listServers(): Promise<ServerView[]>;
  getServer(name: string): Promise<ServerConfig>;
  addServer(cfg: ServerConfig): Promise<ServerView>;
  updateServer(name: string, cfg: ServerConfig): Promise<ServerView>;
  addServersFromJSON(text: string): Promise<ImportReport>;
  /** Finds the MCP endpoint behind a URL; adds nothing. */
  discoverServer(url: string): Promise<Discovery>;
  listClientConfigs(): Promise<ClientConfigFile[]>;
  importClientConfig(path: string): Promise<ImportReport>;
  removeServer(name: string): Promise<void>;
  setServerEnabled(name: string, enabled: boolean): Promise<void>;
  startServer(name: string): Promise<void>;
  stopServer(name: string): Promise<void>;
  restartServer(name: string): Promise<void>;
  serverTools(name: string): Promise<ServerTool[]>;
  setToolEnabled(server: string, tool: string, enabled: boolean): Promise<void>;
  setPrefixMode(server: string, mode: PrefixMode): Promise<void>;
  serverConsole(name: string): Promise<string[]>;
  /** Starts the OAuth login of a server in needs_login: the URL to open in the browser. */
  loginServer(name: string, clientId: string): Promise<LoginStart>;
  /** Removes a server's OAuth login (its tokens). */
  logoutServer(name: string): Promise<void>;
  /** Sets one secret env or header value of a server (kept in the keychain); the server restarts with it. */
  setServerSecret(server: string, kind: SecretKind, name: string, value: string): Promise<ServerView>;
  /** Opens a URL in the user's browser (Wails BrowserOpenURL in the window, window.open in a browser). */
  openExternal(url: string): void;
  // Tools
  listTools(): Promise<AggregatedTool[]>;
  callTool(name: string, argumentsJSON: string): Promise<ToolCallResult>;
  /** Tools of servers that are not running, from the persisted catalog. */
  stoppedServerTools(): Promise<CatalogTool[]>;
  /** Tools whose definition changed upstream, waiting for a person. */
  listToolChanges(): Promise<ToolChange[]>;
  /** Accepts the changed definition the person saw (newHash); a held tool is served again. */
  acceptToolChange(server: string, tool: string, newHash: string): Promise<void>;
  // Hooks
  listHooks(): Promise<HookView[]>;
  saveHook(h: HookInput): Promise<HookView>;
  removeHook(id: number): Promise<void>;
  setHookEnabled(id: number, enabled: boolean): Promise<void>;
  reorderHooks(ids: number[]): Promise<void>;
  checkHookScript(script: string): Promise<ScriptProblem[]>;
  testHook(h: HookInput, contextJSON: string): Promise<HookTestResult>;
  hookLogs(id: number): Promise<string[]>;
  // Policy (policy.yaml)
  getPolicy(): Promise<PolicyView>;
  checkPolicy(source: string): Promise<PolicyProblem[]>;
  /** Refused (nothing written) when the text does not load. */
  savePolicy(source: string): Promise<PolicyView>;
  auditRows(before: number, limit: number): Promise<AuditPage>;
  verifyAudit(): Promise<AuditReport>;
  // Tokens / Connect
  listTokens(): Promise<TokenView[]>;
  createToken(name: string, servers: string[]): Promise<CreatedToken>;
  revokeToken(name: string): Promise<void>;
  /** Revoked or not; the name is free again. */
  deleteToken(name: string): Promise<void>;
  /** The servers a token may use; empty: all. */
  updateTokenServers(name: string, servers: string[]): Promise<TokenView>;
  /** Replaces the token's own roles; empty: none. admin and client are reserved. */
  updateTokenRoles(name: string, roles: string[]): Promise<TokenView>;
  /** Binds a client token to a profile; "" unbinds. */
  updateTokenProfile(name: string, profile: string): Promise<TokenView>;
  /**
   * upstreamAuth: the client's own credentials, SERVER=VALUE entries (SERVER a
   * server with passUpstreamAuth, or * for all), written into the snippet.
   */
  snippet(client: SnippetClient, mode: SnippetMode, token: string, upstreamAuth: string[]): Promise<string>;
  /** The diff "Add to client" would make to the client's config file; writes nothing. profile "": the default endpoint. */
  planAddToClient(profile: string, client: SnippetClient, mode: SnippetMode, token: string): Promise<ClientAddPlan>;
  /** Writes it, with a backup, if the diff is still shownDiff. */
  addToClient(profile: string, client: SnippetClient, mode: SnippetMode, token: string, shownDiff: string): Promise<ClientAddResult>;
  /** The client's install link (cursor, vscode, lmstudio). */
  installLink(profile: string, client: SnippetClient, mode: SnippetMode, token: string): Promise<string>;
  endpointStatus(): Promise<EndpointStatus>;
  // Logs
  queryLogs(q: LogQuery): Promise<LogPage>;
  getLog(id: number): Promise<LogDetail>;
  // Settings
  getSettings(): Promise<AppSettings>;
  saveSettings(s: AppSettings): Promise<AppSettings>;
  // Processes (state_gate)
  listProcesses(): Promise<ProcessView[]>;
  checkProcess(source: string): Promise<DefinitionProblem[]>;
  saveProcess(source: string, replace: boolean): Promise<ProcessView>;
  removeProcess(id: string): Promise<void>;
  listRuns(processId: string): Promise<RunInfo[]>;
  getRun(runId: string): Promise<RunDetail>;
  createRun(processId: string, contextJSON: string, workspace: string): Promise<RunInfo>;
  getStateGateStatus(): Promise<StateGateStatus>;
  enableStateGate(): Promise<StateGateStatus>;
  // Misc
  /** Tells the Go side a page has rendered (it logs `frontend ready: <page>`). */
  frontendReady(page: string): Promise<void>;
  logFile(): Promise<LogFileInfo>;
  openLogFolder(): Promise<void>;

  // Events. Each returns a function that releases only this subscription.
  onServerChanged(handler: (server: ServerView) => void): Unsubscribe;
  onServerRemoved(handler: (name: string) => void): Unsubscribe;
  onConsoleLines(handler: (e: { server: string; lines: string[] }) => void): Unsubscribe;
  onLogsAppended(handler: (rows: LogRow[]) => void): Unsubscribe;
  onHookLog(handler: (e: { hookId: number; lines: string[] }) => void): Unsubscribe;
  onToolsChanged(handler: () => void): Unsubscribe;
  onSettingsChanged(handler: (s: AppSettings) => void): Unsubscribe;
  /** A run was created or moved (or the database changed): refetch runs. */
  onStateGateChanged(handler: () => void): Unsubscribe;
  /** The event stream came back after a break: refetch what is shown. */
  onReconnect(handler: () => void): Unsubscribe;
}

/** The names the Go side emits events under. */
export const EVENTS = {
  serversChanged: 'servers:changed',
  serversRemoved: 'servers:removed',
  consoleLines: 'console:lines',
  logsAppended: 'logs:appended',
  hooksLog: 'hooks:log',
  toolsChanged: 'tools:changed',
  settingsChanged: 'settings:changed',
  stateGateChanged: 'stategate:changed',
  chat: 'chat:event',
  approvals: 'approvals:changed',
} as const;
