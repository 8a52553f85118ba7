export * from './types';
export { toServerView, toApiError } from './convert';
export { wailsApi, SERVERS_CHANGED } from './wails';
