import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  toApiError,
  type Api,
  type HookInput,
  type HookTestResult,
  type HookView,
  type ScriptProblem,
  type Unsubscribe,
} from '../api';
import type { LoadStatus } from './servers';

export const HOOK_LOG_MAX = 500;

export interface HooksState {
  /** By execution order. */
  hooks: HookView[];
  status: LoadStatus;
  error: string | null;
  /** The last failed change (enable, reorder, remove); the list was put back. */
  actionError: string | null;
  load(): Promise<void>;
  /** Saves; throws to the editor, which keeps the script. */
  save(h: HookInput): Promise<HookView>;
  remove(id: number): Promise<void>;
  setEnabled(id: number, enabled: boolean): Promise<void>;
  /** Moves the hook `id` to position `to` and persists the order. */
  move(id: number, to: number): Promise<void>;
  check(script: string): Promise<ScriptProblem[]>;
  test(h: HookInput, contextJSON: string): Promise<HookTestResult>;
  logs: Record<number, string[]>;
  /** Loads the log of hook `id` and follows `hooks:log` until released. */
  watchLog(id: number): Unsubscribe;
}

export type HooksStore = StoreApi<HooksState>;

type HooksApi = Pick<
  Api,
  'listHooks' | 'saveHook' | 'removeHook' | 'setHookEnabled' | 'reorderHooks' | 'checkHookScript' | 'testHook' | 'hookLogs' | 'onHookLog' | 'onReconnect'
>;

export function createHooksStore(api: HooksApi): HooksStore {
  let seq = 0;
  return createStore<HooksState>()((set, get) => ({
    hooks: [],
    status: 'idle',
    error: null,
    actionError: null,
    logs: {},
    async load() {
      const mine = ++seq;
      set({ status: 'loading' });
      try {
        const hooks = await api.listHooks();
        if (mine !== seq) return;
        set({ hooks: [...hooks].sort((a, b) => a.executionOrder - b.executionOrder || a.name.localeCompare(b.name)), status: 'ready', error: null });
      } catch (err) {
        if (mine !== seq) return;
        set({ status: 'error', error: toApiError(err).message });
      }
    },
    async save(h) {
      const saved = await api.saveHook(h);
      const exists = get().hooks.some((x) => x.id === saved.id);
      set({ hooks: exists ? get().hooks.map((x) => (x.id === saved.id ? saved : x)) : [...get().hooks, saved] });
      return saved;
    },
    async remove(id) {
      const before = get().hooks;
      set({ hooks: before.filter((h) => h.id !== id), actionError: null });
      try {
        await api.removeHook(id);
      } catch (err) {
        set({ hooks: before, actionError: toApiError(err).message });
      }
    },
    async setEnabled(id, enabled) {
      const before = get().hooks;
      set({ hooks: before.map((h) => (h.id === id ? { ...h, enabled } : h)), actionError: null });
      try {
        await api.setHookEnabled(id, enabled);
      } catch (err) {
        set({ hooks: before, actionError: toApiError(err).message });
      }
    },
    async move(id, to) {
      const before = get().hooks;
      const from = before.findIndex((h) => h.id === id);
      if (from < 0) return;
      const clamped = Math.max(0, Math.min(before.length - 1, to));
      if (clamped === from) return;
      const next = [...before];
      const [moved] = next.splice(from, 1);
      next.splice(clamped, 0, moved!);
      // Optimistic: the row lands where it was dropped; put back on failure.
      set({ hooks: next.map((h, i) => ({ ...h, executionOrder: i + 1 })), actionError: null });
      try {
        await api.reorderHooks(next.map((h) => h.id));
      } catch (err) {
        set({ hooks: before, actionError: toApiError(err).message });
      }
    },
    check: (script) => api.checkHookScript(script),
    test: (h, ctx) => api.testHook(h, ctx),
    watchLog(id) {
      let live = true;
      const stop = api.onHookLog(({ hookId, lines }) => {
        if (hookId !== id || lines.length === 0) return;
        set({ logs: { ...get().logs, [id]: (get().logs[id] ?? []).concat(lines).slice(-HOOK_LOG_MAX) } });
      });
      const fetchLog = (replace: boolean) =>
        api.hookLogs(id).then(
          (lines) => {
            const arrived = replace ? [] : (get().logs[id] ?? []);
            if (live) set({ logs: { ...get().logs, [id]: lines.concat(arrived).slice(-HOOK_LOG_MAX) } });
          },
          (err: unknown) => console.error(`HookLogs(${id}):`, err),
        );
      void fetchLog(false);
      const stopReconnect = api.onReconnect(() => void fetchLog(true));
      return () => {
        live = false;
        stop();
        stopReconnect();
        const { [id]: _gone, ...rest } = get().logs;
        set({ logs: rest });
      };
    },
  }));
}
