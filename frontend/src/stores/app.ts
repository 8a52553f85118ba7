import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Api } from '../api';

export interface AppState {
  /** Pages that have told the Go side they rendered. */
  readyPages: ReadonlySet<string>;
  /**
   * Reports the first render of `page` to the Go side, once per page per run.
   * The desktop smoke test waits for the log line this produces.
   */
  pageReady(page: string): void;
}

export type AppStore = StoreApi<AppState>;

export function createAppStore(api: Pick<Api, 'frontendReady'>): AppStore {
  return createStore<AppState>()((set, get) => ({
    readyPages: new Set(),
    pageReady(page) {
      if (get().readyPages.has(page)) return;
      set({ readyPages: new Set(get().readyPages).add(page) });
      // Nothing in the UI depends on the answer; a failure is only worth a log.
      api.frontendReady(page).catch((err: unknown) => console.error(`frontendReady(${page}):`, err));
    },
  }));
}
