import { Fragment, lazy, Suspense, useEffect, useRef, useState } from 'react';
import type { PrefixMode, ServerView } from '../api';
import { ConfirmDialog, LoadError, Switch } from '../components/Dialog';
import { BundleDialog } from '../components/BundleDialog';
import { ServerDialog } from '../components/ServerDialog';
import { StatusBadge } from '../components/StatusBadge';
import { useMessages } from '../i18n';
import { formatElapsed } from '../lib/format';
import { useApp, useServers } from '../stores';
import './ServersPage.css';

// The chart library loads with the first chart, not with the app's first page.
const ServerActivity = lazy(() => import('../components/MetricsCharts').then((m) => ({ default: m.ServerActivity })));

export function ServersPage() {
  const t = useMessages();
  const servers = useServers((s) => s.servers);
  const status = useServers((s) => s.status);
  const error = useServers((s) => s.error);
  const load = useServers((s) => s.load);
  const listen = useServers((s) => s.listen);
  const pageReady = useApp((s) => s.pageReady);
  const [dialog, setDialog] = useState<{ edit?: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  // A .mcpb file dropped on the page or picked (docs/bundles.md).
  const [bundleFile, setBundleFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const [dropError, setDropError] = useState<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  const takeFile = (f: File | undefined) => {
    if (!f) return;
    if (!f.name.toLowerCase().endsWith('.mcpb')) {
      setDropError(t.bundleNotMcpb(f.name));
      return;
    }
    setDropError(null);
    setBundleFile(f);
  };
  const hasFiles = (e: React.DragEvent) => [...(e.dataTransfer?.types ?? [])].includes('Files');

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
    <section
      className={dragging ? 'page dropping' : 'page'}
      data-testid="servers-page"
      aria-labelledby="servers-title"
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
      onDrop={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDragging(false);
        takeFile(e.dataTransfer.files[0]);
      }}
    >
      <header className="page-header">
        <h1 id="servers-title">{t.serversTitle}</h1>
        {servers.length > 0 && <p className="page-summary">{t.serversSummary(servers.length, running)}</p>}
        <span className="grow" />
        <button type="button" onClick={() => picker.current?.click()} title={t.installBundleHint} data-testid="install-bundle">
          {t.installBundle}
        </button>
        <input
          ref={picker}
          type="file"
          accept=".mcpb"
          hidden
          data-testid="bundle-file"
          onChange={(e) => {
            takeFile(e.target.files?.[0]);
            e.target.value = '';
          }}
        />
        <button type="button" className="primary" onClick={() => setDialog({})} data-testid="add-server">
          {t.addServer}
        </button>
      </header>

      {dragging && (
        <p className="drop-hint" role="status" data-testid="bundle-drop-hint">
          {t.bundleDropHere}
        </p>
      )}
      {dropError && (
        <p className="inline-error" role="alert" data-testid="bundle-drop-error">
          {dropError}
        </p>
      )}

      {status === 'error' && (
        <div data-testid="servers-error">
          <LoadError title={t.loadFailed} message={error} retry={() => void load()} />
        </div>
      )}

      {status === 'loading' && servers.length === 0 && (
        <p className="muted" role="status" data-testid="servers-loading">
          <span className="spinner" /> {t.loading}
        </p>
      )}

      {status === 'ready' && servers.length === 0 && <EmptyState onAdd={() => setDialog({})} />}

      {servers.length > 0 && (
        <ServersTable
          servers={servers}
          open={open}
          onToggle={(name) => setOpen(open === name ? null : name)}
          onEdit={(name) => setDialog({ edit: name })}
        />
      )}

      {dialog && <ServerDialog editing={dialog.edit} onClose={() => setDialog(null)} />}
      {bundleFile && (
        <BundleDialog
          file={bundleFile}
          onClose={(installed) => {
            setBundleFile(null);
            if (installed) setOpen(installed);
          }}
        />
      )}
    </section>
  );
}

function EmptyState({ onAdd }: { onAdd: () => void }) {
  const t = useMessages();
  return (
    <div className="empty" data-testid="servers-empty">
      <h2>{t.emptyTitle}</h2>
      <p>{t.emptyBody}</p>
      <button type="button" className="primary" onClick={onAdd}>
        {t.addServer}
      </button>
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

function ServersTable({
  servers,
  open,
  onToggle,
  onEdit,
}: {
  servers: ServerView[];
  open: string | null;
  onToggle: (name: string) => void;
  onEdit: (name: string) => void;
}) {
  const t = useMessages();
  return (
    <table className="servers" data-testid="servers-table">
      <thead>
        <tr>
          <th scope="col">{t.colName}</th>
          <th scope="col">{t.colStatus}</th>
          <th scope="col">{t.colTransport}</th>
          <th scope="col" className="num">
            {t.colTools}
          </th>
          <th scope="col">{t.colActivity}</th>
          <th scope="col">{t.colEnabled}</th>
          <th scope="col" className="actions-col">
            <span className="sr-only">{t.colActions}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {servers.map((s) => (
          <Fragment key={s.name}>
            <ServerRow server={s} open={open === s.name} onToggle={() => onToggle(s.name)} onEdit={() => onEdit(s.name)} />
            {open === s.name && (
              <tr className="details-row">
                <td colSpan={7}>
                  <ServerDetails server={s} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

function Elapsed({ since }: { since: number }) {
  // A display clock only: it re-renders this label, it does not poll the API.
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, []);
  return <span className="elapsed">{formatElapsed(now - since)}</span>;
}

function ServerRow({ server: s, open, onToggle, onEdit }: { server: ServerView; open: boolean; onToggle: () => void; onEdit: () => void }) {
  const t = useMessages();
  const pending = useServers((st) => st.pending[s.name]);
  const since = useServers((st) => st.since[s.name]);
  const actionError = useServers((st) => (st.actionError?.name === s.name ? st.actionError.message : null));
  const act = useServers((st) => st.act);
  const login = useServers((st) => st.login);
  const loginURL = useServers((st) => (s.state === 'needs_login' ? st.logins[s.name] : undefined));
  const [confirm, setConfirm] = useState(false);
  const [clientId, setClientId] = useState('');
  const busy = pending !== undefined;
  const up = s.state === 'running' || s.state === 'restarting' || s.state === 'errored';

  return (
    <>
      <tr data-testid={`server-row-${s.name}`} className={s.enabled ? undefined : 'is-disabled'}>
        <th scope="row">
          <button type="button" className="link expander" aria-expanded={open} onClick={onToggle} data-testid={`server-open-${s.name}`}>
            <span className="chevron" aria-hidden="true">
              {open ? '▾' : '▸'}
            </span>
            {s.name}
          </button>
          {!s.enabled && <span className="tag">{t.disabled}</span>}
          <code className="target" title={s.target}>
            {s.target}
          </code>
        </th>
        <td className="status-cell">
          <StatusBadge name={s.name} state={s.state} restarts={s.restarts} error={s.error} />
          {s.state === 'starting' && since !== undefined && <Elapsed since={since} />}
          {loginURL && (
            <span className="status-note" data-testid={`server-login-pending-${s.name}`}>
              {t.loginOpened}{' '}
              <a href={loginURL} target="_blank" rel="noopener noreferrer" data-testid={`server-login-link-${s.name}`}>
                {t.loginLink}
              </a>
            </span>
          )}
          {actionError && (
            <span className="status-error" role="alert" data-testid={`server-action-error-${s.name}`}>
              {actionError}
            </span>
          )}
          {actionError && s.state === 'needs_login' && (
            // The authorization server may not let the router register
            // itself: the user gives the client id registered there.
            <form
              className="login-client-id"
              onSubmit={(e) => {
                e.preventDefault();
                if (clientId.trim() !== '') void login(s.name, clientId.trim());
              }}
            >
              <input
                type="text"
                value={clientId}
                placeholder={t.clientIdPlaceholder}
                aria-label={t.clientIdPlaceholder}
                onChange={(e) => setClientId(e.target.value)}
                data-testid={`server-login-client-id-${s.name}`}
              />
              <button type="submit" className="small" disabled={busy || clientId.trim() === ''} data-testid={`server-login-with-id-${s.name}`}>
                {t.logInWithClientId}
              </button>
            </form>
          )}
        </td>
        <td>
          <span className="transport">{s.transport}</span>
          {s.isolation === 'per-client' && (
            <span className="per-client muted" title={t.perClientTitle} data-testid={`server-perclient-${s.name}`}>
              {' '}
              {t.perClientTag(s.instances.length)}
            </span>
          )}
          {s.bundle && (
            <span
              className="bundle muted"
              title={t.bundleBadgeTitle(s.bundle.name, s.bundle.version, s.bundle.signedBy ? `${s.bundle.signature}: ${s.bundle.signedBy}` : s.bundle.signature)}
              data-testid={`server-bundle-${s.name}`}
            >
              {' '}
              {t.bundleBadge}
            </span>
          )}
          {s.lazy && (
            <span
              className="lazy muted"
              title={s.lazyWhy ? `${t.lazyTitle} ${s.lazyWhy === 'gated' ? t.lazyWhyGated : t.lazyWhySearchOnly}` : t.lazyTitle}
              data-testid={`server-lazy-${s.name}`}
            >
              {' '}
              {((tag) => (s.lazyWhy ? t.lazyAuto(tag) : tag))(s.state === 'stopped' && s.enabled ? t.lazyStoppedTag : t.lazyTag)}
            </span>
          )}
          {s.protocol && (
            <span className="protocol muted" title={t.protocolTitle} data-testid={`server-protocol-${s.name}`}>
              {' '}
              MCP {s.protocol}
            </span>
          )}
        </td>
        <td className="num" data-testid={`server-tools-${s.name}`}>
          {s.tools}
        </td>
        <td className="activity-cell">
          <Suspense fallback={<div className="server-activity-placeholder" />}>
            <ServerActivity server={s.name} />
          </Suspense>
        </td>
        <td>
          <Switch
            checked={s.enabled}
            label={s.enabled ? t.disableServer(s.name) : t.enableServer(s.name)}
            disabled={busy}
            onChange={(on) => void act(s.name, on ? 'enable' : 'disable')}
            testId={`server-enabled-${s.name}`}
          />
        </td>
        <td className="actions">
          {s.state === 'starting' ? (
            <button type="button" className="small" disabled={busy} onClick={() => void act(s.name, 'stop')} data-testid={`server-cancel-${s.name}`}>
              {t.cancelStart}
            </button>
          ) : s.state === 'needs_login' ? (
            <>
              <button
                type="button"
                className="small primary"
                disabled={busy}
                title={t.logInTitle}
                onClick={() => void login(s.name)}
                data-testid={`server-login-${s.name}`}
              >
                {pending === 'login' && <span className="spinner" />} {t.logIn}
              </button>
              <button type="button" className="small" disabled={busy} onClick={() => void act(s.name, 'stop')} data-testid={`server-stop-${s.name}`}>
                {t.stop}
              </button>
            </>
          ) : up ? (
            <>
              <button type="button" className="small" disabled={busy} onClick={() => void act(s.name, 'restart')} data-testid={`server-restart-${s.name}`}>
                {pending === 'restart' && <span className="spinner" />} {t.restart}
              </button>
              <button type="button" className="small" disabled={busy} onClick={() => void act(s.name, 'stop')} data-testid={`server-stop-${s.name}`}>
                {t.stop}
              </button>
            </>
          ) : (
            <button
              type="button"
              className="small"
              disabled={busy || !s.enabled}
              title={s.enabled ? undefined : t.enableFirst}
              onClick={() => void act(s.name, 'start')}
              data-testid={`server-start-${s.name}`}
            >
              {pending === 'start' && <span className="spinner" />} {t.start}
            </button>
          )}
          {s.loggedIn && (
            <button
              type="button"
              className="small"
              disabled={busy}
              title={t.logOutTitle}
              onClick={() => void act(s.name, 'logout')}
              data-testid={`server-logout-${s.name}`}
            >
              {pending === 'logout' && <span className="spinner" />} {t.logOut}
            </button>
          )}
          {s.transport !== 'builtin' && (
            <button type="button" className="small" onClick={onEdit} data-testid={`server-edit-${s.name}`}>
              {t.edit}
            </button>
          )}
          <button type="button" className="small danger" disabled={busy} onClick={() => setConfirm(true)} data-testid={`server-remove-${s.name}`}>
            {t.remove}
          </button>
          {confirm && (
            <ConfirmDialog
              title={t.removeServerTitle(s.name)}
              body={<p>{t.removeServerBody}</p>}
              confirm={t.remove}
              busy={busy}
              onCancel={() => setConfirm(false)}
              onConfirm={() => {
                setConfirm(false);
                void act(s.name, 'remove');
              }}
            />
          )}
        </td>
      </tr>
      {s.suggestPerClient && s.isolation === 'shared' && <SuggestPerClientRow server={s} />}
    </>
  );
}

/** A shared server that asked its client something while clients shared it: offer per-client. */
function SuggestPerClientRow({ server: s }: { server: ServerView }) {
  const t = useMessages();
  const makePerClient = useServers((st) => st.makePerClient);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const hint = s.suggestPerClient;
  if (!hint) return null;
  return (
    <tr className="suggest-row" data-testid={`server-suggest-${s.name}`}>
      <td colSpan={7}>
        <span className="status-note">{t.suggestPerClient(hint.what, hint.clients)}</span>{' '}
        <button
          type="button"
          className="small primary"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            setError(null);
            makePerClient(s.name)
              .catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)))
              .finally(() => setBusy(false));
          }}
          data-testid={`server-make-perclient-${s.name}`}
        >
          {busy && <span className="spinner" />} {t.makePerClient}
        </button>
        {error && (
          <span className="status-error" role="alert" data-testid={`server-suggest-error-${s.name}`}>
            {' '}
            {error}
          </span>
        )}
      </td>
    </tr>
  );
}

/** A per-client server's instances: whose, which process, since when, how many calls. */
function InstancesPanel({ server }: { server: ServerView }) {
  const t = useMessages();
  if (server.instances.length === 0) {
    return (
      <p className="muted" data-testid={`server-instances-none-${server.name}`}>
        {t.instancesNone}
      </p>
    );
  }
  return (
    <table className="instances" data-testid={`server-instances-${server.name}`}>
      <thead>
        <tr>
          <th scope="col">{t.colInstance}</th>
          <th scope="col">{t.colInstanceClient}</th>
          <th scope="col" className="num">
            {t.colInstancePid}
          </th>
          <th scope="col">{t.colInstanceSince}</th>
          <th scope="col" className="num">
            {t.colInstanceCalls}
          </th>
        </tr>
      </thead>
      <tbody>
        {server.instances.map((i) => (
          <tr key={i.id} data-testid={`server-instance-${server.name}-${i.id}`}>
            <td>#{i.id}</td>
            <td>{i.client}</td>
            <td className="num">{i.pid || '—'}</td>
            <td>{new Date(i.since).toLocaleTimeString()}</td>
            <td className="num">{i.calls}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ServerDetails({ server }: { server: ServerView }) {
  const t = useMessages();
  const [tab, setTab] = useState<'tools' | 'console' | 'instances'>(server.state === 'running' ? 'tools' : 'console');
  return (
    <div className="server-details" data-testid={`server-details-${server.name}`}>
      <div className="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === 'tools'} onClick={() => setTab('tools')} data-testid="details-tab-tools">
          {t.detailsTools}
        </button>
        <button type="button" role="tab" aria-selected={tab === 'console'} onClick={() => setTab('console')} data-testid="details-tab-console">
          {t.detailsConsole}
        </button>
        {server.isolation === 'per-client' && (
          <button type="button" role="tab" aria-selected={tab === 'instances'} onClick={() => setTab('instances')} data-testid="details-tab-instances">
            {t.detailsInstances}
          </button>
        )}
      </div>
      {server.protocol && <ProtocolNote server={server} />}
      {tab === 'tools' ? (
        <ServerToolsPanel server={server} />
      ) : tab === 'instances' && server.isolation === 'per-client' ? (
        <InstancesPanel server={server} />
      ) : (
        <ConsolePanel name={server.name} />
      )}
    </div>
  );
}

/** The revision of the router's connection, and those the server offers. */
function ProtocolNote({ server }: { server: ServerView }) {
  const t = useMessages();
  const offered = server.protocolsOffered;
  return (
    <p className="muted protocol-note" data-testid={`server-protocols-${server.name}`}>
      {t.protocolLabel}: <code>{server.protocol}</code>.{' '}
      {offered.length > 0 ? t.protocolOffered(offered.join(', ')) : server.transport === 'http' ? t.protocolNoDiscover : ''}{' '}
      {offered.includes('2026-07-28') && t.protocolOnHandshake}
    </p>
  );
}

function ServerToolsPanel({ server }: { server: ServerView }) {
  const t = useMessages();
  const entry = useServers((s) => s.tools[server.name]);
  const loadTools = useServers((s) => s.loadTools);
  const setToolEnabled = useServers((s) => s.setToolEnabled);
  const setPrefixMode = useServers((s) => s.setPrefixMode);
  const [prefixError, setPrefixError] = useState<string | null>(null);

  // Reload when the server's tool count changes (it came up, or its list changed).
  useEffect(() => {
    void loadTools(server.name);
  }, [loadTools, server.name, server.tools, server.state]);

  const changePrefix = async (mode: PrefixMode) => {
    setPrefixError(null);
    try {
      await setPrefixMode(server.name, mode);
    } catch (err) {
      setPrefixError(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <div>
      <div className="row prefix-row">
        <label className="check">
          <span>{t.prefixMode}</span>
          <select value={server.prefixMode} onChange={(e) => void changePrefix(e.target.value as PrefixMode)} data-testid="prefix-mode">
            <option value="always">{t.prefixAlways}</option>
            <option value="never">{t.prefixNever}</option>
          </select>
        </label>
        {prefixError && (
          <span className="inline-error" role="alert">
            {prefixError}
          </span>
        )}
      </div>
      {entry?.error && (
        <LoadError title={t.toolsLoadFailed} message={entry.error} retry={() => void loadTools(server.name)} />
      )}
      {(!entry || (entry.status === 'loading' && entry.list.length === 0)) && (
        <p className="muted">
          <span className="spinner" /> {t.loadingTools}
        </p>
      )}
      {entry && entry.status !== 'loading' && entry.list.length === 0 && !entry.error && (
        <p className="muted">{server.state === 'running' ? t.noTools : t.noToolsNotRunning}</p>
      )}
      {entry && entry.list.length > 0 && (
        <table className="data compact" data-testid="server-tools">
          <tbody>
            {entry.list.map((tool) => (
              <tr key={tool.name} className={tool.enabled ? undefined : 'is-disabled'}>
                <td className="tool-toggle">
                  <Switch
                    checked={tool.enabled}
                    label={tool.enabled ? t.disableTool(tool.name) : t.enableTool(tool.name)}
                    onChange={(on) => void setToolEnabled(server.name, tool.name, on)}
                    testId={`tool-enabled-${tool.name}`}
                  />
                </td>
                <td>
                  <code>{tool.finalName}</code>
                  {tool.finalName !== tool.name && <span className="item-sub">{tool.name}</span>}
                </td>
                <td className="muted desc">{tool.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function ConsolePanel({ name }: { name: string }) {
  const t = useMessages();
  const lines = useServers((s) => s.consoles[name]);
  const watch = useServers((s) => s.watchConsole);
  const ref = useRef<HTMLPreElement>(null);
  const stick = useRef(true);

  useEffect(() => watch(name), [watch, name]);

  // Follow the tail unless the user scrolled up to read.
  useEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <pre
      ref={ref}
      className="console"
      data-testid={`console-${name}`}
      aria-live="off"
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {lines && lines.length > 0 ? lines.join('\n') : <span className="muted">{t.consoleEmpty}</span>}
    </pre>
  );
}
