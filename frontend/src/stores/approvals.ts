import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type Api, type ApprovalDecision, type PendingApproval } from '../api';

export interface ApprovalsState {
  pending: PendingApproval[];
  /** The last decision that failed (e.g. the call timed out meanwhile). */
  error: string | null;
  /** Loads the list and follows approvals:changed until the returned function is called. */
  listen(): () => void;
  decide(id: string, decision: ApprovalDecision): Promise<void>;
}

export type ApprovalsStore = StoreApi<ApprovalsState>;

type ApprovalsApi = Pick<Api, 'pendingApprovals' | 'decideApproval' | 'onApprovalsChanged' | 'onReconnect'>;

export function createApprovalsStore(api: ApprovalsApi): ApprovalsStore {
  // An event newer than a fetch in flight wins: each change bumps seq.
  let seq = 0;
  return createStore<ApprovalsState>()((set) => {
    const load = async () => {
      const mine = ++seq;
      try {
        const pending = await api.pendingApprovals();
        if (mine === seq) set({ pending });
      } catch (err) {
        if (mine === seq) set({ error: toApiError(err).message });
      }
    };
    return {
      pending: [],
      error: null,
      listen() {
        const stop = api.onApprovalsChanged((pending) => {
          ++seq;
          set({ pending });
        });
        const stopReconnect = api.onReconnect(() => void load());
        void load();
        return () => {
          stop();
          stopReconnect();
        };
      },
      async decide(id, decision) {
        set({ error: null });
        try {
          await api.decideApproval(id, decision);
          // The event brings the new list; drop it here at once too.
          ++seq;
          set((s) => ({ pending: s.pending.filter((p) => p.id !== id) }));
        } catch (err) {
          set({ error: toApiError(err).message });
          void load();
        }
      },
    };
  });
}
