import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  toApiError,
  type Api,
  type ClientAddPlan,
  type ClientAddResult,
  type CreatedToken,
  type EndpointStatus,
  type SnippetClient,
  type SnippetMode,
  type TokenView,
} from '../api';
import type { LoadStatus } from './servers';

export interface TokensState {
  tokens: TokenView[];
  status: LoadStatus;
  error: string | null;
  load(): Promise<void>;
  /** Throws to the form, which keeps what was typed. */
  create(name: string, servers: string[]): Promise<CreatedToken>;
  revoke(name: string): Promise<void>;
  /** Deletes a token for good (revoked or not). */
  remove(name: string): Promise<void>;
  /** Throws to the editor, which keeps the choice. */
  setServers(name: string, servers: string[]): Promise<void>;
  /** Throws to the editor, which keeps what was typed. */
  setRoles(name: string, roles: string[]): Promise<void>;
  /** Binds the token to a profile ("" none); throws to the caller. */
  setProfile(name: string, profile: string): Promise<void>;
  actionError: string | null;
  endpoint: EndpointStatus | null;
  endpointError: string | null;
  loadEndpoint(): Promise<void>;
  /** The config snippet for a client; throws to the caller. */
  snippet(client: SnippetClient, mode: SnippetMode, token: string, upstreamAuth: string[]): Promise<string>;
  /** "Add to client": the diff, then the write of that diff; throw to the caller. */
  planAddToClient(profile: string, client: SnippetClient, mode: SnippetMode, token: string): Promise<ClientAddPlan>;
  addToClient(profile: string, client: SnippetClient, mode: SnippetMode, token: string, shownDiff: string): Promise<ClientAddResult>;
  /** The client's install link; throws to the caller. */
  installLink(profile: string, client: SnippetClient, mode: SnippetMode, token: string): Promise<string>;
}

export type TokensStore = StoreApi<TokensState>;

export function createTokensStore(
  api: Pick<
    Api,
    'listTokens' | 'createToken' | 'revokeToken' | 'deleteToken' | 'updateTokenServers' | 'updateTokenRoles' | 'updateTokenProfile'
    | 'endpointStatus'
    | 'snippet'
    | 'planAddToClient'
    | 'addToClient'
    | 'installLink'
  >,
): TokensStore {
  return createStore<TokensState>()((set, get) => ({
    tokens: [],
    status: 'idle',
    error: null,
    actionError: null,
    endpoint: null,
    endpointError: null,
    async load() {
      set({ status: 'loading' });
      try {
        set({ tokens: await api.listTokens(), status: 'ready', error: null });
      } catch (err) {
        set({ status: 'error', error: toApiError(err).message });
      }
    },
    async create(name, servers) {
      const created = await api.createToken(name, servers);
      set({ tokens: [...get().tokens.filter((t) => t.name !== created.view.name), created.view] });
      return created;
    },
    async revoke(name) {
      set({ actionError: null });
      try {
        await api.revokeToken(name);
        const now = new Date().toISOString();
        set({ tokens: get().tokens.map((t) => (t.name === name ? { ...t, revokedAt: t.revokedAt ?? now } : t)) });
        void get().load();
      } catch (err) {
        set({ actionError: toApiError(err).message });
      }
    },
    async remove(name) {
      set({ actionError: null });
      try {
        await api.deleteToken(name);
        set({ tokens: get().tokens.filter((t) => t.name !== name) });
      } catch (err) {
        set({ actionError: toApiError(err).message });
      }
    },
    async setServers(name, servers) {
      const view = await api.updateTokenServers(name, servers);
      set({ tokens: get().tokens.map((t) => (t.name === name ? view : t)) });
    },
    async setRoles(name, roles) {
      const view = await api.updateTokenRoles(name, roles);
      set({ tokens: get().tokens.map((t) => (t.name === name ? view : t)) });
    },
    async setProfile(name, profile) {
      const view = await api.updateTokenProfile(name, profile);
      set({ tokens: get().tokens.map((t) => (t.name === name ? view : t)) });
    },
    snippet: (client, mode, token, upstreamAuth) => api.snippet(client, mode, token, upstreamAuth),
    planAddToClient: (profile, client, mode, token) => api.planAddToClient(profile, client, mode, token),
    addToClient: (profile, client, mode, token, shownDiff) => api.addToClient(profile, client, mode, token, shownDiff),
    installLink: (profile, client, mode, token) => api.installLink(profile, client, mode, token),
    async loadEndpoint() {
      try {
        set({ endpoint: await api.endpointStatus(), endpointError: null });
      } catch (err) {
        set({ endpointError: toApiError(err).message });
      }
    },
  }));
}
