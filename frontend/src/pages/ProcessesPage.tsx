import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { toApiError, type DefinitionProblem, type ProcessView, type RunDetail } from '../api';
import { ConfirmDialog, LoadError } from '../components/Dialog';
import { useMessages } from '../i18n';
import { edgePath, layoutDiagram, NODE_H, NODE_W } from '../lib/stateDiagram';
import { useIsDark } from '../lib/theme';
import { useApp, useProcesses, useSettings } from '../stores';
import './pages.css';
import './ProcessesPage.css';

const CodeEditor = lazy(() => import('../components/CodeEditor'));

export const NEW_PROCESS = `# A process state_gate holds agents to (docs/state-gate.md).
id: my-process
version: 1.0.0
name: My process
states:
  - name: draft
    initial: true
    required_artifacts: [plan]
  - name: done
    final: true
artifacts:
  - type: plan
    description: The plan
    patterns: ["plan.md"]
events:
  - name: submit
    description: Submit the plan
    payload_schema:
      type: object
      required: [summary]
      properties:
        summary: { type: string }
guards:
  - name: has_plan
    description: A plan is needed
    expression: size(artifacts.plan) > 0
    message: "artifact 'plan' is missing"
transitions:
  - { from: draft, event: submit, to: done, guard: has_plan }
`;

type Key = string | 'new';

export default function ProcessesPage() {
  const t = useMessages();
  const processes = useProcesses((s) => s.processes);
  const status = useProcesses((s) => s.status);
  const error = useProcesses((s) => s.error);
  const gate = useProcesses((s) => s.gate);
  const load = useProcesses((s) => s.load);
  const listen = useProcesses((s) => s.listen);
  const enable = useProcesses((s) => s.enable);
  const pageReady = useApp((s) => s.pageReady);
  const [selected, setSelected] = useState<Key | null>(null);
  const [enableError, setEnableError] = useState<string | null>(null);

  useEffect(() => {
    void load();
    return listen();
  }, [load, listen]);
  useEffect(() => {
    if (status === 'ready') pageReady('processes');
  }, [status, pageReady]);
  useEffect(() => {
    if (selected === null && processes.length > 0) setSelected(processes[0]!.file);
  }, [selected, processes]);

  const current = selected === 'new' ? null : (processes.find((p) => p.file === selected) ?? null);

  return (
    <section className="page" data-testid="processes-page" aria-labelledby="processes-title">
      <header className="page-header">
        <h1 id="processes-title">{t.processesTitle}</h1>
        <p className="page-summary">{t.processesSummary}</p>
        <span className="grow" />
        <button type="button" className="primary" onClick={() => setSelected('new')} data-testid="process-new">
          {t.processNew}
        </button>
      </header>
      {gate && (!gate.added || !gate.enabled) && (
        <div className="banner" role="status" data-testid="gate-off">
          <span>{t.gateOff}</span>
          <button
            type="button"
            onClick={() =>
              enable().then(
                () => setEnableError(null),
                (err) => setEnableError(toApiError(err).message),
              )
            }
            data-testid="gate-enable"
          >
            {t.gateEnable}
          </button>
          {enableError && <span className="inline-error">{enableError}</span>}
        </div>
      )}
      {status === 'error' && <LoadError title={t.processesLoadFailed} message={error} retry={() => void load()} />}
      {status === 'loading' && processes.length === 0 && (
        <p className="muted" role="status">
          <span className="spinner" /> {t.loadingProcesses}
        </p>
      )}
      <div className="split">
        <div>
          {status === 'ready' && processes.length === 0 && <p className="muted">{t.processesEmpty}</p>}
          {processes.length > 0 && (
            <ul className="list" data-testid="process-list">
              {processes.map((p) => (
                <li key={p.file}>
                  <button
                    type="button"
                    className="item"
                    aria-current={p.file === selected ? 'true' : undefined}
                    onClick={() => setSelected(p.file)}
                    data-testid={`process-item-${p.id || p.file}`}
                  >
                    <span className="item-name">{p.id ? `${p.name}` : p.file}</span>
                    <span className="item-sub">{p.id ? `${p.id} ${p.version}` : `${p.file}: ${t.processInvalid}`}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {gate && <p className="field-hint">{t.gateDir(gate.dir)}</p>}
        </div>
        <div>
          {selected !== null && (
            <ProcessPane
              key={selected}
              process={current}
              onSaved={(p) => setSelected(p.file)}
              onRemoved={() => setSelected(null)}
            />
          )}
        </div>
      </div>
    </section>
  );
}

function ProcessPane({ process, onSaved, onRemoved }: { process: ProcessView | null; onSaved: (p: ProcessView) => void; onRemoved: () => void }) {
  const runs = useProcesses((s) => s.runs);
  const run = useProcesses((s) => s.run);
  const openRun = useProcesses((s) => s.openRun);
  const [runId, setRunId] = useState<string | null>(null);
  const mine = useMemo(() => (process?.id ? runs.filter((r) => r.process_id === process.id) : []), [runs, process]);
  useEffect(() => {
    void openRun(runId);
    return () => void openRun(null);
  }, [runId, openRun]);
  const shown = run && run.run.run_id === runId ? run : null;
  return (
    <div className="process-pane">
      {process?.id && (
        <StateDiagram
          process={process}
          current={shown?.run.current_state}
          visited={shown ? shown.summary.progress.completed_states : []}
        />
      )}
      <ProcessEditor process={process} onSaved={onSaved} onRemoved={onRemoved} />
      {process?.id && <RunsPanel process={process} runs={mine} selected={runId} onSelect={setRunId} />}
      {runId && <RunView detail={shown} retry={() => void openRun(runId)} />}
    </div>
  );
}

export function StateDiagram({ process, current, visited = [] }: { process: ProcessView; current?: string; visited?: string[] }) {
  const t = useMessages();
  const layout = useMemo(() => layoutDiagram(process.states, process.transitions), [process]);
  const byName = useMemo(() => new Map(layout.nodes.map((n) => [n.name, n])), [layout]);
  return (
    <figure className="card diagram" data-testid="process-diagram">
      <figcaption className="field-label">{t.processDiagram}</figcaption>
      <div className="diagram-scroll">
        <svg
          width={layout.width}
          height={layout.height}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="img"
          aria-label={t.processDiagramLabel(process.name)}
        >
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" className="diagram-arrowhead" />
            </marker>
          </defs>
          {layout.edges.map((e, i) => {
            const p = edgePath(e, byName);
            return (
              <g key={i} className={`diagram-edge${e.guard ? ' guarded' : ''}`} data-testid={`edge-${e.from}-${e.to}-${e.event}`}>
                <path d={p.d} markerEnd="url(#arrow)" fill="none" />
                <text x={p.labelX} y={p.labelY} textAnchor="middle">
                  {e.event}
                  {e.guard ? ` [${e.guard}]` : ''}
                </text>
              </g>
            );
          })}
          {layout.nodes.map((n) => {
            const cls = ['diagram-state', n.name === current ? 'current' : '', visited.includes(n.name) ? 'visited' : '', n.final ? 'final' : '']
              .filter(Boolean)
              .join(' ');
            return (
              <g key={n.name} className={cls} data-testid={`state-${n.name}`} aria-current={n.name === current ? 'step' : undefined}>
                {n.initial && <circle cx={n.x - 10} cy={n.y + NODE_H / 2} r={5} className="diagram-start" />}
                <rect x={n.x} y={n.y} width={NODE_W} height={NODE_H} rx={10} />
                {n.final && <rect x={n.x + 3} y={n.y + 3} width={NODE_W - 6} height={NODE_H - 6} rx={8} className="inner" />}
                <text x={n.x + NODE_W / 2} y={n.y + NODE_H / 2 + 4} textAnchor="middle">
                  {n.name}
                </text>
                <title>
                  {[n.name, n.initial ? t.stateInitial : '', n.final ? t.stateFinal : '', n.name === current ? t.stateCurrent : '']
                    .filter(Boolean)
                    .join(' · ')}
                </title>
              </g>
            );
          })}
        </svg>
      </div>
    </figure>
  );
}

function ProcessEditor({ process, onSaved, onRemoved }: { process: ProcessView | null; onSaved: (p: ProcessView) => void; onRemoved: () => void }) {
  const t = useMessages();
  const check = useProcesses((s) => s.check);
  const save = useProcesses((s) => s.save);
  const remove = useProcesses((s) => s.remove);
  const theme = useSettings((s) => s.settings?.theme);
  const dark = useIsDark(theme);
  const initial = process ? process.source || '' : NEW_PROCESS;
  const [source, setSource] = useState(initial);
  const [problems, setProblems] = useState<DefinitionProblem[]>(process?.problems ?? []);
  const [checked, setChecked] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);

  // The router's own checker, a moment after typing stops.
  useEffect(() => {
    let live = true;
    const id = setTimeout(() => {
      check(source).then(
        (p) => {
          if (!live) return;
          setProblems(p);
          setChecked(true);
        },
        () => {},
      );
    }, 300);
    return () => {
      live = false;
      clearTimeout(id);
    };
  }, [source, check]);

  async function submit() {
    setBusy(true);
    setSaveError(null);
    try {
      const saved = await save(source, !!process?.id);
      setNotice(t.processSaved(saved.id, saved.version));
      onSaved(saved);
    } catch (err) {
      setSaveError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="card" data-testid="process-editor">
      {process && !process.id && process.error && (
        <p className="inline-error" role="alert" data-testid="process-load-error">
          {process.error}
        </p>
      )}
      <div className="field">
        <span className="field-label">{t.processSource}</span>
        <Suspense
          fallback={
            <div className="editor-loading" style={{ height: 360 }}>
              <span className="spinner" /> {t.loadingEditor}
            </div>
          }
        >
          <CodeEditor
            value={initial}
            onChange={setSource}
            language="yaml"
            problems={problems}
            dark={dark}
            height={360}
            label={t.processSource}
            testId="process-source"
            onSave={() => void submit()}
          />
        </Suspense>
        {problems.length > 0 ? (
          <ul className="problems" data-testid="process-problems">
            {problems.map((p, i) => (
              <li key={i}>{t.problemAt(p.line, p.column, p.message)}</li>
            ))}
          </ul>
        ) : (
          <span className="field-hint" data-testid="process-hint">
            {checked ? `${t.processValid}. ` : ''}
            {t.processSourceHint}
          </span>
        )}
      </div>
      {saveError && (
        <p className="inline-error" role="alert" data-testid="process-save-error">
          {saveError}
        </p>
      )}
      {notice && (
        <p className="muted" role="status" data-testid="process-notice">
          {notice}
        </p>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={busy || problems.length > 0} onClick={() => void submit()} data-testid="process-save">
          {busy && <span className="spinner" />} {t.save}
        </button>
        <span className="grow" />
        {process?.id && (
          <button type="button" className="danger" onClick={() => setConfirm(true)} data-testid="process-remove">
            {t.remove}
          </button>
        )}
      </div>
      {confirm && process?.id && (
        <ConfirmDialog
          title={t.removeProcessTitle(process.id)}
          body={t.removeProcessBody}
          confirm={t.remove}
          onCancel={() => setConfirm(false)}
          onConfirm={async () => {
            setConfirm(false);
            try {
              await remove(process.id);
              onRemoved();
            } catch (err) {
              setSaveError(toApiError(err).message);
            }
          }}
        />
      )}
    </div>
  );
}

function RunsPanel({
  process,
  runs,
  selected,
  onSelect,
}: {
  process: ProcessView;
  runs: { run_id: string; current_state: string; revision: number; updated_at: string; error?: string }[];
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const t = useMessages();
  const createRun = useProcesses((s) => s.createRun);
  const [context, setContext] = useState('{}');
  const [workspace, setWorkspace] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function start() {
    setBusy(true);
    setError(null);
    try {
      const run = await createRun(process.id, context.trim() === '' ? '' : context, workspace.trim());
      onSelect(run.run_id);
    } catch (err) {
      setError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="card" data-testid="runs-panel">
      <h2>{t.runsTitle}</h2>
      {runs.length === 0 ? (
        <p className="muted">{t.runsEmpty}</p>
      ) : (
        <table className="data runs-table" data-testid="runs-table">
          <thead>
            <tr>
              <th>{t.colRun}</th>
              <th>{t.colState}</th>
              <th>{t.colRevision}</th>
              <th>{t.colUpdated}</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr
                key={r.run_id}
                className={r.run_id === selected ? 'selected' : undefined}
                onClick={() => onSelect(r.run_id)}
                data-testid={`run-row-${r.run_id}`}
              >
                <td>
                  <button type="button" className="link mono" onClick={() => onSelect(r.run_id)}>
                    {r.run_id}
                  </button>
                </td>
                <td>
                  {r.current_state}
                  {r.error && (
                    <span className="inline-error" title={r.error} data-testid={`run-errored-${r.run_id}`}>
                      {' '}
                      {t.runErrored}
                    </span>
                  )}
                </td>
                <td>{r.revision}</td>
                <td>{r.updated_at}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <details className="run-new">
        <summary>{t.runNew}</summary>
        <label className="field">
          <span className="field-label">{t.runContext}</span>
          <textarea className="mono" rows={3} value={context} onChange={(e) => setContext(e.target.value)} data-testid="run-context" />
        </label>
        <label className="field">
          <span className="field-label">{t.runWorkspace}</span>
          <input value={workspace} onChange={(e) => setWorkspace(e.target.value)} data-testid="run-workspace" />
        </label>
        {error && (
          <p className="inline-error" role="alert" data-testid="run-create-error">
            {error}
          </p>
        )}
        <button type="button" className="primary" disabled={busy} onClick={() => void start()} data-testid="run-create">
          {t.runCreate}
        </button>
      </details>
    </div>
  );
}

function RunView({ detail, retry }: { detail: RunDetail | null; retry: () => void }) {
  const t = useMessages();
  const runError = useProcesses((s) => s.runError);
  if (runError) return <LoadError title={t.runLoadFailed} message={runError} retry={retry} />;
  if (!detail) {
    return (
      <p className="muted" role="status">
        <span className="spinner" />
      </p>
    );
  }
  const { state, summary, events, history, artifacts } = detail;
  return (
    <div className="card run-view" data-testid="run-view">
      <h2 className="mono">{detail.run.run_id}</h2>
      <p className="muted">
        {detail.run.process_id} {detail.run.process_version} · {t.colState} <strong data-testid="run-state">{state.current_state}</strong> · {t.colRevision}{' '}
        {state.revision}
      </p>
      {detail.run.error && (
        <p className="inline-error" role="alert" data-testid="run-error">
          {t.runErrored}: {detail.run.error}
        </p>
      )}
      <h3>{t.runProgress}</h3>
      <ol className="progress" data-testid="run-progress">
        {summary.progress.completed_states.map((s) => (
          <li key={`c-${s}`} className="done">
            {s}
          </li>
        ))}
        <li className="current">{summary.progress.current_state}</li>
        {summary.progress.remaining_states.map((s) => (
          <li key={`r-${s}`} className="todo">
            {s}
          </li>
        ))}
      </ol>
      <h3>{t.runPendingGuards}</h3>
      {state.missing_guards.length === 0 ? (
        <p className="muted">{t.runNoPendingGuards}</p>
      ) : (
        <ul className="guards" data-testid="run-guards">
          {state.missing_guards.map((g) => (
            <li key={g.guard_name}>
              <strong>{g.guard_name}</strong> — {g.description}: <span className="bad-text">{g.current_status}</span>
            </li>
          ))}
        </ul>
      )}
      {state.required_artifacts.length > 0 && (
        <>
          <h3>{t.runRequiredArtifacts}</h3>
          <ul data-testid="run-required">
            {state.required_artifacts.map((a) => (
              <li key={a.type}>
                {a.type} ({a.description}): <span className={a.status === 'present' ? 'good-text' : 'bad-text'}>{t.artifactStatus[a.status]}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>{t.runEvents}</h3>
      <ul className="run-events" data-testid="run-events">
        {events.events.map((e) => (
          <li key={e.event_name}>
            <strong>{e.event_name}</strong> {e.is_allowed ? <span className="good-text">{t.eventAllowed}</span> : <span className="muted">{e.blocked_reason}</span>}
            <ul>
              {e.transitions.map((tr, i) => (
                <li key={i}>
                  → {tr.to_state}
                  {tr.guard && ` [${tr.guard}: ${tr.guard_status}]`}
                  {tr.missing_requirements && tr.missing_requirements.length > 0 && <span className="bad-text"> {tr.missing_requirements.join('; ')}</span>}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      <h3>{t.runHistory}</h3>
      {history.length === 0 ? (
        <p className="muted">{t.runHistoryEmpty}</p>
      ) : (
        <table className="data" data-testid="run-history">
          <thead>
            <tr>
              <th>#</th>
              <th>{t.colEvent}</th>
              <th>{t.colFrom}</th>
              <th>{t.colTo}</th>
              <th>{t.colActor}</th>
              <th>{t.colTime}</th>
            </tr>
          </thead>
          <tbody>
            {history.map((h) => (
              <tr key={h.event_id} title={JSON.stringify(h.payload)}>
                <td>{h.seq}</td>
                <td>{h.event_name}</td>
                <td>{h.from_state}</td>
                <td>{h.to_state}</td>
                <td>{h.actor}</td>
                <td>{h.time}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>{t.runArtifacts}</h3>
      {artifacts.length === 0 ? (
        <p className="muted">{t.runArtifactsEmpty}</p>
      ) : (
        <table className="data" data-testid="run-artifacts">
          <thead>
            <tr>
              <th>{t.colPath}</th>
              <th>{t.colType}</th>
              <th>{t.colSize}</th>
              <th>SHA-256</th>
            </tr>
          </thead>
          <tbody>
            {artifacts.map((a) => (
              <tr key={`${a.event_id}-${a.path}`}>
                <td className="mono">{a.path}</td>
                <td>{a.type}</td>
                <td>{a.size}</td>
                <td className="mono" title={a.sha256}>
                  {a.sha256.slice(0, 12)}…
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
