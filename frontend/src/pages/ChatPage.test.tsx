import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, server } from '../test/fakeApi';
import { chatCard } from '../test/fakeChat';
import { renderWithApi } from '../test/render';
import ChatPage from './ChatPage';

beforeEach(() => localStorage.clear());

describe('ChatPage', () => {
  it('says how to configure a provider when there is none', async () => {
    const f = fakeApi();
    await f.api.removeChatProvider('openai');
    renderWithApi(<ChatPage />, f.api);
    const card = await screen.findByTestId('chat-no-provider');
    expect(card).toHaveTextContent('No model provider is configured');
    expect(card).toHaveTextContent('mcp-router chat providers add');
    expect(screen.queryByTestId('chat-input')).not.toBeInTheDocument();
  });

  it('streams an answer, shows tool cards and keeps them after the turn', async () => {
    const f = fakeApi([server('weather', { tools: 2 })]);
    const { stores } = renderWithApi(<ChatPage />, f.api);
    await userEvent.type(await screen.findByTestId('chat-input'), 'Weather in Tokyo?{Enter}');
    await waitFor(() => expect(f.api.sendChatMessage).toHaveBeenCalledWith(1, 'Weather in Tokyo?'));
    expect(screen.getByTestId('chat-msg-user')).toHaveTextContent('Weather in Tokyo?');
    expect(screen.getByTestId('chat-stop')).toBeInTheDocument();
    act(() => {
      f.chat.chatEvent({ conversation: 1, type: 'start' });
      f.chat.chatEvent({ conversation: 1, type: 'card', card: chatCard('c1', { status: 'running', result: undefined }) });
    });
    expect(screen.getByTestId('chat-card-c1')).toHaveTextContent('weather · get_forecast · running');
    act(() => {
      f.chat.chatEvent({ conversation: 1, type: 'card', card: chatCard('c1') });
      f.chat.chatEvent({ conversation: 1, type: 'round' });
      f.chat.chatEvent({ conversation: 1, type: 'text', text: 'Sunny ' });
      f.chat.chatEvent({ conversation: 1, type: 'text', text: 'tomorrow.' });
      f.chat.chatEvent({ conversation: 1, type: 'usage', usage: { input: 30, output: 8 } });
    });
    expect(screen.getByTestId('chat-streaming')).toHaveTextContent('Sunny tomorrow.');
    expect(screen.getByTestId('chat-card-c1')).toHaveTextContent('done · 12.5 ms');
    expect(screen.getByTestId('chat-usage')).toHaveTextContent('This turn: 30 in / 8 out tokens');
    // Expanding a card shows its arguments and result.
    await userEvent.click(within(screen.getByTestId('chat-card-c1')).getByText('get_forecast'));
    expect(screen.getByTestId('chat-card-c1')).toHaveTextContent('"area": "Tokyo"');
    await act(async () => f.chat.finish(1, 'Sunny tomorrow.', [chatCard('c1')]));
    await waitFor(() => expect(screen.getByTestId('chat-msg-assistant')).toHaveTextContent('Sunny tomorrow.'));
    expect(screen.queryByTestId('chat-live')).not.toBeInTheDocument();
    expect(screen.getByTestId('chat-card-c1')).toBeInTheDocument();
    expect(screen.getByTestId('chat-usage')).toHaveTextContent('Conversation: 10 in / 5 out tokens');
    expect(stores.chat.getState().conversations[0]?.title).toBe('Weather in Tokyo?');
  });

  it('stops a turn and answers an approval', async () => {
    const f = fakeApi();
    renderWithApi(<ChatPage />, f.api);
    await userEvent.type(await screen.findByTestId('chat-input'), 'delete it{Enter}');
    await waitFor(() => expect(f.api.sendChatMessage).toHaveBeenCalled());
    act(() => f.chat.chatEvent({ conversation: 1, type: 'card', card: chatCard('c9', { status: 'approval', server: 'fs', tool: 'delete', result: undefined }) }));
    expect(screen.getByTestId('chat-approval')).toHaveTextContent('asks for your approval');
    await userEvent.click(screen.getByTestId('chat-deny'));
    expect(f.api.approveChatTool).toHaveBeenCalledWith(1, 'c9', 'deny');
    await userEvent.click(screen.getByTestId('chat-stop'));
    expect(f.api.stopChat).toHaveBeenCalledWith(1);
  });

  it('resumes the last conversation after a reload, with its cards', async () => {
    const f = fakeApi();
    const c = await f.api.newChatConversation({ title: 'old', provider: '', model: '', disabledServers: [] });
    await f.api.sendChatMessage(c.id, 'q');
    f.chat.finish(c.id, 'an answer', [chatCard('k1')]);
    await f.api.newChatConversation({ title: 'newer', provider: '', model: '', disabledServers: [] });
    localStorage.setItem('mcpr.chat.last', String(c.id));
    renderWithApi(<ChatPage />, f.api);
    expect(await screen.findByText('an answer')).toBeInTheDocument();
    expect(screen.getByTestId('chat-card-k1')).toBeInTheDocument();
    expect(screen.getByTestId(`chat-conv-${c.id}`)).toHaveAttribute('aria-current', 'true');
  });

  it('switches models from the provider list and a server’s tools off', async () => {
    const f = fakeApi([server('weather', { tools: 2 }), server('fs', { tools: 5 })]);
    await f.api.newChatConversation({ title: 't', provider: '', model: '', disabledServers: [] });
    renderWithApi(<ChatPage />, f.api);
    const model = await screen.findByTestId('chat-model');
    await waitFor(() => expect(within(model).getByText('gpt-y')).toBeInTheDocument());
    await userEvent.selectOptions(model, 'gpt-y');
    expect(f.api.updateChatConversation).toHaveBeenLastCalledWith(1, expect.objectContaining({ model: 'gpt-y' }));
    await userEvent.click(screen.getByText(/Tools \(2\/2\)/));
    await userEvent.click(screen.getByTestId('chat-server-fs'));
    expect(f.api.updateChatConversation).toHaveBeenLastCalledWith(1, expect.objectContaining({ disabledServers: ['fs'] }));
    await waitFor(() => expect(screen.getByText(/Tools \(1\/2\)/)).toBeInTheDocument());
  });

  it('says when MCP is disabled and speaks Japanese', async () => {
    const f = fakeApi();
    f.api.chatStatus.mockResolvedValue({ configured: true, mcpEnabled: false, toolsSetting: true, keyStore: 'file', keyFile: '/d/chat-keys.json', maxRounds: 20, toolTimeoutSeconds: 60 });
    renderWithApi(<ChatPage />, f.api, 'ja');
    expect(await screen.findByText(/MCP が無効です/)).toBeInTheDocument();
    expect(screen.getByTestId('chat-send')).toHaveTextContent('送信');
  });

  it('chats with the key from the environment when no provider is configured, and says so', async () => {
    const f = fakeApi();
    await f.api.removeChatProvider('openai');
    f.chat.setEnvironment({ kind: 'openai', label: 'OpenAI', keyVar: 'OPENAI_API_KEY', model: 'gpt-5.5',
      reason: 'using OPENAI_API_KEY from the environment (no provider is configured)' });
    renderWithApi(<ChatPage />, f.api);
    const banner = await screen.findByTestId('chat-env-provider');
    expect(banner).toHaveTextContent('Provider: OpenAI (from environment)');
    expect(banner).toHaveTextContent('using OPENAI_API_KEY from the environment (no provider is configured)');
    expect(banner).toHaveTextContent('It is never stored');
    expect(screen.queryByTestId('chat-no-provider')).not.toBeInTheDocument();
    await userEvent.type(screen.getByTestId('chat-input'), 'hello{Enter}');
    await waitFor(() => expect(f.api.sendChatMessage).toHaveBeenCalledWith(1, 'hello'));
    expect(f.api.newChatConversation).toHaveBeenCalledWith(expect.objectContaining({ provider: '' }));
    // The header names the environment's provider instead of a list of configured ones.
    expect(await screen.findByTestId('chat-provider-env')).toHaveTextContent('OpenAI (from environment)');
    expect(screen.queryByTestId('chat-provider')).not.toBeInTheDocument();
    await waitFor(() => expect(f.api.chatModels).toHaveBeenCalledWith(''));
    expect(screen.getByTestId('chat-conv-1')).toHaveTextContent('OpenAI (from environment) · gpt-5.5');
  });

  it('says in Japanese that the provider comes from the environment', async () => {
    const f = fakeApi();
    await f.api.removeChatProvider('openai');
    f.chat.setEnvironment({ kind: 'anthropic', label: 'Anthropic', keyVar: 'ANTHROPIC_API_KEY', model: 'claude-sonnet-5-5', reason: 'using ANTHROPIC_API_KEY' });
    renderWithApi(<ChatPage />, f.api, 'ja');
    expect(await screen.findByTestId('chat-env-provider')).toHaveTextContent('プロバイダー: Anthropic（環境変数から）');
    expect(screen.getByTestId('chat-env-provider')).toHaveTextContent('キーは保存されません');
  });

  it('names a bad value in the environment and keeps the setup card', async () => {
    const f = fakeApi();
    await f.api.removeChatProvider('openai');
    f.chat.setEnvironment(undefined, 'invalid chat input: OPENAI_API_KEY is set but empty: set it to your OpenAI API key, or unset it');
    renderWithApi(<ChatPage />, f.api);
    const card = await screen.findByTestId('chat-no-provider');
    expect(within(card).getByTestId('chat-env-error')).toHaveTextContent('The key in the environment cannot be used: invalid chat input: OPENAI_API_KEY is set but empty');
    expect(card).toHaveTextContent('Set OPENAI_API_KEY or ANTHROPIC_API_KEY');
    expect(screen.queryByTestId('chat-input')).not.toBeInTheDocument();
  });

  it('shows no environment banner while a provider is configured', async () => {
    const f = fakeApi();
    f.api.chatStatus.mockResolvedValue({ configured: true, mcpEnabled: true, toolsSetting: true, keyStore: 'file', maxRounds: 20, toolTimeoutSeconds: 60,
      environment: { kind: 'openai', label: 'OpenAI', keyVar: 'OPENAI_API_KEY', model: 'gpt-5.5', reason: 'r' } });
    renderWithApi(<ChatPage />, f.api);
    await screen.findByTestId('chat-input');
    expect(screen.queryByTestId('chat-env-provider')).not.toBeInTheDocument();
  });

  it('releases its subscriptions on unmount', async () => {
    const f = fakeApi();
    const { unmount } = renderWithApi(<ChatPage />, f.api);
    await screen.findByTestId('chat-input');
    expect(f.chat.chatListenerCount()).toBe(1);
    unmount();
    expect(f.allListenerCount()).toBe(0);
  });
});
