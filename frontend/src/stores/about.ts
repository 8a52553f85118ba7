import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type AboutInfo, type Api, type UpdateCheck } from '../api';

// Settings → About (components/AboutSection.tsx).
export interface AboutState {
  info: AboutInfo | null;
  /** The latest check's result, from this page or an earlier one. */
  check: UpdateCheck | null;
  checking: boolean;
  /** Why the last check or toggle failed; null after a success. */
  error: string | null;
  /** Reads the version and the setting; checks if the setting is on. */
  load(): Promise<void>;
  setEnabled(on: boolean): Promise<void>;
  /** The user's Check now click. */
  checkNow(): Promise<void>;
}

export type AboutStore = StoreApi<AboutState>;

type AboutApi = Pick<Api, 'about' | 'setCheckForUpdates' | 'checkForUpdates'>;

export function createAboutStore(api: AboutApi): AboutStore {
  return createStore<AboutState>()((set, get) => {
    const check = async (force: boolean) => {
      set({ checking: true, error: null });
      try {
        set({ check: await api.checkForUpdates(force) });
      } catch (err) {
        set({ error: toApiError(err).message });
      } finally {
        set({ checking: false });
      }
    };
    return {
      info: null,
      check: null,
      checking: false,
      error: null,
      async load() {
        try {
          const info = await api.about();
          set({ info, check: get().check ?? info.lastCheck });
          // Automatic checks only when the user turned them on.
          if (info.checkForUpdates) await check(false);
        } catch (err) {
          set({ error: toApiError(err).message });
        }
      },
      async setEnabled(on) {
        set({ error: null });
        try {
          set({ info: await api.setCheckForUpdates(on) });
        } catch (err) {
          set({ error: toApiError(err).message });
        }
      },
      checkNow: () => check(true),
    };
  });
}
