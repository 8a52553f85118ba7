import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type AggregatedTool, type Api, type ToolCallResult, type Unsubscribe } from '../api';
import type { LoadStatus } from './servers';

export interface CallState {
  running: boolean;
  result: ToolCallResult | null;
  /** The call could not be made (e.g. the router is unreachable). */
  error: string | null;
}

export interface ToolsState {
  tools: AggregatedTool[];
  status: LoadStatus;
  error: string | null;
  load(): Promise<void>;
  /** Refetches on `tools:changed` until released. */
  listen(): Unsubscribe;
  calls: Record<string, CallState>;
  call(name: string, args: Record<string, unknown>): Promise<void>;
}

export type ToolsStore = StoreApi<ToolsState>;

export function createToolsStore(api: Pick<Api, 'listTools' | 'callTool' | 'onToolsChanged' | 'onReconnect'>): ToolsStore {
  let seq = 0;
  return createStore<ToolsState>()((set, get) => ({
    tools: [],
    status: 'idle',
    error: null,
    calls: {},
    async load() {
      const mine = ++seq;
      set({ status: 'loading' });
      try {
        const tools = await api.listTools();
        if (mine !== seq) return;
        set({ tools: [...tools].sort((a, b) => a.name.localeCompare(b.name)), status: 'ready', error: null });
      } catch (err) {
        if (mine !== seq) return;
        set({ status: 'error', error: toApiError(err).message });
      }
    },
    listen() {
      const stopChanged = api.onToolsChanged(() => void get().load());
      const stopReconnect = api.onReconnect(() => void get().load());
      return () => {
        stopChanged();
        stopReconnect();
      };
    },
    async call(name, args) {
      const put = (c: CallState) => set({ calls: { ...get().calls, [name]: c } });
      put({ running: true, result: get().calls[name]?.result ?? null, error: null });
      try {
        const result = await api.callTool(name, JSON.stringify(args));
        put({ running: false, result, error: null });
      } catch (err) {
        put({ running: false, result: null, error: toApiError(err).message });
      }
    },
  }));
}
