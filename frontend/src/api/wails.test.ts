import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, SERVERS_CHANGED, wailsApi } from '.';
import { server } from '../test/fakeApi';

// Stands in for what Wails injects into the page: window.go.<pkg>.<struct>.<method>
// and window.runtime, which the generated wailsjs/ modules call through.
function installBridge(app: Record<string, (...a: never[]) => Promise<unknown>>) {
  const listeners = new Map<string, Set<(...d: unknown[]) => void>>();
  window.go = { appapi: { API: app } };
  window.runtime = {
    EventsOnMultiple(name: string, cb: (...d: unknown[]) => void) {
      const set = listeners.get(name) ?? new Set();
      set.add(cb);
      listeners.set(name, set);
      return () => set.delete(cb);
    },
  };
  return (name: string, ...data: unknown[]) => listeners.get(name)?.forEach((cb) => cb(...data));
}

describe('wailsApi', () => {
  beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));
  afterEach(() => {
    delete window.go;
    delete window.runtime;
    vi.restoreAllMocks();
  });

  it('lists servers through window.go.appapi.API.ListServers', async () => {
    installBridge({ ListServers: async () => [server('a', { transport: 'sse' })] });
    expect(await wailsApi.listServers()).toEqual([server('a', { transport: 'sse' })]);
  });

  it('treats a nil slice from Go as an empty list', async () => {
    installBridge({ ListServers: async () => null });
    expect(await wailsApi.listServers()).toEqual([]);
  });

  it('turns a Go error string into an ApiError', async () => {
    installBridge({ ListServers: () => Promise.reject('store: disk full') });
    await expect(wailsApi.listServers()).rejects.toEqual(new ApiError('store: disk full'));
  });

  it('rejects values outside the contract', async () => {
    installBridge({ ListServers: async () => [{ ...server('a'), state: 'exploded' }] });
    await expect(wailsApi.listServers()).rejects.toThrow('server a: unknown state "exploded"');
  });

  it('fails clearly without the Wails bridge', async () => {
    await expect(wailsApi.listServers()).rejects.toThrow('Wails bridge is missing');
  });

  it('passes the page name to FrontendReady', async () => {
    const ready = vi.fn(async () => {});
    installBridge({ FrontendReady: ready });
    await wailsApi.frontendReady('servers');
    expect(ready).toHaveBeenCalledWith('servers');
  });

  it('delivers valid servers:changed events until unsubscribed', () => {
    const emit = installBridge({});
    const got: string[] = [];
    const off = wailsApi.onServerChanged((s) => got.push(`${s.name}:${s.state}`));

    emit(SERVERS_CHANGED, server('a', { state: 'errored' }));
    emit(SERVERS_CHANGED, { name: 'broken' }); // dropped, logged
    off();
    emit(SERVERS_CHANGED, server('a'));

    expect(got).toEqual(['a:errored']);
    expect(console.error).toHaveBeenCalledOnce();
  });
});
