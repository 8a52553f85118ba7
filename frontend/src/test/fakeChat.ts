import { vi } from 'vitest';
import type { Api, ChatCard, ChatConversation, ChatConversationView, ChatEnvProvider, ChatEvent, ChatProvider, ChatStatus } from '../api';

export function chatStatus(over: Partial<ChatStatus> = {}): ChatStatus {
  return { configured: true, mcpEnabled: true, toolsSetting: true, keyStore: 'keychain', maxRounds: 20, toolTimeoutSeconds: 60, ...over };
}

export function chatCard(id: string, over: Partial<ChatCard> = {}): ChatCard {
  return { id, server: 'weather', tool: 'get_forecast', name: 'weather__get_forecast', args: '{"area":"Tokyo"}', status: 'done',
    result: 'sunny', isError: false, startedAt: 0, durationMs: 12.5, ...over };
}

/** The chat part of fakeApi: an in-memory router for the chat methods. */
export function fakeChat() {
  const handlers = new Set<(e: ChatEvent) => void>();
  let nextId = 1;
  let providers: ChatProvider[] = [
    { id: 1, name: 'openai', kind: 'openai', baseUrl: '', defaultModel: 'gpt-x', tools: 'auto', hasKey: true, keyMask: 'sk-…abcd' },
  ];
  // What the router's environment offers when no provider is configured.
  let environment: ChatEnvProvider | undefined;
  let environmentError: string | undefined;
  const convs = new Map<number, ChatConversationView>();
  const summary = (v: ChatConversationView): ChatConversation => {
    const { messages: _m, cards: _c, running: _r, ...c } = v;
    return c;
  };
  const api = {
    chatStatus: vi.fn<Api['chatStatus']>(async () =>
      providers.length > 0 ? chatStatus() : chatStatus({ configured: false, environment, environmentError, hint: environment ? undefined : 'set OPENAI_API_KEY …' }),
    ),
    chatProviders: vi.fn<Api['chatProviders']>(async () => providers),
    saveChatProvider: vi.fn<Api['saveChatProvider']>(async (p) => {
      const v: ChatProvider = { id: providers.length + 1, name: p.name, kind: p.kind, baseUrl: p.baseUrl, defaultModel: p.defaultModel,
        tools: p.tools, hasKey: !!p.apiKey, keyMask: p.apiKey ? 'sk-…' + p.apiKey.slice(-4) : undefined };
      providers = [...providers.filter((x) => x.name !== p.name), v];
      return v;
    }),
    removeChatProvider: vi.fn<Api['removeChatProvider']>(async (name) => {
      providers = providers.filter((x) => x.name !== name);
    }),
    chatModels: vi.fn<Api['chatModels']>(async () => ['gpt-x', 'gpt-y']),
    chatConversations: vi.fn<Api['chatConversations']>(async () => [...convs.values()].map(summary).reverse()),
    getChatConversation: vi.fn<Api['getChatConversation']>(async (id) => {
      const v = convs.get(id);
      if (!v) throw new Error(`conversation ${id}: not found`);
      return structuredClone(v);
    }),
    newChatConversation: vi.fn<Api['newChatConversation']>(async (c) => {
      // As the router: "" picks the first provider, else stays "" (the environment's).
      const first = providers[0];
      const v: ChatConversationView = { id: nextId++, title: c.title, provider: c.provider || first?.name || '',
        model: c.model || first?.defaultModel || (environment?.model ?? ''),
        disabledServers: c.disabledServers, approvedTools: [], inputTokens: 0, outputTokens: 0, updatedAt: '', messages: [], cards: [], running: false };
      convs.set(v.id, v);
      return summary(v);
    }),
    updateChatConversation: vi.fn<Api['updateChatConversation']>(async (id, c) => {
      const v = convs.get(id)!;
      Object.assign(v, c);
      return summary(v);
    }),
    removeChatConversation: vi.fn<Api['removeChatConversation']>(async (id) => {
      convs.delete(id);
    }),
    sendChatMessage: vi.fn<Api['sendChatMessage']>(async (id, text) => {
      const v = convs.get(id)!;
      v.messages.push({ id: v.messages.length + 1, role: 'user', content: text, inputTokens: 0, outputTokens: 0, toolCalls: 0, createdAt: '' });
      v.running = true;
      if (!v.title) v.title = text;
    }),
    retryChatMessage: vi.fn<Api['retryChatMessage']>(async () => {}),
    stopChat: vi.fn<Api['stopChat']>(async () => {}),
    approveChatTool: vi.fn<Api['approveChatTool']>(async () => {}),
    onChatEvent: vi.fn<Api['onChatEvent']>((fn) => {
      handlers.add(fn);
      return () => {
        handlers.delete(fn);
      };
    }),
  };
  return {
    api,
    convs,
    /** Delivers a chat:event. */
    chatEvent: (e: ChatEvent) => handlers.forEach((fn) => fn(e)),
    /** Ends conversation id's turn with answer, as the router would store it. */
    finish: (id: number, answer: string, cards: ChatCard[] = []) => {
      const v = convs.get(id)!;
      const m = { id: v.messages.length + 1, role: 'assistant' as const, content: answer, inputTokens: 10, outputTokens: 5, toolCalls: cards.length, createdAt: '' };
      v.messages.push(m);
      v.running = false;
      v.cards = cards;
      v.inputTokens += 10;
      v.outputTokens += 5;
      handlers.forEach((fn) => fn({ conversation: id, type: 'done', message: m }));
    },
    chatListenerCount: () => handlers.size,
    /** Sets what the environment offers (seen while no provider is configured). */
    setEnvironment: (env: ChatEnvProvider | undefined, error?: string) => {
      environment = env;
      environmentError = error;
    },
  };
}
