import { describe, expect, it } from 'vitest';
import { fakeApi } from '../test/fakeApi';
import { createAppStore } from './app';

describe('app store', () => {
  it('reports each page ready once', () => {
    const { api } = fakeApi();
    const store = createAppStore(api);
    store.getState().pageReady('servers');
    store.getState().pageReady('servers');
    store.getState().pageReady('logs');
    expect(api.frontendReady.mock.calls).toEqual([['servers'], ['logs']]);
  });
});
