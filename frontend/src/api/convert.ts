import {
  ApiError,
  HOOK_TYPES,
  LANGUAGES,
  LOG_STATUSES,
  PREFIX_MODES,
  SERVER_STATES,
  THEMES,
  TOKEN_ROLES,
  TRANSPORTS,
  type AggregatedTool,
  type ToolChange,
  type CatalogTool,
  type AppSettings,
  type AuditPage,
  type AuditReport,
  type AuditRow,
  type ClientAddPlan,
  type ClientAddResult,
  type ClientConfigFile,
  type ContentBlock,
  type DefinitionProblem,
  type ProcessView,
  type RunDetail,
  type RunInfo,
  type StateGateStatus,
  type CreatedToken,
  type EndpointStatus,
  type GateConfig,
  type InstanceView,
  type PerClientSuggestion,
  type HookTestResult,
  type HookView,
  type ImportReport,
  SECRET_KINDS,
  type Discovery,
  type LogFileInfo,
  type LogDetail,
  type LogPage,
  type LogRow,
  type PolicyProblem,
  type PolicyView,
  type ScriptProblem,
  type ServerConfig,
  type ServerTool,
  type ServerView,
  type LoginStart,
  type TokenView,
  type ToolCallResult,
  TOOL_CHANGE_MODES,
} from './types';
import { toBundleInfo } from './bundles';

// Checks values as they arrive from Go and narrows them to the contract's
// types. A value outside the contract means the two sides disagree: fail
// loudly instead of drawing a wrong badge. Optional fields are lenient
// (Go's omitempty leaves them out); required enums and names are strict.

type Obj = Record<string, unknown>;

function obj(raw: unknown, what: string): Obj {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ApiError(`${what}: expected an object`);
  }
  return raw as Obj;
}

function isOneOf<T extends string>(values: readonly T[], v: unknown): v is T {
  return typeof v === 'string' && (values as readonly string[]).includes(v);
}

function oneOf<T extends string>(values: readonly T[], v: unknown, what: string): T {
  if (!isOneOf(values, v)) throw new ApiError(`${what}: unknown value ${JSON.stringify(v)}`);
  return v;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const numOr = (v: unknown, d: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const bool = (v: unknown): boolean => v === true;
const optStr = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function reqStr(r: Obj, key: string, what: string): string {
  const v = r[key];
  if (typeof v !== 'string' || v === '') throw new ApiError(`${what}: missing ${key}`);
  return v;
}

function reqNum(r: Obj, key: string, what: string): number {
  const v = r[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ApiError(`${what}: missing ${key}`);
  return v;
}

/** A Go nil slice arrives as null: treat it as empty. */
export function list<T>(raw: unknown, each: (x: unknown) => T, what: string): T[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) throw new ApiError(`${what}: expected a list`);
  return raw.map(each);
}

export function toLoginStart(raw: unknown): LoginStart {
  const r = obj(raw, 'login');
  const url = reqStr(r, 'url', 'login');
  // The page opens it: only a web address, never javascript: or a file.
  if (!/^https?:\/\//i.test(url)) throw new Error(`login: the authorization URL is not http(s): ${JSON.stringify(url)}`);
  return { url, registration: str(r.registration) };
}

export function toServerView(raw: unknown): ServerView {
  const r = obj(raw, 'server');
  const name = reqStr(r, 'name', 'server');
  return {
    name,
    transport: oneOf(TRANSPORTS, r.transport, `server ${name}: transport`),
    enabled: bool(r.enabled),
    state: oneOf(SERVER_STATES, r.state, `server ${name}: state`),
    stateSince: num(r.stateSince),
    error: optStr(r.error),
    restarts: num(r.restarts),
    tools: num(r.tools),
    target: str(r.target),
    prefixMode: isOneOf(PREFIX_MODES, r.prefixMode) ? r.prefixMode : 'always',
    loggedIn: bool(r.loggedIn),
    protocol: str(r.protocol),
    protocolsOffered: Array.isArray(r.protocolsOffered) ? r.protocolsOffered.filter((v): v is string => typeof v === 'string') : [],
    passUpstreamAuth: bool(r.passUpstreamAuth),
    lazy: bool(r.lazy),
    lazyWhy: r.lazyWhy === 'gated' || r.lazyWhy === 'search-only' ? r.lazyWhy : undefined,
    isolation: r.isolation === 'per-client' ? 'per-client' : 'shared',
    instances: list(r.instances, (i) => toInstanceView(i, name), `server ${name}: instances`),
    suggestPerClient: r.suggestPerClient == null ? undefined : toSuggestion(r.suggestPerClient, name),
    bundle: r.bundle == null ? undefined : toBundleInfo(r.bundle),
  };
}

function toInstanceView(raw: unknown, server: string): InstanceView {
  const r = obj(raw, `server ${server}: instance`);
  return {
    id: num(r.id),
    client: str(r.client),
    pid: num(r.pid),
    since: num(r.since),
    calls: num(r.calls),
    state: oneOf(SERVER_STATES, r.state, `server ${server}: instance state`),
  };
}

function toSuggestion(raw: unknown, server: string): PerClientSuggestion {
  const r = obj(raw, `server ${server}: suggestion`);
  return { what: str(r.what), clients: num(r.clients), at: num(r.at) };
}

function stringMap(v: unknown): Record<string, string> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

export function toServerConfig(raw: unknown): ServerConfig {
  const r = obj(raw, 'server config');
  const name = reqStr(r, 'name', 'server config');
  // Keep fields this UI does not know, so an edit sends them back unchanged.
  return {
    ...r,
    name,
    transport: oneOf(TRANSPORTS, r.transport, `server ${name}: transport`),
    command: optStr(r.command),
    args: r.args == null ? undefined : strings(r.args),
    env: stringMap(r.env),
    cwd: optStr(r.cwd),
    url: optStr(r.url),
    headers: stringMap(r.headers),
    secretEnv: r.secretEnv == null ? undefined : strings(r.secretEnv),
    secretHeaders: r.secretHeaders == null ? undefined : strings(r.secretHeaders),
    enabled: bool(r.enabled),
    prefixMode: isOneOf(PREFIX_MODES, r.prefixMode) ? r.prefixMode : 'always',
    timeoutSeconds: typeof r.timeoutSeconds === 'number' ? r.timeoutSeconds : undefined,
    disabledTools: r.disabledTools == null ? undefined : strings(r.disabledTools),
    gate: r.gate == null ? undefined : toGateConfig(r.gate),
    passUpstreamAuth: r.passUpstreamAuth === true ? true : undefined,
    isolation: r.isolation === 'per-client' ? 'per-client' : undefined,
    protocol: r.protocol === '2025-11-25' || r.protocol === '2026-07-28' ? r.protocol : undefined,
  };
}

export function toGateConfig(raw: unknown): GateConfig {
  const r = obj(raw, 'gate');
  const args = r.initArgs;
  return {
    enabled: bool(r.enabled),
    message: optStr(r.message),
    initTool: optStr(r.initTool),
    initArgs: typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined,
    initArgFiles: stringMap(r.initArgFiles),
    overviewTool: optStr(r.overviewTool),
    hideTools: r.hideTools === true,
  };
}

export function toLogFileInfo(raw: unknown): LogFileInfo {
  const r = obj(raw, 'log file');
  return { path: str(r.path), folder: str(r.folder) };
}

export function toImportReport(raw: unknown): ImportReport {
  const r = obj(raw, 'import report');
  return {
    added: strings(r.added),
    skipped: list(r.skipped, (x) => {
      const s = obj(x, 'skipped server');
      return { name: str(s.name), reason: str(s.reason) };
    }, 'skipped'),
    needsSecrets: list(r.needsSecrets, (x) => {
      const s = obj(x, 'needed secret');
      return { server: str(s.server), kind: oneOf(SECRET_KINDS, s.kind, 'secret kind'), name: str(s.name) };
    }, 'needsSecrets'),
  };
}

export function toDiscovery(raw: unknown): Discovery {
  const r = obj(raw, 'discovery');
  const endpoint = optStr(r.endpoint);
  return {
    input: str(r.input),
    endpoint,
    // The Go side says streamable-http or sse; the form's transports are http and sse.
    transport: endpoint === undefined ? undefined : r.transport === 'sse' ? 'sse' : 'http',
    needsAuth: bool(r.needsAuth),
    authorizationServers: strings(r.authorizationServers),
    name: optStr(r.name),
    steps: list(r.steps, (x) => {
      const st = obj(x, 'discovery step');
      return { what: str(st.what), url: str(st.url), ok: bool(st.ok), result: str(st.result) };
    }, 'steps'),
  };
}

export function toClientAddPlan(raw: unknown): ClientAddPlan {
  const r = obj(raw, 'add-to-client plan');
  return {
    client: str(r.client),
    path: reqStr(r, 'path', 'add-to-client plan'),
    exists: bool(r.exists),
    replaces: bool(r.replaces),
    unchanged: bool(r.unchanged),
    diff: str(r.diff),
  };
}

export function toClientAddResult(raw: unknown): ClientAddResult {
  const r = obj(raw, 'add-to-client result');
  return { path: reqStr(r, 'path', 'add-to-client result'), backup: str(r.backup) };
}

export function toClientConfigFile(raw: unknown): ClientConfigFile {
  const r = obj(raw, 'client config');
  return { client: str(r.client), path: reqStr(r, 'path', 'client config'), servers: num(r.servers), error: optStr(r.error) };
}

export function toServerTool(raw: unknown): ServerTool {
  const r = obj(raw, 'tool');
  const name = reqStr(r, 'name', 'tool');
  return { name, description: str(r.description), enabled: bool(r.enabled), finalName: str(r.finalName) || name };
}

export function toAggregatedTool(raw: unknown): AggregatedTool {
  const r = obj(raw, 'tool');
  const name = reqStr(r, 'name', 'tool');
  const schema = r.inputSchema;
  return {
    name,
    server: str(r.server),
    tool: str(r.tool) || name,
    description: str(r.description),
    inputSchema: typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? (schema as Obj) : { type: 'object' },
  };
}

export function toCatalogTool(raw: unknown): CatalogTool {
  const r = obj(raw, 'catalog tool');
  const schema = r.inputSchema;
  return {
    server: reqStr(r, 'server', 'catalog tool'),
    state: str(r.state),
    tool: reqStr(r, 'tool', 'catalog tool'),
    description: str(r.description),
    inputSchema: typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? (schema as Obj) : { type: 'object' },
    seenAt: str(r.seenAt),
    changed: bool(r.changed),
  };
}

export function toToolChange(raw: unknown): ToolChange {
  const r = obj(raw, 'tool change');
  return {
    server: reqStr(r, 'server', 'tool change'),
    tool: reqStr(r, 'tool', 'tool change'),
    oldHash: str(r.oldHash),
    newHash: reqStr(r, 'newHash', 'tool change'),
    old: str(r.old),
    new: str(r.new),
    diff: str(r.diff),
    changedAt: str(r.changedAt),
    held: bool(r.held),
  };
}

export function toToolCallResult(raw: unknown): ToolCallResult {
  const r = obj(raw, 'tool result');
  return {
    content: list(r.content, (x) => {
      const b = obj(x, 'content block');
      return { ...b, type: str(b.type) } as ContentBlock;
    }, 'content'),
    isError: bool(r.isError),
    structuredContent: r.structuredContent ?? undefined,
    durationMs: num(r.durationMs),
    error: optStr(r.error),
  };
}

export function toHookView(raw: unknown): HookView {
  const r = obj(raw, 'hook');
  const name = reqStr(r, 'name', 'hook');
  const loadError = str(r.loadError);
  // A hook the router cannot read may have no valid type: it is listed with
  // its load error rather than failing the whole list.
  const hookType = loadError && !(HOOK_TYPES as readonly unknown[]).includes(r.hookType) ? 'pre' : oneOf(HOOK_TYPES, r.hookType, `hook ${name}: hookType`);
  return {
    id: reqNum(r, 'id', `hook ${name}`),
    name,
    enabled: bool(r.enabled),
    executionOrder: num(r.executionOrder),
    hookType,
    script: str(r.script),
    failClosed: bool(r.failClosed),
    updatedAt: str(r.updatedAt),
    ...(loadError ? { loadError } : {}),
  };
}

export function toScriptProblem(raw: unknown): ScriptProblem {
  const r = obj(raw, 'script problem');
  return { line: num(r.line) || 1, column: num(r.column) || 1, message: str(r.message) };
}

export function toPolicyProblem(raw: unknown): PolicyProblem {
  const r = obj(raw, 'policy problem');
  return { line: num(r.line), column: num(r.column), message: str(r.message) };
}

export function toPolicyView(raw: unknown): PolicyView {
  const r = obj(raw, 'policy');
  const st = obj(r.status, 'policy status');
  const err = st.error === undefined || st.error === null ? null : obj(st.error, 'policy error');
  const problems = err && Array.isArray(err.problems) ? err.problems.map(toPolicyProblem) : [];
  return {
    path: str(r.path),
    source: typeof r.source === 'string' ? r.source : '',
    status: {
      path: str(st.path),
      exists: st.exists === true,
      active: st.active === true,
      rules: num(st.rules),
      loadedAt: optStr(st.loadedAt),
      problems,
      errorAt: optStr(st.errorAt),
    },
  };
}

const AUDIT_STATUSES = ['ok', 'error', 'blocked'] as const;

export function toAuditRow(raw: unknown): AuditRow {
  const r = obj(raw, 'audit row');
  return {
    id: num(r.id),
    time: str(r.time),
    client: str(r.client),
    subject: optStr(r.subject),
    server: str(r.server),
    tool: str(r.tool),
    target: str(r.target),
    policies: str(r.policies),
    arguments: str(r.arguments),
    status: oneOf(AUDIT_STATUSES, r.status, 'audit row status'),
    result: optStr(r.result),
    error: optStr(r.error),
    prevHash: str(r.prevHash),
    hash: str(r.hash),
  };
}

export function toAuditPage(raw: unknown): AuditPage {
  const r = obj(raw, 'audit page');
  return { rows: Array.isArray(r.rows) ? r.rows.map(toAuditRow) : [], before: num(r.before) };
}

export function toAuditReport(raw: unknown): AuditReport {
  const r = obj(raw, 'audit report');
  return { rows: num(r.rows), head: str(r.head), problems: strings(r.problems) };
}

export function toHookTestResult(raw: unknown): HookTestResult {
  const r = obj(raw, 'hook test');
  return { result: r.result ?? null, console: strings(r.console), error: optStr(r.error), durationMs: num(r.durationMs) };
}

export function toTokenView(raw: unknown): TokenView {
  const r = obj(raw, 'token');
  const name = reqStr(r, 'name', 'token');
  return {
    id: num(r.id),
    name,
    prefix: str(r.prefix),
    servers: strings(r.servers),
    role: oneOf(TOKEN_ROLES, r.role, `token ${name}: role`),
    roles: strings(r.roles),
    profile: str(r.profile),
    createdAt: str(r.createdAt),
    lastUsedAt: optStr(r.lastUsedAt),
    revokedAt: optStr(r.revokedAt),
  };
}

export function toCreatedToken(raw: unknown): CreatedToken {
  const r = obj(raw, 'created token');
  return { token: reqStr(r, 'token', 'created token'), view: toTokenView(r.view) };
}

export function toEndpointStatus(raw: unknown): EndpointStatus {
  const r = obj(raw, 'endpoint');
  return { url: str(r.url), running: bool(r.running), authEnabled: bool(r.authEnabled), error: optStr(r.error) };
}

export function toLogRow(raw: unknown): LogRow {
  const r = obj(raw, 'log row');
  const id = reqNum(r, 'id', 'log row');
  return {
    id,
    time: str(r.time),
    client: str(r.client),
    server: str(r.server),
    method: str(r.method),
    target: str(r.target),
    durationMs: num(r.durationMs),
    status: oneOf(LOG_STATUSES, r.status, `log ${id}: status`),
    error: optStr(r.error),
    backendTool: optStr(r.backendTool),
    instance: optStr(r.instance),
  };
}

export function toLogPage(raw: unknown): LogPage {
  const r = obj(raw, 'log page');
  const next = r.nextBeforeId;
  return {
    rows: list(r.rows, toLogRow, 'rows'),
    nextBeforeId: typeof next === 'number' && next > 0 ? next : undefined,
  };
}

export function toLogDetail(raw: unknown): LogDetail {
  const r = obj(raw, 'log');
  return { ...toLogRow(r), request: optStr(r.request), response: optStr(r.response) };
}

export function toAppSettings(raw: unknown): AppSettings {
  const r = obj(raw, 'settings');
  return {
    port: num(r.port),
    authEnabled: bool(r.authEnabled),
    separator: str(r.separator),
    retentionDays: num(r.retentionDays),
    timeoutSeconds: num(r.timeoutSeconds),
    startAtLogin: bool(r.startAtLogin),
    closeToTray: bool(r.closeToTray),
    theme: isOneOf(THEMES, r.theme) ? r.theme : 'system',
    language: isOneOf(LANGUAGES, r.language) ? r.language : 'system',
    // Missing (a router from before these settings): the defaults, so that
    // saving the page does not send values it would refuse.
    hookTimeoutSeconds: numOr(r.hookTimeoutSeconds, 5),
    hookMemoryMB: numOr(r.hookMemoryMB, 64),
    approvalTimeoutSeconds: numOr(r.approvalTimeoutSeconds, 60),
    sessionsPerCredential: numOr(r.sessionsPerCredential, 100),
    sessionsTotal: numOr(r.sessionsTotal, 1000),
    sessionIdleTimeoutSeconds: numOr(r.sessionIdleTimeoutSeconds, 600),
    toolChanges: isOneOf(TOOL_CHANGE_MODES, r.toolChanges) ? r.toolChanges : 'notify',
  };
}

/** Wails rejects with the Go error's text as a bare string; make it an Error. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof Error) return new ApiError(err.message);
  if (typeof err === 'string' && err !== '') return new ApiError(err);
  return new ApiError('unknown error');
}

export const toStrings = (raw: unknown): string[] => list(raw, (x) => (typeof x === 'string' ? x : String(x)), 'lines');

// ---- state_gate ----

export function toDefinitionProblem(raw: unknown): DefinitionProblem {
  const r = obj(raw, 'problem');
  return { line: num(r.line), column: num(r.column), path: optStr(r.path), message: str(r.message) };
}

function objects(v: unknown, what: string): Obj[] {
  if (!Array.isArray(v)) throw new ApiError(`${what}: expected a list`);
  return v.map((x, i) => obj(x, `${what}[${i}]`));
}

export function toProcessView(raw: unknown): ProcessView {
  const r = obj(raw, 'process');
  const file = reqStr(r, 'file', 'process');
  return {
    file,
    id: str(r.id),
    version: str(r.version),
    name: str(r.name),
    description: str(r.description),
    source: str(r.source),
    states: objects(r.states ?? [], `process ${file}: states`).map((s) => ({
      name: str(s.name),
      description: str(s.description),
      initial: bool(s.initial),
      final: bool(s.final),
      requiredArtifacts: strings(s.requiredArtifacts),
    })),
    events: objects(r.events ?? [], `process ${file}: events`).map((e) => ({
      name: str(e.name),
      description: str(e.description),
      roles: strings(e.roles),
      payloadSchema: e.payloadSchema,
    })),
    guards: objects(r.guards ?? [], `process ${file}: guards`).map((g) => ({
      name: str(g.name),
      description: str(g.description),
      expression: str(g.expression),
    })),
    transitions: objects(r.transitions ?? [], `process ${file}: transitions`).map((t) => ({
      from: strings(t.from),
      event: str(t.event),
      to: str(t.to),
      guard: optStr(t.guard),
    })),
    artifacts: objects(r.artifacts ?? [], `process ${file}: artifacts`).map((a) => ({
      type: str(a.type),
      description: str(a.description),
      patterns: strings(a.patterns),
    })),
    problems: (Array.isArray(r.problems) ? r.problems : []).map(toDefinitionProblem),
    error: optStr(r.error),
  };
}

export function toRunInfo(raw: unknown): RunInfo {
  const r = obj(raw, 'run');
  const id = reqStr(r, 'run_id', 'run');
  return {
    run_id: id,
    process_id: str(r.process_id),
    process_version: str(r.process_version),
    current_state: reqStr(r, 'current_state', `run ${id}`),
    revision: num(r.revision),
    context: typeof r.context === 'object' && r.context !== null ? (r.context as Record<string, unknown>) : {},
    workspace: str(r.workspace),
    summary_uri: str(r.summary_uri),
    created_by: str(r.created_by),
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
    error: optStr(r.error),
  };
}

/** A run's detail: the parts the page draws are checked, the rest passed on. */
export function toRunDetail(raw: unknown): RunDetail {
  const r = obj(raw, 'run detail');
  const run = toRunInfo(r.run);
  const state = obj(r.state, `run ${run.run_id}: state`);
  const events = obj(r.events, `run ${run.run_id}: events`);
  const summary = obj(r.summary, `run ${run.run_id}: summary`);
  const progress = obj(summary.progress, `run ${run.run_id}: progress`);
  return {
    run,
    state: {
      current_state: str(state.current_state),
      revision: num(state.revision),
      missing_guards: objects(state.missing_guards ?? [], 'missing guards').map((g) => ({
        guard_name: str(g.guard_name),
        description: str(g.description),
        current_status: str(g.current_status),
      })),
      required_artifacts: objects(state.required_artifacts ?? [], 'required artifacts').map((a) => ({
        type: str(a.type),
        description: str(a.description),
        status: a.status === 'present' ? 'present' : 'missing',
      })),
      allowed_events: objects(state.allowed_events ?? [], 'allowed events').map((e) => ({
        event_name: str(e.event_name),
        description: str(e.description),
      })),
    },
    events: {
      events: objects(events.events ?? [], 'events').map((e) => ({
        event_name: str(e.event_name),
        description: str(e.description),
        transitions: objects(e.transitions ?? [], 'transitions').map((t) => ({
          to_state: str(t.to_state),
          guard: optStr(t.guard),
          guard_status: str(t.guard_status),
          missing_requirements: Array.isArray(t.missing_requirements) ? strings(t.missing_requirements) : undefined,
        })),
        is_allowed: bool(e.is_allowed),
        blocked_reason: typeof e.blocked_reason === 'string' ? e.blocked_reason : null,
      })),
    },
    summary: {
      progress: {
        completed_states: strings(progress.completed_states),
        current_state: str(progress.current_state),
        remaining_states: strings(progress.remaining_states),
      },
    },
    history: objects(r.history ?? [], 'history').map((h) => ({
      seq: num(h.seq),
      event_id: str(h.event_id),
      event_name: str(h.event_name),
      payload: h.payload,
      actor: str(h.actor),
      from_state: str(h.from_state),
      to_state: str(h.to_state),
      idempotency_key: str(h.idempotency_key),
      time: str(h.time),
    })),
    artifacts: objects(r.artifacts ?? [], 'artifacts').map((a) => ({
      event_id: str(a.event_id),
      type: str(a.type),
      path: str(a.path),
      size: num(a.size),
      sha256: str(a.sha256),
      time: str(a.time),
    })),
  };
}

export function toStateGateStatus(raw: unknown): StateGateStatus {
  const r = obj(raw, 'state_gate status');
  return { added: bool(r.added), enabled: bool(r.enabled), state: str(r.state), dir: str(r.dir) };
}
