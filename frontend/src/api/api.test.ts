import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, createApi, EVENTS, getSession, hasWailsBridge, httpTransport, tokenStore, wailsTransport, type ApiTransport } from '.';
import { hook, server } from '../test/fakeApi';

function fakeTransport(answers: Record<string, unknown> = {}) {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const calls: [string, unknown[]][] = [];
  const t: ApiTransport = {
    async call(method, args) {
      calls.push([method, args]);
      const a = answers[method];
      if (a instanceof Error) throw a;
      return a;
    },
    on(name, h) {
      const s = listeners.get(name) ?? new Set();
      s.add(h);
      listeners.set(name, s);
      return () => s.delete(h);
    },
  };
  return { t, calls, emit: (name: string, p: unknown) => listeners.get(name)?.forEach((h) => h(p)) };
}

describe('createApi', () => {
  beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));
  afterEach(() => vi.restoreAllMocks());

  it('reads the hook limits of AppSettings, with the defaults when a field is missing', async () => {
    const base = { port: 3282, authEnabled: true, separator: '__', retentionDays: 30, timeoutSeconds: 60, startAtLogin: false, closeToTray: true, theme: 'dark', language: 'en' };
    const api = createApi(fakeTransport({ GetSettings: { ...base, hookTimeoutSeconds: 2, hookMemoryMB: 128, approvalTimeoutSeconds: 300 } }).t);
    expect(await api.getSettings()).toMatchObject({ hookTimeoutSeconds: 2, hookMemoryMB: 128, approvalTimeoutSeconds: 300 });
    const old = createApi(fakeTransport({ GetSettings: base }).t);
    expect(await old.getSettings()).toMatchObject({ hookTimeoutSeconds: 5, hookMemoryMB: 64, approvalTimeoutSeconds: 60 });
    // The session limits: read, or the settings' defaults from a router without them.
    const sessions = createApi(fakeTransport({ GetSettings: { ...base, sessionsPerCredential: 3, sessionsTotal: 50, sessionIdleTimeoutSeconds: 90 } }).t);
    expect(await sessions.getSettings()).toMatchObject({ sessionsPerCredential: 3, sessionsTotal: 50, sessionIdleTimeoutSeconds: 90 });
    expect(await old.getSettings()).toMatchObject({ sessionsPerCredential: 100, sessionsTotal: 1000, sessionIdleTimeoutSeconds: 600 });
  });

  it('reads the policy as Go sends it: the load error\'s problems, nil lists empty', async () => {
    const f = fakeTransport({
      GetPolicy: {
        path: '/d/policy.yaml',
        source: 'policies: [\n',
        status: {
          path: '/d/policy.yaml', exists: true, active: true, rules: 3, loadedAt: '2026-01-01T00:00:00Z',
          error: { path: '/d/policy.yaml', problems: [{ line: 1, column: 11, message: "sequence end token ']' not found" }] },
          errorAt: '2026-01-01T00:01:00Z',
        },
      },
      CheckPolicy: null,
    });
    const api = createApi(f.t);
    const v = await api.getPolicy();
    expect(v.status).toEqual({
      path: '/d/policy.yaml', exists: true, active: true, rules: 3, loadedAt: '2026-01-01T00:00:00Z',
      problems: [{ line: 1, column: 11, message: "sequence end token ']' not found" }], errorAt: '2026-01-01T00:01:00Z',
    });
    expect(await api.checkPolicy('x')).toEqual([]);
    expect(f.calls.at(-1)).toEqual(['CheckPolicy', ['x']]);
  });

  it("reads the chat status's provider from the environment, absent when Go omits it, and refuses an unknown kind", async () => {
    const base = { configured: false, mcpEnabled: true, toolsSetting: true, keyStore: 'file', maxRounds: 20, toolTimeoutSeconds: 60 };
    const env = { kind: 'openai', label: 'OpenAI', keyVar: 'OPENAI_API_KEY', baseUrlVar: 'OPENAI_BASE_URL', baseUrl: 'http://127.0.0.1:11434/v1', model: 'gpt-5.5', reason: 'using OPENAI_API_KEY' };
    const api = createApi(fakeTransport({ ChatStatus: { ...base, environment: env } }).t);
    expect((await api.chatStatus()).environment).toEqual(env);
    const none = createApi(fakeTransport({ ChatStatus: { ...base, environmentError: 'OPENAI_API_KEY is set but empty' } }).t);
    expect(await none.chatStatus()).toMatchObject({ environment: undefined, environmentError: 'OPENAI_API_KEY is set but empty' });
    const bad = createApi(fakeTransport({ ChatStatus: { ...base, environment: { ...env, kind: 'gemini' } } }).t);
    await expect(bad.chatStatus()).rejects.toThrow('unknown kind "gemini"');
  });

  it('calls Go methods by name with positional arguments', async () => {
    const f = fakeTransport({ CallTool: { content: [{ type: 'text', text: 'hi' }], isError: false, durationMs: 2 } });
    const api = createApi(f.t);
    const r = await api.callTool('everything__echo', '{"message":"hi"}');
    await api.setToolEnabled('everything', 'echo', false);
    await api.reorderHooks([3, 1]);
    await api.queryLogs({ status: 'blocked', beforeId: 10 }).catch(() => {});
    await api.snippet('cursor', 'stdio', '', ['github=Bearer x']).catch(() => {});
    expect(f.calls).toEqual([
      ['CallTool', ['everything__echo', '{"message":"hi"}']],
      ['SetToolEnabled', ['everything', 'echo', false]],
      ['ReorderHooks', [[3, 1]]],
      ['QueryLogs', [{ status: 'blocked', beforeId: 10 }]],
      ['Snippet', ['cursor', 'stdio', '', ['github=Bearer x']]],
    ]);
    expect(r.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('treats nil slices as empty lists and checks values', async () => {
    const f = fakeTransport({ ListServers: null, ListHooks: [hook(1)], ListTools: [{ name: 'a__b', inputSchema: null }] });
    const api = createApi(f.t);
    expect(await api.listServers()).toEqual([]);
    expect(await api.listHooks()).toEqual([hook(1)]);
    expect((await api.listTools())[0]?.inputSchema).toEqual({ type: 'object' });
  });

  it("reads a hook's load error; a broken hook's unreadable type does not fail the list, a readable hook's does", async () => {
    const broken = { ...hook(2, { name: 'garbled' }), hookType: 'around', loadError: 'the stored row cannot be read as a hook: bad hook_type' };
    const list = await createApi(fakeTransport({ ListHooks: [hook(1), broken] }).t).listHooks();
    expect(list[0]).not.toHaveProperty('loadError');
    expect(list[1]).toMatchObject({ name: 'garbled', hookType: 'pre', loadError: 'the stored row cannot be read as a hook: bad hook_type' });
    const { loadError: _e, ...odd } = broken;
    await expect(createApi(fakeTransport({ ListHooks: [odd] }).t).listHooks()).rejects.toThrow('hook garbled: hookType');
  });

  it("reads a server's protocol revision and the revisions it offers; Go's omitted fields are empty, odd entries dropped", async () => {
    const { protocol: _p, protocolsOffered: _o, ...bare } = server('b');
    const f = fakeTransport({
      ListServers: [{ ...server('a'), protocol: '2025-11-25', protocolsOffered: ['2026-07-28', 7, '2025-11-25'] }, bare],
    });
    const [a, b] = await createApi(f.t).listServers();
    expect(a?.protocol).toBe('2025-11-25');
    expect(a?.protocolsOffered).toEqual(['2026-07-28', '2025-11-25']);
    expect(b?.protocol).toBe('');
    expect(b?.protocolsOffered).toEqual([]);
    expect(a?.passUpstreamAuth).toBe(false);
    const [p] = await createApi(fakeTransport({ ListServers: [{ ...server('gh'), passUpstreamAuth: true }] }).t).listServers();
    expect(p?.passUpstreamAuth).toBe(true);
  });

  it('reads the backend tool of an ability call in log rows and details, absent for other requests', async () => {
    const row = { id: 7, time: '2026-11-26T00:00:00Z', client: 'c', server: 'calc', method: 'tools/call', target: 'sum', durationMs: 1, status: 'ok' };
    const api = createApi(fakeTransport({ QueryLogs: { rows: [{ ...row, backendTool: 'get-sum' }, { ...row, id: 6, target: 'calc__get-sum' }] }, GetLog: { ...row, backendTool: 'get-sum', request: '{}' } }).t);
    const page = await api.queryLogs({});
    expect(page.rows.map((r) => r.backendTool)).toEqual(['get-sum', undefined]);
    expect(await api.getLog(7)).toMatchObject({ target: 'sum', backendTool: 'get-sum', request: '{}' });
  });

  it('rejects values outside the contract with a message naming the field', async () => {
    const api = createApi(fakeTransport({ ListServers: [{ ...server('a'), state: 'exploded' }] }).t);
    await expect(api.listServers()).rejects.toThrow('server a: state: unknown value "exploded"');
    const api2 = createApi(fakeTransport({ QueryLogs: { rows: [{ id: 1, status: 'weird' }] } }).t);
    await expect(api2.queryLogs({})).rejects.toThrow('log 1: status');
  });

  it('starts a login with the server name and a client id, opens only http(s) URLs, through the transport when it can', async () => {
    const ok = fakeTransport({ LoginServer: { url: 'https://auth.example/authorize?x=1', registration: 'dynamic' } });
    const api = createApi(ok.t);
    await expect(api.loginServer('remote', '')).resolves.toEqual({ url: 'https://auth.example/authorize?x=1', registration: 'dynamic' });
    expect(ok.calls).toEqual([['LoginServer', ['remote', '']]]);
    const bad = createApi(fakeTransport({ LoginServer: { url: 'javascript:alert(1)', registration: 'dynamic' } }).t);
    await expect(bad.loginServer('remote', '')).rejects.toThrow('login: the authorization URL is not http(s)');

    const opened: string[] = [];
    createApi({ ...ok.t, openURL: (u) => opened.push(u) }).openExternal('https://auth.example/a');
    expect(opened).toEqual(['https://auth.example/a']);
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    api.openExternal('https://auth.example/b');
    expect(open).toHaveBeenCalledWith('https://auth.example/b', '_blank', 'noopener');
  });

  it('carries each token\'s role and refuses one outside the contract', async () => {
    const row = (name: string, role?: string) => ({ id: 1, name, prefix: 'mcpr_x', servers: null, role, createdAt: '2026-11-24T00:00:00Z' });
    const api = createApi(fakeTransport({ ListTokens: [row('me', 'admin'), row('cursor', 'client')] }).t);
    expect((await api.listTokens()).map((x) => `${x.name}:${x.role}`)).toEqual(['me:admin', 'cursor:client']);
    const created = createApi(fakeTransport({ CreateToken: { token: 'mcpr_s', view: row('cursor', 'client') } }).t);
    expect((await created.createToken('cursor', [])).view.role).toBe('client');
    for (const bad of ['root', undefined]) {
      const api2 = createApi(fakeTransport({ ListTokens: [row('odd', bad)] }).t);
      await expect(api2.listTokens()).rejects.toThrow('token odd: role: unknown value');
    }
  });

  it("carries a token's own roles (nil: none) and updates them through UpdateTokenRoles", async () => {
    const row = (name: string, roles: unknown) => ({ id: 1, name, prefix: 'mcpr_x', servers: [], role: 'client', roles, createdAt: '2026-11-24T00:00:00Z' });
    const f = fakeTransport({ ListTokens: [row('bot', ['reviewer', 'qa']), row('plain', null)], UpdateTokenRoles: row('bot', ['maintainer']) });
    const api = createApi(f.t);
    expect((await api.listTokens()).map((x) => x.roles)).toEqual([['reviewer', 'qa'], []]);
    expect((await api.updateTokenRoles('bot', ['maintainer'])).roles).toEqual(['maintainer']);
    expect(f.calls.at(-1)).toEqual(['UpdateTokenRoles', ['bot', ['maintainer']]]);
  });

  it('turns a Go error string into an ApiError', async () => {
    const t: ApiTransport = { call: () => Promise.reject('store: disk full'), on: () => () => {} };
    await expect(createApi(t).listServers()).rejects.toEqual(new ApiError('store: disk full'));
  });

  it('reads a discovery: the Go transport names become the form\'s, nothing found has no transport', async () => {
    const steps = [{ what: 'sse', url: 'http://h/sse', ok: true, result: 'legacy SSE' }, { what: 7, ok: 'yes' }];
    const found = createApi(fakeTransport({ DiscoverServer: { input: 'http://h', endpoint: 'http://h/mcp', transport: 'streamable-http', steps } }).t);
    expect(await found.discoverServer('http://h')).toEqual({
      input: 'http://h',
      endpoint: 'http://h/mcp',
      transport: 'http',
      needsAuth: false,
      authorizationServers: [],
      name: undefined,
      steps: [
        { what: 'sse', url: 'http://h/sse', ok: true, result: 'legacy SSE' },
        { what: '', url: '', ok: false, result: '' },
      ],
    });
    const none = createApi(fakeTransport({ DiscoverServer: { input: 'http://h', endpoint: '', transport: 'sse', steps: null } }).t);
    expect(await none.discoverServer('http://h')).toMatchObject({ endpoint: undefined, transport: undefined, steps: [] });
  });

  it('keeps unknown server config fields for a round trip', async () => {
    const api = createApi(fakeTransport({ GetServer: { name: 'a', transport: 'stdio', command: 'x', futureField: 7 } }).t);
    expect(await api.getServer('a')).toMatchObject({ name: 'a', command: 'x', futureField: 7, prefixMode: 'always' });
  });

  it('delivers valid events and drops bad ones', () => {
    const f = fakeTransport();
    const api = createApi(f.t);
    const got: string[] = [];
    const offs = [
      api.onServerChanged((s) => got.push(`changed ${s.name}`)),
      api.onServerRemoved((n) => got.push(`removed ${n}`)),
      api.onConsoleLines((e) => got.push(`console ${e.server} ${e.lines.join('|')}`)),
      api.onLogsAppended((rows) => got.push(`logs ${rows.map((r) => r.id).join(',')}`)),
      api.onHookLog((e) => got.push(`hook ${e.hookId} ${e.lines.length}`)),
      api.onToolsChanged(() => got.push('tools')),
      api.onSettingsChanged((s) => got.push(`settings ${s.theme}`)),
    ];
    f.emit(EVENTS.serversChanged, server('a'));
    f.emit(EVENTS.serversChanged, { name: 'broken' });
    f.emit(EVENTS.serversRemoved, 'a');
    f.emit(EVENTS.serversRemoved, 5);
    f.emit(EVENTS.consoleLines, { server: 'a', lines: ['x', 'y'] });
    f.emit(EVENTS.logsAppended, [{ id: 4, status: 'ok' }]);
    f.emit(EVENTS.hooksLog, { hookId: 2, lines: ['l'] });
    f.emit(EVENTS.toolsChanged, null);
    f.emit(EVENTS.settingsChanged, { theme: 'dark' });
    offs.forEach((off) => off());
    f.emit(EVENTS.toolsChanged, null);
    expect(got).toEqual(['changed a', 'removed a', 'console a x|y', 'logs 4', 'hook 2 1', 'tools', 'settings dark']);
    expect(console.error).toHaveBeenCalledTimes(2);
  });
});

describe('wailsTransport', () => {
  afterEach(() => {
    delete window.go;
    delete window.runtime;
  });

  it('calls window.go.appapi.API[method] and listens through the runtime', async () => {
    const listeners = new Map<string, (...d: unknown[]) => void>();
    const ListServers = vi.fn(async () => [server('a')]);
    window.go = { appapi: { API: { ListServers } } };
    window.runtime = {
      EventsOnMultiple(name: string, cb: (...d: unknown[]) => void) {
        listeners.set(name, cb);
        return () => listeners.delete(name);
      },
    };
    const api = createApi(wailsTransport);
    expect(await api.listServers()).toEqual([server('a')]);
    const got: string[] = [];
    const off = api.onServerRemoved((n) => got.push(n));
    listeners.get('servers:removed')?.('gone');
    off();
    expect(got).toEqual(['gone']);
    expect(listeners.size).toBe(0);
  });

  it('opens a login page in the system browser through the Wails runtime', () => {
    const BrowserOpenURL = vi.fn();
    window.runtime = { BrowserOpenURL };
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    createApi(wailsTransport).openExternal('https://auth.example/authorize');
    expect(BrowserOpenURL).toHaveBeenCalledWith('https://auth.example/authorize');
    expect(open).not.toHaveBeenCalled();
    open.mockRestore();
  });

  it('knows the Wails window by its bindings or its runtime', () => {
    expect(hasWailsBridge()).toBe(false);
    window.runtime = {};
    expect(hasWailsBridge()).toBe(true);
    delete window.runtime;
    window.go = { appapi: { API: {} } };
    expect(hasWailsBridge()).toBe(true);
  });

  it('fails clearly without the bridge or the method', async () => {
    await expect(createApi(wailsTransport).listServers()).rejects.toThrow('Wails bridge is missing');
    window.go = { appapi: { API: {} } };
    await expect(createApi(wailsTransport).listServers()).rejects.toThrow('does not offer ListServers');
  });
});

class FakeES {
  static all: FakeES[] = [];
  readyState = 1;
  listeners = new Map<string, ((e: { data: string }) => void)[]>();
  onerror: (() => void) | null = null;
  closed = false;
  constructor(public url: string) {
    FakeES.all.push(this);
  }
  addEventListener(name: string, cb: (e: { data: string }) => void) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), cb]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  fire(name: string, data: string) {
    this.listeners.get(name)?.forEach((cb) => cb({ data }));
  }
}

describe('httpTransport', () => {
  beforeEach(() => {
    FakeES.all = [];
    sessionStorage.clear();
  });

  function jsonResponse(status: number, body: unknown) {
    return new Response(body === undefined ? '' : JSON.stringify(body), { status });
  }

  it('POSTs a JSON array to /ui/api/call/<Method> with the bearer token', async () => {
    tokenStore.set('mcpr_tok');
    const fetch = vi.fn(async (..._a: unknown[]) => jsonResponse(200, [server('a')]));
    const api = createApi(httpTransport({ fetch: fetch as unknown as typeof globalThis.fetch }));
    expect(await api.listServers()).toEqual([server('a')]);
    await api.setServerEnabled('a', false);
    const [url, init] = fetch.mock.calls[1] as [string, RequestInit];
    expect(url).toBe('/ui/api/call/SetServerEnabled');
    expect(init.method).toBe('POST');
    expect(init.body).toBe('["a",false]');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer mcpr_tok');
  });

  it('declares every call application/json, one without arguments or a token too', async () => {
    // The router refuses any other Content-Type (415): a page of another
    // origin could send text/plain without a CORS preflight (docs/ui-api.md).
    const fetch = vi.fn(async (..._a: unknown[]) => jsonResponse(200, null));
    const t = httpTransport({ fetch: fetch as unknown as typeof globalThis.fetch });
    await t.call('ListServers', []);
    await t.call('SetServerEnabled', ['a', true]);
    expect(fetch).toHaveBeenCalledTimes(2);
    for (const [, init] of fetch.mock.calls as [string, RequestInit][]) {
      expect(init.method).toBe('POST');
      expect((init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
      expect(Array.isArray(JSON.parse(init.body as string))).toBe(true);
    }
    expect((fetch.mock.calls[0] as [string, RequestInit])[1].body).toBe('[]');
  });

  it('turns {error} into an ApiError and a 401 into onUnauthorized', async () => {
    const onUnauthorized = vi.fn();
    const fetch = vi
      .fn()
      .mockResolvedValueOnce(jsonResponse(400, { error: 'port: must be between 1 and 65535' }))
      .mockResolvedValueOnce(jsonResponse(401, { error: 'invalid token' }))
      .mockRejectedValueOnce(new TypeError('Failed to fetch'));
    const api = createApi(httpTransport({ fetch, onUnauthorized }));
    await expect(api.getSettings()).rejects.toThrow('port: must be between 1 and 65535');
    await expect(api.getSettings()).rejects.toMatchObject({ status: 401, message: 'invalid token' });
    expect(onUnauthorized).toHaveBeenCalledOnce();
    await expect(api.getSettings()).rejects.toThrow('cannot reach MCP Router: Failed to fetch');
  });

  it('shares one EventSource with ?token= and closes it after the last listener', () => {
    tokenStore.set('mcpr_x y');
    const t = httpTransport({ eventSource: (u) => new FakeES(u) as unknown as EventSource });
    const got: unknown[] = [];
    const off1 = t.on('servers:removed', (p) => got.push(p));
    const off2 = t.on('tools:changed', (p) => got.push(p));
    expect(FakeES.all).toHaveLength(1);
    const es = FakeES.all[0]!;
    expect(es.url).toBe('/ui/api/events?token=mcpr_x%20y');
    es.fire('servers:removed', '"a"');
    es.fire('tools:changed', 'null');
    off1();
    es.fire('servers:removed', '"b"');
    expect(got).toEqual(['a', null]);
    off2();
    expect(es.closed).toBe(true);
  });

  it('reopens the stream after the server closed it', async () => {
    vi.useFakeTimers();
    try {
      const t = httpTransport({ eventSource: (u) => new FakeES(u) as unknown as EventSource, reconnectMs: 100 });
      const got: unknown[] = [];
      t.on('servers:removed', (p) => got.push(p));
      const first = FakeES.all[0]!;
      first.readyState = 2;
      first.onerror?.();
      await vi.advanceTimersByTimeAsync(150);
      expect(FakeES.all).toHaveLength(2);
      FakeES.all[1]!.fire('servers:removed', '"z"');
      expect(got).toEqual(['z']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads the session', async () => {
    const fetch = vi.fn(async () => jsonResponse(200, { authRequired: true, valid: false }));
    expect(await getSession({ fetch: fetch as unknown as typeof globalThis.fetch })).toEqual({ authRequired: true, valid: false });
  });

  it('reads the role and the reason of a token that cannot log in', async () => {
    const body = { authRequired: true, valid: false, role: 'client', error: 'token "x" is a client token', hint: 'create an admin token' };
    const fetch = vi.fn(async () => jsonResponse(200, body));
    expect(await getSession({ fetch: fetch as unknown as typeof globalThis.fetch })).toStrictEqual({
      authRequired: true,
      valid: false,
      role: 'client',
      error: 'token "x" is a client token',
    });
    // A role the UI does not know is not passed on as one.
    fetch.mockResolvedValueOnce(jsonResponse(200, { authRequired: true, valid: false, role: 'owner' }));
    expect((await getSession({ fetch: fetch as unknown as typeof globalThis.fetch })).role).toBeUndefined();
  });
});

describe('httpTransport reconnects', () => {
  it('tells subscribers when the stream is back after a break, not on the first open', () => {
    FakeES.all = [];
    const t = httpTransport({ eventSource: (u) => new FakeES(u) as unknown as EventSource });
    const api = createApi(t);
    const seen = vi.fn();
    const stop = api.onReconnect(seen);
    api.onToolsChanged(() => {});
    const es = FakeES.all[0]! as unknown as { onopen: () => void; onerror: () => void };
    es.onopen();
    expect(seen).not.toHaveBeenCalled();
    es.onerror(); // EventSource retries by itself (still CONNECTING)
    es.onopen();
    expect(seen).toHaveBeenCalledOnce();
    stop();
    es.onerror();
    es.onopen();
    expect(seen).toHaveBeenCalledOnce();
  });
});

describe('the protocol setting at the boundary', async () => {
  const { toServerConfig } = await import('./convert');
  it('keeps 2025-11-25 and 2026-07-28, reads anything else as auto (absent)', () => {
    const base = { name: 'g', transport: 'stdio', enabled: true };
    expect(toServerConfig({ ...base, protocol: '2026-07-28' }).protocol).toBe('2026-07-28');
    expect(toServerConfig({ ...base, protocol: '2025-11-25' }).protocol).toBe('2025-11-25');
    expect(toServerConfig({ ...base, protocol: 'latest' }).protocol).toBeUndefined();
    expect(toServerConfig(base).protocol).toBeUndefined();
  });
});

describe('per-client fields at the boundary', async () => {
  const { toServerView, toLogRow } = await import('./convert');
  it('reads isolation, instances and the suggestion; an unknown instance state is refused', () => {
    const v = toServerView({
      name: 'fs', transport: 'stdio', state: 'running', isolation: 'per-client',
      instances: [{ id: 2, client: 'code a1', pid: 42, since: 1000, calls: 3, state: 'running' }],
    });
    expect(v.isolation).toBe('per-client');
    expect(v.instances).toEqual([{ id: 2, client: 'code a1', pid: 42, since: 1000, calls: 3, state: 'running' }]);
    expect(v.suggestPerClient).toBeUndefined();
    const shared = toServerView({ name: 'x', transport: 'stdio', state: 'running', suggestPerClient: { what: 'roots', clients: 2, at: 5 } });
    expect(shared.isolation).toBe('shared');
    expect(shared.instances).toEqual([]);
    expect(shared.suggestPerClient).toEqual({ what: 'roots', clients: 2, at: 5 });
    expect(() => toServerView({ name: 'fs', transport: 'stdio', state: 'running', instances: [{ id: 1, state: 'dancing' }] })).toThrow(/instance state/);
  });
  it('reads why an auto start made a server lazy; an unknown why is dropped', () => {
    const row = { name: 'fs', transport: 'stdio', state: 'stopped', lazy: true };
    expect(toServerView({ ...row, lazyWhy: 'search-only' }).lazyWhy).toBe('search-only');
    expect(toServerView({ ...row, lazyWhy: 'gated' }).lazyWhy).toBe('gated');
    expect(toServerView({ ...row, lazyWhy: 'whim' }).lazyWhy).toBeUndefined();
    expect(toServerView(row).lazyWhy).toBeUndefined();
  });
  it("reads a log row's instance", () => {
    expect(toLogRow({ id: 1, status: 'ok', instance: '#3 (pid 4242)' }).instance).toBe('#3 (pid 4242)');
    expect(toLogRow({ id: 1, status: 'ok' }).instance).toBeUndefined();
  });
});
