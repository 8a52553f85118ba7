import type { ServerConfig } from '../api';
import '../pages/ChatPage.css';
import { useMessages } from '../i18n';

/** A server's chat settings (spec.Chat), as the server form edits them. */
export interface ServerChat {
  systemInstruction?: string;
  responseInstruction?: string;
  autoContextTool?: string;
  approve?: string;
  approveTools?: string[];
}

export function chatOf(c: ServerConfig | undefined): ServerChat {
  const raw = (c?.chat ?? {}) as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    systemInstruction: s(raw.systemInstruction),
    responseInstruction: s(raw.responseInstruction),
    autoContextTool: s(raw.autoContextTool),
    approve: s(raw.approve),
    approveTools: Array.isArray(raw.approveTools) ? raw.approveTools.filter((x): x is string => typeof x === 'string') : undefined,
  };
}

/** The chat settings without empty fields, as the router stores them. */
export function cleanChat(c: ServerChat): ServerChat {
  const out: ServerChat = {};
  if (c.systemInstruction?.trim()) out.systemInstruction = c.systemInstruction.trim();
  if (c.responseInstruction?.trim()) out.responseInstruction = c.responseInstruction.trim();
  if (c.autoContextTool?.trim()) out.autoContextTool = c.autoContextTool.trim();
  if (c.approve === 'always') out.approve = 'always';
  const tools = (c.approveTools ?? []).map((x) => x.trim()).filter((x) => x !== '');
  if (tools.length > 0) out.approveTools = tools;
  return out;
}

/** The "Chat panel" part of the server form (seed 003's per-server fields). */
export function ServerChatFields({ value, onChange }: { value: ServerChat; onChange: (v: ServerChat) => void }) {
  const t = useMessages();
  const set = (patch: Partial<ServerChat>) => onChange({ ...value, ...patch });
  const open = !!(value.systemInstruction || value.responseInstruction || value.autoContextTool || value.approve || value.approveTools?.length);
  return (
    <details className="server-chat" open={open} data-testid="form-chat">
      <summary>{t.serverChatTitle}</summary>
      <label className="field">
        <span>{t.serverChatSystem}</span>
        <textarea rows={2} value={value.systemInstruction ?? ''} onChange={(e) => set({ systemInstruction: e.target.value })} data-testid="form-chat-system" />
        <span className="field-hint">{t.serverChatSystemHint}</span>
      </label>
      <label className="field">
        <span>{t.serverChatResponse}</span>
        <textarea rows={2} value={value.responseInstruction ?? ''} onChange={(e) => set({ responseInstruction: e.target.value })} data-testid="form-chat-response" />
        <span className="field-hint">{t.serverChatResponseHint}</span>
      </label>
      <label className="field">
        <span>{t.serverChatAuto}</span>
        <input value={value.autoContextTool ?? ''} onChange={(e) => set({ autoContextTool: e.target.value })} spellCheck={false} data-testid="form-chat-auto" />
        <span className="field-hint">{t.serverChatAutoHint}</span>
      </label>
      <label className="check">
        <input type="checkbox" checked={value.approve === 'always'} onChange={(e) => set({ approve: e.target.checked ? 'always' : '' })} data-testid="form-chat-approve" />
        {t.serverChatApprove}
      </label>
      {value.approve !== 'always' && (
        <label className="field">
          <span>{t.serverChatApproveTools}</span>
          <input
            value={(value.approveTools ?? []).join(', ')}
            onChange={(e) => set({ approveTools: e.target.value.split(',') })}
            spellCheck={false}
            data-testid="form-chat-approve-tools"
          />
        </label>
      )}
    </details>
  );
}
