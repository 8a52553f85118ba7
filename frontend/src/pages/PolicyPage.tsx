import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { toApiError, type AuditReport, type AuditRow, type PolicyProblem, type PolicyView } from '../api';
import { LoadError } from '../components/Dialog';
import { useMessages } from '../i18n';
import { POLICY_MODEL_PATH } from '../lib/policyCompletion';
import { useIsDark } from '../lib/theme';
import { useApp, usePolicy, useSettings } from '../stores';
import './pages.css';

const CodeEditor = lazy(() => import('../components/CodeEditor'));

/** What a new policy file starts from: the seed's example, commented out. */
export const NEW_POLICY = `# policy.yaml — see docs/policy.md
policies: []
#  - name: destructive-operations-guard
#    match:
#      tools: ["delete_*", "drop_*", "rm_*"]
#    require:
#      human_approval: true
#      log_level: audit
#  - name: rate-limit
#    match:
#      tools: ["*"]
#    limit:
#      requests_per_minute: 60
`;

function Problems({ problems, testId }: { problems: PolicyProblem[]; testId: string }) {
  const t = useMessages();
  return (
    <ul className="problems" data-testid={testId}>
      {problems.map((p, i) => (
        <li key={i}>{p.line > 0 ? t.problemAt(p.line, p.column, p.message) : p.message}</li>
      ))}
    </ul>
  );
}

export default function PolicyPage() {
  const t = useMessages();
  const view = usePolicy((s) => s.view);
  const status = usePolicy((s) => s.status);
  const error = usePolicy((s) => s.error);
  const load = usePolicy((s) => s.load);
  const pageReady = useApp((s) => s.pageReady);
  // The editor is remounted (keyed) when the file on disk is reloaded.
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (status === 'ready') pageReady('policy');
  }, [status, pageReady]);

  return (
    <section className="page" data-testid="policy-page" aria-labelledby="policy-title">
      <header className="page-header">
        <h1 id="policy-title">{t.policyTitle}</h1>
        <p className="page-summary">{t.policySummary}</p>
        <span className="grow" />
        <button
          type="button"
          onClick={() => {
            void load().then(() => setGeneration((g) => g + 1));
          }}
          data-testid="policy-reload"
        >
          {t.retry}
        </button>
      </header>
      {status === 'error' && <LoadError title={t.policyLoadFailed} message={error} retry={() => void load()} />}
      {status === 'loading' && !view && (
        <p className="muted" role="status">
          <span className="spinner" /> {t.loadingPolicy}
        </p>
      )}
      {view && (
        <>
          <PolicyState view={view} />
          <PolicyEditor key={generation} view={view} />
        </>
      )}
      {status === 'ready' && <AuditPanel key={generation} />}
    </section>
  );
}

function PolicyState({ view }: { view: PolicyView }) {
  const t = useMessages();
  const st = view.status;
  return (
    <div data-testid="policy-state">
      {st.problems.length > 0 && (
        <div className="inline-error" role="alert" data-testid="policy-file-error">
          <p>{st.active ? t.policyFileBad : t.policyFileBadNoPolicy}</p>
          <Problems problems={st.problems} testId="policy-file-problems" />
        </div>
      )}
      {st.active ? (
        <p className="muted" data-testid="policy-active">
          {t.policyActive(st.rules, view.path)}
        </p>
      ) : (
        st.problems.length === 0 && (
          <p className="muted" data-testid="policy-none">
            {t.policyNone}
          </p>
        )
      )}
    </div>
  );
}

function PolicyEditor({ view }: { view: PolicyView }) {
  const t = useMessages();
  const check = usePolicy((s) => s.check);
  const save = usePolicy((s) => s.save);
  const theme = useSettings((s) => s.settings?.theme);
  const dark = useIsDark(theme);
  const initial = view.source || NEW_POLICY;
  const [source, setSource] = useState(initial);
  const [problems, setProblems] = useState<PolicyProblem[]>(view.source ? view.status.problems : []);
  const [checked, setChecked] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // The router's own loader, a moment after typing stops.
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
    setNotice(null);
    try {
      const saved = await save(source);
      setNotice(t.policySaved(saved.status.rules));
    } catch (err) {
      setSaveError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="card" data-testid="policy-editor">
      <div className="field">
        <span className="field-label">{t.policySource}</span>
        <Suspense
          fallback={
            <div className="editor-loading" style={{ height: 420 }}>
              <span className="spinner" /> {t.loadingEditor}
            </div>
          }
        >
          <CodeEditor
            value={initial}
            onChange={setSource}
            language="yaml"
            problems={problems.filter((p) => p.line > 0)}
            dark={dark}
            height={420}
            label={t.policySource}
            testId="policy-source"
            path={POLICY_MODEL_PATH}
            onSave={() => void submit()}
          />
        </Suspense>
        {problems.length > 0 ? (
          <Problems problems={problems} testId="policy-problems" />
        ) : (
          <span className="field-hint" data-testid="policy-hint">
            {checked ? `${t.policyValid}. ` : ''}
            {t.policySourceHint}
          </span>
        )}
      </div>
      {saveError && (
        <p className="inline-error" role="alert" data-testid="policy-save-error">
          {saveError}
        </p>
      )}
      {notice && (
        <p className="muted" role="status" data-testid="policy-notice">
          {notice}
        </p>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={busy || problems.length > 0} onClick={() => void submit()} data-testid="policy-save">
          {busy && <span className="spinner" />} {t.save}
        </button>
      </div>
    </div>
  );
}

const AUDIT_PAGE = 50;

function AuditPanel() {
  const t = useMessages();
  const auditPage = usePolicy((s) => s.auditPage);
  const verifyAudit = usePolicy((s) => s.verifyAudit);
  const [rows, setRows] = useState<AuditRow[]>([]);
  const [before, setBefore] = useState(0);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<AuditReport | null>(null);
  const [busy, setBusy] = useState(false);

  const more = useCallback(
    async (cursor: number) => {
      setError(null);
      try {
        const page = await auditPage(cursor, AUDIT_PAGE);
        setRows((old) => (cursor === 0 ? page.rows : [...old, ...page.rows]));
        setBefore(page.before);
        setLoaded(true);
      } catch (err) {
        setError(toApiError(err).message);
      }
    },
    [auditPage],
  );
  useEffect(() => {
    void more(0);
  }, [more]);

  async function verify() {
    setBusy(true);
    setError(null);
    try {
      setReport(await verifyAudit());
    } catch (err) {
      setError(toApiError(err).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="card" data-testid="audit-panel">
      <div className="row">
        <h2>{t.auditTitle}</h2>
        <span className="grow" />
        <button type="button" disabled={busy} onClick={() => void verify()} data-testid="audit-verify">
          {busy && <span className="spinner" />} {t.auditVerify}
        </button>
      </div>
      <p className="muted">{t.auditSummary}</p>
      {error && <LoadError title={t.auditLoadFailed} message={error} retry={() => void more(0)} />}
      {report &&
        (report.problems.length === 0 ? (
          <p className="muted" role="status" data-testid="audit-report">
            {t.auditIntact(report.rows, report.head)}
          </p>
        ) : (
          <div className="inline-error" role="alert" data-testid="audit-report">
            <p>{t.auditTampered}</p>
            <ul className="problems">
              {report.problems.map((p, i) => (
                <li key={i}>{p}</li>
              ))}
            </ul>
          </div>
        ))}
      {loaded && rows.length === 0 && <p className="muted">{t.auditEmpty}</p>}
      {rows.length > 0 && (
        <table className="data" data-testid="audit-rows">
          <thead>
            <tr>
              <th>#</th>
              <th>{t.auditColTime}</th>
              <th>{t.auditColClient}</th>
              <th>{t.auditColTool}</th>
              <th>{t.auditColStatus}</th>
              <th>{t.auditColPolicies}</th>
              <th>{t.auditColArguments}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} data-testid={`audit-row-${r.id}`} title={r.error ?? r.result ?? ''}>
                <td>{r.id}</td>
                <td>{new Date(r.time).toLocaleString()}</td>
                <td>{r.subject ? `${r.client} (${r.subject})` : r.client}</td>
                <td>{r.target}</td>
                <td>{r.status}</td>
                <td>{r.policies}</td>
                <td>
                  <code>{r.arguments.length > 200 ? `${r.arguments.slice(0, 200)}…` : r.arguments}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {before > 0 && (
        <button type="button" onClick={() => void more(before)} data-testid="audit-older">
          {t.auditOlder}
        </button>
      )}
    </div>
  );
}
