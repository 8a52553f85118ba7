import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type AggregatedTool, type Api, type CatalogTool, type ToolCallResult, type ToolChange, type Unsubscribe } from '../api';
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
  /** Tools of servers not running, from the persisted catalog (refetched with the tools). */
  stopped: CatalogTool[];
  /** Tools changed upstream, waiting for a person (refetched with the tools). */
  changes: ToolChange[];
  /** Why the changes could not be read or an accept failed; null when fine. */
  changesError: string | null;
  /** The changes being accepted, by `server/tool`. */
  accepting: Record<string, boolean>;
  loadChanges(): Promise<void>;
  accept(change: ToolChange): Promise<void>;
}

const changeKey = (c: Pick<ToolChange, 'server' | 'tool'>) => `${c.server}/${c.tool}`;

export type ToolsStore = StoreApi<ToolsState>;

export function createToolsStore(
  api: Pick<Api, 'listTools' | 'callTool' | 'stoppedServerTools' | 'listToolChanges' | 'acceptToolChange' | 'onToolsChanged' | 'onReconnect'>,
): ToolsStore {
  let seq = 0;
  let changesSeq = 0;
  return createStore<ToolsState>()((set, get) => ({
    tools: [],
    status: 'idle',
    error: null,
    calls: {},
    stopped: [],
    changes: [],
    changesError: null,
    accepting: {},
    async load() {
      void get().loadChanges();
      const mine = ++seq;
      set({ status: 'loading' });
      try {
        const [tools, stopped] = await Promise.all([api.listTools(), api.stoppedServerTools()]);
        if (mine !== seq) return;
        set({ tools: [...tools].sort((a, b) => a.name.localeCompare(b.name)), stopped, status: 'ready', error: null });
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
    async loadChanges() {
      const mine = ++changesSeq;
      try {
        const changes = await api.listToolChanges();
        if (mine !== changesSeq) return;
        set({ changes, changesError: null });
      } catch (err) {
        if (mine !== changesSeq) return;
        set({ changesError: toApiError(err).message });
      }
    },
    async accept(change) {
      const key = changeKey(change);
      set({ accepting: { ...get().accepting, [key]: true } });
      let failure: string | null = null;
      try {
        await api.acceptToolChange(change.server, change.tool, change.newHash);
      } catch (err) {
        failure = toApiError(err).message;
      }
      const { [key]: _done, ...rest } = get().accepting;
      set({ accepting: rest });
      // A tool changed again since is listed anew; an accepted one goes.
      await get().loadChanges();
      if (failure) set({ changesError: failure });
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
