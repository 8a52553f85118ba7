import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_CHART_POINTS, MAX_CHART_SERVERS, toMetricsSeries, type MetricsPoint, type MetricsSeries } from '../api';
import { createMetricsStore } from '../stores/metrics';
import { fakeApi, server } from '../test/fakeApi';
import { ServersPage } from '../pages/ServersPage';
import { renderWithApi } from '../test/render';
import { LogsCharts, ServerActivity } from './MetricsCharts';

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);

function point(i: number, over: Partial<MetricsPoint> = {}): MetricsPoint {
  return {
    at: T0 + i * 5000,
    seconds: 5,
    requests: 0,
    calls: 0,
    errors: 0,
    blocked: 0,
    p50Ms: 0,
    p95Ms: 0,
    sessions: 1,
    approvalsWaiting: 0,
    hookRuns: 0,
    hookP95Ms: 0,
    servers: [{ server: 'web', calls: 0, errors: 0, blocked: 0, p50Ms: 0, p95Ms: 0, state: 'running' }],
    ...over,
  };
}

/** 20 points; in the last minute (12 points) `web` answers 1 call each 5 s (12/min) with p95 40 ms, half of them errors. */
function busySeries(): MetricsSeries {
  const points = Array.from({ length: 20 }, (_, i) => {
    if (i < 8) return point(i);
    const errors = i % 2;
    return point(i, {
      calls: 1,
      errors,
      p50Ms: 20,
      p95Ms: 40,
      sessions: 2,
      approvalsWaiting: 1,
      hookRuns: 2,
      hookP95Ms: 1.5,
      servers: [{ server: 'web', calls: 1, errors, blocked: 0, p50Ms: 20, p95Ms: 40, state: 'running' }],
    });
  });
  return { intervalSeconds: 5, capacity: 120, points };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('toMetricsSeries', () => {
  it('keeps at most the newest MAX_CHART_POINTS points and MAX_CHART_SERVERS servers a point, and no junk numbers', () => {
    const servers = Array.from({ length: MAX_CHART_SERVERS + 50 }, (_, i) => ({ server: `s${i}`, calls: 1 }));
    const raw = {
      intervalSeconds: 5,
      capacity: 120,
      points: Array.from({ length: MAX_CHART_POINTS + 100 }, (_, i) => ({ at: i, calls: i === 0 ? -3 : 'x', p95Ms: Number.NaN, servers })),
    };
    const s = toMetricsSeries(raw);
    expect(s.points).toHaveLength(MAX_CHART_POINTS);
    expect(s.points[0]?.at).toBe(100); // the oldest went
    expect(s.points[0]?.servers).toHaveLength(MAX_CHART_SERVERS);
    expect(s.points[0]?.calls).toBe(0);
    expect(s.points[0]?.p95Ms).toBe(0);
    expect(() => toMetricsSeries({ points: [{ calls: 1 }] })).toThrow(/missing at/);
    expect(() => toMetricsSeries('nope')).toThrow(/expected an object/);
  });
});

describe('metrics store', () => {
  it('asks every interval while watched, and stops when the last watcher leaves', async () => {
    vi.useFakeTimers();
    const api = { metricsSeries: vi.fn(async () => busySeries()) };
    const store = createMetricsStore(api);
    const stopA = store.getState().watch();
    const stopB = store.getState().watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(api.metricsSeries).toHaveBeenCalledTimes(1); // two watchers, one poll
    await vi.advanceTimersByTimeAsync(5000);
    expect(api.metricsSeries).toHaveBeenCalledTimes(2);
    stopA();
    stopA(); // a second stop of the same watcher changes nothing
    await vi.advanceTimersByTimeAsync(5000);
    expect(api.metricsSeries).toHaveBeenCalledTimes(3);
    stopB();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(api.metricsSeries).toHaveBeenCalledTimes(3);
    expect(store.getState().series?.points).toHaveLength(20);
  });

  it('keeps the error of a failed ask and clears it after a success', async () => {
    const api = { metricsSeries: vi.fn().mockRejectedValueOnce(new Error('router gone')).mockResolvedValue(busySeries()) };
    const store = createMetricsStore(api);
    await store.getState().refresh();
    expect(store.getState().error).toBe('router gone');
    await store.getState().refresh();
    expect(store.getState().error).toBeNull();
  });
});

describe('ServerActivity', () => {
  it('says "No calls yet" in the same cell before any call, then the last minute’s calls/min and p95 beside sparklines', async () => {
    const { api } = fakeApi();
    api.metricsSeries.mockResolvedValue({ intervalSeconds: 5, capacity: 120, points: [point(0), point(1)] });
    const view = renderWithApi(<ServerActivity server="web" />, api);
    expect(await screen.findByTestId('server-activity-empty-web')).toHaveTextContent('No calls yet');
    expect(screen.getByTestId('server-activity-empty-web')).toHaveAccessibleName('web: no calls in the last 10 minutes');
    expect(screen.getByTestId('server-activity-web')).toBeInTheDocument();

    api.metricsSeries.mockResolvedValue(busySeries());
    await act(() => view.stores.metrics.getState().refresh());
    expect(screen.getByTestId('server-calls-per-min-web')).toHaveTextContent('12/min');
    expect(screen.getByTestId('server-p95-web')).toHaveTextContent('p95 40 ms');
    const spark = screen.getByTestId('server-calls-spark-web');
    expect(spark).toHaveAttribute('role', 'img');
    expect(spark).toHaveAccessibleName('web: 12 calls per minute in the last minute, p95 latency 40 ms');
    expect(spark.querySelector('svg')).not.toBeNull(); // recharts drew it
    expect(screen.getByTestId('server-activity-web')).toBeInTheDocument();
  });

  it('shows nothing of another server’s calls', async () => {
    const { api } = fakeApi();
    api.metricsSeries.mockResolvedValue(busySeries());
    renderWithApi(<ServerActivity server="other" />, api);
    expect(await screen.findByTestId('server-activity-empty-other')).toBeInTheDocument();
  });
});

describe('LogsCharts', () => {
  it('keeps both charts’ boxes while empty, then draws calls, errors and latency with the figures as text', async () => {
    const { api } = fakeApi();
    const view = renderWithApi(<LogsCharts />, api);
    await waitFor(() => expect(screen.getByTestId('logs-charts-summary')).toHaveTextContent('No calls yet'));
    expect(screen.queryByTestId('logs-charts-hooks')).toBeNull(); // no hook ran
    expect(screen.getByTestId('logs-chart-calls-empty')).toHaveTextContent('No calls yet');
    expect(screen.getByTestId('logs-chart-latency-empty')).toHaveTextContent('No calls yet');

    api.metricsSeries.mockResolvedValue(busySeries());
    await act(() => view.stores.metrics.getState().refresh());
    expect(screen.getByTestId('logs-charts-summary')).toHaveTextContent(
      'Last minute: 12 calls/min, 6 errors/min, p95 40 ms · hooks: 24 runs/min, p95 1.5 ms · open sessions: 2, calls waiting for approval: 1',
    );
    expect(screen.queryByTestId('logs-chart-calls-empty')).toBeNull();
    expect(screen.getByRole('img', { name: 'Calls and errors per minute over the last 20 samples' })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'p50 and p95 latency of calls over the last 20 samples' })).toBeInTheDocument();
  });

  it('speaks Japanese and shows why the figures could not be read', async () => {
    const { api } = fakeApi();
    api.metricsSeries.mockRejectedValue(new Error('接続できません'));
    renderWithApi(<LogsCharts />, api, 'ja');
    expect(await screen.findByTestId('logs-charts-error')).toHaveTextContent('数値を読み込めませんでした: 接続できません');
    expect(screen.getByTestId('logs-chart-calls')).toHaveTextContent('1 分あたりの呼び出しとエラー');
    expect(screen.getByTestId('logs-charts-summary')).toHaveTextContent('最初の計測を待っています…');
  });
});

describe('Servers page', () => {
  it('shows each server’s figures in its row, in Japanese too', async () => {
    const { api } = fakeApi([server('web'), server('idle')]);
    api.metricsSeries.mockResolvedValue(busySeries());
    renderWithApi(<ServersPage />, api, 'ja');
    const row = await screen.findByTestId('server-row-web');
    expect(await within(row).findByTestId('server-calls-per-min-web')).toHaveTextContent('12 回/分');
    expect(within(row).getByTestId('server-p95-web')).toHaveTextContent('p95 40 ミリ秒');
    expect(within(screen.getByTestId('server-row-idle')).getByTestId('server-activity-empty-idle')).toHaveTextContent('まだ呼び出しはありません');
    expect(screen.getByRole('columnheader', { name: '直近 10 分' })).toBeInTheDocument();
  });
});
