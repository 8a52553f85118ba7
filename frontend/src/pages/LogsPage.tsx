import { memo, useEffect, useRef, useState } from 'react';
import { LOG_STATUSES, type LogRow, type LogStatus } from '../api';
import { Dialog, LoadError } from '../components/Dialog';
import { LogsCharts } from '../components/MetricsCharts';
import { useLocale, useMessages } from '../i18n';
import { copyText } from '../lib/clipboard';
import { formatTime, prettyJSON } from '../lib/format';
import { useApp, useLogs, useServers } from '../stores';
import type { LogFilters } from '../stores/logs';
import './pages.css';

interface FilterForm {
  client: string;
  server: string;
  method: string;
  status: '' | LogStatus;
  since: string;
  until: string;
}

// Suggestions for the method filter (it matches exactly, like the CLI's).
const MCP_METHODS = [
  'tools/call',
  'tools/list',
  'resources/read',
  'resources/list',
  'resources/templates/list',
  'prompts/get',
  'prompts/list',
  'completion/complete',
  'initialize',
  'ping',
];

const emptyFilters: FilterForm = { client: '', server: '', method: '', status: '', since: '', until: '' };

/** datetime-local value (local time, no zone) → RFC 3339; '' stays ''. */
export function localToRFC3339(v: string): string {
  if (!v) return '';
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

function toFilters(f: FilterForm): LogFilters {
  return {
    client: f.client.trim() || undefined,
    server: f.server.trim() || undefined,
    method: f.method.trim() || undefined,
    status: f.status || undefined,
    since: localToRFC3339(f.since) || undefined,
    until: localToRFC3339(f.until) || undefined,
  };
}

export default function LogsPage() {
  const t = useMessages();
  const rows = useLogs((s) => s.rows);
  const status = useLogs((s) => s.status);
  const error = useLogs((s) => s.error);
  const cursors = useLogs((s) => s.cursors);
  const nextBeforeId = useLogs((s) => s.nextBeforeId);
  const setFilters = useLogs((s) => s.setFilters);
  const reload = useLogs((s) => s.reload);
  const older = useLogs((s) => s.older);
  const newer = useLogs((s) => s.newer);
  const listen = useLogs((s) => s.listen);
  const open = useLogs((s) => s.open);
  const detail = useLogs((s) => s.detail);
  const pageReady = useApp((s) => s.pageReady);
  const servers = useServers((s) => s.servers);
  const [form, setForm] = useState<FilterForm>(emptyFilters);
  const first = useRef(true);

  useEffect(() => listen(), [listen]);

  // Text filters apply a moment after typing stops; the first load at once.
  useEffect(() => {
    const delay = first.current ? 0 : 300;
    first.current = false;
    const id = setTimeout(() => void setFilters(toFilters(form)), delay);
    return () => clearTimeout(id);
  }, [form, setFilters]);

  useEffect(() => {
    if (status === 'ready') pageReady('logs');
  }, [status, pageReady]);

  const set = <K extends keyof FilterForm>(k: K, v: FilterForm[K]) => setForm((old) => ({ ...old, [k]: v }));
  const page = cursors.length;

  return (
    <section className="page" data-testid="logs-page" aria-labelledby="logs-title">
      <header className="page-header">
        <h1 id="logs-title">{t.logsTitle}</h1>
        {page === 1 && (
          <span className="live" title={t.logsLiveHint}>
            <span className="live-dot" aria-hidden="true" /> {t.logsLive}
          </span>
        )}
      </header>
      <LogsCharts />
      <form className="filters row" onSubmit={(e) => e.preventDefault()} data-testid="logs-filters">
        <input placeholder={t.colClient} aria-label={t.colClient} value={form.client} onChange={(e) => set('client', e.target.value)} data-testid="filter-client" />
        <input
          placeholder={t.colServer}
          aria-label={t.colServer}
          value={form.server}
          list="log-servers"
          onChange={(e) => set('server', e.target.value)}
          data-testid="filter-server"
        />
        <datalist id="log-servers">
          {servers.map((s) => (
            <option key={s.name} value={s.name} />
          ))}
        </datalist>
        <input
          placeholder={t.colMethod}
          aria-label={t.colMethod}
          value={form.method}
          list="log-methods"
          onChange={(e) => set('method', e.target.value)}
          data-testid="filter-method"
        />
        <datalist id="log-methods">
          {MCP_METHODS.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <select aria-label={t.colStatus} value={form.status} onChange={(e) => set('status', e.target.value as FilterForm['status'])} data-testid="filter-status">
          <option value="">{t.allStatuses}</option>
          {LOG_STATUSES.map((s) => (
            <option key={s} value={s}>
              {t.logStatus[s]}
            </option>
          ))}
        </select>
        <label className="check">
          {t.since}
          <input type="datetime-local" value={form.since} onChange={(e) => set('since', e.target.value)} data-testid="filter-since" />
        </label>
        <label className="check">
          {t.until}
          <input type="datetime-local" value={form.until} onChange={(e) => set('until', e.target.value)} data-testid="filter-until" />
        </label>
        <button type="button" className="link" onClick={() => setForm(emptyFilters)}>
          {t.clearFilters}
        </button>
      </form>

      {status === 'error' && <LoadError title={t.logsLoadFailed} message={error} retry={() => void reload()} />}

      <div className={`logs-table-wrap${status === 'loading' ? ' is-loading' : ''}`}>
        <table className="data logs" data-testid="logs-table">
          <thead>
            <tr>
              <th scope="col">{t.colTime}</th>
              <th scope="col">{t.colClient}</th>
              <th scope="col">{t.colServer}</th>
              <th scope="col">{t.colMethod}</th>
              <th scope="col">{t.colTarget2}</th>
              <th scope="col">{t.colStatus}</th>
              <th scope="col" className="num">
                {t.colDuration}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <Row key={r.id} row={r} selected={detail?.id === r.id} onOpen={open} />
            ))}
          </tbody>
        </table>
        {status === 'loading' && rows.length === 0 && (
          <p className="muted" role="status">
            <span className="spinner" /> {t.loadingLogs}
          </p>
        )}
        {status === 'ready' && rows.length === 0 && <p className="muted empty-row">{t.logsEmpty}</p>}
      </div>
      <div className="row pager">
        <button type="button" disabled={page <= 1 || status === 'loading'} onClick={() => void newer()} data-testid="logs-newer">
          {t.newer}
        </button>
        <span className="muted">{t.pageN(page)}</span>
        <button type="button" disabled={nextBeforeId === undefined || status === 'loading'} onClick={() => void older()} data-testid="logs-older">
          {t.older}
        </button>
      </div>
      {detail && <LogDetailDialog />}
    </section>
  );
}

// Rows are memoized: a live batch prepends without re-rendering the others.
const Row = memo(function Row({ row: r, selected, onOpen }: { row: LogRow; selected: boolean; onOpen: (id: number) => void }) {
  const t = useMessages();
  const locale = useLocale();
  return (
    <tr
      className={`clickable${selected ? ' selected' : ''}`}
      tabIndex={0}
      onClick={() => onOpen(r.id)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') onOpen(r.id);
      }}
      data-testid={`log-row-${r.id}`}
      data-status={r.status}
    >
      <td className="nowrap">{formatTime(r.time, locale)}</td>
      <td>{r.client}</td>
      <td>{r.server}</td>
      <td>
        <code>{r.method}</code>
      </td>
      <td className="ellipsis" title={r.backendTool ? `${r.target} (${t.logVia(r.server, r.backendTool)})` : r.target}>
        {r.target}
      </td>
      <td>
        <span className={`log-status log-${r.status}`} title={r.error}>
          {t.logStatus[r.status]}
        </span>
      </td>
      <td className="num">{t.durationMs(r.durationMs)}</td>
    </tr>
  );
});

function LogDetailDialog() {
  const t = useMessages();
  const locale = useLocale();
  const detail = useLogs((s) => s.detail);
  const close = useLogs((s) => s.close);
  const open = useLogs((s) => s.open);
  if (!detail) return null;
  const log = detail.log;
  return (
    <Dialog title={t.logDetailTitle(detail.id)} onClose={close} testId="log-detail">
      {detail.status === 'loading' && (
        <p className="muted">
          <span className="spinner" /> {t.loadingLogs}
        </p>
      )}
      {detail.status === 'error' && <LoadError title={t.logsLoadFailed} message={detail.error} retry={() => void open(detail.id)} />}
      {log && (
        <>
          <dl className="kv">
            <dt>{t.colTime}</dt>
            <dd>{formatTime(log.time, locale)}</dd>
            <dt>{t.colClient}</dt>
            <dd>{log.client}</dd>
            <dt>{t.colServer}</dt>
            <dd>
              {log.server}
              {log.instance && (
                <span className="muted" data-testid="log-detail-instance">
                  {' '}
                  {t.logInstance(log.instance)}
                </span>
              )}
            </dd>
            <dt>{t.colMethod}</dt>
            <dd>
              <code>{log.method}</code> {log.target}
              {log.backendTool && (
                <>
                  {' '}
                  <span className="muted" data-testid="log-detail-via">
                    {t.logVia(log.server, log.backendTool)}
                  </span>
                </>
              )}
            </dd>
            <dt>{t.colStatus}</dt>
            <dd>
              <span className={`log-status log-${log.status}`}>{t.logStatus[log.status]}</span> · {t.durationMs(log.durationMs)}
            </dd>
            {log.error && (
              <>
                <dt>{t.error}</dt>
                <dd className="inline-error" data-testid="log-detail-error">
                  {log.error}
                </dd>
              </>
            )}
          </dl>
          <JsonBlock label={t.request} text={log.request} testId="log-request" />
          <JsonBlock label={t.response} text={log.response} testId="log-response" />
        </>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={close}>
          {t.close}
        </button>
      </div>
    </Dialog>
  );
}

function JsonBlock({ label, text, testId }: { label: string; text?: string; testId: string }) {
  const t = useMessages();
  const pretty = prettyJSON(text);
  const [copied, setCopied] = useState(false);
  return (
    <>
      <div className="row json-head">
        <span className="field-label grow">{label}</span>
        {pretty && (
          <button
            type="button"
            className="small"
            onClick={() =>
              void copyText(pretty).then((ok) => {
                setCopied(ok);
                if (ok) setTimeout(() => setCopied(false), 1500);
              })
            }
          >
            {copied ? t.copied : t.copy}
          </button>
        )}
      </div>
      <pre className="code" data-testid={testId}>
        {pretty || t.none}
      </pre>
    </>
  );
}
