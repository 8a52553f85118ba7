import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type Api, type RegistryAnswers, type RegistryCheck, type RegistryEntryView, type RegistryPage, type RegistryTarget, type ServerView } from '../api';
import type { LoadStatus } from './servers';

/** Servers per page of the Catalog. */
export const CATALOG_PAGE_SIZE = 20;

export interface CatalogState {
  query: string;
  /** The cursors of the pages before this one (for Previous); the last is this page's. */
  cursors: string[];
  page: RegistryPage | null;
  status: LoadStatus;
  error: string | null;
  /** The first page of query. */
  search(query: string): Promise<void>;
  next(): Promise<void>;
  previous(): Promise<void>;
  /** One entry's detail; throws to the caller. */
  show(name: string, version: string): Promise<RegistryEntryView>;
  /** Installs a target; throws to the dialog, which keeps what was typed. */
  install(name: string, version: string, target: RegistryTarget, serverName: string, answers: RegistryAnswers): Promise<ServerView>;
  /** Each server installed from a registry, with that registry's latest version; throws to the caller. */
  outdated(): Promise<RegistryCheck[]>;
}

export type CatalogStore = StoreApi<CatalogState>;

export function createCatalogStore(api: Pick<Api, 'registrySearch' | 'registryShow' | 'registryInstall' | 'outdatedServers'>): CatalogStore {
  return createStore<CatalogState>()((set, get) => {
    async function load(query: string, cursors: string[]) {
      set({ status: 'loading', query });
      try {
        const page = await api.registrySearch(query, cursors[cursors.length - 1] ?? '', CATALOG_PAGE_SIZE);
        // A later search may have started meanwhile: keep the newest.
        if (get().query !== query) return;
        set({ page, cursors, status: 'ready', error: null });
      } catch (err) {
        if (get().query === query) set({ status: 'error', error: toApiError(err).message });
      }
    }
    return {
      query: '',
      cursors: [''],
      page: null,
      status: 'idle',
      error: null,
      search: (query) => load(query.trim(), ['']),
      async next() {
        const { page, cursors, query } = get();
        if (page?.nextCursor) await load(query, [...cursors, page.nextCursor]);
      },
      async previous() {
        const { cursors, query } = get();
        if (cursors.length > 1) await load(query, cursors.slice(0, -1));
      },
      show: (name, version) => api.registryShow(name, version),
      install: (name, version, target, serverName, answers) => api.registryInstall(name, version, target, serverName, answers),
      outdated: () => api.outdatedServers(),
    };
  });
}
