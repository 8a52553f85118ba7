import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type Api, type AuditPage, type AuditReport, type PolicyProblem, type PolicyView } from '../api';
import type { LoadStatus } from './servers';

export interface PolicyState {
  view: PolicyView | null;
  status: LoadStatus;
  error: string | null;
  load(): Promise<void>;
  check(source: string): Promise<PolicyProblem[]>;
  /** Saves; throws to the editor, which keeps the text. */
  save(source: string): Promise<PolicyView>;
  auditPage(before: number, limit: number): Promise<AuditPage>;
  verifyAudit(): Promise<AuditReport>;
}

export type PolicyStore = StoreApi<PolicyState>;

type PolicyApi = Pick<Api, 'getPolicy' | 'checkPolicy' | 'savePolicy' | 'auditRows' | 'verifyAudit'>;

export function createPolicyStore(api: PolicyApi): PolicyStore {
  let seq = 0;
  return createStore<PolicyState>()((set) => ({
    view: null,
    status: 'idle',
    error: null,
    async load() {
      const mine = ++seq;
      set({ status: 'loading', error: null });
      try {
        const view = await api.getPolicy();
        if (mine === seq) set({ view, status: 'ready' });
      } catch (err) {
        if (mine === seq) set({ status: 'error', error: toApiError(err).message });
      }
    },
    check: (source) => api.checkPolicy(source),
    auditPage: (before, limit) => api.auditRows(before, limit),
    verifyAudit: () => api.verifyAudit(),
    async save(source) {
      const view = await api.savePolicy(source);
      ++seq;
      set({ view, status: 'ready', error: null });
      return view;
    },
  }));
}
