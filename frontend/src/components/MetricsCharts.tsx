import { useEffect } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { perMinute, type MetricsPoint, type MetricsSeries } from '../api';
import { useMessages } from '../i18n';
import { useMetrics } from '../stores';
import './MetricsCharts.css';

// Small charts of the router's own figures (docs/metrics.md "In the app"),
// drawn with recharts: SVG, so the lines take the theme's colours from CSS
// and the figures stay readable as text beside them. Every chart keeps its
// size when there is nothing to draw, so a page does not jump when the
// first call arrives.

/** Keeps the series fresh while the calling component is shown. */
export function useMetricsSeries(): MetricsSeries | null {
  const watch = useMetrics((s) => s.watch);
  useEffect(() => watch(), [watch]);
  return useMetrics((s) => s.series);
}

/** Whole from 100, one decimal from 10, else two; no trailing zeros: 1234, 12.5, 0.42. */
const fmt = (v: number) => String(Number(v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)));

/** Where the points of the last minute (before the newest point's end) begin. */
function lastMinuteFrom(points: MetricsPoint[]): number {
  const end = points.at(-1)?.at ?? 0;
  const i = points.findIndex((p) => p.at > end - 60_000);
  return i < 0 ? points.length : i;
}

interface Figures {
  perMin: number;
  errorsPerMin: number;
  /** The newest p95 of an interval with calls in the last minute; null without calls. */
  p95: number | null;
}

function figures(rows: { calls: number; errors: number; p95Ms: number; seconds: number }[]): Figures {
  let calls = 0;
  let errors = 0;
  let seconds = 0;
  let p95: number | null = null;
  for (const r of rows) {
    calls += r.calls;
    errors += r.errors;
    seconds += r.seconds;
    if (r.calls > 0) p95 = r.p95Ms;
  }
  return { perMin: perMinute(calls, seconds), errorsPerMin: perMinute(errors, seconds), p95 };
}

/** A tiny line without axes; gaps where there was nothing to measure. */
export function Sparkline({ values, label, testId }: { values: (number | null)[]; label: string; testId: string }) {
  return (
    <span className="sparkline" role="img" aria-label={label} data-testid={testId}>
      <LineChart width={96} height={24} data={values.map((v, i) => ({ i, v }))} margin={{ top: 2, right: 2, bottom: 2, left: 2 }}>
        <YAxis hide domain={[0, 'dataMax']} />
        {/* One point makes no line: it shows as a dot until the next. */}
        <Line type="monotone" dataKey="v" dot={values.length === 1 ? { r: 1.5 } : false} connectNulls isAnimationActive={false} stroke="currentColor" strokeWidth={1.5} />
      </LineChart>
    </span>
  );
}

/** The Servers page's cell: calls per minute and p95 latency of one server over the kept points. */
export function ServerActivity({ server }: { server: string }) {
  const t = useMessages();
  const series = useMetricsSeries();
  const points = series?.points ?? [];
  const rows = points.map((p) => {
    const s = p.servers.find((x) => x.server === server);
    return { calls: s?.calls ?? 0, errors: s?.errors ?? 0, p95Ms: s?.p95Ms ?? 0, seconds: p.seconds };
  });
  const any = rows.some((r) => r.calls > 0);
  const f = figures(rows.slice(lastMinuteFrom(points)));
  const perMin = fmt(f.perMin);
  const p95 = f.p95 === null ? '–' : fmt(f.p95);
  return (
    <div className="server-activity" data-testid={`server-activity-${server}`}>
      {!any ? (
        <span className="muted no-calls" data-testid={`server-activity-empty-${server}`} aria-label={t.chartsServerNone(server)}>
          {t.chartsNoCalls}
        </span>
      ) : (
        <>
          <Sparkline
            values={rows.map((r) => perMinute(r.calls, r.seconds))}
            label={t.chartsServerLabel(server, perMin, p95)}
            testId={`server-calls-spark-${server}`}
          />
          <span className="figure" data-testid={`server-calls-per-min-${server}`}>
            {t.chartsPerMin(perMin)}
          </span>
          <Sparkline values={rows.map((r) => (r.calls > 0 ? r.p95Ms : null))} label={t.chartsServerLabel(server, perMin, p95)} testId={`server-p95-spark-${server}`} />
          <span className="figure" data-testid={`server-p95-${server}`}>
            {t.chartsP95} {f.p95 === null ? '–' : t.chartsMs(p95)}
          </span>
        </>
      )}
    </div>
  );
}

/** A time axis' label: with seconds while the points span under 3 minutes, else hours and minutes. */
function clockFor(points: MetricsPoint[]) {
  const span = (points.at(-1)?.at ?? 0) - (points[0]?.at ?? 0);
  const opts: Intl.DateTimeFormatOptions = span < 180_000 ? { hour: '2-digit', minute: '2-digit', second: '2-digit' } : { hour: '2-digit', minute: '2-digit' };
  return (ms: number) => new Date(ms).toLocaleTimeString([], opts);
}

/** The Logs page's panel: calls and errors per minute, and latency, over the kept points. */
export function LogsCharts() {
  const t = useMessages();
  const series = useMetricsSeries();
  const error = useMetrics((s) => s.error);
  const points = series?.points ?? [];
  const data = points.map((p) => ({
    at: p.at,
    calls: perMinute(p.calls, p.seconds),
    errors: perMinute(p.errors, p.seconds),
    p50: p.calls > 0 ? p.p50Ms : null,
    p95: p.calls > 0 ? p.p95Ms : null,
  }));
  const any = points.some((p) => p.calls > 0);
  const recent = points.slice(lastMinuteFrom(points));
  const f = figures(recent);
  const hooks = figures(recent.map((p) => ({ calls: p.hookRuns, errors: 0, p95Ms: p.hookP95Ms, seconds: p.seconds })));
  const last = points.at(-1);
  const empty = series === null ? t.chartsWaiting : t.chartsNoCalls;
  const clock = clockFor(points);
  return (
    <section className="logs-charts" aria-labelledby="logs-charts-title" data-testid="logs-charts">
      <h2 id="logs-charts-title" className="sr-only">
        {t.chartsTitle}
      </h2>
      <p className="charts-summary" data-testid="logs-charts-summary" aria-live="polite">
        {any ? t.chartsSummary(fmt(f.perMin), fmt(f.errorsPerMin), f.p95 === null ? '–' : fmt(f.p95)) : empty}
        {hooks.p95 !== null && (
          <span className="muted" data-testid="logs-charts-hooks">
            {' '}
            · {t.chartsHooks(fmt(hooks.perMin), fmt(hooks.p95))}
          </span>
        )}
        {last && <span className="muted"> · {t.chartsGauges(last.sessions, last.approvalsWaiting)}</span>}
      </p>
      {error && (
        <p className="inline-error" role="alert" data-testid="logs-charts-error">
          {t.chartsLoadFailed(error)}
        </p>
      )}
      <div className="charts-row">
        <ChartCard title={t.chartsCallsTitle} label={t.chartsCallsLabel(points.length)} empty={any ? null : empty} testId="logs-chart-calls">
          <LineChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" className="grid" />
            <XAxis dataKey="at" type="number" domain={['dataMin', 'dataMax']} tickFormatter={clock} minTickGap={40} fontSize={11} />
            <YAxis allowDecimals={false} fontSize={11} />
            <Tooltip labelFormatter={(v) => clock(Number(v))} formatter={(v) => fmt(Number(v))} />
            <Legend iconSize={8} wrapperStyle={{ fontSize: 11 }} />
            <Line name={t.chartsCalls} dataKey="calls" className="line-calls" stroke="var(--accent)" dot={false} isAnimationActive={false} />
            <Line name={t.chartsErrors} dataKey="errors" className="line-errors" stroke="var(--bad)" dot={false} isAnimationActive={false} />
          </LineChart>
        </ChartCard>
        <ChartCard title={t.chartsLatencyTitle} label={t.chartsLatencyLabel(points.length)} empty={any ? null : empty} testId="logs-chart-latency">
          <LineChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" className="grid" />
            <XAxis dataKey="at" type="number" domain={['dataMin', 'dataMax']} tickFormatter={clock} minTickGap={40} fontSize={11} />
            <YAxis fontSize={11} />
            <Tooltip labelFormatter={(v) => clock(Number(v))} formatter={(v) => (v == null ? '–' : fmt(Number(v)))} />
            <Legend iconSize={8} wrapperStyle={{ fontSize: 11 }} />
            {/* Intervals without calls have no latency: the line joins the ones around them. */}
            <Line name={t.chartsP50} dataKey="p50" stroke="var(--info)" dot={false} connectNulls isAnimationActive={false} />
            <Line name={t.chartsP95} dataKey="p95" stroke="var(--warn)" dot={false} connectNulls isAnimationActive={false} />
          </LineChart>
        </ChartCard>
      </div>
    </section>
  );
}

function ChartCard({ title, label, empty, testId, children }: { title: string; label: string; empty: string | null; testId: string; children: React.ReactElement }) {
  return (
    <figure className="chart-card" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <div className="chart-box" role="img" aria-label={label}>
        {empty === null ? (
          <ResponsiveContainer width="100%" height="100%">
            {children}
          </ResponsiveContainer>
        ) : (
          <span className="chart-empty muted" data-testid={`${testId}-empty`}>
            {empty}
          </span>
        )}
      </div>
    </figure>
  );
}
