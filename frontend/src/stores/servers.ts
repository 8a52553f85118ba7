import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  BUNDLE_CHUNK_BYTES,
  toApiError,
  readBlob,
  toBase64,
  type Api,
  type BundlePreview,
  type ClientConfigFile,
  type ElectronDatabase,
  type ElectronPlan,
  type ElectronSourceKind,
  type ImportReport,
  type Discovery,
  type PrefixMode,
  type SecretKind,
  type ServerConfig,
  type ServerTool,
  type ServerView,
  type Unsubscribe,
} from '../api';

export type ServerAction = 'start' | 'stop' | 'restart' | 'enable' | 'disable' | 'remove' | 'login' | 'logout';

/** The most console lines kept per server (the Go ring is smaller). */
export const CONSOLE_MAX = 1000;

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

  /** When each server last entered its current state (ms since epoch), for "starting for 12 s". */
  since: Record<string, number>;
  /** The action in flight per server. */
  pending: Record<string, ServerAction | undefined>;
  /** The last failed action: shown next to its row until the next one. */
  actionError: { name: string; message: string } | null;
  act(name: string, action: ServerAction): Promise<void>;
  clearActionError(): void;
  /**
   * Starts the OAuth login of a server in needs_login and opens its page in
   * the browser; the URL stays in `logins` (a link, should the browser not
   * have opened) until the server leaves needs_login.
   */
  login(name: string, clientId?: string): Promise<void>;
  logins: Record<string, string>;

  // Adding and editing: errors are thrown to the form, which keeps its input.
  getConfig(name: string): Promise<ServerConfig>;
  add(cfg: ServerConfig): Promise<ServerView>;
  update(name: string, cfg: ServerConfig): Promise<ServerView>;
  importJSON(text: string): Promise<ImportReport>;
  /** What discovery finds behind a URL (the Add form's "Find endpoint"). */
  discover(url: string): Promise<Discovery>;
  clientConfigs(): Promise<ClientConfigFile[]>;
  importFile(path: string): Promise<ImportReport>;
  /** Where the Electron MCP Router's database is expected, and whether it is there. */
  findElectron(): Promise<ElectronDatabase>;
  /** What importing the Electron app's database or export would do; writes nothing. */
  previewElectron(kind: ElectronSourceKind, path: string): Promise<ElectronPlan>;
  /** Imports it; returns the plan carried out. */
  importElectron(kind: ElectronSourceKind, path: string): Promise<ElectronPlan>;
  /** Sets one secret value of a server (an import's needsSecrets); thrown errors go to the form. */
  setSecret(server: string, kind: SecretKind, name: string, value: string): Promise<ServerView>;

  /**
   * Sends a dropped or picked .mcpb file to the router in chunks and reads it
   * (docs/bundles.md): the upload's id and the install dialog's preview. A
   * bundle the router refuses is thrown, and its upload dropped.
   */
  openBundle(file: Blob, onProgress?: (sent: number) => void): Promise<{ id: string; preview: BundlePreview }>;
  /** Installs an opened bundle; thrown errors go to the dialog, which keeps its input (the upload stays for a retry). */
  installBundle(id: string, name: string, config: Record<string, string[]>): Promise<ServerView>;
  discardBundle(id: string): Promise<void>;

  /** Per-server tools, loaded when the server's details open. */
  tools: Record<string, { status: LoadStatus; list: ServerTool[]; error: string | null }>;
  loadTools(name: string): Promise<void>;
  setToolEnabled(server: string, tool: string, enabled: boolean): Promise<void>;
  setPrefixMode(server: string, mode: PrefixMode): Promise<void>;
  /** Makes a shared server per-client (the page's suggestion): its definition with isolation per-client. */
  makePerClient(server: string): Promise<void>;

  /** Console (stderr) of servers being watched, oldest first. */
  consoles: Record<string, string[]>;
  /** Loads the console of `name` and follows `console:lines` until released. */
  watchConsole(name: string): Unsubscribe;
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

type ServersApi = Pick<
  Api,
  | 'listServers'
  | 'onServerChanged'
  | 'onServerRemoved'
  | 'getServer'
  | 'addServer'
  | 'updateServer'
  | 'addServersFromJSON'
  | 'discoverServer'
  | 'listClientConfigs'
  | 'importClientConfig'
  | 'findElectronDatabase'
  | 'previewElectronImport'
  | 'importElectron'
  | 'removeServer'
  | 'setServerEnabled'
  | 'startServer'
  | 'stopServer'
  | 'restartServer'
  | 'loginServer'
  | 'logoutServer'
  | 'setServerSecret'
  | 'beginBundleUpload'
  | 'appendBundleUpload'
  | 'inspectBundle'
  | 'installBundle'
  | 'discardBundleUpload'
  | 'openExternal'
  | 'serverTools'
  | 'setToolEnabled'
  | 'setPrefixMode'
  | 'serverConsole'
  | 'onConsoleLines'
  | 'onReconnect'
>;

export function createServersStore(api: ServersApi): ServersStore {
  const watchers = new Map<string, number>();
  let stopConsole: Unsubscribe | null = null;

  let loadSeq = 0;
  // Events that arrive while a load is in flight may be newer than the list
  // it returns: remember them and apply them on top of it.
  let eventsDuringLoad: Change[] | null = null;

  return createStore<ServersState>()((set, get) => ({
    servers: [],
    status: 'idle',
    error: null,
    since: {},
    pending: {},
    actionError: null,
    tools: {},
    consoles: {},

    async load() {
      const seq = ++loadSeq;
      eventsDuringLoad = [];
      set({ status: 'loading' });
      try {
        const loaded = await api.listServers();
        if (seq !== loadSeq) return;
        const servers = (eventsDuringLoad ?? []).reduce(apply, [...loaded].sort((a, b) => a.name.localeCompare(b.name)));
        set({ servers, status: 'ready', error: null, since: trackSince(get().servers, servers, get().since) });
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
        const servers = apply(get().servers, change);
        set({ servers, since: trackSince(get().servers, servers, get().since) });
      };
      const stopChanged = api.onServerChanged((server) => onChange({ upsert: server }));
      const stopRemoved = api.onServerRemoved((name) => onChange({ remove: name }));
      // Events may have been missed while the stream was down.
      const stopReconnect = api.onReconnect(() => void get().load());
      return () => {
        stopChanged();
        stopRemoved();
        stopReconnect();
      };
    },

    async act(name, action) {
      set({ pending: { ...get().pending, [name]: action }, actionError: null });
      try {
        switch (action) {
          case 'start':
            await api.startServer(name);
            break;
          case 'stop':
            await api.stopServer(name);
            break;
          case 'restart':
            await api.restartServer(name);
            break;
          case 'enable':
          case 'disable':
            await api.setServerEnabled(name, action === 'enable');
            set({ servers: get().servers.map((s) => (s.name === name ? { ...s, enabled: action === 'enable' } : s)) });
            break;
          case 'remove':
            await api.removeServer(name);
            set({ servers: get().servers.filter((s) => s.name !== name) });
            break;
          case 'logout':
            // The server reconnects and asks for a login again: its event follows.
            await api.logoutServer(name);
            set({ servers: get().servers.map((s) => (s.name === name ? { ...s, loggedIn: false } : s)) });
            break;
        }
      } catch (err) {
        set({ actionError: { name, message: toApiError(err).message } });
      } finally {
        const { [name]: _done, ...rest } = get().pending;
        set({ pending: rest });
      }
    },
    clearActionError: () => set({ actionError: null }),

    logins: {},
    async login(name, clientId = '') {
      set({ pending: { ...get().pending, [name]: 'login' }, actionError: null });
      try {
        const { url } = await api.loginServer(name, clientId);
        set({ logins: { ...get().logins, [name]: url } });
        api.openExternal(url);
      } catch (err) {
        set({ actionError: { name, message: toApiError(err).message } });
      } finally {
        const { [name]: _done, ...rest } = get().pending;
        set({ pending: rest });
      }
    },

    getConfig: (name) => api.getServer(name),
    discover: (url) => api.discoverServer(url),
    async add(cfg) {
      const view = await api.addServer(cfg);
      set({ servers: upsert(get().servers, view) });
      return view;
    },
    async update(name, cfg) {
      const view = await api.updateServer(name, cfg);
      const rest = get().servers.filter((s) => s.name !== name);
      set({ servers: upsert(rest, view) });
      return view;
    },
    async openBundle(file, onProgress) {
      const id = await api.beginBundleUpload();
      try {
        for (let at = 0; at < file.size; at += BUNDLE_CHUNK_BYTES) {
          const bytes = await readBlob(file.slice(at, at + BUNDLE_CHUNK_BYTES));
          onProgress?.(await api.appendBundleUpload(id, toBase64(bytes)));
        }
        return { id, preview: await api.inspectBundle(id) };
      } catch (err) {
        void api.discardBundleUpload(id).catch(() => {});
        throw err;
      }
    },
    async installBundle(id, name, config) {
      const view = await api.installBundle(id, name, config);
      set({ servers: upsert(get().servers, view) });
      return view;
    },
    discardBundle: (id) => api.discardBundleUpload(id),
    async importJSON(text) {
      const report = await api.addServersFromJSON(text);
      void get().load();
      return report;
    },
    clientConfigs: () => api.listClientConfigs(),
    async importFile(path) {
      const report = await api.importClientConfig(path);
      void get().load();
      return report;
    },
    findElectron: () => api.findElectronDatabase(),
    previewElectron: (kind, path) => api.previewElectronImport(kind, path),
    async importElectron(kind, path) {
      const plan = await api.importElectron(kind, path);
      void get().load();
      return plan;
    },
    async setSecret(server, kind, name, value) {
      const view = await api.setServerSecret(server, kind, name, value);
      set({ servers: upsert(get().servers, view) });
      return view;
    },

    async loadTools(name) {
      const prev = get().tools[name];
      set({ tools: { ...get().tools, [name]: { status: 'loading', list: prev?.list ?? [], error: null } } });
      try {
        const list = await api.serverTools(name);
        set({ tools: { ...get().tools, [name]: { status: 'ready', list, error: null } } });
      } catch (err) {
        set({ tools: { ...get().tools, [name]: { status: 'error', list: prev?.list ?? [], error: toApiError(err).message } } });
      }
    },
    async setToolEnabled(server, tool, enabled) {
      const patch = (on: boolean) => {
        const cur = get().tools[server];
        if (!cur) return;
        const list = cur.list.map((t) => (t.name === tool ? { ...t, enabled: on } : t));
        set({ tools: { ...get().tools, [server]: { ...cur, list } } });
      };
      patch(enabled); // optimistic: the toggle answers at once
      try {
        await api.setToolEnabled(server, tool, enabled);
      } catch (err) {
        patch(!enabled);
        const cur = get().tools[server];
        if (cur) set({ tools: { ...get().tools, [server]: { ...cur, error: toApiError(err).message } } });
      }
    },
    async makePerClient(server) {
      const cfg = await api.getServer(server);
      await get().update(server, { ...cfg, isolation: 'per-client' });
    },
    async setPrefixMode(server, mode) {
      await api.setPrefixMode(server, mode);
      set({ servers: get().servers.map((s) => (s.name === server ? { ...s, prefixMode: mode } : s)) });
      void get().loadTools(server);
    },

    watchConsole(name) {
      watchers.set(name, (watchers.get(name) ?? 0) + 1);
      if (!stopConsole) {
        stopConsole = api.onConsoleLines(({ server, lines }) => {
          if (!watchers.has(server) || lines.length === 0) return;
          const cur = get().consoles[server] ?? [];
          set({ consoles: { ...get().consoles, [server]: cur.concat(lines).slice(-CONSOLE_MAX) } });
        });
      }
      let live = true;
      const fetchRing = (replace: boolean) =>
        api.serverConsole(name).then(
          (lines) => {
            // Lines that arrived by event while loading are newer than the ring.
            if (!live) return;
            const arrived = replace ? [] : (get().consoles[name] ?? []);
            set({ consoles: { ...get().consoles, [name]: lines.concat(arrived).slice(-CONSOLE_MAX) } });
          },
          (err: unknown) => console.error(`ServerConsole(${name}):`, err),
        );
      void fetchRing(false);
      // After a break in the event stream the ring is the truth again.
      const stopReconnect = api.onReconnect(() => void fetchRing(true));
      return () => {
        live = false;
        stopReconnect();
        const n = (watchers.get(name) ?? 1) - 1;
        if (n > 0) {
          watchers.set(name, n);
          return;
        }
        watchers.delete(name);
        const { [name]: _gone, ...rest } = get().consoles;
        set({ consoles: rest });
        if (watchers.size === 0) {
          stopConsole?.();
          stopConsole = null;
        }
      };
    },
  }));
}

/**
 * Keeps when each server entered its state: the router's own time when it
 * gives one (so a page opened late still counts from the start), otherwise
 * the first time this page saw the state.
 */
function trackSince(before: ServerView[], after: ServerView[], since: Record<string, number>): Record<string, number> {
  const old = new Map(before.map((s) => [s.name, s.state]));
  const next: Record<string, number> = {};
  const now = Date.now();
  for (const s of after) {
    if (s.stateSince > 0) next[s.name] = Math.min(s.stateSince, now);
    else next[s.name] = old.get(s.name) === s.state && since[s.name] !== undefined ? since[s.name]! : now;
  }
  return next;
}
