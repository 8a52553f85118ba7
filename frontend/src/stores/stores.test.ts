import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, fakeApi, hook, logRow, server, tool } from '../test/fakeApi';
import { createHooksStore } from './hooks';
import { createLogsStore, matches, PAGE_SIZE } from './logs';
import { createServersStore } from './servers';
import { createSettingsStore } from './settings';
import { createTokensStore } from './tokens';
import { createToolsStore } from './tools';

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('servers store actions', () => {
  it('runs an action, marks it pending, and reports a failure next to the server', async () => {
    const fake = fakeApi([server('a')]);
    const store = createServersStore(fake.api);
    await store.getState().load();

    let release!: () => void;
    fake.api.restartServer.mockReturnValueOnce(new Promise<void>((r) => (release = r)));
    const p = store.getState().act('a', 'restart');
    expect(store.getState().pending.a).toBe('restart');
    release();
    await p;
    expect(store.getState().pending.a).toBeUndefined();
    expect(fake.api.restartServer).toHaveBeenCalledWith('a');

    fake.api.stopServer.mockRejectedValueOnce('server a: not running');
    await store.getState().act('a', 'stop');
    expect(store.getState().actionError).toEqual({ name: 'a', message: 'server a: not running' });

    await store.getState().act('a', 'disable');
    expect(fake.api.setServerEnabled).toHaveBeenCalledWith('a', false);
    expect(store.getState().servers[0]?.enabled).toBe(false);
    expect(store.getState().actionError).toBeNull();

    await store.getState().act('a', 'remove');
    expect(store.getState().servers).toEqual([]);
  });

  it('remembers when a server entered its state', async () => {
    const fake = fakeApi([server('a', { state: 'starting' })]);
    const store = createServersStore(fake.api);
    store.getState().listen();
    vi.spyOn(Date, 'now').mockReturnValue(1000);
    await store.getState().load();
    expect(store.getState().since.a).toBe(1000);
    vi.spyOn(Date, 'now').mockReturnValue(5000);
    fake.emit(server('a', { state: 'starting', tools: 0 }));
    expect(store.getState().since.a).toBe(1000); // same state: same start
    fake.emit(server('a', { state: 'running' }));
    expect(store.getState().since.a).toBe(5000);
    vi.restoreAllMocks();
  });

  it("counts from the router's time for the state when it gives one", async () => {
    // A page opened 20 s into a slow start shows 20 s, not 0.
    const fake = fakeApi([server('slow', { state: 'starting', stateSince: 80_000 })]);
    const store = createServersStore(fake.api);
    store.getState().listen();
    vi.spyOn(Date, 'now').mockReturnValue(100_000);
    await store.getState().load();
    expect(store.getState().since.slow).toBe(80_000);
    fake.emit(server('slow', { state: 'running', stateSince: 99_000 }));
    expect(store.getState().since.slow).toBe(99_000);
    // A clock ahead of this page's never shows a negative time.
    fake.emit(server('slow', { state: 'errored', stateSince: 200_000 }));
    expect(store.getState().since.slow).toBe(100_000);
    vi.restoreAllMocks();
  });

  it('follows a console: the ring first, then batched lines, released on the last unwatch', async () => {
    const fake = fakeApi([server('a')]);
    fake.api.serverConsole.mockResolvedValueOnce(['old 1', 'old 2']);
    const store = createServersStore(fake.api);
    const stop = store.getState().watchConsole('a');
    fake.console('a', ['new 1']); // arrives before the ring does
    fake.console('b', ['not watched']);
    await flush();
    expect(store.getState().consoles.a).toEqual(['old 1', 'old 2', 'new 1']);
    expect(store.getState().consoles.b).toBeUndefined();
    fake.console('a', ['new 2', 'new 3']);
    expect(store.getState().consoles.a?.slice(-2)).toEqual(['new 2', 'new 3']);
    stop();
    expect(fake.allListenerCount()).toBe(0);
    expect(store.getState().consoles.a).toBeUndefined();
  });

  it('toggles a tool optimistically and puts it back on failure', async () => {
    const fake = fakeApi([server('a')]);
    fake.api.serverTools.mockResolvedValue([{ name: 'echo', description: '', enabled: true, finalName: 'a__echo' }]);
    const store = createServersStore(fake.api);
    await store.getState().loadTools('a');
    fake.api.setToolEnabled.mockRejectedValueOnce('store: locked');
    await store.getState().setToolEnabled('a', 'echo', false);
    expect(store.getState().tools.a?.list[0]?.enabled).toBe(true);
    expect(store.getState().tools.a?.error).toBe('store: locked');
    await store.getState().setToolEnabled('a', 'echo', false);
    expect(store.getState().tools.a?.list[0]?.enabled).toBe(false);
  });

  it('replaces the row of a renamed server', async () => {
    const fake = fakeApi([server('old')]);
    const store = createServersStore(fake.api);
    await store.getState().load();
    await store.getState().update('old', { name: 'new', transport: 'stdio', command: 'x', enabled: true, prefixMode: 'always' });
    expect(store.getState().servers.map((s) => s.name)).toEqual(['new']);
  });
});

describe('tools store', () => {
  it('loads sorted, refetches on tools:changed, and keeps one call state per tool', async () => {
    const fake = fakeApi();
    fake.api.listTools.mockResolvedValueOnce([tool('b__x'), tool('a__y')]);
    const store = createToolsStore(fake.api);
    const stop = store.getState().listen();
    await store.getState().load();
    expect(store.getState().tools.map((t) => t.name)).toEqual(['a__y', 'b__x']);

    fake.api.listTools.mockResolvedValueOnce([tool('c__z')]);
    fake.toolsChanged();
    await flush();
    expect(store.getState().tools.map((t) => t.name)).toEqual(['c__z']);

    fake.api.callTool.mockResolvedValueOnce({ content: [{ type: 'text', text: 'hi' }], isError: false, durationMs: 2 });
    await store.getState().call('c__z', { message: 'hi' });
    expect(fake.api.callTool).toHaveBeenCalledWith('c__z', '{"message":"hi"}');
    expect(store.getState().calls.c__z?.result?.content).toEqual([{ type: 'text', text: 'hi' }]);

    fake.api.callTool.mockRejectedValueOnce('cannot reach MCP Router');
    await store.getState().call('c__z', {});
    expect(store.getState().calls.c__z).toMatchObject({ running: false, error: 'cannot reach MCP Router', result: null });
    stop();
    expect(fake.allListenerCount()).toBe(0);
  });
});

describe('hooks store', () => {
  it('moves a hook, persists the new order, and rolls back when refused', async () => {
    const fake = fakeApi();
    fake.api.listHooks.mockResolvedValue([hook(2, { executionOrder: 2 }), hook(1, { executionOrder: 1 }), hook(3, { executionOrder: 3 })]);
    const store = createHooksStore(fake.api);
    await store.getState().load();
    expect(store.getState().hooks.map((h) => h.id)).toEqual([1, 2, 3]);

    await store.getState().move(3, 0);
    expect(fake.api.reorderHooks).toHaveBeenLastCalledWith([3, 1, 2]);
    expect(store.getState().hooks.map((h) => [h.id, h.executionOrder])).toEqual([
      [3, 1],
      [1, 2],
      [2, 3],
    ]);

    fake.api.reorderHooks.mockRejectedValueOnce('hooks changed meanwhile');
    await store.getState().move(3, 2);
    expect(store.getState().hooks.map((h) => h.id)).toEqual([3, 1, 2]);
    expect(store.getState().actionError).toBe('hooks changed meanwhile');

    fake.api.reorderHooks.mockClear();
    await store.getState().move(1, 1); // no move
    expect(fake.api.reorderHooks).not.toHaveBeenCalled();
  });

  it('adds a saved hook and follows its log', async () => {
    const fake = fakeApi();
    fake.api.hookLogs.mockResolvedValueOnce(['earlier']);
    const store = createHooksStore(fake.api);
    await store.getState().load();
    const h = await store.getState().save({ id: 0, name: 'x', enabled: true, hookType: 'pre', script: 'return;', failClosed: false });
    expect(store.getState().hooks.map((x) => x.name)).toEqual(['x']);
    const stop = store.getState().watchLog(h.id);
    await flush();
    fake.hookLog(h.id, ['now']);
    fake.hookLog(h.id + 1, ['other']);
    expect(store.getState().logs[h.id]).toEqual(['earlier', 'now']);
    stop();
    expect(fake.allListenerCount()).toBe(0);
  });

  it('puts an enable toggle back when refused', async () => {
    const fake = fakeApi();
    fake.api.listHooks.mockResolvedValue([hook(1)]);
    fake.api.setHookEnabled.mockRejectedValueOnce('nope');
    const store = createHooksStore(fake.api);
    await store.getState().load();
    await store.getState().setEnabled(1, false);
    expect(store.getState().hooks[0]?.enabled).toBe(true);
    expect(store.getState().actionError).toBe('nope');
  });
});

describe('logs store', () => {
  const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => logRow(from - i));

  it('pages with beforeId and back', async () => {
    const fake = fakeApi();
    fake.api.queryLogs.mockResolvedValueOnce({ rows: rows(300, 100), nextBeforeId: 201 });
    const store = createLogsStore(fake.api);
    await store.getState().setFilters({ status: 'blocked', server: 'everything' });
    expect(fake.api.queryLogs).toHaveBeenLastCalledWith({ status: 'blocked', server: 'everything', limit: PAGE_SIZE });

    fake.api.queryLogs.mockResolvedValueOnce({ rows: rows(200, 100), nextBeforeId: 101 });
    await store.getState().older();
    expect(fake.api.queryLogs).toHaveBeenLastCalledWith({ status: 'blocked', server: 'everything', limit: PAGE_SIZE, beforeId: 201 });
    expect(store.getState().cursors).toEqual([undefined, 201]);
    expect(store.getState().rows[0]?.id).toBe(200);

    fake.api.queryLogs.mockResolvedValueOnce({ rows: rows(300, 100), nextBeforeId: 201 });
    await store.getState().newer();
    expect(fake.api.queryLogs).toHaveBeenLastCalledWith({ status: 'blocked', server: 'everything', limit: PAGE_SIZE });
    expect(store.getState().cursors).toEqual([undefined]);
  });

  it('prepends live rows that match, only on the first page, keeping one page', async () => {
    const fake = fakeApi();
    fake.api.queryLogs.mockResolvedValue({ rows: rows(100, 100), nextBeforeId: 1 });
    const store = createLogsStore(fake.api);
    store.getState().listen();
    await store.getState().setFilters({ status: 'blocked' });

    fake.logs([logRow(101, { status: 'ok' }), logRow(102, { status: 'blocked' }), logRow(103, { status: 'blocked' })]);
    const s = store.getState();
    expect(s.rows.slice(0, 3).map((r) => r.id)).toEqual([103, 102, 100]);
    expect(s.rows).toHaveLength(PAGE_SIZE);
    expect(s.nextBeforeId).toBe(s.rows[s.rows.length - 1]!.id);

    fake.api.queryLogs.mockResolvedValueOnce({ rows: rows(50, 50) });
    await store.getState().older();
    fake.logs([logRow(104, { status: 'blocked' })]);
    expect(store.getState().rows[0]?.id).toBe(50);
  });

  it('matches live rows the way QueryLogs filters: exact names, status, time range', () => {
    const r = logRow(1, { client: 'claude-code', method: 'tools/call', time: '2026-11-23T01:00:00Z' });
    expect(matches(r, { client: 'claude-code', method: 'tools/call', server: 'everything', status: 'ok' })).toBe(true);
    expect(matches(r, { client: 'claude' })).toBe(false);
    expect(matches(r, { method: 'tools/' })).toBe(false);
    expect(matches(r, { since: '2026-11-23T01:00:01Z' })).toBe(false);
    expect(matches(r, { until: '2026-11-23T00:59:59Z' })).toBe(false);
    expect(matches(r, { since: '2026-11-23T00:00:00Z', until: '2026-11-23T02:00:00Z' })).toBe(true);
  });

  it('loads a detail and shows a failure', async () => {
    const fake = fakeApi();
    const store = createLogsStore(fake.api);
    await store.getState().open(7);
    expect(store.getState().detail).toMatchObject({ id: 7, status: 'ready', log: { id: 7, request: '{"a":1}' } });
    fake.api.getLog.mockRejectedValueOnce('no such log');
    await store.getState().open(8);
    expect(store.getState().detail).toMatchObject({ id: 8, status: 'error', error: 'no such log' });
  });
});

describe('settings store', () => {
  it('applies theme at once and rolls it back if refused', async () => {
    const fake = fakeApi();
    const store = createSettingsStore(fake.api);
    await store.getState().load();
    let reject!: (e: unknown) => void;
    fake.api.saveSettings.mockReturnValueOnce(new Promise((_, r) => (reject = r)));
    const p = store.getState().saveAppearance({ theme: 'dark' });
    expect(store.getState().settings?.theme).toBe('dark');
    reject('theme: unknown');
    await p;
    expect(store.getState().settings?.theme).toBe('system');
    expect(store.getState().error).toBe('theme: unknown');
  });

  it('follows settings:changed', async () => {
    const fake = fakeApi();
    const store = createSettingsStore(fake.api);
    store.getState().listen();
    fake.settingsChanged({ ...defaultSettings, language: 'ja' });
    expect(store.getState().settings?.language).toBe('ja');
  });
});

describe('tokens store', () => {
  it('creates, lists and revokes', async () => {
    const fake = fakeApi();
    const store = createTokensStore(fake.api);
    const c = await store.getState().create('cli', ['everything']);
    expect(c.token).toBe('mcpr_secret123');
    expect(store.getState().tokens.map((t) => t.name)).toEqual(['cli']);
    fake.api.listTokens.mockResolvedValueOnce([{ ...c.view, revokedAt: '2026-11-23T01:00:00Z' }]);
    await store.getState().revoke('cli');
    expect(fake.api.revokeToken).toHaveBeenCalledWith('cli');
    expect(store.getState().tokens[0]?.revokedAt).toBeTruthy();
  });
});

describe('after a break in the event stream', () => {
  it('every live list refetches, and stops listening when released', async () => {
    const fake = fakeApi([server('a')]);
    const servers = createServersStore(fake.api);
    const tools = createToolsStore(fake.api);
    const logs = createLogsStore(fake.api);
    const settings = createSettingsStore(fake.api);
    const stops = [servers.getState().listen(), tools.getState().listen(), logs.getState().listen(), settings.getState().listen()];
    await logs.getState().setFilters({});
    fake.api.serverConsole.mockResolvedValue(['ring']);
    const stopConsole = servers.getState().watchConsole('a');
    await flush();
    fake.console('a', ['live']);
    for (const f of [fake.api.listServers, fake.api.listTools, fake.api.queryLogs, fake.api.getSettings, fake.api.serverConsole]) f.mockClear();

    fake.reconnect();
    await flush();
    expect(fake.api.listServers).toHaveBeenCalledOnce();
    expect(fake.api.listTools).toHaveBeenCalledOnce();
    expect(fake.api.queryLogs).toHaveBeenCalledOnce();
    expect(fake.api.getSettings).toHaveBeenCalledOnce();
    expect(servers.getState().consoles.a).toEqual(['ring']); // the ring replaces what was followed

    stops.forEach((s) => s());
    stopConsole();
    expect(fake.reconnectListenerCount()).toBe(0);
  });
});
