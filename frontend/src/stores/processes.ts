import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  toApiError,
  type Api,
  type DefinitionProblem,
  type ProcessView,
  type RunDetail,
  type RunInfo,
  type StateGateStatus,
  type Unsubscribe,
} from '../api';
import type { LoadStatus } from './servers';

export interface ProcessesState {
  processes: ProcessView[];
  runs: RunInfo[];
  status: LoadStatus;
  error: string | null;
  gate: StateGateStatus | null;
  /** The run open in the detail pane, and its last load error. */
  run: RunDetail | null;
  runError: string | null;
  load(): Promise<void>;
  openRun(runId: string | null): Promise<void>;
  check(source: string): Promise<DefinitionProblem[]>;
  /** Saves; throws to the editor, which keeps the text. */
  save(source: string, replace: boolean): Promise<ProcessView>;
  remove(id: string): Promise<void>;
  createRun(processId: string, contextJSON: string, workspace: string): Promise<RunInfo>;
  enable(): Promise<void>;
  /** Follows stategate:changed (and reconnects) until released. */
  listen(): Unsubscribe;
}

export type ProcessesStore = StoreApi<ProcessesState>;

type ProcessesApi = Pick<
  Api,
  | 'listProcesses'
  | 'checkProcess'
  | 'saveProcess'
  | 'removeProcess'
  | 'listRuns'
  | 'getRun'
  | 'createRun'
  | 'getStateGateStatus'
  | 'enableStateGate'
  | 'onStateGateChanged'
  | 'onReconnect'
>;

export function createProcessesStore(api: ProcessesApi): ProcessesStore {
  let seq = 0;
  let runSeq = 0;
  let openId: string | null = null;
  return createStore<ProcessesState>()((set, get) => ({
    processes: [],
    runs: [],
    status: 'idle',
    error: null,
    gate: null,
    run: null,
    runError: null,
    async load() {
      const mine = ++seq;
      if (get().status !== 'ready') set({ status: 'loading' });
      try {
        const [processes, runs, gate] = await Promise.all([api.listProcesses(), api.listRuns(''), api.getStateGateStatus()]);
        if (mine !== seq) return;
        set({ processes, runs, gate, status: 'ready', error: null });
      } catch (err) {
        if (mine !== seq) return;
        set({ status: 'error', error: toApiError(err).message });
      }
    },
    async openRun(runId) {
      openId = runId;
      const mine = ++runSeq;
      if (!runId) {
        set({ run: null, runError: null });
        return;
      }
      try {
        const run = await api.getRun(runId);
        if (mine !== runSeq) return;
        set({ run, runError: null });
      } catch (err) {
        if (mine !== runSeq) return;
        set({ run: null, runError: toApiError(err).message });
      }
    },
    check: (source) => api.checkProcess(source),
    async save(source, replace) {
      const saved = await api.saveProcess(source, replace);
      await get().load();
      return saved;
    },
    async remove(id) {
      await api.removeProcess(id);
      await get().load();
    },
    async createRun(processId, contextJSON, workspace) {
      const run = await api.createRun(processId, contextJSON, workspace);
      await get().load();
      return run;
    },
    async enable() {
      const gate = await api.enableStateGate();
      set({ gate });
    },
    listen() {
      const refresh = () => {
        void get().load();
        if (openId) void get().openRun(openId);
      };
      const a = api.onStateGateChanged(refresh);
      const b = api.onReconnect(refresh);
      return () => {
        a();
        b();
      };
    },
  }));
}
