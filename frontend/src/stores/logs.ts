import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type Api, type LogDetail, type LogQuery, type LogRow, type Unsubscribe } from '../api';
import type { LoadStatus } from './servers';

export const PAGE_SIZE = 100;

export type LogFilters = Pick<LogQuery, 'client' | 'server' | 'method' | 'status' | 'since' | 'until'>;

export interface LogsState {
  filters: LogFilters;
  /** One page, newest first. */
  rows: LogRow[];
  status: LoadStatus;
  error: string | null;
  /** beforeId of each page shown so far; the first page has none. */
  cursors: (number | undefined)[];
  nextBeforeId?: number;
  setFilters(f: LogFilters): Promise<void>;
  reload(): Promise<void>;
  older(): Promise<void>;
  newer(): Promise<void>;
  /** Prepends `logs:appended` rows that match the filters while on the first page. */
  listen(): Unsubscribe;
  detail: { id: number; status: LoadStatus; log: LogDetail | null; error: string | null } | null;
  open(id: number): Promise<void>;
  close(): void;
}

export type LogsStore = StoreApi<LogsState>;

export function matches(row: LogRow, f: LogFilters): boolean {
  // Exact, as QueryLogs filters.
  if (f.client && row.client !== f.client) return false;
  if (f.server && row.server !== f.server) return false;
  if (f.method && row.method !== f.method) return false;
  if (f.status && row.status !== f.status) return false;
  const t = Date.parse(row.time);
  if (f.since && t < Date.parse(f.since)) return false;
  if (f.until && t > Date.parse(f.until)) return false;
  return true;
}

export function createLogsStore(api: Pick<Api, 'queryLogs' | 'getLog' | 'onLogsAppended' | 'onReconnect'>): LogsStore {
  let seq = 0;

  return createStore<LogsState>()((set, get) => {
    async function fetchPage(cursors: (number | undefined)[]) {
      const mine = ++seq;
      set({ status: 'loading' });
      const beforeId = cursors[cursors.length - 1];
      const q: LogQuery = { ...clean(get().filters), limit: PAGE_SIZE };
      if (beforeId !== undefined) q.beforeId = beforeId;
      try {
        const page = await api.queryLogs(q);
        if (mine !== seq) return;
        set({ rows: page.rows, nextBeforeId: page.nextBeforeId, cursors, status: 'ready', error: null });
      } catch (err) {
        if (mine !== seq) return;
        set({ status: 'error', error: toApiError(err).message });
      }
    }

    return {
      filters: {},
      rows: [],
      status: 'idle',
      error: null,
      cursors: [undefined],
      detail: null,
      setFilters(f) {
        set({ filters: f });
        return fetchPage([undefined]);
      },
      reload: () => fetchPage(get().cursors),
      older() {
        const next = get().nextBeforeId;
        if (next === undefined) return Promise.resolve();
        return fetchPage([...get().cursors, next]);
      },
      newer() {
        const c = get().cursors;
        if (c.length <= 1) return Promise.resolve();
        return fetchPage(c.slice(0, -1));
      },
      listen() {
        // Rows may have been missed while the stream was down: refetch the first page.
        const stopReconnect = api.onReconnect(() => {
          if (get().cursors.length === 1) void fetchPage([undefined]);
        });
        const stopAppended = api.onLogsAppended((rows) => {
          const s = get();
          if (s.cursors.length !== 1 || s.status === 'loading') return;
          const fresh = rows.filter((r) => matches(r, s.filters) && !s.rows.some((x) => x.id === r.id));
          if (fresh.length === 0) return;
          fresh.sort((a, b) => b.id - a.id);
          const all = fresh.concat(s.rows);
          const kept = all.slice(0, PAGE_SIZE);
          const dropped = all.length - kept.length;
          // Rows pushed off the first page are now the start of the second.
          set({ rows: kept, nextBeforeId: dropped > 0 ? kept[kept.length - 1]!.id : s.nextBeforeId });
        });
        return () => {
          stopAppended();
          stopReconnect();
        };
      },
      async open(id) {
        set({ detail: { id, status: 'loading', log: null, error: null } });
        try {
          const log = await api.getLog(id);
          if (get().detail?.id === id) set({ detail: { id, status: 'ready', log, error: null } });
        } catch (err) {
          if (get().detail?.id === id) set({ detail: { id, status: 'error', log: null, error: toApiError(err).message } });
        }
      },
      close: () => set({ detail: null }),
    };
  });
}

function clean(f: LogFilters): LogFilters {
  const out: LogFilters = {};
  for (const [k, v] of Object.entries(f)) if (v) (out as Record<string, unknown>)[k] = v;
  return out;
}
