// The shapes the UI works with. They mirror the Go side's JSON; the generated
// classes in wailsjs/go/models.ts type enums as plain strings, so values are
// checked once, in toServerView, and the rest of the UI gets exact unions.

export const TRANSPORTS = ['stdio', 'http', 'sse'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export const SERVER_STATES = ['stopped', 'starting', 'running', 'restarting', 'errored'] as const;
export type ServerState = (typeof SERVER_STATES)[number];

export interface ServerView {
  name: string;
  transport: Transport;
  enabled: boolean;
  state: ServerState;
  /** Why the server is errored; empty when it is not. */
  error?: string;
  restarts: number;
  tools: number;
  /** Command line (stdio) or URL (http, sse). */
  target: string;
}

export type Unsubscribe = () => void;

/** Everything the UI may ask of the Go side. Stores receive one of these. */
export interface Api {
  listServers(): Promise<ServerView[]>;
  /** Tells the Go side a page has rendered (it logs `frontend ready: <page>`). */
  frontendReady(page: string): Promise<void>;
  /** Calls `handler` on every `servers:changed` event until unsubscribed. */
  onServerChanged(handler: (server: ServerView) => void): Unsubscribe;
  /** Calls `handler` with the name of every server removed, until unsubscribed. */
  onServerRemoved(handler: (name: string) => void): Unsubscribe;
}

/** Any failure of an Api call; `message` is ready to show to the user. */
export class ApiError extends Error {
  override name = 'ApiError';
}
