import { vi } from 'vitest';
import type { Api, ServerView } from '../api';

export function server(name: string, over: Partial<ServerView> = {}): ServerView {
  return {
    name,
    transport: 'stdio',
    enabled: true,
    state: 'running',
    restarts: 0,
    tools: 3,
    target: `npx -y ${name}`,
    ...over,
  };
}

/** An in-memory Api: tests set what listServers returns and push events. */
export function fakeApi(initial: ServerView[] = []) {
  const handlers = new Set<(s: ServerView) => void>();
  const removeHandlers = new Set<(name: string) => void>();
  const api = {
    listServers: vi.fn<Api['listServers']>(async () => initial),
    frontendReady: vi.fn<Api['frontendReady']>(async () => {}),
    onServerChanged: vi.fn<Api['onServerChanged']>((h) => {
      handlers.add(h);
      return () => handlers.delete(h);
    }),
    onServerRemoved: vi.fn<Api['onServerRemoved']>((h) => {
      removeHandlers.add(h);
      return () => removeHandlers.delete(h);
    }),
  } satisfies Api;
  return {
    api,
    /** Delivers a `servers:changed` event to every current listener. */
    emit: (s: ServerView) => handlers.forEach((h) => h(s)),
    /** Delivers a `servers:removed` event to every current listener. */
    remove: (name: string) => removeHandlers.forEach((h) => h(name)),
    listenerCount: () => handlers.size + removeHandlers.size,
  };
}
