// What every part of the UI contract shares: the error of a failed call, a
// subscription's release, and the call and subscribe functions client.ts
// hands each part. It imports nothing, so the parts (about.ts, approvals.ts,
// chat.ts) depend on it and types.ts depends on them, never the other way
// round (src/importCycles.test.ts keeps it so).

/** Any failure of an Api call; `message` is ready to show to the user. */
export class ApiError extends Error {
  override name = 'ApiError';
  /** HTTP status when the call went over HTTP (401 means: log in again). */
  status?: number;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

export type Unsubscribe = () => void;

/** Calls a Go method and checks its answer with convert (client.ts). */
export type Call = <T>(method: string, args: unknown[], convert: (raw: unknown) => T) => Promise<T>;
/** Subscribes to a Go event; a payload convert refuses is dropped (client.ts). */
export type On = <T>(name: string, convert: (raw: unknown) => T, handler: (v: T) => void) => Unsubscribe;
