export * from './types';
export { toServerView, toApiError } from './convert';
export { createApi } from './client';
export type { ApiTransport } from './transport';
export { wailsTransport, hasWailsBridge } from './wails';
export { httpTransport, getSession, tokenStore, type Session } from './http';
export * from './chat';
export * from './approvals';
export * from './about';
