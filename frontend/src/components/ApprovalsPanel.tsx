import { useEffect, useId, useRef, useState } from 'react';
import type { ApprovalDecision, PendingApproval } from '../api';
import { useMessages } from '../i18n';
import { useApprovals } from '../stores';

/** Pretty-prints a call's arguments; anything not an object is shown as JSON too. */
export function prettyArguments(args: unknown): string {
  try {
    return JSON.stringify(args ?? {}, null, 2) ?? '{}';
  } catch {
    return String(args);
  }
}

/** Whole seconds left until deadline (RFC 3339) at now; null without a deadline. */
export function secondsLeft(deadline: string, now: number): number | null {
  const t = Date.parse(deadline);
  if (!deadline || Number.isNaN(t)) return null;
  return Math.max(0, Math.ceil((t - now) / 1000));
}

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [active]);
  return now;
}

/**
 * The approvals overlay, shown over any page while a tool call waits for a
 * person (a policy rule with human_approval): the oldest call first, with
 * its client, server, tool, arguments and time left, and the three answers.
 */
export function ApprovalsPanel() {
  const t = useMessages();
  const pending = useApprovals((s) => s.pending);
  const error = useApprovals((s) => s.error);
  const listen = useApprovals((s) => s.listen);
  const decide = useApprovals((s) => s.decide);
  useEffect(() => listen(), [listen]);
  const current: PendingApproval | undefined = pending[0];
  const now = useNow(current !== undefined);
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (current) ref.current?.querySelector<HTMLElement>('[data-testid="approval-approve"]')?.focus();
  }, [current?.id]);

  if (!current) return null;
  const left = secondsLeft(current.deadline, now);
  const answer = async (d: ApprovalDecision) => {
    setBusy(true);
    try {
      await decide(current.id, d);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="dialog-backdrop approvals-backdrop">
      <div ref={ref} className="dialog" role="alertdialog" aria-modal="true" aria-labelledby={titleId} data-testid="approval-panel">
        <h2 id={titleId}>{t.approvalTitle}</h2>
        <p className="muted">{t.approvalIntro(current.rule)}</p>
        <dl className="approval-facts">
          <dt>{t.approvalClient}</dt>
          <dd data-testid="approval-client">
            {current.client}
            {current.subject ? ` (${current.subject})` : ''}
          </dd>
          <dt>{t.approvalServer}</dt>
          <dd data-testid="approval-server">{current.server}</dd>
          <dt>{t.approvalTool}</dt>
          <dd data-testid="approval-tool">
            <code>{current.tool}</code>
          </dd>
          <dt>{t.approvalArguments}</dt>
          <dd>
            <pre className="approval-args" data-testid="approval-arguments">
              {prettyArguments(current.arguments)}
            </pre>
          </dd>
        </dl>
        {left !== null && (
          <p data-testid="approval-time-left" role="timer">
            {t.approvalTimeLeft(left)}
          </p>
        )}
        {pending.length > 1 && <p className="muted">{t.approvalMore(pending.length - 1)}</p>}
        {error && (
          <p className="error" role="alert">
            {t.approvalFailed(error)}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="danger" disabled={busy} onClick={() => void answer('deny')} data-testid="approval-deny">
            {t.approvalDeny}
          </button>
          <button type="button" disabled={busy} onClick={() => void answer('always')} data-testid="approval-always">
            {t.approvalAlways}
          </button>
          <button type="button" className="primary" disabled={busy} onClick={() => void answer('approve')} data-testid="approval-approve">
            {t.approvalApprove}
          </button>
        </div>
      </div>
    </div>
  );
}
