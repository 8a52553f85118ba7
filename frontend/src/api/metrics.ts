import { ApiError, type Call } from './base';

// The charts of the Servers and Logs pages (docs/metrics.md "In the app"):
// the router keeps the last points of its /metrics figures; the pages ask
// for them again every interval.

/** One server's figures over one interval. */
export interface MetricsServerPoint {
  /** "" for calls of a tool the router does not publish. */
  server: string;
  calls: number;
  errors: number;
  blocked: number;
  p50Ms: number;
  /** The calls' 95th percentile latency; 0 without calls. */
  p95Ms: number;
  /** The upstream's state at the sample; '' for a name only the log knows. */
  state: string;
}

/** The router's figures over one interval, ending at `at`. */
export interface MetricsPoint {
  /** ms since the epoch. */
  at: number;
  seconds: number;
  requests: number;
  /** tools/call requests; errors and blocked are of those. */
  calls: number;
  errors: number;
  blocked: number;
  p50Ms: number;
  p95Ms: number;
  sessions: number;
  approvalsWaiting: number;
  /** Hook runs in the interval (each active hook once a phase of a request) and their p95 time. */
  hookRuns: number;
  hookP95Ms: number;
  servers: MetricsServerPoint[];
}

export interface MetricsSeries {
  intervalSeconds: number;
  capacity: number;
  /** Oldest first. */
  points: MetricsPoint[];
}

export interface MetricsApi {
  metricsSeries(): Promise<MetricsSeries>;
}

// What the page keeps whatever the router sends: the router's own caps
// (120 points, 100 servers a point) with room to spare.
export const MAX_CHART_POINTS = 720;
export const MAX_CHART_SERVERS = 200;

function obj(raw: unknown, what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError(`${what}: expected an object`);
  return raw as Record<string, unknown>;
}
/** A finite number ≥ 0, else 0. */
const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

function toServerPoint(raw: unknown): MetricsServerPoint {
  const r = obj(raw, 'metrics server');
  return {
    server: typeof r.server === 'string' ? r.server : '',
    calls: n(r.calls),
    errors: n(r.errors),
    blocked: n(r.blocked),
    p50Ms: n(r.p50Ms),
    p95Ms: n(r.p95Ms),
    state: typeof r.state === 'string' ? r.state : '',
  };
}

function toPoint(raw: unknown): MetricsPoint {
  const r = obj(raw, 'metrics point');
  if (typeof r.at !== 'number') throw new ApiError('metrics point: missing at');
  const servers = Array.isArray(r.servers) ? r.servers.slice(0, MAX_CHART_SERVERS).map(toServerPoint) : [];
  return {
    at: r.at,
    seconds: n(r.seconds),
    requests: n(r.requests),
    calls: n(r.calls),
    errors: n(r.errors),
    blocked: n(r.blocked),
    p50Ms: n(r.p50Ms),
    p95Ms: n(r.p95Ms),
    sessions: n(r.sessions),
    approvalsWaiting: n(r.approvalsWaiting),
    hookRuns: n(r.hookRuns),
    hookP95Ms: n(r.hookP95Ms),
    servers,
  };
}

export function toMetricsSeries(raw: unknown): MetricsSeries {
  const r = obj(raw, 'metrics series');
  const points = Array.isArray(r.points) ? r.points : [];
  return {
    intervalSeconds: n(r.intervalSeconds) || 5,
    capacity: n(r.capacity),
    // The newest are the ones worth keeping.
    points: points.slice(-MAX_CHART_POINTS).map(toPoint),
  };
}

export function createMetricsApi(call: Call): MetricsApi {
  return {
    metricsSeries: () => call('MetricsSeries', [], toMetricsSeries),
  };
}

/** Calls per minute over a point's interval. */
export function perMinute(count: number, seconds: number): number {
  return seconds > 0 ? (count * 60) / seconds : 0;
}
