import { describe, expect, it } from 'vitest';
import { fakeApi, server } from '../test/fakeApi';
import { createServersStore } from './servers';

describe('servers store', () => {
  it('loads the list sorted by name', async () => {
    const { api } = fakeApi([server('zeta'), server('alpha', { state: 'stopped' })]);
    const store = createServersStore(api);
    expect(store.getState().status).toBe('idle');

    const done = store.getState().load();
    expect(store.getState().status).toBe('loading');
    await done;

    const s = store.getState();
    expect(s.status).toBe('ready');
    expect(s.error).toBeNull();
    expect(s.servers.map((x) => [x.name, x.state])).toEqual([
      ['alpha', 'stopped'],
      ['zeta', 'running'],
    ]);
  });

  it('drops the row of a removed server, also when removed during a load', async () => {
    const fake = fakeApi([server('alpha'), server('beta')]);
    const store = createServersStore(fake.api);
    const stop = store.getState().listen();
    await store.getState().load();

    fake.remove('alpha');
    expect(store.getState().servers.map((x) => x.name)).toEqual(['beta']);

    const loading = store.getState().load(); // the fake still lists alpha and beta
    fake.remove('beta');
    await loading;
    expect(store.getState().servers.map((x) => x.name)).toEqual(['alpha']);
    stop();
    expect(fake.listenerCount()).toBe(0);
  });

  it('applies servers:changed events to the matching row and adds new ones', async () => {
    const fake = fakeApi([server('alpha'), server('beta')]);
    const store = createServersStore(fake.api);
    const stop = store.getState().listen();
    await store.getState().load();

    fake.emit(server('beta', { state: 'errored', error: 'exit status 1' }));
    fake.emit(server('gamma', { state: 'starting' }));

    const rows = store.getState().servers;
    expect(rows.map((x) => x.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(rows[1]).toMatchObject({ state: 'errored', error: 'exit status 1' });
    expect(rows[0]?.state).toBe('running');

    stop();
    expect(fake.listenerCount()).toBe(0);
    fake.emit(server('alpha', { state: 'stopped' }));
    expect(store.getState().servers[0]?.state).toBe('running');
  });

  it('keeps an event that arrives while the list is loading', async () => {
    const fake = fakeApi();
    let resolve!: (v: ReturnType<typeof server>[]) => void;
    fake.api.listServers.mockReturnValueOnce(new Promise((r) => (resolve = r)));
    const store = createServersStore(fake.api);
    store.getState().listen();

    const done = store.getState().load();
    fake.emit(server('alpha', { state: 'running' }));
    resolve([server('alpha', { state: 'starting' })]); // older than the event
    await done;

    expect(store.getState().servers).toHaveLength(1);
    expect(store.getState().servers[0]?.state).toBe('running');
  });

  it('surfaces an API error and keeps the rows it had', async () => {
    const fake = fakeApi([server('alpha')]);
    const store = createServersStore(fake.api);
    await store.getState().load();

    // Wails rejects with the Go error's text as a plain string.
    fake.api.listServers.mockRejectedValueOnce('database is locked');
    await store.getState().load();

    expect(store.getState().status).toBe('error');
    expect(store.getState().error).toBe('database is locked');
    expect(store.getState().servers.map((x) => x.name)).toEqual(['alpha']);

    await store.getState().load();
    expect(store.getState()).toMatchObject({ status: 'ready', error: null });
  });

  it('lets the last of two overlapping loads win', async () => {
    const fake = fakeApi();
    const resolvers: ((v: ReturnType<typeof server>[]) => void)[] = [];
    fake.api.listServers.mockImplementation(() => new Promise((r) => resolvers.push(r)));
    const store = createServersStore(fake.api);

    const first = store.getState().load();
    const second = store.getState().load();
    resolvers[1]?.([server('new')]);
    resolvers[0]?.([server('old')]);
    await Promise.all([first, second]);

    expect(store.getState().servers.map((x) => x.name)).toEqual(['new']);
  });
});
