import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type Api, type ProfileView, type ServerTool } from '../api';
import type { LoadStatus } from './servers';

export interface ProfilesState {
  profiles: ProfileView[];
  status: LoadStatus;
  error: string | null;
  load(): Promise<void>;
  /** create or update; throws to the form, which keeps what was chosen. */
  save(p: ProfileView, isNew: boolean): Promise<ProfileView>;
  remove(name: string): Promise<void>;
  /** A server's tools, for picking; throws to the caller. */
  serverTools(server: string): Promise<ServerTool[]>;
  /** The snippet for a profile's endpoint; throws to the caller. */
  snippet(name: string, client: string, mode: string, token: string, upstreamAuth?: string[]): Promise<string>;
}

export type ProfilesStore = StoreApi<ProfilesState>;

export function createProfilesStore(
  api: Pick<Api, 'listProfiles' | 'createProfile' | 'updateProfile' | 'removeProfile' | 'profileSnippet' | 'serverTools'>,
): ProfilesStore {
  return createStore<ProfilesState>()((set, get) => ({
    profiles: [],
    status: 'idle',
    error: null,
    async load() {
      set({ status: 'loading' });
      try {
        set({ profiles: await api.listProfiles(), status: 'ready', error: null });
      } catch (err) {
        set({ status: 'error', error: toApiError(err).message });
      }
    },
    async save(p, isNew) {
      const saved = isNew ? await api.createProfile(p) : await api.updateProfile(p);
      const rest = get().profiles.filter((x) => x.name !== saved.name);
      set({ profiles: [...rest, saved].sort((a, b) => a.name.localeCompare(b.name)) });
      return saved;
    },
    async remove(name) {
      await api.removeProfile(name);
      set({ profiles: get().profiles.filter((x) => x.name !== name) });
    },
    serverTools: (server) => api.serverTools(server),
    snippet: (name, client, mode, token, upstreamAuth = []) => api.profileSnippet(name, client, mode, token, upstreamAuth),
  }));
}
