// The chat panel's part of the UI contract (docs/ui-api.md, "Chat"): types,
// the converters that check values as they arrive, and the methods.
import { ApiError, type Call, type On, type Unsubscribe } from './base';

export const CARD_STATUSES = ['approval', 'running', 'done', 'error', 'denied'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];
export const DECISIONS = ['once', 'always', 'deny'] as const;
export type Decision = (typeof DECISIONS)[number];
export const PROVIDER_KINDS = ['openai', 'anthropic'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** The provider a chat uses with none configured: a vendor's key from the environment (never the key itself). */
export interface ChatEnvProvider {
  kind: ProviderKind;
  /** The vendor's name: OpenAI, Anthropic. */
  label: string;
  keyVar: string;
  baseUrlVar?: string;
  baseUrl?: string;
  model: string;
  /** Which variable was used and why this vendor. */
  reason: string;
}

export interface ChatStatus {
  configured: boolean;
  environment?: ChatEnvProvider;
  /** Why the environment's values cannot be used (an empty key, a malformed base URL). */
  environmentError?: string;
  hint?: string;
  mcpEnabled: boolean;
  toolsSetting: boolean;
  keyStore: 'keychain' | 'file';
  keyFile?: string;
  maxRounds: number;
  toolTimeoutSeconds: number;
}

export interface ChatProvider {
  id: number;
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  defaultModel: string;
  tools: 'auto' | 'off';
  hasKey: boolean;
  keyMask?: string;
}

export interface ChatProviderInput {
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  defaultModel: string;
  tools: 'auto' | 'off';
  /** Absent keeps the stored key; "" removes it. */
  apiKey?: string;
}

export interface ChatConversation {
  id: number;
  title: string;
  provider: string;
  model: string;
  disabledServers: string[];
  approvedTools: string[];
  inputTokens: number;
  outputTokens: number;
  updatedAt: string;
}

export interface ChatConversationInput {
  title: string;
  provider: string;
  model: string;
  disabledServers: string[];
}

export interface ChatMessage {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  model?: string;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  error?: string;
  createdAt: string;
}

export interface ChatCard {
  id: string;
  server: string;
  tool: string;
  name: string;
  args: string;
  status: CardStatus;
  result?: string;
  isError: boolean;
  autoContext?: boolean;
  startedAt: number;
  durationMs: number;
}

export interface ChatConversationView extends ChatConversation {
  messages: ChatMessage[];
  cards: ChatCard[];
  running: boolean;
}

export interface ChatNotice {
  code: string;
  text: string;
}

export interface ChatEvent {
  conversation: number;
  type: 'start' | 'text' | 'card' | 'notice' | 'usage' | 'round' | 'done';
  text?: string;
  card?: ChatCard;
  notice?: ChatNotice;
  usage?: { input: number; output: number };
  message?: ChatMessage;
  error?: string;
}

export interface ChatApi {
  chatStatus(): Promise<ChatStatus>;
  chatProviders(): Promise<ChatProvider[]>;
  saveChatProvider(p: ChatProviderInput): Promise<ChatProvider>;
  removeChatProvider(name: string): Promise<void>;
  chatModels(provider: string): Promise<string[]>;
  chatConversations(): Promise<ChatConversation[]>;
  getChatConversation(id: number): Promise<ChatConversationView>;
  newChatConversation(c: ChatConversationInput): Promise<ChatConversation>;
  updateChatConversation(id: number, c: ChatConversationInput): Promise<ChatConversation>;
  removeChatConversation(id: number): Promise<void>;
  sendChatMessage(id: number, text: string): Promise<void>;
  retryChatMessage(id: number): Promise<void>;
  stopChat(id: number): Promise<void>;
  approveChatTool(id: number, callId: string, decision: Decision): Promise<void>;
  onChatEvent(handler: (e: ChatEvent) => void): Unsubscribe;
}

export const CHAT_EVENT = 'chat:event';

type Obj = Record<string, unknown>;
function obj(raw: unknown, what: string): Obj {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError(`${what}: expected an object`);
  return raw as Obj;
}
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const opt = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
function id(r: Obj, what: string): number {
  if (typeof r.id !== 'number') throw new ApiError(`${what}: missing id`);
  return r.id;
}
function list<T>(raw: unknown, each: (x: unknown) => T, what: string): T[] {
  if (raw == null) return [];
  if (!Array.isArray(raw)) throw new ApiError(`${what}: expected a list`);
  return raw.map(each);
}

function toChatEnvProvider(raw: unknown): ChatEnvProvider | undefined {
  if (raw == null) return undefined;
  const r = obj(raw, 'chat environment provider');
  const kind = r.kind === 'anthropic' ? 'anthropic' : r.kind === 'openai' ? 'openai' : null;
  if (!kind) throw new ApiError(`chat environment provider: unknown kind ${JSON.stringify(r.kind)}`);
  return { kind, label: str(r.label), keyVar: str(r.keyVar), baseUrlVar: opt(r.baseUrlVar), baseUrl: opt(r.baseUrl), model: str(r.model), reason: str(r.reason) };
}

export function toChatStatus(raw: unknown): ChatStatus {
  const r = obj(raw, 'chat status');
  return {
    configured: r.configured === true,
    environment: toChatEnvProvider(r.environment),
    environmentError: opt(r.environmentError),
    hint: opt(r.hint),
    mcpEnabled: r.mcpEnabled === true,
    toolsSetting: r.toolsSetting === true,
    keyStore: r.keyStore === 'keychain' ? 'keychain' : 'file',
    keyFile: opt(r.keyFile),
    maxRounds: num(r.maxRounds),
    toolTimeoutSeconds: num(r.toolTimeoutSeconds),
  };
}

export function toChatProvider(raw: unknown): ChatProvider {
  const r = obj(raw, 'chat provider');
  const kind = r.kind === 'anthropic' ? 'anthropic' : r.kind === 'openai' ? 'openai' : null;
  if (!kind) throw new ApiError(`chat provider: unknown kind ${JSON.stringify(r.kind)}`);
  return {
    id: id(r, 'chat provider'),
    name: str(r.name),
    kind,
    baseUrl: str(r.baseUrl),
    defaultModel: str(r.defaultModel),
    tools: r.tools === 'off' ? 'off' : 'auto',
    hasKey: r.hasKey === true,
    keyMask: opt(r.keyMask),
  };
}

export function toChatConversation(raw: unknown): ChatConversation {
  const r = obj(raw, 'conversation');
  return {
    id: id(r, 'conversation'),
    title: str(r.title),
    provider: str(r.provider),
    model: str(r.model),
    disabledServers: strs(r.disabledServers),
    approvedTools: strs(r.approvedTools),
    inputTokens: num(r.inputTokens),
    outputTokens: num(r.outputTokens),
    updatedAt: str(r.updatedAt),
  };
}

export function toChatMessage(raw: unknown): ChatMessage {
  const r = obj(raw, 'chat message');
  return {
    id: id(r, 'chat message'),
    role: r.role === 'assistant' ? 'assistant' : 'user',
    content: str(r.content),
    model: opt(r.model),
    inputTokens: num(r.inputTokens),
    outputTokens: num(r.outputTokens),
    toolCalls: num(r.toolCalls),
    error: opt(r.error),
    createdAt: str(r.createdAt),
  };
}

export function toChatCard(raw: unknown): ChatCard {
  const r = obj(raw, 'tool card');
  const status = r.status as CardStatus;
  if (!CARD_STATUSES.includes(status)) throw new ApiError(`tool card: unknown status ${JSON.stringify(r.status)}`);
  return {
    id: str(r.id),
    server: str(r.server),
    tool: str(r.tool),
    name: str(r.name),
    args: str(r.args) || '{}',
    status,
    result: opt(r.result),
    isError: r.isError === true,
    autoContext: r.autoContext === true || undefined,
    startedAt: num(r.startedAt),
    durationMs: num(r.durationMs),
  };
}

export function toChatConversationView(raw: unknown): ChatConversationView {
  const r = obj(raw, 'conversation');
  return {
    ...toChatConversation(r),
    messages: list(r.messages, toChatMessage, 'messages'),
    cards: list(r.cards, toChatCard, 'cards'),
    running: r.running === true,
  };
}

const EVENT_TYPES = ['start', 'text', 'card', 'notice', 'usage', 'round', 'done'] as const;

export function toChatEvent(raw: unknown): ChatEvent {
  const r = obj(raw, 'chat event');
  const type = r.type as ChatEvent['type'];
  if (!EVENT_TYPES.includes(type)) throw new ApiError(`chat event: unknown type ${JSON.stringify(r.type)}`);
  if (typeof r.conversation !== 'number') throw new ApiError('chat event: missing conversation');
  const e: ChatEvent = { conversation: r.conversation, type };
  if (typeof r.text === 'string') e.text = r.text;
  if (r.card != null) e.card = toChatCard(r.card);
  if (r.notice != null) {
    const n = obj(r.notice, 'notice');
    e.notice = { code: str(n.code), text: str(n.text) };
  }
  if (r.usage != null) {
    const u = obj(r.usage, 'usage');
    e.usage = { input: num(u.input), output: num(u.output) };
  }
  if (r.message != null) e.message = toChatMessage(r.message);
  if (typeof r.error === 'string' && r.error !== '') e.error = r.error;
  return e;
}


/** The chat methods over the client's call and on. */
export function createChatApi(call: Call, on: On): ChatApi {
  const none = () => undefined;
  return {
    chatStatus: () => call('ChatStatus', [], toChatStatus),
    chatProviders: () => call('ChatProviders', [], (r) => list(r, toChatProvider, 'providers')),
    saveChatProvider: (p) => call('SaveChatProvider', [p], toChatProvider),
    removeChatProvider: (name) => call('RemoveChatProvider', [name], none),
    chatModels: (provider) => call('ChatModels', [provider], strs),
    chatConversations: () => call('ChatConversations', [], (r) => list(r, toChatConversation, 'conversations')),
    getChatConversation: (cid) => call('GetChatConversation', [cid], toChatConversationView),
    newChatConversation: (c) => call('NewChatConversation', [c], toChatConversation),
    updateChatConversation: (cid, c) => call('UpdateChatConversation', [cid, c], toChatConversation),
    removeChatConversation: (cid) => call('RemoveChatConversation', [cid], none),
    sendChatMessage: (cid, text) => call('SendChatMessage', [cid, text], none),
    retryChatMessage: (cid) => call('RetryChatMessage', [cid], none),
    stopChat: (cid) => call('StopChat', [cid], none),
    approveChatTool: (cid, callId, decision) => call('ApproveChatTool', [cid, callId, decision], none),
    onChatEvent: (h) => on(CHAT_EVENT, toChatEvent, h),
  };
}
