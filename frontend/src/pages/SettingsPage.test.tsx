import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../App';
import { fakeApi } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import SettingsPage from './SettingsPage';

describe('SettingsPage', () => {
  it('checks values before saving and keeps what was typed', async () => {
    const { api } = fakeApi();
    renderWithApi(<SettingsPage />, api);
    const port = await screen.findByTestId('setting-port');
    await userEvent.clear(port);
    await userEvent.type(port, '70000');
    await userEvent.clear(screen.getByTestId('setting-timeoutSeconds'));
    await userEvent.type(screen.getByTestId('setting-timeoutSeconds'), '0');
    await userEvent.click(screen.getByTestId('settings-save'));
    expect(screen.getByTestId('setting-port-error')).toHaveTextContent('between 1 and 65535');
    expect(screen.getByTestId('setting-timeoutSeconds-error')).toHaveTextContent('at least 1 second');
    expect(api.saveSettings).not.toHaveBeenCalled();
    expect(port).toHaveValue('70000');
  });

  it('says under Chat when the key comes from the environment, en and ja', async () => {
    const f = fakeApi();
    await f.api.removeChatProvider('openai');
    f.chat.setEnvironment({ kind: 'openai', label: 'OpenAI', keyVar: 'OPENAI_API_KEY', model: 'gpt-5.5', reason: 'r' });
    const { unmount } = renderWithApi(<SettingsPage />, f.api);
    expect(await screen.findByTestId('chat-settings-env')).toHaveTextContent('the chat uses OPENAI_API_KEY from the environment (OpenAI); it is never stored');
    unmount();
    renderWithApi(<SettingsPage />, f.api, 'ja');
    expect(await screen.findByTestId('chat-settings-env')).toHaveTextContent('環境変数 OPENAI_API_KEY（OpenAI）を使います');
  });

  it('saves, and shows a refusal naming the field', async () => {
    const { api } = fakeApi();
    api.saveSettings.mockRejectedValueOnce('port: 3282 is in use');
    renderWithApi(<SettingsPage />, api);
    const port = await screen.findByTestId('setting-port');
    await userEvent.clear(port);
    await userEvent.type(port, '4000');
    await userEvent.click(screen.getByTestId('setting-authEnabled'));
    await userEvent.click(screen.getByTestId('settings-save'));
    expect(await screen.findByTestId('settings-save-error')).toHaveTextContent('port: 3282 is in use');
    expect(api.saveSettings).toHaveBeenCalledWith(expect.objectContaining({ port: 4000, authEnabled: true }));
    expect(port).toHaveValue('4000');
    await userEvent.click(screen.getByTestId('settings-save'));
    expect(await screen.findByText('Saved')).toBeInTheDocument();
  });

  it('edits the hook limits: refuses values out of range, saves good ones', async () => {
    const { api } = fakeApi();
    renderWithApi(<SettingsPage />, api);
    const limit = await screen.findByTestId('setting-hookTimeoutSeconds');
    const memory = screen.getByTestId('setting-hookMemoryMB');
    expect(limit).toHaveValue('5');
    expect(memory).toHaveValue('64');
    for (const [timeout, mem] of [['0', '8'], ['301', '4097'], ['1.5', '64MB']] as const) {
      await userEvent.clear(limit);
      await userEvent.type(limit, timeout);
      await userEvent.clear(memory);
      await userEvent.type(memory, mem);
      await userEvent.click(screen.getByTestId('settings-save'));
      expect(screen.getByTestId('setting-hookTimeoutSeconds-error')).toHaveTextContent('1 to 300 seconds');
      expect(screen.getByTestId('setting-hookMemoryMB-error')).toHaveTextContent('16 to 4096 MB');
    }
    expect(api.saveSettings).not.toHaveBeenCalled();
    await userEvent.clear(limit);
    await userEvent.type(limit, '2');
    await userEvent.clear(memory);
    await userEvent.type(memory, '128');
    await userEvent.click(screen.getByTestId('settings-save'));
    expect(await screen.findByText('Saved')).toBeInTheDocument();
    expect(api.saveSettings).toHaveBeenCalledWith(expect.objectContaining({ hookTimeoutSeconds: 2, hookMemoryMB: 128, port: 3282 }));
    expect(limit).toHaveValue('2');
  });

  it('edits the approval timeout with the setting\'s bounds (1–3600 s)', async () => {
    const { api } = fakeApi();
    renderWithApi(<SettingsPage />, api);
    const field = await screen.findByTestId('setting-approvalTimeoutSeconds');
    expect(field).toHaveValue('60');
    for (const bad of ['0', '3601', '1.5', '2m', ' ']) {
      await userEvent.clear(field);
      await userEvent.type(field, bad);
      await userEvent.click(screen.getByTestId('settings-save'));
      expect(screen.getByTestId('setting-approvalTimeoutSeconds-error')).toHaveTextContent('1 to 3600 seconds');
      expect(field).toHaveValue(bad);
    }
    expect(api.saveSettings).not.toHaveBeenCalled();
    for (const good of [1, 3600, 120]) {
      await userEvent.clear(field);
      await userEvent.type(field, String(good));
      await userEvent.click(screen.getByTestId('settings-save'));
      expect(await screen.findByText('Saved')).toBeInTheDocument();
      expect(api.saveSettings).toHaveBeenLastCalledWith(expect.objectContaining({ approvalTimeoutSeconds: good, hookTimeoutSeconds: 5, port: 3282 }));
      expect(screen.queryByTestId('setting-approvalTimeoutSeconds-error')).not.toBeInTheDocument();
    }
    expect(field).toHaveValue('120');
  });

  it('sets what a changed tool does (notify or hold), in en and ja', async () => {
    const { api } = fakeApi();
    renderWithApi(<SettingsPage />, api, 'ja');
    const field = await screen.findByTestId('setting-toolChanges');
    expect(field).toHaveValue('notify');
    expect(screen.getByText('変更されたツール')).toBeInTheDocument();
    await userEvent.selectOptions(field, 'hold');
    await userEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(api.saveSettings).toHaveBeenLastCalledWith(expect.objectContaining({ toolChanges: 'hold', port: 3282 })));
  });

  it("edits the HTTP session limits with the settings' bounds, en and ja", async () => {
    const { api } = fakeApi();
    const { unmount } = renderWithApi(<SettingsPage />, api);
    const per = await screen.findByTestId('setting-sessionsPerCredential');
    const total = screen.getByTestId('setting-sessionsTotal');
    const idle = screen.getByTestId('setting-sessionIdleTimeoutSeconds');
    expect([per, total, idle].map((e) => (e as HTMLInputElement).value)).toEqual(['100', '1000', '600']);
    for (const [p, tot, i] of [['0', '100001', '59'], ['1.5', '', '86401'], ['ten', '-3', '1h']] as const) {
      for (const [field, v] of [[per, p], [total, tot], [idle, i]] as const) {
        await userEvent.clear(field);
        if (v) await userEvent.type(field, v);
      }
      await userEvent.click(screen.getByTestId('settings-save'));
      expect(screen.getByTestId('setting-sessionsPerCredential-error')).toHaveTextContent('1 to 100000');
      expect(screen.getByTestId('setting-sessionsTotal-error')).toHaveTextContent('1 to 100000');
      expect(screen.getByTestId('setting-sessionIdleTimeoutSeconds-error')).toHaveTextContent('60 to 86400 seconds');
    }
    expect(api.saveSettings).not.toHaveBeenCalled();
    for (const [field, v] of [[per, '3'], [total, '100000'], [idle, '60']] as const) {
      await userEvent.clear(field);
      await userEvent.type(field, v);
    }
    await userEvent.click(screen.getByTestId('settings-save'));
    expect(await screen.findByText('Saved')).toBeInTheDocument();
    expect(api.saveSettings).toHaveBeenCalledWith(
      expect.objectContaining({ sessionsPerCredential: 3, sessionsTotal: 100000, sessionIdleTimeoutSeconds: 60, approvalTimeoutSeconds: 60, port: 3282 }),
    );
    unmount();

    renderWithApi(<SettingsPage />, api, 'ja');
    const section = await screen.findByTestId('session-limits');
    expect(section).toHaveTextContent('HTTP セッション');
    await userEvent.clear(screen.getByTestId('setting-sessionIdleTimeoutSeconds'));
    await userEvent.type(screen.getByTestId('setting-sessionIdleTimeoutSeconds'), '30');
    await userEvent.click(screen.getByTestId('settings-save'));
    expect(screen.getByTestId('setting-sessionIdleTimeoutSeconds-error')).toHaveTextContent('60〜86400 秒');
  });

  it('switches theme and language live, across the whole app', async () => {
    window.location.hash = '#settings';
    const { api } = fakeApi();
    renderWithApi(<App />, api);
    await userEvent.selectOptions(await screen.findByTestId('setting-theme'), 'dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    await userEvent.selectOptions(screen.getByTestId('setting-language'), 'ja');
    expect(await screen.findByRole('heading', { name: '設定' })).toBeInTheDocument();
    expect(screen.getByTestId('nav-servers')).toHaveTextContent('サーバー');
    expect(document.documentElement.lang).toBe('ja');
    expect(api.saveSettings).toHaveBeenLastCalledWith(expect.objectContaining({ theme: 'dark', language: 'ja' }));
    await userEvent.selectOptions(screen.getByTestId('setting-theme'), 'system');
    await waitFor(() => expect(document.documentElement.dataset.theme).toBeUndefined());
    window.location.hash = '';
  });

  it('shows where the log file is and opens its folder', async () => {
    const { api } = fakeApi();
    renderWithApi(<SettingsPage />, api);
    expect(await screen.findByTestId('log-file-path')).toHaveTextContent('/home/me/.config/mcp-router/logs/mcp-router.log');
    await userEvent.click(screen.getByTestId('log-file-open'));
    expect(api.openLogFolder).toHaveBeenCalled();
  });

  it('says when there is no log file (mcp-router serve)', async () => {
    const { api } = fakeApi();
    api.logFile.mockResolvedValueOnce({ path: '', folder: '' });
    renderWithApi(<SettingsPage />, api);
    expect(await screen.findByTestId('log-file')).toHaveTextContent('writes no log file');
    expect(screen.queryByTestId('log-file-open')).not.toBeInTheDocument();
  });

  it('says where the endpoint moved after a port change', async () => {
    const { api } = fakeApi();
    renderWithApi(<SettingsPage />, api);
    const port = await screen.findByTestId('setting-port');
    await userEvent.clear(port);
    await userEvent.type(port, '4100');
    await userEvent.click(screen.getByTestId('settings-save'));
    expect(await screen.findByTestId('settings-port-moved')).toHaveTextContent(':4100/mcp');
  });
});
