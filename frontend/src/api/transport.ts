import type { Unsubscribe } from './base';

/**
 * How calls and events reach the Go side. Two implementations: Wails
 * bindings in the desktop window (wails.ts) and HTTP + Server-Sent Events in
 * a browser (http.ts). createApi builds the typed Api over either.
 */
export interface ApiTransport {
  /** Calls the Go method `method` of appapi.API with `args`; resolves to its JSON result. */
  call(method: string, args: unknown[]): Promise<unknown>;
  /** Delivers each payload of the event `name` until unsubscribed. */
  on(name: string, handler: (payload: unknown) => void): Unsubscribe;
  /**
   * Calls `handler` when the event stream came back after a break, so events
   * may have been missed (the HTTP stream ends when a tab falls behind).
   * Optional: the Wails runtime never drops events.
   */
  onReconnect?(handler: () => void): Unsubscribe;
  /** Opens a URL in the user's browser; optional: a browser tab uses window.open. */
  openURL?(url: string): void;
}
