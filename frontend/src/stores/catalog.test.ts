import { describe, expect, it } from 'vitest';
import { fakeApi, registryEntry } from '../test/fakeApi';
import { createCatalogStore } from './catalog';

describe('catalog store', () => {
  it('keeps the newest search when an older answer arrives last', async () => {
    const { api } = fakeApi([]);
    let releaseOld: () => void = () => {};
    api.registrySearch.mockImplementationOnce(
      (q) => new Promise((resolve) => (releaseOld = () => resolve({ servers: [registryEntry(`io.github.old/${q}`)], nextCursor: '' }))),
    );
    const store = createCatalogStore(api);
    const old = store.getState().search('old');
    await store.getState().search('weather');
    releaseOld();
    await old;
    const s = store.getState();
    expect(s.query).toBe('weather');
    expect(s.page?.servers.map((e) => e.server.name)).toEqual(['io.github.example/weather']);
    expect(s.status).toBe('ready');
  });

  it('walks pages forward and back by the cursors it was given', async () => {
    const { api } = fakeApi([]);
    const search = api.registrySearch.getMockImplementation()!;
    api.registrySearch.mockImplementation((q, c) => search(q, c, 1));
    const store = createCatalogStore(api);
    await store.getState().search('');
    await store.getState().next();
    await store.getState().next();
    expect(store.getState().cursors).toEqual(['', '1', '2']);
    expect(store.getState().page?.nextCursor).toBe('');
    await store.getState().next(); // the last page: nothing to ask
    expect(api.registrySearch).toHaveBeenCalledTimes(3);
    await store.getState().previous();
    expect(store.getState().page?.servers[0]?.server.name).toBe('io.github.example/beta');
    expect(api.registrySearch).toHaveBeenLastCalledWith('', '1', expect.any(Number));
  });
});
