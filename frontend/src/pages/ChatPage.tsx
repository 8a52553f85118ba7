import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ChatCard, ChatConversationView, ChatMessage, ChatNotice, ServerView } from '../api';
import { useMessages, type Messages } from '../i18n';
import { copyText } from '../lib/clipboard';
import { useApp, useChat, useServers } from '../stores';
import type { Turn } from '../stores/chat';
import './ChatPage.css';
import './pages.css';

/** The chat panel: conversations with a model that uses the router's tools. */
export default function ChatPage() {
  const t = useMessages();
  const load = useChat((s) => s.load);
  const listen = useChat((s) => s.listen);
  const status = useChat((s) => s.status);
  const loading = useChat((s) => s.loading);
  const error = useChat((s) => s.error);
  const loadServers = useServers((s) => s.load);
  const listenServers = useServers((s) => s.listen);
  const pageReady = useApp((s) => s.pageReady);

  useEffect(() => {
    const stop = listen();
    const stopServers = listenServers();
    void load();
    void loadServers();
    return () => {
      stop();
      stopServers();
    };
  }, [listen, load, listenServers, loadServers]);
  useEffect(() => {
    if (status) pageReady('chat');
  }, [status, pageReady]);

  return (
    <section className="page chat-page" data-testid="chat-page" aria-labelledby="chat-title">
      <header className="page-header">
        <h1 id="chat-title">{t.chatTitle}</h1>
      </header>
      {!status && loading && (
        <p className="muted" role="status">
          <span className="spinner" /> {t.loadingPage}
        </p>
      )}
      {error && (
        <p className="inline-error" role="alert" data-testid="chat-error">
          {error}
        </p>
      )}
      {status && !status.configured && !status.environment && <NoProvider hint={status.hint} envError={status.environmentError} />}
      {status && (status.configured || status.environment) && (
        <>
          {!status.configured && status.environment && (
            <p className="chat-banner" data-testid="chat-env-provider">
              <strong>{t.chatProviderFromEnv(status.environment.label)}</strong> <span className="muted small">{status.environment.reason}</span>
              <br />
              <span className="muted small">{t.chatEnvHint}</span>
            </p>
          )}
          {!status.mcpEnabled && <p className="chat-banner">{t.chatMcpOff}</p>}
          {status.mcpEnabled && !status.toolsSetting && <p className="chat-banner">{t.chatToolsSettingOff}</p>}
          <div className="chat-layout">
            <Conversations />
            <Conversation />
          </div>
        </>
      )}
    </section>
  );
}

function NoProvider({ hint, envError }: { hint?: string; envError?: string }) {
  const t = useMessages();
  return (
    <div className="card" data-testid="chat-no-provider">
      <h2>{t.chatNoProviderTitle}</h2>
      {envError && (
        <p className="inline-error" role="alert" data-testid="chat-env-error">
          {t.chatEnvError(envError)}
        </p>
      )}
      <p>{t.chatNoProviderBody}</p>
      <pre className="code">mcp-router chat providers add ollama --kind openai --base-url http://127.0.0.1:11434/v1 --model llama3.2</pre>
      {hint && <p className="muted small">{hint}</p>}
      <a className="button primary" href="#settings">
        {t.chatOpenSettings}
      </a>
    </div>
  );
}

function Conversations() {
  const t = useMessages();
  const conversations = useChat((s) => s.conversations);
  const current = useChat((s) => s.current);
  const env = useChat((s) => (s.status?.configured ? undefined : s.status?.environment));
  const open = useChat((s) => s.open);
  const create = useChat((s) => s.create);
  return (
    <nav className="chat-list" aria-label={t.chatConversations}>
      <button type="button" className="primary" onClick={() => void create()} data-testid="chat-new">
        {t.chatNew}
      </button>
      {conversations.length === 0 && <p className="muted small">{t.chatNoConversations}</p>}
      <ul className="list">
        {conversations.map((c) => (
          <li key={c.id}>
            <button type="button" className="item" aria-current={c.id === current?.id} onClick={() => void open(c.id)} data-testid={`chat-conv-${c.id}`}>
              <span className="chat-conv-title">{c.title || t.chatUntitled}</span>
              <span className="item-sub">
                {c.provider || (env ? t.chatProviderEnvName(env.label) : '')} · {c.model}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Conversation() {
  const t = useMessages();
  const current = useChat((s) => s.current);
  const turn = useChat((s) => s.turn);
  const send = useChat((s) => s.send);
  const stop = useChat((s) => s.stop);
  const retry = useChat((s) => s.retry);
  const [draft, setDraft] = useState('');
  const bottom = useRef<HTMLDivElement>(null);

  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [current?.messages.length, turn.text, turn.cards.length]);

  const submit = async () => {
    const text = draft.trim();
    if (!text || turn.running) return;
    if (await send(text)) setDraft('');
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };
  const messages = current?.messages ?? [];
  const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant');
  const cardsBefore = turn.running ? undefined : lastAssistant?.id;

  return (
    <div className="chat-main">
      {current && <ConversationHeader conv={current} turn={turn} />}
      <div className="chat-messages" data-testid="chat-messages" aria-live="polite">
        {messages.map((m) => (
          <div key={m.id}>
            {m.id === cardsBefore && turn.cards.length > 0 && <Cards cards={turn.cards} />}
            {m.id === cardsBefore && <Notices notices={turn.notices} />}
            <Message m={m} last={m.id === lastAssistant?.id} onRetry={() => void retry()} running={turn.running} t={t} />
          </div>
        ))}
        {turn.running && <Live turn={turn} />}
        <div ref={bottom} />
      </div>
      <div className="chat-composer">
        <textarea
          rows={3}
          value={draft}
          placeholder={t.chatPlaceholder}
          aria-label={t.chatPlaceholder}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKey}
          data-testid="chat-input"
        />
        {turn.running ? (
          <button type="button" onClick={() => void stop()} data-testid="chat-stop">
            {t.chatStop}
          </button>
        ) : (
          <button type="button" className="primary" disabled={!draft.trim()} onClick={() => void submit()} data-testid="chat-send">
            {t.chatSend}
          </button>
        )}
      </div>
    </div>
  );
}

function ConversationHeader({ conv, turn }: { conv: ChatConversationView; turn: Turn }) {
  const t = useMessages();
  const providers = useChat((s) => s.providers);
  // With no provider configured the conversation's provider is "": the
  // environment's, which the router picks per turn.
  const env = useChat((s) => (s.status?.configured ? undefined : s.status?.environment));
  const models = useChat((s) => s.models);
  const modelsError = useChat((s) => s.modelsError);
  const loadModels = useChat((s) => s.loadModels);
  const update = useChat((s) => s.update);
  const remove = useChat((s) => s.remove);
  const servers = useServers((s) => s.servers);
  const withTools = servers.filter((s: ServerView) => s.enabled && s.tools > 0);
  const list = models[conv.provider] ?? [];
  const options = list.includes(conv.model) || !conv.model ? list : [conv.model, ...list];

  useEffect(() => {
    if ((conv.provider || env) && !models[conv.provider]) void loadModels(conv.provider);
  }, [conv.provider, env, models, loadModels]);

  const toggle = (name: string, on: boolean) => {
    const off = new Set(conv.disabledServers);
    if (on) off.delete(name);
    else off.add(name);
    void update({ disabledServers: [...off].sort() });
  };

  return (
    <div className="chat-header">
      <div className="row">
        <h2 className="grow chat-conv-heading">{conv.title || t.chatUntitled}</h2>
        <button type="button" className="link" onClick={() => void remove(conv.id)} data-testid="chat-delete">
          {t.chatDelete}
        </button>
      </div>
      <div className="row chat-controls">
        <label className="field">
          <span>{t.chatProvider}</span>
          {!conv.provider && env ? (
            <span className="chat-provider-env" title={env.reason} data-testid="chat-provider-env">
              {t.chatProviderEnvName(env.label)}
            </span>
          ) : (
            <select value={conv.provider} onChange={(e) => void update({ provider: e.target.value, model: providers.find((p) => p.name === e.target.value)?.defaultModel ?? '' })} data-testid="chat-provider">
              {providers.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                </option>
              ))}
            </select>
          )}
        </label>
        <label className="field">
          <span>{t.chatModel}</span>
          <select value={conv.model} onChange={(e) => void update({ model: e.target.value })} data-testid="chat-model">
            {options.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
          {modelsError && <span className="field-error">{t.chatModelsFailed}: {modelsError}</span>}
        </label>
        <details className="chat-tools-menu" data-testid="chat-tools-menu">
          <summary>
            {t.chatServers} ({withTools.filter((s) => !conv.disabledServers.includes(s.name)).length}/{withTools.length})
          </summary>
          <p className="muted small">{t.chatServersHint}</p>
          {withTools.length === 0 && <p className="muted small">{t.chatNoServers}</p>}
          {withTools.map((s) => (
            <label key={s.name} className="check">
              <input type="checkbox" checked={!conv.disabledServers.includes(s.name)} onChange={(e) => toggle(s.name, e.target.checked)} data-testid={`chat-server-${s.name}`} />
              {s.name} <span className="muted small">({s.tools})</span>
            </label>
          ))}
        </details>
        <span className="grow" />
        <span className="muted small chat-usage" data-testid="chat-usage">
          {turn.usage && <span>{t.chatUsageTurn(turn.usage.input, turn.usage.output)} · </span>}
          {t.chatUsageConv(conv.inputTokens, conv.outputTokens)}
        </span>
      </div>
    </div>
  );
}

function Message({ m, last, running, onRetry, t }: { m: ChatMessage; last: boolean; running: boolean; onRetry: () => void; t: Messages }) {
  const [copied, setCopied] = useState(false);
  if (m.role === 'user') {
    return (
      <div className="chat-msg chat-user" data-testid="chat-msg-user">
        {m.content}
      </div>
    );
  }
  const failed = m.error && m.error !== 'stopped';
  return (
    <div className="chat-msg chat-assistant" data-testid="chat-msg-assistant">
      {m.content && <div className="chat-text">{m.content}</div>}
      {m.error === 'stopped' && <p className="muted small">{t.chatStopped}</p>}
      {failed && (
        <p className="inline-error" role="alert">
          {t.chatFailed(m.error ?? '')}
        </p>
      )}
      <div className="chat-msg-actions">
        {m.content && (
          <button
            type="button"
            className="link small"
            onClick={() => void copyText(m.content).then((ok) => ok && (setCopied(true), setTimeout(() => setCopied(false), 1500)))}
            data-testid="chat-copy"
          >
            {copied ? t.copied : t.chatCopy}
          </button>
        )}
        {last && !running && (
          <button type="button" className="link small" onClick={onRetry} data-testid="chat-retry">
            {t.chatRetry}
          </button>
        )}
        {(m.inputTokens > 0 || m.outputTokens > 0) && (
          <span className="muted small">
            {t.chatUsageTurn(m.inputTokens, m.outputTokens)}
            {m.model ? ` · ${m.model}` : ''}
          </span>
        )}
      </div>
    </div>
  );
}

function Live({ turn }: { turn: Turn }) {
  const t = useMessages();
  return (
    <div className="chat-msg chat-assistant chat-live" data-testid="chat-live">
      {turn.rounds.map((r, i) => (
        <div key={i} className="chat-text chat-round">
          {r}
        </div>
      ))}
      <Cards cards={turn.cards} />
      <Notices notices={turn.notices} />
      {turn.text ? (
        <div className="chat-text" data-testid="chat-streaming">
          {turn.text}
          <span className="chat-caret" />
        </div>
      ) : (
        <p className="muted small">
          <span className="spinner" /> {t.chatThinking}
        </p>
      )}
    </div>
  );
}

function Notices({ notices }: { notices: ChatNotice[] }) {
  const t = useMessages();
  return (
    <>
      {notices.map((n, i) => (
        <p key={i} className="chat-notice" data-testid={`chat-notice-${n.code}`}>
          {n.code === 'tools_off' || n.code === 'tools_disabled' ? t.chatToolsOff(n.text) : n.code === 'loop_limit' ? t.chatLoopLimit(n.text) : t.chatNotice(n.text)}
        </p>
      ))}
    </>
  );
}

function Cards({ cards }: { cards: ChatCard[] }) {
  return (
    <div className="chat-cards">
      {cards.map((c) => (
        <Card key={c.id} c={c} />
      ))}
    </div>
  );
}

function pretty(s: string): string {
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}

function Card({ c }: { c: ChatCard }) {
  const t = useMessages();
  const approve = useChat((s) => s.approve);
  return (
    <details className={`chat-card chat-card-${c.status}`} open={c.status === 'approval'} data-testid={`chat-card-${c.id}`}>
      <summary>
        <span className="chat-card-dot" />
        <code>{c.server}</code> · <code>{c.tool || c.name}</code>
        {c.autoContext && <span className="tag">{t.cardAuto}</span>}
        <span className="muted small"> · {t.cardStatus[c.status] ?? c.status}</span>
        {c.status !== 'running' && c.status !== 'approval' && <span className="muted small"> · {t.durationMs(c.durationMs)}</span>}
      </summary>
      <div className="chat-card-body">
        <span className="field-label">{t.cardArgs}</span>
        <pre className="code">{pretty(c.args)}</pre>
        {c.result !== undefined && (
          <>
            <span className="field-label">{c.isError ? t.cardError : t.cardResult}</span>
            <pre className={`code${c.isError ? ' chat-card-error' : ''}`}>{c.result}</pre>
          </>
        )}
        {c.status === 'approval' && (
          <div className="row" data-testid="chat-approval">
            <span className="grow">{t.cardApprove}</span>
            <button type="button" className="primary" onClick={() => void approve(c.id, 'once')} data-testid="chat-allow-once">
              {t.cardAllowOnce}
            </button>
            <button type="button" onClick={() => void approve(c.id, 'always')} data-testid="chat-allow-always">
              {t.cardAllowAlways}
            </button>
            <button type="button" onClick={() => void approve(c.id, 'deny')} data-testid="chat-deny">
              {t.cardDeny}
            </button>
          </div>
        )}
      </div>
    </details>
  );
}
