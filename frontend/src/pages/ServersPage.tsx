import { useEffect } from 'react';
import type { ServerView } from '../api';
import { StatusBadge } from '../components/StatusBadge';
import { useMessages } from '../i18n';
import { useApp, useServers } from '../stores';
import './ServersPage.css';

export function ServersPage() {
  const t = useMessages();
  const servers = useServers((s) => s.servers);
  const status = useServers((s) => s.status);
  const error = useServers((s) => s.error);
  const load = useServers((s) => s.load);
  const listen = useServers((s) => s.listen);
  const pageReady = useApp((s) => s.pageReady);

  // Subscribe before loading so no change between the two is missed.
  useEffect(() => {
    const unsubscribe = listen();
    void load();
    return unsubscribe;
  }, [listen, load]);

  // "Ready" means the first settled render (list, empty state or error).
  const settled = status === 'ready' || status === 'error';
  useEffect(() => {
    if (settled) pageReady('servers');
  }, [settled, pageReady]);

  const running = servers.filter((s) => s.state === 'running').length;

  return (
    <section className="page" data-testid="servers-page" aria-labelledby="servers-title">
      <header className="page-header">
        <h1 id="servers-title">{t.serversTitle}</h1>
        {servers.length > 0 && <p className="page-summary">{t.serversSummary(servers.length, running)}</p>}
      </header>

      {status === 'error' && (
        <div className="callout callout-error" role="alert" data-testid="servers-error">
          <div>
            <strong>{t.loadFailed}</strong>
            <p>{error}</p>
          </div>
          <button type="button" onClick={() => void load()}>
            {t.retry}
          </button>
        </div>
      )}

      {status === 'loading' && servers.length === 0 && (
        <p className="muted" role="status" data-testid="servers-loading">
          {t.loading}
        </p>
      )}

      {status === 'ready' && servers.length === 0 && <EmptyState />}

      {servers.length > 0 && <ServersTable servers={servers} />}
    </section>
  );
}

function EmptyState() {
  const t = useMessages();
  return (
    <div className="empty" data-testid="servers-empty">
      <h2>{t.emptyTitle}</h2>
      <p>{t.emptyBody}</p>
      <dl className="commands">
        <dt>{t.emptyStdio}</dt>
        <dd>
          <code>mcp-router servers add NAME -- CMD ARGS…</code>
        </dd>
        <dt>{t.emptyHttp}</dt>
        <dd>
          <code>mcp-router servers add NAME --url URL</code>
        </dd>
      </dl>
    </div>
  );
}

function ServersTable({ servers }: { servers: ServerView[] }) {
  const t = useMessages();
  return (
    <table className="servers" data-testid="servers-table">
      <thead>
        <tr>
          <th scope="col">{t.colName}</th>
          <th scope="col">{t.colStatus}</th>
          <th scope="col">{t.colTransport}</th>
          <th scope="col">{t.colTarget}</th>
          <th scope="col" className="num">
            {t.colTools}
          </th>
        </tr>
      </thead>
      <tbody>
        {servers.map((s) => (
          <tr key={s.name} data-testid={`server-row-${s.name}`} className={s.enabled ? undefined : 'is-disabled'}>
            <th scope="row">
              {s.name}
              {!s.enabled && <span className="tag">{t.disabled}</span>}
            </th>
            <td className="status-cell">
              <StatusBadge name={s.name} state={s.state} restarts={s.restarts} error={s.error} />
            </td>
            <td>
              <span className="transport">{s.transport}</span>
            </td>
            <td className="target" title={s.target}>
              <code>{s.target}</code>
            </td>
            <td className="num" data-testid={`server-tools-${s.name}`}>
              {s.tools}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
