import { lazy, Suspense, useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { toApiError, type HookInput, type HookTestResult, type HookType, type HookView, type ScriptProblem } from '../api';
import { ConfirmDialog, LoadError, Switch } from '../components/Dialog';
import { useMessages } from '../i18n';
import { NEW_HOOK_SCRIPT, sampleContext } from '../lib/hookContext';
import { parseJSONC } from '../lib/jsonc';
import { useIsDark } from '../lib/theme';
import { useApp, useHooks, useSettings } from '../stores';
import './pages.css';

const CodeEditor = lazy(() => import('../components/CodeEditor'));

type Key = number | 'new';

function toInput(h: HookView): HookInput {
  return { id: h.id, name: h.name, enabled: h.enabled, hookType: h.hookType, script: h.script, failClosed: h.failClosed };
}

const blank = (): HookInput => ({ id: 0, name: '', enabled: true, hookType: 'pre', script: NEW_HOOK_SCRIPT, failClosed: false });

export default function HooksPage() {
  const t = useMessages();
  const hooks = useHooks((s) => s.hooks);
  const status = useHooks((s) => s.status);
  const error = useHooks((s) => s.error);
  const actionError = useHooks((s) => s.actionError);
  const load = useHooks((s) => s.load);
  const pageReady = useApp((s) => s.pageReady);
  const [selected, setSelected] = useState<Key | null>(null);
  // Unsaved edits per hook: switching between hooks never loses typing.
  const [drafts, setDrafts] = useState<Record<string, HookInput>>({});

  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (status === 'ready') pageReady('hooks');
  }, [status, pageReady]);
  useEffect(() => {
    if (selected === null && hooks.length > 0) setSelected(hooks[0]!.id);
  }, [selected, hooks]);

  const current = selected === 'new' ? null : (hooks.find((h) => h.id === selected) ?? null);
  const draftKey = String(selected);
  const draft = selected === null ? null : (drafts[draftKey] ?? (current ? toInput(current) : selected === 'new' ? blank() : null));

  return (
    <section className="page" data-testid="hooks-page" aria-labelledby="hooks-title">
      <header className="page-header">
        <h1 id="hooks-title">{t.hooksTitle}</h1>
        <p className="page-summary">{t.hooksSummary}</p>
        <span className="grow" />
        <button type="button" className="primary" onClick={() => setSelected('new')} data-testid="hook-new">
          {t.hookNew}
        </button>
      </header>
      {status === 'error' && <LoadError title={t.hooksLoadFailed} message={error} retry={() => void load()} />}
      {actionError && (
        <p className="inline-error" role="alert" data-testid="hooks-action-error">
          {actionError}
        </p>
      )}
      {status === 'loading' && hooks.length === 0 && (
        <p className="muted" role="status">
          <span className="spinner" /> {t.loadingHooks}
        </p>
      )}
      <div className="split">
        <div>
          {status === 'ready' && hooks.length === 0 && <p className="muted">{t.hooksEmpty}</p>}
          {hooks.length > 0 && <HookList hooks={hooks} selected={selected} onSelect={setSelected} dirty={drafts} />}
        </div>
        <div>
          {draft && (
            <HookEditor
              key={draftKey}
              draft={draft}
              saved={current}
              others={hooks.filter((h) => h.id !== draft.id).map((h) => h.name)}
              onDraft={(d) => setDrafts((old) => ({ ...old, [draftKey]: d }))}
              onSaved={(h) => {
                setDrafts((old) => {
                  const { [draftKey]: _a, [String(h.id)]: _b, ...rest } = old;
                  return rest;
                });
                setSelected(h.id);
              }}
              onRemoved={() => {
                setDrafts((old) => {
                  const { [draftKey]: _gone, ...rest } = old;
                  return rest;
                });
                setSelected(null);
              }}
            />
          )}
        </div>
      </div>
    </section>
  );
}

function HookList({
  hooks,
  selected,
  onSelect,
  dirty,
}: {
  hooks: HookView[];
  selected: Key | null;
  onSelect: (k: Key) => void;
  dirty: Record<string, HookInput>;
}) {
  const t = useMessages();
  const move = useHooks((s) => s.move);
  const setEnabled = useHooks((s) => s.setEnabled);
  const [dragId, setDragId] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const [announce, setAnnounce] = useState('');
  const refs = useRef(new Map<number, HTMLLIElement>());

  const moveTo = (id: number, to: number) => {
    const name = hooks.find((h) => h.id === id)?.name ?? '';
    void move(id, to).then(() => {
      setAnnounce(t.hookMoved(name, Math.max(1, Math.min(hooks.length, to + 1))));
      // Keep keyboard focus on the moved hook.
      requestAnimationFrame(() => refs.current.get(id)?.focus());
    });
  };

  const onKey = (e: KeyboardEvent, h: HookView, i: number) => {
    if (e.altKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
      e.preventDefault();
      moveTo(h.id, e.key === 'ArrowUp' ? i - 1 : i + 1);
    } else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
      e.preventDefault();
      const next = hooks[e.key === 'ArrowUp' ? i - 1 : i + 1];
      if (next) refs.current.get(next.id)?.focus();
    } else if (e.key === 'Enter' || e.key === ' ') {
      if (e.target === e.currentTarget) {
        e.preventDefault();
        onSelect(h.id);
      }
    }
  };

  const onDrop = (e: DragEvent, targetIndex: number) => {
    e.preventDefault();
    const id = dragId ?? Number(e.dataTransfer.getData('text/plain'));
    setDragId(null);
    setOver(null);
    if (id) moveTo(id, targetIndex);
  };

  return (
    <>
      <p className="field-hint">{t.hooksReorderHint}</p>
      <ol className="list hook-list" data-testid="hook-list" aria-label={t.hooksTitle}>
        {hooks.map((h, i) => (
          <li
            key={h.id}
            ref={(el) => {
              if (el) refs.current.set(h.id, el);
              else refs.current.delete(h.id);
            }}
            tabIndex={0}
            draggable
            className={`hook-item${selected === h.id ? ' selected' : ''}${dragId === h.id ? ' dragging' : ''}${over === i && dragId !== h.id ? ' drop-target' : ''}`}
            aria-current={selected === h.id}
            data-testid={`hook-item-${h.name}`}
            onClick={() => onSelect(h.id)}
            onKeyDown={(e) => onKey(e, h, i)}
            onDragStart={(e) => {
              setDragId(h.id);
              e.dataTransfer.effectAllowed = 'move';
              e.dataTransfer.setData('text/plain', String(h.id));
            }}
            onDragEnd={() => {
              setDragId(null);
              setOver(null);
            }}
            onDragOver={(e) => {
              e.preventDefault();
              e.dataTransfer.dropEffect = 'move';
              if (over !== i) setOver(i);
            }}
            onDrop={(e) => onDrop(e, i)}
          >
            <span className="drag-handle" aria-hidden="true">
              ⋮⋮
            </span>
            <span className="hook-order">{i + 1}</span>
            <span className="grow hook-name">
              {h.name}
              {dirty[String(h.id)] && <span className="dirty-dot" title={t.unsaved} />}
              {h.loadError ? (
                <span className="item-sub error-text" data-testid={`hook-broken-${h.name}`}>
                  {t.hookBroken}
                </span>
              ) : (
                <span className="item-sub">
                  {t.hookTypeLabel[h.hookType]}
                  {h.failClosed ? ` · ${t.failClosed}` : ''}
                </span>
              )}
            </span>
            <span className="hook-moves">
              <button type="button" className="small icon" disabled={i === 0} aria-label={t.moveUp(h.name)} onClick={(e) => { e.stopPropagation(); moveTo(h.id, i - 1); }} data-testid={`hook-up-${h.name}`}>
                ↑
              </button>
              <button type="button" className="small icon" disabled={i === hooks.length - 1} aria-label={t.moveDown(h.name)} onClick={(e) => { e.stopPropagation(); moveTo(h.id, i + 1); }} data-testid={`hook-down-${h.name}`}>
                ↓
              </button>
            </span>
            <span onClick={(e) => e.stopPropagation()}>
              <Switch
                checked={h.enabled}
                label={h.enabled ? t.disableHook(h.name) : t.enableHook(h.name)}
                onChange={(on) => void setEnabled(h.id, on)}
                testId={`hook-enabled-${h.name}`}
              />
            </span>
          </li>
        ))}
      </ol>
      <p className="sr-only" aria-live="polite">
        {announce}
      </p>
    </>
  );
}

function HookEditor({
  draft,
  saved,
  others,
  onDraft,
  onSaved,
  onRemoved,
}: {
  draft: HookInput;
  saved: HookView | null;
  others: string[];
  onDraft: (d: HookInput) => void;
  onSaved: (h: HookView) => void;
  onRemoved: () => void;
}) {
  const t = useMessages();
  const save = useHooks((s) => s.save);
  const remove = useHooks((s) => s.remove);
  const check = useHooks((s) => s.check);
  const theme = useSettings((s) => s.settings?.theme);
  const dark = useIsDark(theme);
  const [problems, setProblems] = useState<ScriptProblem[]>([]);
  const [nameError, setNameError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [savedFlash, setSavedFlash] = useState(false);
  const dirty = !saved || JSON.stringify(toInput(saved)) !== JSON.stringify(draft);
  // A hook the router cannot read is repaired by saving it as shown.
  const canSave = dirty || !!saved?.loadError;

  // Ask the router's own compiler, a moment after typing stops.
  useEffect(() => {
    let live = true;
    const id = setTimeout(() => {
      check(draft.script).then(
        (p) => live && setProblems(p),
        () => {}, // a failed check is not a problem in the script
      );
    }, 400);
    return () => {
      live = false;
      clearTimeout(id);
    };
  }, [draft.script, check]);

  const set = <K extends keyof HookInput>(k: K, v: HookInput[K]) => onDraft({ ...draft, [k]: v });

  const submit = async () => {
    setSaveError(null);
    const name = draft.name.trim();
    if (!name) return setNameError(t.errNameRequired);
    if (others.includes(name)) return setNameError(t.errNameTaken(name));
    setNameError(null);
    setBusy(true);
    try {
      const h = await save({ ...draft, name });
      setSavedFlash(true);
      setTimeout(() => setSavedFlash(false), 1500);
      onSaved(h);
    } catch (err) {
      setSaveError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="card hook-editor" data-testid="hook-editor">
      {saved?.loadError && (
        <div className="callout callout-error" role="alert" data-testid="hook-load-error">
          <strong>{t.hookBroken}</strong>
          <p>{t.hookBrokenBody(saved.loadError)}</p>
        </div>
      )}
      <div className="row">
        <label className="field grow">
          <span className="required">{t.fieldName}</span>
          <input
            value={draft.name}
            onChange={(e) => {
              set('name', e.target.value);
              setNameError(null);
            }}
            aria-invalid={nameError ? true : undefined}
            data-testid="hook-name"
            placeholder="no-secrets"
          />
          {nameError && (
            <span className="field-error" role="alert" data-testid="hook-name-error">
              {nameError}
            </span>
          )}
        </label>
        <label className="field">
          <span>{t.hookType}</span>
          <select value={draft.hookType} onChange={(e) => set('hookType', e.target.value as HookType)} data-testid="hook-type">
            {(['pre', 'post', 'both'] as const).map((k) => (
              <option key={k} value={k}>
                {t.hookTypeLabel[k]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="row hook-flags">
        <label className="check">
          <input type="checkbox" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} />
          {t.fieldEnabled}
        </label>
        <label className="check" title={t.failClosedHint}>
          <input type="checkbox" checked={draft.failClosed} onChange={(e) => set('failClosed', e.target.checked)} data-testid="hook-fail-closed" />
          {t.failClosed}
        </label>
      </div>
      <div className="field">
        <span className="field-label">{t.hookScript}</span>
        <Suspense
          fallback={
            <div className="editor-loading" style={{ height: 320 }}>
              <span className="spinner" /> {t.loadingEditor}
            </div>
          }
        >
          <CodeEditor
            value={draft.script}
            onChange={(v) => set('script', v)}
            language="javascript"
            problems={problems}
            dark={dark}
            label={t.hookScript}
            testId="hook-script"
            onSave={() => void submit()}
          />
        </Suspense>
        {problems.length > 0 ? (
          <ul className="problems" data-testid="hook-problems">
            {problems.map((p, i) => (
              <li key={i}>{t.problemAt(p.line, p.column, p.message)}</li>
            ))}
          </ul>
        ) : (
          <span className="field-hint">{t.hookScriptHint}</span>
        )}
      </div>
      {saveError && (
        <p className="inline-error" role="alert" data-testid="hook-save-error">
          {saveError}
        </p>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={busy || !canSave} onClick={() => void submit()} data-testid="hook-save">
          {busy && <span className="spinner" />} {t.save}
        </button>
        {savedFlash && (
          <span className="muted" role="status">
            {t.saved}
          </span>
        )}
        {dirty && saved && <span className="muted">{t.unsaved}</span>}
        <span className="grow" />
        {saved && (
          <button type="button" className="danger" onClick={() => setConfirm(true)} data-testid="hook-remove">
            {t.remove}
          </button>
        )}
      </div>
      {confirm && saved && (
        <ConfirmDialog
          title={t.removeHookTitle(saved.name)}
          body={<p>{t.removeHookBody}</p>}
          confirm={t.remove}
          onCancel={() => setConfirm(false)}
          onConfirm={() => {
            setConfirm(false);
            void remove(saved.id).then(onRemoved);
          }}
        />
      )}
      <HookTester draft={draft} />
      {saved && <HookLog id={saved.id} />}
    </div>
  );
}

function HookTester({ draft }: { draft: HookInput }) {
  const t = useMessages();
  const test = useHooks((s) => s.test);
  const [phase, setPhase] = useState<'pre' | 'post'>('pre');
  const [ctx, setCtx] = useState(() => sampleContext('pre'));
  const [ctxError, setCtxError] = useState<string | null>(null);
  const [result, setResult] = useState<HookTestResult | null>(null);
  const [runError, setRunError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async () => {
    const parsed = parseJSONC(ctx);
    if (!parsed.ok) return setCtxError(t.errJsonParse(parsed.line, parsed.column, parsed.message));
    setCtxError(null);
    setRunError(null);
    setBusy(true);
    try {
      setResult(await test(draft, JSON.stringify(parsed.value)));
    } catch (err) {
      setResult(null);
      setRunError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <details className="hook-section" data-testid="hook-tester">
      <summary>{t.hookTest}</summary>
      <div className="row">
        <label className="check">
          {t.hookTestPhase}
          <select
            value={phase}
            onChange={(e) => {
              const p = e.target.value as 'pre' | 'post';
              setPhase(p);
              setCtx(sampleContext(p));
            }}
          >
            <option value="pre">pre</option>
            <option value="post">post</option>
          </select>
        </label>
      </div>
      <label className="field">
        <span>{t.hookTestContext}</span>
        <textarea rows={8} value={ctx} spellCheck={false} onChange={(e) => setCtx(e.target.value)} aria-invalid={ctxError ? true : undefined} data-testid="hook-test-context" />
        {ctxError && (
          <span className="field-error" role="alert">
            {ctxError}
          </span>
        )}
      </label>
      <button type="button" onClick={() => void run()} disabled={busy} data-testid="hook-test-run">
        {busy && <span className="spinner" />} {t.hookTestRun}
      </button>
      {runError && (
        <p className="inline-error" role="alert">
          {runError}
        </p>
      )}
      {result && (
        <div className="hook-test-result" data-testid="hook-test-result">
          <div className="field-label">
            {result.error ? t.hookTestFailed : t.hookTestResult} · {t.durationMs(result.durationMs)}
          </div>
          {result.error && <pre className="code error-text">{result.error}</pre>}
          {!result.error && <Verdict result={result.result} />}
          <pre className="code">{JSON.stringify(result.result, null, 2) ?? 'undefined'}</pre>
          <div className="field-label">{t.hookTestConsole}</div>
          <pre className="console">{result.console.length > 0 ? result.console.join('\n') : t.consoleNone}</pre>
        </div>
      )}
    </details>
  );
}

/** One line on what the router would do with the request (HookResult's continue/blocked). */
function Verdict({ result }: { result: unknown }) {
  const t = useMessages();
  const r = (typeof result === 'object' && result !== null ? result : {}) as { continue?: unknown; blocked?: { message?: unknown } | null };
  if (r.continue === false || r.blocked) {
    const msg = typeof r.blocked?.message === 'string' ? r.blocked.message : '';
    return (
      <p className="verdict blocked" data-testid="hook-test-verdict">
        {t.hookTestBlocks(msg)}
      </p>
    );
  }
  return (
    <p className="verdict" data-testid="hook-test-verdict">
      {t.hookTestContinues}
    </p>
  );
}

function HookLog({ id }: { id: number }) {
  const t = useMessages();
  const watch = useHooks((s) => s.watchLog);
  const lines = useHooks((s) => s.logs[id]);
  useEffect(() => watch(id), [watch, id]);
  return (
    <details className="hook-section" open data-testid="hook-log">
      <summary>{t.hookLog}</summary>
      <pre className="console">{lines && lines.length > 0 ? lines.join('\n') : t.consoleNone}</pre>
    </details>
  );
}
