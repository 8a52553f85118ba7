import { vi } from 'vitest';
import { fakeChat } from './fakeChat';
import type {
  AboutInfo,
  BundlePreview,
  ProfileView,
  PendingApproval,
  RegistryEntry,
  RegistryEntryView,
  AggregatedTool,
  Api,
  AppSettings,
  HookView,
  LogRow,
  PolicyView,
  ServerConfig,
  ServerTool,
  ServerView,
  TokenView,
  UpdateCheck,
  ElectronPlan,
  ElectronSourceKind,
} from '../api';

/** A registry entry as RegistrySearch lists it. */
export function registryEntry(name: string, over: Partial<RegistryEntry['server']> = {}): RegistryEntry {
  return {
    server: { name, title: '', description: `the ${name} server`, version: '1.0.0', websiteUrl: '', repositoryUrl: '', packages: [], remotes: [], ...over },
    status: 'active',
    isLatest: true,
  };
}

/** The fake registry's weather entry: an npm package asking a secret env and an argument, and an mcpb it cannot install. */
export function weatherView(): RegistryEntryView {
  return {
    entry: registryEntry('io.github.example/weather', {
      packages: [
        { registryType: 'npm', identifier: '@example/weather', version: '1.0.0', runtimeHint: 'npx', transport: 'stdio' },
        { registryType: 'mcpb', identifier: 'https://example.com/weather.mcpb', version: '1.0.0', runtimeHint: '', transport: 'stdio' },
      ],
      remotes: [{ type: 'streamable-http', url: 'https://weather.example.com/mcp' }],
    }),
    defaultName: 'weather',
    targets: [
      {
        target: { kind: 'package', index: 1 },
        label: 'npm @example/weather 1.0.0',
        installable: true,
        reason: '',
        fields: [
          { kind: 'env', key: 'WEATHER_API_KEY', description: 'the API key', required: true, secret: true, default: '', choices: [], format: '' },
          { kind: 'arg', key: 'units', description: '', required: false, secret: false, default: 'metric', choices: ['metric', 'imperial'], format: '' },
        ],
      },
      { target: { kind: 'package', index: 2 }, label: 'mcpb https://example.com/weather.mcpb 1.0.0', installable: false, reason: 'mcpb packages are not run by the router (npm, pypi and oci are)', fields: [] },
      { target: { kind: 'remote', index: 1 }, label: 'streamable-http https://weather.example.com/mcp', installable: true, reason: '', fields: [] },
    ],
  };
}

/** A check finding v0.4.0 while v0.3.2 runs (backend/update/testdata/latest.json). */
export function updateCheck(over: Partial<UpdateCheck> = {}): UpdateCheck {
  return {
    current: 'v0.3.2',
    latest: 'v0.4.0',
    newer: true,
    devBuild: false,
    url: 'https://github.com/mcp-router/mcp-router/releases/tag/v0.4.0',
    name: 'v0.4.0',
    notes: "## What's Changed\n* Settings: About section with update check",
    publishedAt: '2026-11-20T09:31:02Z',
    checkedAt: '2026-11-26T23:30:00Z',
    ...over,
  };
}

/** An Electron import plan that adds nothing. */
export function emptyPlan(kind: ElectronSourceKind, path: string): ElectronPlan {
  return { source: path, kind, workspace: '', servers: [], profiles: [], skipped: [], tokens: 0, tokensNote: '', notes: [] };
}

/** The echo bundle's preview (internal/testbundles/echo), as InspectBundle answers it. */
export function bundlePreview(over: Partial<BundlePreview> = {}): BundlePreview {
  return {
    name: 'bundle-echo',
    displayName: '',
    version: '1.2.3',
    description: 'Echoes its user_config',
    author: 'Test Author',
    serverType: 'node',
    signature: { status: 'self-signed', publisher: 'Test Signer', issuer: 'Test Signer', fingerprint: 'ab'.repeat(32) },
    tools: [{ name: 'show_config', description: 'the user_config values this server got' }],
    userConfig: [
      { key: 'api_key', type: 'string', title: 'API key', description: 'a key', required: true, sensitive: true, multiple: false, default: [] },
      { key: 'greeting', type: 'string', title: 'Greeting', description: 'hello', required: false, sensitive: false, multiple: false, default: ['hello'] },
      { key: 'verbose', type: 'boolean', title: 'Verbose', description: 'log more', required: false, sensitive: false, multiple: false, default: ['false'] },
    ],
    serverName: 'bundle-echo',
    ...over,
  };
}

export function server(name: string, over: Partial<ServerView> = {}): ServerView {
  return {
    name,
    transport: 'stdio',
    enabled: true,
    state: 'running',
    stateSince: 0,
    restarts: 0,
    tools: 3,
    target: `npx -y ${name}`,
    prefixMode: 'always',
    loggedIn: false,
    protocol: '',
    protocolsOffered: [],
    passUpstreamAuth: false,
    lazy: false,
    isolation: 'shared',
    instances: [],
    ...over,
  };
}

export function policyView(source: string, over: Partial<PolicyView['status']> = {}): PolicyView {
  return {
    path: '/data/policy.yaml',
    source,
    status: { path: '/data/policy.yaml', exists: source !== '', active: source !== '', rules: source ? 1 : 0, problems: [], ...over },
  };
}

export function tool(name: string, over: Partial<AggregatedTool> = {}): AggregatedTool {
  const [srv, t] = name.includes('__') ? name.split('__') : ['everything', name];
  return {
    name,
    server: srv ?? 'everything',
    tool: t ?? name,
    description: `The ${t} tool`,
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    ...over,
  };
}

export function hook(id: number, over: Partial<HookView> = {}): HookView {
  return {
    id,
    name: `hook-${id}`,
    enabled: true,
    executionOrder: id,
    hookType: 'pre',
    script: 'return;',
    failClosed: false,
    updatedAt: '2026-11-23T00:00:00Z',
    ...over,
  };
}

export function logRow(id: number, over: Partial<LogRow> = {}): LogRow {
  return {
    id,
    time: new Date(Date.UTC(2026, 10, 23, 0, 0, id % 60)).toISOString(),
    client: 'claude',
    server: 'everything',
    method: 'tools/call',
    target: 'echo',
    durationMs: 3,
    status: 'ok',
    ...over,
  };
}

export function token(name: string, over: Partial<TokenView> = {}): TokenView {
  return { id: 1, name, prefix: 'mcpr_abcd', servers: [], role: 'client', roles: [], profile: '', createdAt: '2026-11-23T00:00:00Z', ...over };
}

export const defaultSettings: AppSettings = {
  port: 3282,
  authEnabled: false,
  separator: '__',
  retentionDays: 30,
  timeoutSeconds: 60,
  startAtLogin: false,
  closeToTray: true,
  theme: 'system',
  language: 'system',
  hookTimeoutSeconds: 5,
  hookMemoryMB: 64,
  approvalTimeoutSeconds: 60,
  sessionsPerCredential: 100,
  sessionsTotal: 1000,
  sessionIdleTimeoutSeconds: 600,
  toolChanges: 'notify',
};

type Handlers<T> = Set<(v: T) => void>;

/**
 * An Api whose every method is a vi.fn with a plausible in-memory default.
 * Tests override single calls with mockResolvedValueOnce / mockRejectedValueOnce
 * and push events with the emitters returned next to `api`.
 */
export function fakeApi(initial: ServerView[] = []) {
  const h = {
    changed: new Set() as Handlers<ServerView>,
    removed: new Set() as Handlers<string>,
    console: new Set() as Handlers<{ server: string; lines: string[] }>,
    logs: new Set() as Handlers<LogRow[]>,
    hookLog: new Set() as Handlers<{ hookId: number; lines: string[] }>,
    tools: new Set() as Handlers<void>,
    settings: new Set() as Handlers<AppSettings>,
    reconnect: new Set() as Handlers<void>,
    stategate: new Set() as Handlers<void>,
    approvals: new Set() as Handlers<PendingApproval[]>,
  };
  const sub =
    <T>(set: Handlers<T>) =>
    (fn: (v: T) => void) => {
      set.add(fn);
      return () => {
        set.delete(fn);
      };
    };

  const chat = fakeChat(); // fakeChat.ts
  let settings = { ...defaultSettings };
  let profiles: ProfileView[] = [];
  let about: AboutInfo = { version: 'v0.3.2', devBuild: false, checkForUpdates: false, lastCheck: null };
  // Bundle uploads: the bytes each holds, as the router keeps them.
  const uploads = new Map<string, number>();
  let nextUpload = 1;
  let hooks: HookView[] = [];
  let nextHookId = 1;

  const api = {
    ...chat.api,
    listServers: vi.fn<Api['listServers']>(async () => initial),
    getServer: vi.fn<Api['getServer']>(async (name) => ({
      name,
      transport: 'stdio',
      command: 'npx',
      args: ['-y', name],
      enabled: true,
      prefixMode: 'always',
    }) satisfies ServerConfig),
    addServer: vi.fn<Api['addServer']>(async (cfg) => server(cfg.name, { transport: cfg.transport, state: 'starting' })),
    updateServer: vi.fn<Api['updateServer']>(async (_name, cfg) => server(cfg.name, { transport: cfg.transport })),
    addServersFromJSON: vi.fn<Api['addServersFromJSON']>(async () => ({ added: [], skipped: [], needsSecrets: [] })),
    discoverServer: vi.fn<Api['discoverServer']>(async (url) => ({ input: url, needsAuth: false, authorizationServers: [], steps: [] })),
    listClientConfigs: vi.fn<Api['listClientConfigs']>(async () => []),
    importClientConfig: vi.fn<Api['importClientConfig']>(async () => ({ added: [], skipped: [], needsSecrets: [] })),
    removeServer: vi.fn<Api['removeServer']>(async () => {}),
    setServerEnabled: vi.fn<Api['setServerEnabled']>(async () => {}),
    startServer: vi.fn<Api['startServer']>(async () => {}),
    stopServer: vi.fn<Api['stopServer']>(async () => {}),
    restartServer: vi.fn<Api['restartServer']>(async () => {}),
    loginServer: vi.fn<Api['loginServer']>(async () => ({ url: 'https://auth.example/authorize?client_id=x', registration: 'dynamic' })),
    logoutServer: vi.fn<Api['logoutServer']>(async () => {}),
    setServerSecret: vi.fn<Api['setServerSecret']>(async (name) => server(name, { state: 'starting' })),
    openExternal: vi.fn<Api['openExternal']>(() => {}),
    serverTools: vi.fn<Api['serverTools']>(async () => [] as ServerTool[]),
    setToolEnabled: vi.fn<Api['setToolEnabled']>(async () => {}),
    setPrefixMode: vi.fn<Api['setPrefixMode']>(async () => {}),
    serverConsole: vi.fn<Api['serverConsole']>(async () => []),

    listTools: vi.fn<Api['listTools']>(async () => []),
    callTool: vi.fn<Api['callTool']>(async () => ({ content: [], isError: false, durationMs: 1 })),
    stoppedServerTools: vi.fn<Api['stoppedServerTools']>(async () => []),
    listToolChanges: vi.fn<Api['listToolChanges']>(async () => []),
    acceptToolChange: vi.fn<Api['acceptToolChange']>(async () => {}),

    getPolicy: vi.fn<Api['getPolicy']>(async () => policyView('')),
    checkPolicy: vi.fn<Api['checkPolicy']>(async () => []),
    savePolicy: vi.fn<Api['savePolicy']>(async (source) => policyView(source)),
    auditRows: vi.fn<Api['auditRows']>(async () => ({ rows: [], before: 0 })),
    verifyAudit: vi.fn<Api['verifyAudit']>(async () => ({ rows: 0, head: '0'.repeat(64), problems: [] })),

    listHooks: vi.fn<Api['listHooks']>(async () => hooks),
    saveHook: vi.fn<Api['saveHook']>(async (input) => {
      const id = input.id || nextHookId++;
      const saved = hook(id, { ...input, id, executionOrder: hooks.length + 1 });
      hooks = [...hooks.filter((x) => x.id !== id), saved];
      return saved;
    }),
    removeHook: vi.fn<Api['removeHook']>(async (id) => {
      hooks = hooks.filter((x) => x.id !== id);
    }),
    setHookEnabled: vi.fn<Api['setHookEnabled']>(async () => {}),
    reorderHooks: vi.fn<Api['reorderHooks']>(async () => {}),
    checkHookScript: vi.fn<Api['checkHookScript']>(async () => []),
    testHook: vi.fn<Api['testHook']>(async () => ({ result: null, console: [], durationMs: 1 })),
    hookLogs: vi.fn<Api['hookLogs']>(async () => []),

    listTokens: vi.fn<Api['listTokens']>(async () => []),
    createToken: vi.fn<Api['createToken']>(async (name, servers) => ({
      token: 'mcpr_secret123',
      view: token(name, { servers }),
    })),
    revokeToken: vi.fn<Api['revokeToken']>(async () => {}),
    deleteToken: vi.fn<Api['deleteToken']>(async () => {}),
    updateTokenServers: vi.fn<Api['updateTokenServers']>(async (name, servers) => token(name, { servers })),
    updateTokenRoles: vi.fn<Api['updateTokenRoles']>(async (name, roles) => token(name, { roles })),
    updateTokenProfile: vi.fn<Api['updateTokenProfile']>(async (name, profile) => token(name, { profile })),
    snippet: vi.fn<Api['snippet']>(async (client, mode, tok, upstreamAuth) => [`${client} ${mode} ${tok || '<token>'}`, ...upstreamAuth].join(' ')),
    planAddToClient: vi.fn<Api['planAddToClient']>(async (profile, client, mode, tok) => ({
      client,
      path: `/home/u/.${client}/config.json`,
      exists: true,
      replaces: false,
      unchanged: false,
      diff: `+ ${client} ${mode} ${profile || 'default'} ${tok}`,
    })),
    addToClient: vi.fn<Api['addToClient']>(async (_profile, client) => ({
      path: `/home/u/.${client}/config.json`,
      backup: `/home/u/.${client}/config.json.bak-20261127T100000Z`,
    })),
    installLink: vi.fn<Api['installLink']>(async (profile, client, mode, tok) => `${client}://install?${profile}&${mode}&${tok}`),
    endpointStatus: vi.fn<Api['endpointStatus']>(async () => ({
      url: 'http://127.0.0.1:3282/mcp',
      running: true,
      authEnabled: false,
    })),

    queryLogs: vi.fn<Api['queryLogs']>(async () => ({ rows: [] })),
    getLog: vi.fn<Api['getLog']>(async (id) => ({ ...logRow(id), request: '{"a":1}', response: '{"b":2}' })),

    getSettings: vi.fn<Api['getSettings']>(async () => settings),
    saveSettings: vi.fn<Api['saveSettings']>(async (s) => {
      settings = { ...s };
      return settings;
    }),

    listProcesses: vi.fn<Api['listProcesses']>(async () => []),
    checkProcess: vi.fn<Api['checkProcess']>(async () => []),
    saveProcess: vi.fn<Api['saveProcess']>(async () => {
      throw new Error('saveProcess: not set up by this test');
    }),
    removeProcess: vi.fn<Api['removeProcess']>(async () => {}),
    listRuns: vi.fn<Api['listRuns']>(async () => []),
    getRun: vi.fn<Api['getRun']>(async () => {
      throw new Error('getRun: not set up by this test');
    }),
    createRun: vi.fn<Api['createRun']>(async () => {
      throw new Error('createRun: not set up by this test');
    }),
    getStateGateStatus: vi.fn<Api['getStateGateStatus']>(async () => ({ added: true, enabled: true, state: 'running', dir: '/data/processes' })),
    enableStateGate: vi.fn<Api['enableStateGate']>(async () => ({ added: true, enabled: true, state: 'starting', dir: '/data/processes' })),

    frontendReady: vi.fn<Api['frontendReady']>(async () => {}),
    logFile: vi.fn<Api['logFile']>(async () => ({ path: '/home/me/.config/mcp-router/logs/mcp-router.log', folder: '/home/me/.config/mcp-router/logs' })),
    openLogFolder: vi.fn<Api['openLogFolder']>(async () => {}),

    // Profiles: kept in memory, like the router's.
    listProfiles: vi.fn<Api['listProfiles']>(async () => [...profiles]),
    createProfile: vi.fn<Api['createProfile']>(async (p) => {
      if (profiles.some((x) => x.name === p.name)) throw new Error(`a profile named "${p.name}" already exists`);
      const saved = { ...p, path: `/mcp/${p.name}` };
      profiles = [...profiles, saved];
      return saved;
    }),
    updateProfile: vi.fn<Api['updateProfile']>(async (p) => {
      const saved = { ...p, path: `/mcp/${p.name}` };
      profiles = profiles.map((x) => (x.name === p.name ? saved : x));
      return saved;
    }),
    removeProfile: vi.fn<Api['removeProfile']>(async (name) => {
      profiles = profiles.filter((x) => x.name !== name);
    }),
    profileSnippet: vi.fn<Api['profileSnippet']>(async (name, client, mode) => `${client} ${mode} /mcp/${name}`),

    // Electron import: no database found; a test sets what a preview shows.
    findElectronDatabase: vi.fn<Api['findElectronDatabase']>(async () => ({ path: '/home/u/.config/MCP Router/mcprouter.db', exists: false })),
    previewElectronImport: vi.fn<Api['previewElectronImport']>(async (kind, path) => emptyPlan(kind, path)),
    importElectron: vi.fn<Api['importElectron']>(async (kind, path) => emptyPlan(kind, path)),
    // Bundles: uploads counted in memory; the preview is bundlePreview().
    beginBundleUpload: vi.fn<Api['beginBundleUpload']>(async () => {
      const id = `up${nextUpload++}`;
      uploads.set(id, 0);
      return id;
    }),
    appendBundleUpload: vi.fn<Api['appendBundleUpload']>(async (id, chunk) => {
      const size = (uploads.get(id) ?? 0) + atob(chunk).length;
      uploads.set(id, size);
      return size;
    }),
    inspectBundle: vi.fn<Api['inspectBundle']>(async (id) => {
      if (!uploads.has(id)) throw new Error(`no bundle upload "${id}"`);
      return bundlePreview();
    }),
    installBundle: vi.fn<Api['installBundle']>(async (id, name) => {
      if (!uploads.delete(id)) throw new Error(`no bundle upload "${id}"`);
      const p = bundlePreview();
      return server(name || p.serverName, {
        bundle: { name: p.name, version: p.version, author: p.author, tools: p.tools, signature: p.signature.status, signedBy: p.signature.publisher, fingerprint: p.signature.fingerprint },
      });
    }),
    discardBundleUpload: vi.fn<Api['discardBundleUpload']>(async (id) => {
      uploads.delete(id);
    }),
    // The MCP Registry: three servers, paged by index; weather has a detail.
    registrySearch: vi.fn<Api['registrySearch']>(async (query, cursor, limit) => {
      const all = ['io.github.example/alpha', 'io.github.example/beta', 'io.github.example/weather']
        .filter((n) => n.includes(query))
        .map((n) => registryEntry(n));
      const from = cursor ? Number(cursor) : 0;
      const to = from + (limit || 30);
      return { servers: all.slice(from, to), nextCursor: to < all.length ? String(to) : '' };
    }),
    registryShow: vi.fn<Api['registryShow']>(async (name) => {
      if (name !== 'io.github.example/weather') return { entry: registryEntry(name), defaultName: name.split('/')[1] ?? name, targets: [] };
      return weatherView();
    }),
    registryInstall: vi.fn<Api['registryInstall']>(async (_name, _version, target, serverName, answers) => {
      if (target.kind === 'package' && !answers.env.WEATHER_API_KEY) throw new Error('required values missing: --env WEATHER_API_KEY=… (secret)');
      return server(serverName || 'weather', { state: 'starting' });
    }),
    outdatedServers: vi.fn<Api['outdatedServers']>(async () => []),

    // The charts' series: none yet (tests give points with mockResolvedValue).
    metricsSeries: vi.fn<Api['metricsSeries']>(async () => ({ intervalSeconds: 5, capacity: 120, points: [] })),

    // Settings → About: checks are off until setCheckForUpdates(true).
    about: vi.fn<Api['about']>(async () => about),
    setCheckForUpdates: vi.fn<Api['setCheckForUpdates']>(async (on) => {
      about = { ...about, checkForUpdates: on };
      return about;
    }),
    checkForUpdates: vi.fn<Api['checkForUpdates']>(async (force) => {
      if (!force && !about.checkForUpdates) throw new Error('update checks are off');
      return updateCheck();
    }),

    onServerChanged: vi.fn<Api['onServerChanged']>(sub(h.changed)),
    onServerRemoved: vi.fn<Api['onServerRemoved']>(sub(h.removed)),
    onConsoleLines: vi.fn<Api['onConsoleLines']>(sub(h.console)),
    onLogsAppended: vi.fn<Api['onLogsAppended']>(sub(h.logs)),
    onHookLog: vi.fn<Api['onHookLog']>(sub(h.hookLog)),
    onToolsChanged: vi.fn<Api['onToolsChanged']>((fn) => sub(h.tools)(() => fn())),
    onSettingsChanged: vi.fn<Api['onSettingsChanged']>(sub(h.settings)),
    onStateGateChanged: vi.fn<Api['onStateGateChanged']>((fn) => sub(h.stategate)(() => fn())),
    pendingApprovals: vi.fn<Api['pendingApprovals']>(async () => []),
    decideApproval: vi.fn<Api['decideApproval']>(async () => undefined),
    onApprovalsChanged: vi.fn<Api['onApprovalsChanged']>((fn) => sub(h.approvals)(fn)),
    onReconnect: vi.fn<Api['onReconnect']>((fn) => sub(h.reconnect)(() => fn())),
  } satisfies Api;

  return {
    api,
    chat,
    /** Delivers a `servers:changed` event to every current listener. */
    emit: (s: ServerView) => h.changed.forEach((fn) => fn(s)),
    /** Delivers a `servers:removed` event to every current listener. */
    remove: (name: string) => h.removed.forEach((fn) => fn(name)),
    console: (server: string, lines: string[]) => h.console.forEach((fn) => fn({ server, lines })),
    logs: (rows: LogRow[]) => h.logs.forEach((fn) => fn(rows)),
    hookLog: (hookId: number, lines: string[]) => h.hookLog.forEach((fn) => fn({ hookId, lines })),
    toolsChanged: () => h.tools.forEach((fn) => fn()),
    settingsChanged: (s: AppSettings) => h.settings.forEach((fn) => fn(s)),
    /** The event stream came back after a break. */
    reconnect: () => h.reconnect.forEach((fn) => fn()),
    /** Delivers a `stategate:changed` event. */
    stateGateChanged: () => h.stategate.forEach((fn) => fn()),
    /** Delivers an `approvals:changed` event with the whole pending list. */
    approvalsChanged: (l: PendingApproval[]) => h.approvals.forEach((fn) => fn(l)),
    /** Listeners of servers:changed and servers:removed (what the servers store holds). */
    listenerCount: () => h.changed.size + h.removed.size,
    reconnectListenerCount: () => h.reconnect.size,
    /** Listeners of every event. */
    allListenerCount: () => Object.values(h).reduce((n, s) => n + s.size, 0) + chat.chatListenerCount(),
  };
}

export type FakeApi = ReturnType<typeof fakeApi>;
