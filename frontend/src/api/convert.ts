import { ApiError, SERVER_STATES, TRANSPORTS, type ServerView } from './types';

function isOneOf<T extends string>(values: readonly T[], v: unknown): v is T {
  return typeof v === 'string' && (values as readonly string[]).includes(v);
}

/**
 * Checks one server as it arrives from Go and narrows it to ServerView.
 * A value outside the contract means the two sides disagree: fail loudly
 * instead of drawing a wrong badge.
 */
export function toServerView(raw: unknown): ServerView {
  if (typeof raw !== 'object' || raw === null) {
    throw new ApiError('server: expected an object');
  }
  const r = raw as Record<string, unknown>;
  if (typeof r.name !== 'string' || r.name === '') {
    throw new ApiError('server: missing name');
  }
  if (!isOneOf(TRANSPORTS, r.transport)) {
    throw new ApiError(`server ${r.name}: unknown transport ${JSON.stringify(r.transport)}`);
  }
  if (!isOneOf(SERVER_STATES, r.state)) {
    throw new ApiError(`server ${r.name}: unknown state ${JSON.stringify(r.state)}`);
  }
  return {
    name: r.name,
    transport: r.transport,
    enabled: r.enabled === true,
    state: r.state,
    error: typeof r.error === 'string' && r.error !== '' ? r.error : undefined,
    restarts: typeof r.restarts === 'number' ? r.restarts : 0,
    tools: typeof r.tools === 'number' ? r.tools : 0,
    target: typeof r.target === 'string' ? r.target : '',
  };
}

/** Wails rejects with the Go error's text as a bare string; make it an Error. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof Error) return new ApiError(err.message);
  if (typeof err === 'string' && err !== '') return new ApiError(err);
  return new ApiError('unknown error');
}
