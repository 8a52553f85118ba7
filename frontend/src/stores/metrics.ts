import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type Api, type MetricsSeries } from '../api';

// The charts' series (components/MetricsCharts.tsx): asked for again every
// interval while at least one page shows a chart, never otherwise.
export interface MetricsState {
  series: MetricsSeries | null;
  /** Why the last ask failed; null after a success. */
  error: string | null;
  refresh(): Promise<void>;
  /** Starts asking while the returned stop has not been called. */
  watch(): () => void;
}

export type MetricsStore = StoreApi<MetricsState>;

export function createMetricsStore(api: Pick<Api, 'metricsSeries'>): MetricsStore {
  let watchers = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return createStore<MetricsState>()((set, get) => {
    const tick = async () => {
      await get().refresh();
      if (watchers > 0) timer = setTimeout(tick, (get().series?.intervalSeconds ?? 5) * 1000);
    };
    return {
      series: null,
      error: null,
      async refresh() {
        try {
          set({ series: await api.metricsSeries(), error: null });
        } catch (err) {
          set({ error: toApiError(err).message });
        }
      },
      watch() {
        watchers++;
        if (watchers === 1) void tick();
        let stopped = false;
        return () => {
          if (stopped) return;
          stopped = true;
          watchers--;
          if (watchers === 0 && timer !== undefined) {
            clearTimeout(timer);
            timer = undefined;
          }
        };
      },
    };
  });
}
