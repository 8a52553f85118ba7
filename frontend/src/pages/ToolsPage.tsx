import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { AggregatedTool, CatalogTool, ContentBlock, ToolCallResult, ToolChange } from '../api';
import { LoadError } from '../components/Dialog';
import { useMessages } from '../i18n';
import { fieldsOf, initialValues, toArguments, type Field, type FieldErrors, type Values } from '../lib/schemaForm';
import { useApp, useTools } from '../stores';
import './pages.css';

export default function ToolsPage() {
  const t = useMessages();
  const tools = useTools((s) => s.tools);
  const status = useTools((s) => s.status);
  const error = useTools((s) => s.error);
  const load = useTools((s) => s.load);
  const listen = useTools((s) => s.listen);
  const pageReady = useApp((s) => s.pageReady);
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  // What was typed per tool, so picking another tool and coming back loses nothing.
  const drafts = useRef(new Map<string, Draft>());

  useEffect(() => {
    const stop = listen();
    void load();
    return stop;
  }, [listen, load]);
  useEffect(() => {
    if (status === 'ready') pageReady('tools');
  }, [status, pageReady]);

  const shown = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return q ? tools.filter((x) => x.name.toLowerCase().includes(q) || x.description.toLowerCase().includes(q)) : tools;
  }, [tools, filter]);
  const current = tools.find((x) => x.name === selected) ?? null;

  return (
    <section className="page" data-testid="tools-page" aria-labelledby="tools-title">
      <header className="page-header">
        <h1 id="tools-title">{t.toolsTitle}</h1>
        {tools.length > 0 && <p className="page-summary">{t.toolsSummary(tools.length)}</p>}
      </header>
      <ToolChanges />
      {status === 'error' && <LoadError title={t.toolsLoadFailed} message={error} retry={() => void load()} />}
      {status === 'loading' && tools.length === 0 && (
        <p className="muted" role="status">
          <span className="spinner" /> {t.loadingTools}
        </p>
      )}
      {status === 'ready' && tools.length === 0 && <p className="empty">{t.toolsEmpty}</p>}
      {tools.length > 0 && (
        <div className="split">
          <div>
            <input
              type="search"
              className="list-filter"
              placeholder={t.toolsFilter}
              aria-label={t.toolsFilter}
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              data-testid="tools-filter"
            />
            <ul className="list" data-testid="tools-list">
              {shown.map((x) => (
                <li key={x.name}>
                  <button
                    type="button"
                    className="item"
                    aria-current={x.name === selected}
                    onClick={() => setSelected(x.name)}
                    data-testid={`tool-${x.name}`}
                  >
                    <code>{x.name}</code>
                    <span className="item-sub">{x.description || x.server}</span>
                  </button>
                </li>
              ))}
            </ul>
          </div>
          <div>{current ? <ToolDetail key={current.name} tool={current} drafts={drafts.current} /> : <p className="muted">{t.toolsPick}</p>}</div>
        </div>
      )}
      <StoppedTools />
    </section>
  );
}

/** The tools of servers that are not running, as the persisted catalog last saw them. */
function StoppedTools() {
  const t = useMessages();
  const stopped = useTools((s) => s.stopped);
  const byServer = useMemo(() => {
    const m = new Map<string, CatalogTool[]>();
    for (const x of stopped) m.set(x.server, [...(m.get(x.server) ?? []), x]);
    return [...m.entries()];
  }, [stopped]);
  if (stopped.length === 0) return null;
  return (
    <section className="stopped-tools" data-testid="stopped-tools" aria-labelledby="stopped-tools-title">
      <h2 id="stopped-tools-title">{t.stoppedToolsTitle}</h2>
      <p className="muted">{t.stoppedToolsIntro}</p>
      {byServer.map(([server, tools]) => (
        <div key={server} className="card" data-testid={`stopped-server-${server}`}>
          <h3>
            {server} <span className="tag">{tools[0]?.state}</span>
          </h3>
          <ul className="list">
            {tools.map((x) => (
              <li key={x.tool} className="item" data-testid={`stopped-tool-${server}/${x.tool}`}>
                <code>{x.tool}</code>
                {x.changed && <span className="tag tag-held">{t.stoppedToolChanged}</span>}
                <span className="item-sub">{x.description}</span>
                {x.seenAt && <span className="item-sub muted">{t.stoppedToolSeen(new Date(x.seenAt).toLocaleString())}</span>}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}

/** Tools changed upstream and not yet accepted, each with its diff and an accept button. */
function ToolChanges() {
  const t = useMessages();
  const changes = useTools((s) => s.changes);
  const error = useTools((s) => s.changesError);
  if (changes.length === 0 && !error) return null;
  return (
    <section className="card tool-changes" data-testid="tool-changes" aria-labelledby="tool-changes-title">
      <h2 id="tool-changes-title">{t.toolChangesTitle}</h2>
      <p className="muted">{t.toolChangesIntro}</p>
      {error && (
        <div className="callout callout-error" role="alert" data-testid="tool-changes-error">
          {error}
        </div>
      )}
      {changes.map((c) => (
        <ToolChangeView key={`${c.server}/${c.tool}`} change={c} />
      ))}
    </section>
  );
}

function ToolChangeView({ change: c }: { change: ToolChange }) {
  const t = useMessages();
  const accept = useTools((s) => s.accept);
  const busy = useTools((s) => s.accepting[`${c.server}/${c.tool}`] ?? false);
  const id = `${c.server}/${c.tool}`;
  return (
    <div className="tool-change" data-testid={`tool-change-${id}`}>
      <div className="row">
        <strong>{t.toolFrom(c.server, c.tool)}</strong>
        <span className={`tag${c.held ? ' tag-held' : ''}`} data-testid={`tool-change-state-${id}`}>
          {c.held ? t.toolChangeHeld : t.toolChangeServed}
        </span>
        {c.changedAt && <span className="muted">{t.toolChangedAt(new Date(c.changedAt).toLocaleString())}</span>}
        <span className="grow" />
        <button type="button" className="primary" disabled={busy} onClick={() => void accept(c)} data-testid={`tool-change-accept-${id}`}>
          {busy && <span className="spinner" />} {t.acceptToolChange}
        </button>
      </div>
      <DiffView diff={c.diff} />
    </div>
  );
}

/** A unified diff with its removed and added lines marked (the file header lines left out). */
export function DiffView({ diff }: { diff: string }) {
  const lines = diff.split('\n').filter((l, i, all) => !(l.startsWith('--- ') || l.startsWith('+++ ') || (l === '' && i === all.length - 1)));
  return (
    <pre className="code diff" data-testid="tool-change-diff">
      {lines.map((l, i) => {
        const kind = l.startsWith('+') ? 'diff-add' : l.startsWith('-') ? 'diff-del' : l.startsWith('@@') ? 'diff-hunk' : 'diff-ctx';
        return (
          <span key={i} className={kind} data-diff={kind}>
            {l}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}

interface Draft {
  values: Values;
  raw: string | null;
}

function ToolDetail({ tool, drafts }: { tool: AggregatedTool; drafts: Map<string, Draft> }) {
  const t = useMessages();
  const fields = useMemo(() => fieldsOf(tool.inputSchema), [tool.inputSchema]);
  const [values, setValues] = useState<Values>(() => drafts.get(tool.name)?.values ?? initialValues(fields));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [showSchema, setShowSchema] = useState(false);
  // Raw mode: the arguments as one JSON object, for schemas a form cannot express.
  const [raw, setRaw] = useState<string | null>(() => drafts.get(tool.name)?.raw ?? null);
  useEffect(() => {
    drafts.set(tool.name, { values, raw });
  }, [drafts, tool.name, values, raw]);
  const [rawError, setRawError] = useState<string | null>(null);
  const call = useTools((s) => s.call);
  const state = useTools((s) => s.calls[tool.name]);

  const problems = {
    required: t.errRequired,
    notNumber: t.errNotNumber,
    notInteger: t.errNotInteger,
    badJson: t.errBadJson,
    badItem: t.errBadItem,
  };

  const toggleRaw = () => {
    if (raw === null) {
      // Start from what the form holds when it is valid, else from {}.
      const r = toArguments(fields, values, problems);
      setRaw(JSON.stringify(r.ok ? r.args : {}, null, 2));
    } else setRaw(null);
    setRawError(null);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (raw !== null) {
      let args: unknown;
      try {
        args = JSON.parse(raw);
      } catch (err) {
        setRawError(t.errBadJson(err instanceof Error ? err.message : String(err)));
        return;
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        setRawError(t.errArgsObject);
        return;
      }
      setRawError(null);
      void call(tool.name, args as Record<string, unknown>);
      return;
    }
    const r = toArguments(fields, values, problems);
    if (!r.ok) {
      setErrors(r.errors);
      return;
    }
    setErrors({});
    void call(tool.name, r.args);
  };

  return (
    <div className="card" data-testid="tool-detail">
      <h2>
        <code>{tool.name}</code>
      </h2>
      <p className="muted">
        {t.toolFrom(tool.server, tool.tool)}
      </p>
      {tool.description && <p className="tool-description">{tool.description}</p>}
      <button type="button" className="link" onClick={() => setShowSchema(!showSchema)} aria-expanded={showSchema}>
        {showSchema ? t.hideSchema : t.showSchema}
      </button>
      {showSchema && <pre className="code">{JSON.stringify(tool.inputSchema, null, 2)}</pre>}

      <form onSubmit={submit} noValidate className="tool-form" data-testid="tool-form">
        <div className="row form-mode">
          <span className="grow" />
          <button type="button" className="link" onClick={toggleRaw} data-testid="tool-raw-toggle">
            {raw === null ? t.editAsJson : t.editAsForm}
          </button>
        </div>
        {raw !== null && (
          <label className="field">
            <span>{t.argumentsJson}</span>
            <textarea
              rows={8}
              value={raw}
              spellCheck={false}
              onChange={(e) => {
                setRaw(e.target.value);
                setRawError(null);
              }}
              aria-invalid={rawError ? true : undefined}
              data-testid="tool-raw"
            />
            {rawError && (
              <span className="field-error" role="alert" data-testid="tool-raw-error">
                {rawError}
              </span>
            )}
          </label>
        )}
        {raw === null && fields.length === 0 && <p className="muted">{t.toolNoArgs}</p>}
        {raw === null && fields.map((f) => (
          <FieldInput
            key={f.name}
            field={f}
            value={values[f.name] ?? ''}
            error={errors[f.name]}
            onChange={(v) => {
              setValues((old) => ({ ...old, [f.name]: v }));
              if (errors[f.name]) setErrors((old) => ({ ...old, [f.name]: '' }));
            }}
          />
        ))}
        <button type="submit" className="primary" disabled={state?.running} data-testid="tool-call">
          {state?.running && <span className="spinner" />} {t.callTool}
        </button>
      </form>
      {state?.error && (
        <div className="callout callout-error" role="alert" data-testid="tool-call-error">
          {state.error}
        </div>
      )}
      {state?.result && <ResultView result={state.result} />}
    </div>
  );
}

function FieldInput({ field: f, value, error, onChange }: { field: Field; value: string; error?: string; onChange: (v: string) => void }) {
  const t = useMessages();
  const id = `arg-${f.name}`;
  const invalid = error ? true : undefined;
  let input: React.ReactNode;
  switch (f.kind) {
    case 'boolean':
      input = f.required ? (
        <input id={id} type="checkbox" checked={value === 'true'} onChange={(e) => onChange(e.target.checked ? 'true' : 'false')} data-testid={id} />
      ) : (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)} data-testid={id}>
          <option value="">{t.unset}</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      );
      break;
    case 'enum':
      input = (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={invalid} data-testid={id}>
          {!f.required || value === '' ? <option value="">{t.unset}</option> : null}
          {f.options.map((o) => (
            <option key={JSON.stringify(o)} value={JSON.stringify(o)}>
              {typeof o === 'string' ? o : JSON.stringify(o)}
            </option>
          ))}
        </select>
      );
      break;
    case 'array':
    case 'json':
      input = (
        <textarea
          id={id}
          rows={f.kind === 'json' ? 4 : 3}
          value={value}
          spellCheck={false}
          placeholder={f.kind === 'json' ? '{ }' : t.onePerLine}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={invalid}
          data-testid={id}
        />
      );
      break;
    default:
      input = (
        <input
          id={id}
          type="text"
          inputMode={f.kind === 'string' ? undefined : 'decimal'}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={invalid}
          data-testid={id}
        />
      );
  }
  return (
    <div className="field">
      <label htmlFor={id} className={`field-label${f.required ? ' required' : ''}`}>
        {f.title} <span className="kind">{f.kind === 'array' ? `${f.itemKind}[]` : f.kind === 'json' ? 'JSON' : f.kind}</span>
      </label>
      {input}
      {f.description && <span className="field-hint">{f.description}</span>}
      {error && (
        <span className="field-error" role="alert" data-testid={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

function dataURL(b: ContentBlock): string | null {
  return typeof b.data === 'string' && typeof b.mimeType === 'string' ? `data:${b.mimeType};base64,${b.data}` : null;
}

export function ResultView({ result }: { result: ToolCallResult }) {
  const t = useMessages();
  return (
    <div className={`result${result.isError || result.error ? ' is-error' : ''}`} data-testid="tool-result">
      <div className="result-head">
        <strong>{result.error ? t.resultProtocolError : result.isError ? t.resultToolError : t.resultOk}</strong>
        <span className="muted">{t.durationMs(result.durationMs)}</span>
      </div>
      {result.error && (
        <pre className="code error-text" data-testid="tool-result-error">
          {result.error}
        </pre>
      )}
      {result.content.map((b, i) => (
        <Block key={i} block={b} />
      ))}
      {result.structuredContent !== undefined && (
        <>
          <div className="field-label">{t.structuredContent}</div>
          <pre className="code">{JSON.stringify(result.structuredContent, null, 2)}</pre>
        </>
      )}
    </div>
  );
}

function Block({ block: b }: { block: ContentBlock }) {
  const t = useMessages();
  switch (b.type) {
    case 'text':
      return <pre className="code result-text">{String(b.text ?? '')}</pre>;
    case 'image': {
      const src = dataURL(b);
      return src ? <img className="result-image" src={src} alt={t.imageAlt(String(b.mimeType))} /> : <Raw block={b} />;
    }
    case 'audio': {
      const src = dataURL(b);
      return src ? <audio controls src={src} aria-label={t.audioLabel(String(b.mimeType))} /> : <Raw block={b} />;
    }
    case 'resource_link':
      return (
        <div className="result-link">
          <span className="tag">{t.resourceLink}</span> <strong>{String(b.name ?? b.title ?? '')}</strong> <code>{String(b.uri ?? '')}</code>
          {typeof b.description === 'string' && <p className="muted">{b.description}</p>}
        </div>
      );
    case 'resource': {
      const r = (b.resource ?? {}) as Record<string, unknown>;
      return (
        <div className="result-link">
          <span className="tag">{t.resource}</span> <code>{String(r.uri ?? '')}</code>
          {typeof r.text === 'string' ? <pre className="code">{r.text}</pre> : typeof r.blob === 'string' ? <p className="muted">{t.blobBytes(Math.floor((r.blob.length * 3) / 4))}</p> : null}
        </div>
      );
    }
    default:
      return <Raw block={b} />;
  }
}

function Raw({ block }: { block: ContentBlock }) {
  return <pre className="code">{JSON.stringify(block, null, 2)}</pre>;
}
