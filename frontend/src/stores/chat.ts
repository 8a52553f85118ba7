import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  toApiError,
  type Api,
  type ChatCard,
  type ChatConversation,
  type ChatConversationView,
  type ChatEvent,
  type ChatNotice,
  type ChatProvider,
  type ChatProviderInput,
  type ChatStatus,
  type Decision,
  type Unsubscribe,
} from '../api';

/** The turn in progress (or the last one) of the open conversation. */
export interface Turn {
  running: boolean;
  /** Text streamed so far; earlier rounds (text before tool calls) are separate. */
  text: string;
  rounds: string[];
  cards: ChatCard[];
  notices: ChatNotice[];
  usage: { input: number; output: number } | null;
  error: string | null;
}

const idle: Turn = { running: false, text: '', rounds: [], cards: [], notices: [], usage: null, error: null };

export interface ChatState {
  status: ChatStatus | null;
  providers: ChatProvider[];
  conversations: ChatConversation[];
  current: ChatConversationView | null;
  turn: Turn;
  models: Record<string, string[]>;
  modelsError: string | null;
  loading: boolean;
  error: string | null;
  load(): Promise<void>;
  open(id: number): Promise<void>;
  create(): Promise<void>;
  send(text: string): Promise<boolean>;
  stop(): Promise<void>;
  retry(): Promise<void>;
  approve(callId: string, decision: Decision): Promise<void>;
  update(patch: Partial<Pick<ChatConversation, 'provider' | 'model' | 'disabledServers' | 'title'>>): Promise<void>;
  remove(id: number): Promise<void>;
  loadModels(provider: string): Promise<void>;
  saveProvider(p: ChatProviderInput): Promise<string | null>;
  removeProvider(name: string): Promise<string | null>;
  /** Follows chat:event (and refetches after a reconnect) until released. */
  listen(): Unsubscribe;
}

export type ChatStore = StoreApi<ChatState>;

type ChatDeps = Pick<
  Api,
  | 'chatStatus'
  | 'chatProviders'
  | 'saveChatProvider'
  | 'removeChatProvider'
  | 'chatModels'
  | 'chatConversations'
  | 'getChatConversation'
  | 'newChatConversation'
  | 'updateChatConversation'
  | 'removeChatConversation'
  | 'sendChatMessage'
  | 'retryChatMessage'
  | 'stopChat'
  | 'approveChatTool'
  | 'onChatEvent'
  | 'onReconnect'
>;

const LAST_KEY = 'mcpr.chat.last';

function upsert(cards: ChatCard[], c: ChatCard): ChatCard[] {
  const i = cards.findIndex((x) => x.id === c.id);
  if (i < 0) return [...cards, c];
  const out = [...cards];
  out[i] = c;
  return out;
}

export function createChatStore(api: ChatDeps): ChatStore {
  return createStore<ChatState>()((set, get) => {
    const fail = (err: unknown) => set({ error: toApiError(err).message });
    const refreshList = async () => {
      try {
        set({ conversations: await api.chatConversations() });
      } catch (err) {
        fail(err);
      }
    };
    const onEvent = (e: ChatEvent) => {
      const cur = get().current;
      if (!cur || e.conversation !== cur.id) {
        if (e.type === 'done') void refreshList();
        return;
      }
      const t = get().turn;
      switch (e.type) {
        case 'start':
          set({ turn: { ...idle, running: true } });
          break;
        case 'text':
          set({ turn: { ...t, text: t.text + (e.text ?? '') } });
          break;
        case 'round':
          set({ turn: { ...t, rounds: t.text ? [...t.rounds, t.text] : t.rounds, text: '' } });
          break;
        case 'card':
          if (e.card) set({ turn: { ...t, cards: upsert(t.cards, e.card) } });
          break;
        case 'notice':
          if (e.notice) set({ turn: { ...t, notices: [...t.notices, e.notice] } });
          break;
        case 'usage':
          set({ turn: { ...t, usage: e.usage ?? null } });
          break;
        case 'done':
          set({ turn: { ...t, running: false, error: e.error ?? null } });
          void get().open(cur.id).then(refreshList);
          break;
      }
    };
    return {
      status: null,
      providers: [],
      conversations: [],
      current: null,
      turn: idle,
      models: {},
      modelsError: null,
      loading: false,
      error: null,
      async load() {
        set({ loading: true });
        try {
          const [status, providers, conversations] = await Promise.all([api.chatStatus(), api.chatProviders(), api.chatConversations()]);
          set({ status, providers, conversations, loading: false, error: null });
          const last = Number(localStorage.getItem(LAST_KEY) ?? '0');
          const cur = get().current;
          const id = cur?.id ?? (conversations.some((c) => c.id === last) ? last : conversations[0]?.id);
          if (id) await get().open(id);
        } catch (err) {
          set({ loading: false });
          fail(err);
        }
      },
      async open(id) {
        try {
          const view = await api.getChatConversation(id);
          const same = get().current?.id === id;
          const t = get().turn;
          set({
            current: view,
            error: null,
            // A reloaded page gets the last turn's cards from the router; a
            // turn still running keeps what this page streamed so far.
            turn:
              same && t.running && view.running
                ? t
                : { ...idle, running: view.running, cards: view.cards, notices: same ? t.notices : [], usage: same ? t.usage : null, error: same ? t.error : null },
          });
          try {
            localStorage.setItem(LAST_KEY, String(id));
          } catch {
            // storage disabled: the page opens the newest conversation instead
          }
        } catch (err) {
          fail(err);
        }
      },
      async create() {
        try {
          const c = await api.newChatConversation({ title: '', provider: '', model: '', disabledServers: [] });
          set({ conversations: [c, ...get().conversations] });
          await get().open(c.id);
        } catch (err) {
          fail(err);
        }
      },
      async send(text) {
        let cur = get().current;
        if (!cur) {
          await get().create();
          cur = get().current;
          if (!cur) return false;
        }
        const optimistic = { id: -Date.now(), role: 'user' as const, content: text, inputTokens: 0, outputTokens: 0, toolCalls: 0, createdAt: new Date().toISOString() };
        set({ current: { ...cur, messages: [...cur.messages, optimistic] }, turn: { ...idle, running: true } });
        try {
          await api.sendChatMessage(cur.id, text);
          return true;
        } catch (err) {
          set({ current: cur, turn: idle });
          fail(err);
          return false;
        }
      },
      async stop() {
        const cur = get().current;
        if (!cur) return;
        try {
          await api.stopChat(cur.id);
        } catch (err) {
          fail(err);
        }
      },
      async retry() {
        const cur = get().current;
        if (!cur) return;
        set({ turn: { ...idle, running: true } });
        try {
          await api.retryChatMessage(cur.id);
        } catch (err) {
          set({ turn: idle });
          fail(err);
        }
      },
      async approve(callId, decision) {
        const cur = get().current;
        if (!cur) return;
        try {
          await api.approveChatTool(cur.id, callId, decision);
        } catch (err) {
          fail(err);
        }
      },
      async update(patch) {
        const cur = get().current;
        if (!cur) return;
        try {
          const c = await api.updateChatConversation(cur.id, {
            title: patch.title ?? cur.title,
            provider: patch.provider ?? cur.provider,
            model: patch.model ?? cur.model,
            disabledServers: patch.disabledServers ?? cur.disabledServers,
          });
          set({ current: { ...cur, ...c }, conversations: get().conversations.map((x) => (x.id === c.id ? c : x)), error: null });
        } catch (err) {
          fail(err);
        }
      },
      async remove(id) {
        try {
          await api.removeChatConversation(id);
          const rest = get().conversations.filter((c) => c.id !== id);
          set({ conversations: rest });
          if (get().current?.id === id) {
            set({ current: null, turn: idle });
            if (rest[0]) await get().open(rest[0].id);
          }
        } catch (err) {
          fail(err);
        }
      },
      async loadModels(provider) {
        try {
          const list = await api.chatModels(provider);
          set({ models: { ...get().models, [provider]: list }, modelsError: null });
        } catch (err) {
          set({ modelsError: toApiError(err).message });
        }
      },
      async saveProvider(p) {
        try {
          await api.saveChatProvider(p);
          const [status, providers] = await Promise.all([api.chatStatus(), api.chatProviders()]);
          set({ status, providers });
          return null;
        } catch (err) {
          return toApiError(err).message;
        }
      },
      async removeProvider(name) {
        try {
          await api.removeChatProvider(name);
          const [status, providers] = await Promise.all([api.chatStatus(), api.chatProviders()]);
          set({ status, providers });
          return null;
        } catch (err) {
          return toApiError(err).message;
        }
      },
      listen() {
        const stopEvents = api.onChatEvent(onEvent);
        const stopReconnect = api.onReconnect(() => {
          const cur = get().current;
          if (cur) void get().open(cur.id);
          void refreshList();
        });
        return () => {
          stopEvents();
          stopReconnect();
        };
      },
    };
  });
}
