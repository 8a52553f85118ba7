import { createStore, type StoreApi } from 'zustand/vanilla';
import { toApiError, type Api, type ServerView, type Unsubscribe } from '../api';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface ServersState {
  /** Sorted by name. */
  servers: ServerView[];
  status: LoadStatus;
  /** Message of the last failed load; null after a successful one. */
  error: string | null;
  /** Fetches the whole list; concurrent calls are fine, the last one wins. */
  load(): Promise<void>;
  /** Applies `servers:changed` events until the returned function is called. */
  listen(): Unsubscribe;
}

export type ServersStore = StoreApi<ServersState>;

function upsert(list: ServerView[], server: ServerView): ServerView[] {
  const next = list.filter((s) => s.name !== server.name);
  next.push(server);
  return next.sort((a, b) => a.name.localeCompare(b.name));
}

/** A change to apply to the list: an updated row, or a removed name. */
type Change = { upsert: ServerView } | { remove: string };

function apply(list: ServerView[], change: Change): ServerView[] {
  return 'upsert' in change ? upsert(list, change.upsert) : list.filter((s) => s.name !== change.remove);
}

export function createServersStore(
  api: Pick<Api, 'listServers' | 'onServerChanged' | 'onServerRemoved'>,
): ServersStore {
  let loadSeq = 0;
  // Events that arrive while a load is in flight may be newer than the list
  // it returns: remember them and apply them on top of it.
  let eventsDuringLoad: Change[] | null = null;

  return createStore<ServersState>()((set, get) => ({
    servers: [],
    status: 'idle',
    error: null,

    async load() {
      const seq = ++loadSeq;
      eventsDuringLoad = [];
      set({ status: 'loading' });
      try {
        const loaded = await api.listServers();
        if (seq !== loadSeq) return;
        const servers = (eventsDuringLoad ?? []).reduce(apply, [...loaded].sort((a, b) => a.name.localeCompare(b.name)));
        set({ servers, status: 'ready', error: null });
      } catch (err) {
        if (seq !== loadSeq) return;
        // Keep what was shown before: a failed refresh should not blank the list.
        set({ status: 'error', error: toApiError(err).message });
      } finally {
        if (seq === loadSeq) eventsDuringLoad = null;
      }
    },

    listen() {
      const onChange = (change: Change) => {
        eventsDuringLoad?.push(change);
        set({ servers: apply(get().servers, change) });
      };
      const stopChanged = api.onServerChanged((server) => onChange({ upsert: server }));
      const stopRemoved = api.onServerRemoved((name) => onChange({ remove: name }));
      return () => {
        stopChanged();
        stopRemoved();
      };
    },
  }));
}
