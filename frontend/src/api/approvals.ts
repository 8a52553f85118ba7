import { ApiError, type Call, type On, type Unsubscribe } from './base';

// Tool calls waiting for a person's approval (docs/policy.md#approval).

export const APPROVAL_DECISIONS = ['approve', 'deny', 'always'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

export interface PendingApproval {
  id: string;
  rule: string;
  client: string;
  subject?: string;
  server: string;
  tool: string;
  target: string;
  /** The call's arguments as sent by the client (any JSON). */
  arguments: unknown;
  askedAt: string;
  /** When the call is refused if nobody answers (RFC 3339); "" if none. */
  deadline: string;
}

export interface ApprovalsApi {
  pendingApprovals(): Promise<PendingApproval[]>;
  decideApproval(id: string, decision: ApprovalDecision): Promise<void>;
  /** The whole pending list after every change. */
  onApprovalsChanged(handler: (list: PendingApproval[]) => void): Unsubscribe;
}

export const APPROVALS_EVENT = 'approvals:changed';

export function toPendingApproval(raw: unknown): PendingApproval {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError('pending approval: expected an object');
  const r = raw as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  if (typeof r.id !== 'string' || r.id === '') throw new ApiError('pending approval: missing id');
  return {
    id: r.id,
    rule: s(r.rule),
    client: s(r.client),
    subject: typeof r.subject === 'string' && r.subject !== '' ? r.subject : undefined,
    server: s(r.server),
    tool: s(r.tool),
    target: s(r.target),
    arguments: r.arguments ?? {},
    askedAt: s(r.askedAt),
    deadline: s(r.deadline),
  };
}

export function toPendingApprovals(raw: unknown): PendingApproval[] {
  if (raw == null) return [];
  if (!Array.isArray(raw)) throw new ApiError('pending approvals: expected a list');
  return raw.map(toPendingApproval);
}


export function createApprovalsApi(call: Call, on: On): ApprovalsApi {
  return {
    pendingApprovals: () => call('PendingApprovals', [], toPendingApprovals),
    decideApproval: (id, decision) => call('DecideApproval', [id, decision], () => undefined),
    onApprovalsChanged: (h) => on(APPROVALS_EVENT, toPendingApprovals, h),
  };
}
