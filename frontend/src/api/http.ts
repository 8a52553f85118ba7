// The browser shell's transport: `mcp-router serve` serves the pages under
// /ui/ and the same methods under /ui/api/ (docs/ui-api.md).
import { ApiError } from './base';
import { TOKEN_ROLES, type TokenRole } from './types';
import type { ApiTransport } from './transport';

export const TOKEN_KEY = 'mcpr.uiToken';

/** The access token of this browser tab; sessionStorage, so it ends with the tab. */
export const tokenStore = {
  get(): string {
    try {
      return sessionStorage.getItem(TOKEN_KEY) ?? '';
    } catch {
      return '';
    }
  },
  set(token: string): void {
    try {
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // Storage disabled: the token lives only as long as the page.
    }
  },
};

export interface Session {
  authRequired: boolean;
  /** The token opens the UI: only an admin token does. */
  valid: boolean;
  /** Role of the token sent, when the router knows it (a client token is not valid here). */
  role?: TokenRole;
  /** Why the token sent cannot open the UI. */
  error?: string;
}

export interface HttpOptions {
  /** Where the API lives; default `/ui/api`. */
  base?: string;
  fetch?: typeof fetch;
  /** Builds the event stream; default `new EventSource(url)`. */
  eventSource?: (url: string) => EventSource;
  /** Called when the router answers 401: the token is missing, wrong or revoked. */
  onUnauthorized?: () => void;
  /** Milliseconds before the event stream is reopened after it closed. */
  reconnectMs?: number;
}

async function errorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string' && body.error !== '') return body.error;
  } catch {
    // not JSON: fall through
  }
  return text.trim() || `${res.status} ${res.statusText}`.trim();
}

function authHeaders(): Record<string, string> {
  const token = tokenStore.get();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** Asks the router whether this tab must log in, and whether its token works. */
export async function getSession(opts: HttpOptions = {}): Promise<Session> {
  const f = opts.fetch ?? fetch;
  const res = await f(`${opts.base ?? '/ui/api'}/session`, { headers: authHeaders() });
  if (!res.ok) throw new ApiError(await errorMessage(res), res.status);
  const body = (await res.json()) as Record<string, unknown>;
  return {
    authRequired: body.authRequired === true,
    valid: body.valid === true,
    role: TOKEN_ROLES.find((r) => r === body.role),
    error: typeof body.error === 'string' && body.error !== '' ? body.error : undefined,
  };
}

export function httpTransport(opts: HttpOptions = {}): ApiTransport {
  const base = opts.base ?? '/ui/api';
  const f = opts.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  const makeSource = opts.eventSource ?? ((url: string) => new EventSource(url));
  const reconnectMs = opts.reconnectMs ?? 2000;

  // One stream for every subscriber; opened on the first, closed after the last.
  const handlers = new Map<string, Set<(payload: unknown) => void>>();
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  // Event names with a listener on the current source (each added once).
  let attached = new Set<string>();
  const reconnectHandlers = new Set<() => void>();
  // Set once a stream was open and then broke: its next open is a reconnect.
  let broken = false;

  function attach(es: EventSource, name: string) {
    if (attached.has(name)) return;
    attached.add(name);
    es.addEventListener(name, (ev) => {
      let payload: unknown = null;
      const data = (ev as MessageEvent<string>).data;
      try {
        payload = data === undefined || data === '' ? null : JSON.parse(data);
      } catch {
        console.error(`${name}: event data is not JSON:`, data);
        return;
      }
      handlers.get(name)?.forEach((h) => h(payload));
    });
  }

  function open() {
    const token = tokenStore.get();
    const url = `${base}/events${token ? `?token=${encodeURIComponent(token)}` : ''}`;
    const es = makeSource(url);
    source = es;
    attached = new Set();
    for (const name of handlers.keys()) attach(es, name);
    es.onopen = () => {
      if (!broken) return;
      broken = false;
      reconnectHandlers.forEach((h) => h());
    };
    es.onerror = () => {
      if (source !== es) return;
      broken = true;
      // EventSource retries by itself unless the server refused the stream
      // (e.g. 401); then reopen later with whatever token the tab has then.
      if (es.readyState !== 2 /* CLOSED */) return;
      source = null;
      if (handlers.size > 0 && retry === null) {
        retry = setTimeout(() => {
          retry = null;
          if (handlers.size > 0 && source === null) open();
        }, reconnectMs);
      }
    };
  }

  function close() {
    source?.close();
    source = null;
    broken = false;
    if (retry !== null) clearTimeout(retry);
    retry = null;
  }

  return {
    async call(method, args) {
      let res: Response;
      try {
        res = await f(`${base}/call/${method}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...authHeaders() },
          body: JSON.stringify(args),
        });
      } catch (err) {
        throw new ApiError(`cannot reach MCP Router: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (res.status === 401) {
        opts.onUnauthorized?.();
        throw new ApiError(await errorMessage(res), 401);
      }
      if (!res.ok) throw new ApiError(await errorMessage(res), res.status);
      const text = await res.text();
      if (text.trim() === '') return null;
      try {
        return JSON.parse(text);
      } catch {
        throw new ApiError(`${method}: the answer is not JSON`);
      }
    },

    onReconnect(handler) {
      reconnectHandlers.add(handler);
      return () => {
        reconnectHandlers.delete(handler);
      };
    },

    on(name, handler) {
      let set = handlers.get(name);
      const isNew = !set;
      if (!set) {
        set = new Set();
        handlers.set(name, set);
      }
      set.add(handler);
      if (!source && retry === null) open();
      else if (isNew && source) attach(source, name);
      return () => {
        const s = handlers.get(name);
        if (!s) return;
        s.delete(handler);
        if (s.size === 0) handlers.delete(name);
        if (handlers.size === 0) close();
      };
    },
  };
}
