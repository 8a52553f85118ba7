// The desktop shell's transport. Wails injects window.go.<package>.<struct>
// (the bound appapi.API) and window.runtime into the page; the generated
// wailsjs/ modules are thin wrappers over the same two objects. This file and
// the rest of src/api/ are the only places that touch them.
import { BrowserOpenURL, EventsOn } from './wailsjs/runtime/runtime';
import { ApiError } from './base';
import type { ApiTransport } from './transport';

type Bound = Record<string, (...args: unknown[]) => Promise<unknown>>;

declare global {
  interface Window {
    go?: { appapi?: { API?: Bound } } & Record<string, unknown>;
    runtime?: unknown;
  }
}

/**
 * True inside the Wails window: the bound API is there, or the Wails runtime
 * is (then the bindings may still be arriving: calls look them up each time).
 */
export function hasWailsBridge(): boolean {
  if (typeof window === 'undefined') return false;
  const w = window as Window & { WailsInvoke?: unknown };
  return !!window.go?.appapi?.API || !!window.runtime || typeof w.WailsInvoke === 'function';
}

export const wailsTransport: ApiTransport = {
  call(method, args) {
    const api = window.go?.appapi?.API;
    if (!api) return Promise.reject(new ApiError('not connected to MCP Router (the Wails bridge is missing)'));
    const fn = api[method];
    if (typeof fn !== 'function') return Promise.reject(new ApiError(`the app does not offer ${method}; is it older than this page?`));
    return fn(...args);
  },
  on(name, handler) {
    if (!window.runtime) return () => {};
    // EventsOn returns a canceller for this one listener; EventsOff would drop
    // every listener of the event, including other components'.
    return EventsOn(name, (payload: unknown) => handler(payload));
  },
  openURL(url) {
    // The window's webview does not open new windows: the system browser does.
    BrowserOpenURL(url);
  },
};
