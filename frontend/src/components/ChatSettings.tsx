import { useEffect, useState, type FormEvent } from 'react';
import '../pages/ChatPage.css';
import { PROVIDER_KINDS, type ChatProvider, type ChatProviderInput, type ProviderKind } from '../api';
import { useMessages } from '../i18n';
import { useChat } from '../stores';

const blank: ChatProviderInput = { name: '', kind: 'openai', baseUrl: '', defaultModel: '', tools: 'auto' };

/** Settings → Chat: the model providers and where their keys are kept. */
export function ChatSettings() {
  const t = useMessages();
  const status = useChat((s) => s.status);
  const providers = useChat((s) => s.providers);
  const load = useChat((s) => s.load);
  const [editing, setEditing] = useState<string | null>(null);
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <div className="card" data-testid="chat-settings">
      <h2>{t.chatSettingsTitle}</h2>
      <p className="muted">{t.chatSettingsIntro}</p>
      {status && (
        <p className="muted" data-testid="chat-key-store">
          {status.keyStore === 'keychain' ? t.chatKeyStoreKeychain : t.chatKeyStoreFile(status.keyFile ?? '')}
        </p>
      )}
      {status && !status.configured && status.environment && (
        <p className="muted" data-testid="chat-settings-env">
          {t.chatSettingsEnv(status.environment.label, status.environment.keyVar)}
        </p>
      )}
      {status && <p className="muted small">{t.chatLimits(status.maxRounds, status.toolTimeoutSeconds)}</p>}
      <ul className="chat-providers">
        {providers.map((p) => (
          <li key={p.name} data-testid={`chat-provider-${p.name}`}>
            {editing === p.name ? (
              <ProviderForm initial={p} onDone={() => setEditing(null)} />
            ) : (
              <div className="row">
                <strong>{p.name}</strong>
                <span className="tag">{p.kind}</span>
                <span className="muted">{p.baseUrl || '—'}</span>
                <span className="muted">{p.defaultModel || '—'}</span>
                <code>{p.hasKey ? p.keyMask : '—'}</code>
                <span className="grow" />
                <button type="button" onClick={() => setEditing(p.name)}>
                  {t.edit}
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
      {editing === '' ? (
        <ProviderForm onDone={() => setEditing(null)} />
      ) : (
        <button type="button" onClick={() => setEditing('')} data-testid="chat-provider-add">
          {t.chatProviderAdd}
        </button>
      )}
    </div>
  );
}

function ProviderForm({ initial, onDone }: { initial?: ChatProvider; onDone: () => void }) {
  const t = useMessages();
  const save = useChat((s) => s.saveProvider);
  const remove = useChat((s) => s.removeProvider);
  const [v, setV] = useState<ChatProviderInput>(
    initial ? { name: initial.name, kind: initial.kind, baseUrl: initial.baseUrl, defaultModel: initial.defaultModel, tools: initial.tools } : blank,
  );
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input: ChatProviderInput = { ...v };
    if (key.trim() !== '') input.apiKey = key.trim();
    const err = await save(input);
    if (err) setError(err);
    else onDone();
  };
  const act = async (fn: () => Promise<string | null>) => {
    const err = await fn();
    if (err) setError(err);
    else onDone();
  };
  return (
    <form className="chat-provider-form" onSubmit={(e) => void submit(e)} data-testid="chat-provider-form">
      <div className="row">
        <label className="field">
          <span>{t.chatProviderName}</span>
          <input value={v.name} disabled={!!initial} onChange={(e) => setV({ ...v, name: e.target.value })} data-testid="chat-provider-name" />
        </label>
        <label className="field grow">
          <span>{t.chatProviderKind}</span>
          <select value={v.kind} onChange={(e) => setV({ ...v, kind: e.target.value as ProviderKind })} data-testid="chat-provider-kind">
            {PROVIDER_KINDS.map((k) => (
              <option key={k} value={k}>
                {t.chatProviderKindLabel[k]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <label className="field">
        <span>{t.chatProviderBaseUrl}</span>
        <input value={v.baseUrl} onChange={(e) => setV({ ...v, baseUrl: e.target.value })} spellCheck={false} data-testid="chat-provider-url" />
        <span className="field-hint">{t.chatProviderBaseUrlHint}</span>
      </label>
      <div className="row">
        <label className="field grow">
          <span>{t.chatProviderModel}</span>
          <input value={v.defaultModel} onChange={(e) => setV({ ...v, defaultModel: e.target.value })} spellCheck={false} data-testid="chat-provider-model" />
        </label>
        <label className="field grow">
          <span>{t.chatProviderKey}</span>
          <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} data-testid="chat-provider-key" />
          <span className="field-hint">{initial?.hasKey ? t.chatProviderKeyKeep(initial.keyMask ?? '') : t.chatProviderKeyNone}</span>
        </label>
      </div>
      <label className="field">
        <span>{t.chatProviderTools}</span>
        <select value={v.tools} onChange={(e) => setV({ ...v, tools: e.target.value as 'auto' | 'off' })} data-testid="chat-provider-tools">
          {(['auto', 'off'] as const).map((k) => (
            <option key={k} value={k}>
              {t.chatProviderToolsLabel[k]}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        {initial && (
          <>
            <button type="button" onClick={() => void act(() => remove(initial.name))}>
              {t.chatProviderRemove}
            </button>
            {initial.hasKey && (
              <button type="button" onClick={() => void act(() => save({ ...v, apiKey: '' }))}>
                {t.chatProviderRemoveKey}
              </button>
            )}
          </>
        )}
        <span className="grow" />
        <button type="button" onClick={onDone}>
          {t.cancel}
        </button>
        <button type="submit" className="primary" data-testid="chat-provider-save">
          {t.chatProviderSave}
        </button>
      </div>
    </form>
  );
}
