import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type Api, type AppSettings, type LogFileInfo, type Unsubscribe } from '../api';
import type { LoadStatus } from './servers';

export interface SettingsState {
  settings: AppSettings | null;
  status: LoadStatus;
  error: string | null;
  load(): Promise<void>;
  /** Saves; a refusal is thrown to the form (the message names the field). */
  save(s: AppSettings): Promise<AppSettings>;
  /** Applies only theme and language at once (the header switches). */
  saveAppearance(patch: Partial<Pick<AppSettings, 'theme' | 'language'>>): Promise<void>;
  listen(): Unsubscribe;
  /** Where the app writes its log; null until loaded. */
  logFile: LogFileInfo | null;
  loadLogFile(): Promise<void>;
  /** Throws to the caller. */
  openLogFolder(): Promise<void>;
}

export type SettingsStore = StoreApi<SettingsState>;

export function createSettingsStore(api: Pick<Api, 'getSettings' | 'saveSettings' | 'onSettingsChanged' | 'onReconnect' | 'logFile' | 'openLogFolder'>): SettingsStore {
  return createStore<SettingsState>()((set, get) => ({
    settings: null,
    status: 'idle',
    error: null,
    logFile: null,
    async loadLogFile() {
      try {
        set({ logFile: await api.logFile() });
      } catch {
        set({ logFile: { path: '', folder: '' } });
      }
    },
    openLogFolder: () => api.openLogFolder(),
    async load() {
      set({ status: 'loading' });
      try {
        set({ settings: await api.getSettings(), status: 'ready', error: null });
      } catch (err) {
        set({ status: 'error', error: toApiError(err).message });
      }
    },
    async save(s) {
      const saved = await api.saveSettings(s);
      set({ settings: saved });
      return saved;
    },
    async saveAppearance(patch) {
      const cur = get().settings;
      if (!cur) return;
      set({ settings: { ...cur, ...patch } }); // applied live, before the round trip
      try {
        set({ settings: await api.saveSettings({ ...cur, ...patch }) });
      } catch (err) {
        set({ settings: cur, error: toApiError(err).message });
      }
    },
    listen() {
      const stopChanged = api.onSettingsChanged((s) => set({ settings: s }));
      const stopReconnect = api.onReconnect(() => void get().load());
      return () => {
        stopChanged();
        stopReconnect();
      };
    },
  }));
}
