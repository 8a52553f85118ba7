import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { fakeApi, server, token } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import ConnectPage from './ConnectPage';

describe('ConnectPage', () => {
  it('shows the endpoint and whether it runs', async () => {
    const { api } = fakeApi();
    renderWithApi(<ConnectPage />, api);
    expect(await screen.findByTestId('endpoint-url')).toHaveTextContent('http://127.0.0.1:3282/mcp');
    expect(screen.getByTestId('endpoint-state')).toHaveTextContent('Running');
  });

  it('creates a scoped token, shows the secret once with copy, and puts it in the snippet', async () => {
    const { api } = fakeApi([server('everything'), server('files')]);
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderWithApi(<ConnectPage />, api);
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('claude-code http <token>'));

    await userEvent.click(screen.getByTestId('token-create'));
    expect(screen.getByTestId('token-error')).toHaveTextContent('Enter a name.');
    await userEvent.type(screen.getByTestId('token-name'), 'laptop');
    await userEvent.click(await screen.findByTestId('token-scope-files'));
    await userEvent.click(screen.getByTestId('token-create'));
    expect(api.createToken).toHaveBeenCalledWith('laptop', ['files']);
    expect(await screen.findByTestId('token-secret-value')).toHaveTextContent('mcpr_secret123');
    expect(screen.getByTestId('token-row-laptop')).toHaveTextContent('files');

    await userEvent.click(screen.getByTestId('token-copy'));
    expect(writeText).toHaveBeenCalledWith('mcpr_secret123');
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('claude-code http mcpr_secret123'));

    await userEvent.click(screen.getByTestId('snippet-client-vscode'));
    await userEvent.click(screen.getByTestId('snippet-mode-stdio'));
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('vscode stdio mcpr_secret123'));
    await userEvent.click(screen.getByTestId('snippet-copy'));
    expect(writeText).toHaveBeenLastCalledWith('vscode stdio mcpr_secret123');
    expect(screen.getByTestId('snippet-copy')).toHaveTextContent('Copied');
  });

  it('falls back to execCommand when the Clipboard API is missing', async () => {
    const { api } = fakeApi();
    Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true });
    const exec = vi.fn(() => true);
    document.execCommand = exec as unknown as typeof document.execCommand;
    renderWithApi(<ConnectPage />, api);
    await waitFor(() => expect(screen.getByTestId('snippet-text')).not.toBeEmptyDOMElement());
    await userEvent.click(screen.getByTestId('snippet-copy'));
    expect(exec).toHaveBeenCalledWith('copy');
    expect(screen.getByTestId('snippet-copy')).toHaveTextContent('Copied');
  });

  it('refuses a duplicate token name and revokes with a confirmation', async () => {
    const { api } = fakeApi();
    api.listTokens.mockResolvedValue([token('ci', { lastUsedAt: '2026-11-23T00:10:00Z' })]);
    renderWithApi(<ConnectPage />, api);
    await screen.findByTestId('token-row-ci');
    await userEvent.type(screen.getByTestId('token-name'), 'ci');
    await userEvent.click(screen.getByTestId('token-create'));
    expect(screen.getByTestId('token-error')).toHaveTextContent('"ci" is already taken');
    expect(screen.getByTestId('token-name')).toHaveValue('ci');
    expect(api.createToken).not.toHaveBeenCalled();

    await userEvent.click(screen.getByTestId('token-revoke-ci'));
    await userEvent.click(within(screen.getByTestId('confirm-dialog')).getByTestId('confirm'));
    expect(api.revokeToken).toHaveBeenCalledWith('ci');
  });

  it('shows each token\'s role and says the page makes client tokens', async () => {
    const { api } = fakeApi();
    api.listTokens.mockResolvedValue([token('me', { role: 'admin' }), token('cursor', { role: 'client', servers: ['fs'] })]);
    renderWithApi(<ConnectPage />, api);
    const admin = await screen.findByTestId('token-role-me');
    expect(admin).toHaveTextContent('Admin');
    expect(admin).toHaveAttribute('title', 'The browser UI and the MCP endpoint');
    expect(screen.getByTestId('token-role-cursor')).toHaveTextContent('Client');
    expect(screen.getByTestId('token-role-cursor')).toHaveAttribute('title', 'The MCP endpoint only');
    expect(within(screen.getByTestId('tokens-table')).getByRole('columnheader', { name: 'Role' })).toBeInTheDocument();
    expect(screen.getByTestId('tokens')).toHaveTextContent('Tokens made here are client tokens');
    expect(screen.getByTestId('tokens-admin-note')).toHaveTextContent('mcp-router tokens create NAME --admin');

    // A token made here is a client token and is listed as one.
    api.createToken.mockResolvedValueOnce({ token: 'mcpr_new', view: token('laptop', { role: 'client' }) });
    api.listTokens.mockResolvedValue([token('laptop', { role: 'client' }), token('me', { role: 'admin' })]);
    await userEvent.type(screen.getByTestId('token-name'), 'laptop');
    await userEvent.click(screen.getByTestId('token-create'));
    expect(await screen.findByTestId('token-role-laptop')).toHaveTextContent('Client');
    // An admin token has no server scope to edit.
    expect(screen.queryByTestId('token-edit-me')).not.toBeInTheDocument();
    expect(screen.getByTestId('token-edit-laptop')).toBeInTheDocument();
  });

  it('clears a snippet that failed: no previous snippet on screen or in Copy', async () => {
    const { api } = fakeApi();
    api.snippet.mockImplementation(async (client, mode, tok) => {
      if (client === 'claude-desktop' && mode === 'http') throw new Error('claude-desktop: HTTP needs a bridge; use --mode stdio');
      return `${client} ${mode} ${tok || '<token>'}`;
    });
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderWithApi(<ConnectPage />, api);
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('claude-code http <token>'));
    expect(screen.getByTestId('snippet-copy')).toBeEnabled();

    await userEvent.click(screen.getByTestId('snippet-client-claude-desktop'));
    expect(await screen.findByTestId('snippet-error')).toHaveTextContent('HTTP needs a bridge');
    expect(screen.queryByTestId('snippet-text')).not.toBeInTheDocument();
    expect(screen.queryByText(/claude-code http/)).not.toBeInTheDocument();
    expect(screen.getByTestId('snippet-copy')).toBeDisabled();

    await userEvent.click(screen.getByTestId('snippet-mode-stdio'));
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('claude-desktop stdio <token>'));
    expect(screen.queryByTestId('snippet-error')).not.toBeInTheDocument();
    await userEvent.click(screen.getByTestId('snippet-copy'));
    expect(writeText).toHaveBeenLastCalledWith('claude-desktop stdio <token>');
  });

  it("edits a token's servers and deletes a revoked token", async () => {
    const { api } = fakeApi([server('everything'), server('files')]);
    api.listTokens.mockResolvedValue([token('ci', { servers: ['files'] }), token('old', { revokedAt: '2026-11-23T01:00:00Z' })]);
    renderWithApi(<ConnectPage />, api);
    const row = await screen.findByTestId('token-row-ci');
    expect(row).toHaveTextContent('files');
    expect(screen.queryByTestId('token-edit-old')).not.toBeInTheDocument(); // revoked: no scope edits

    await userEvent.click(screen.getByTestId('token-edit-ci'));
    expect(screen.getByTestId('token-edit-scope-ci-files')).toBeChecked();
    await userEvent.click(screen.getByTestId('token-edit-scope-ci-files'));
    await userEvent.click(screen.getByTestId('token-edit-scope-ci-everything'));
    await userEvent.click(screen.getByTestId('token-save-scope-ci'));
    expect(api.updateTokenServers).toHaveBeenCalledWith('ci', ['everything']);
    await waitFor(() => expect(screen.queryByTestId('token-scope-editor-ci')).not.toBeInTheDocument());
    expect(screen.getByTestId('token-row-ci')).toHaveTextContent('everything');

    // A refusal keeps the editor open with the choice.
    api.updateTokenServers.mockRejectedValueOnce('server "gone": not found');
    await userEvent.click(screen.getByTestId('token-edit-ci'));
    await userEvent.click(screen.getByTestId('token-save-scope-ci'));
    expect(await screen.findByTestId('token-scope-error')).toHaveTextContent('server "gone": not found');
    expect(screen.getByTestId('token-edit-scope-ci-everything')).toBeChecked();

    // A revoked name is taken until the token is deleted.
    await userEvent.type(screen.getByTestId('token-name'), 'old');
    await userEvent.click(screen.getByTestId('token-create'));
    expect(screen.getByTestId('token-error')).toHaveTextContent('A revoked token is still named "old"');
    await userEvent.click(screen.getByTestId('token-delete-old'));
    await userEvent.click(within(screen.getByTestId('confirm-dialog')).getByTestId('confirm'));
    expect(api.deleteToken).toHaveBeenCalledWith('old');
    await waitFor(() => expect(screen.queryByTestId('token-row-old')).not.toBeInTheDocument());
    await userEvent.click(screen.getByTestId('token-create'));
    expect(api.createToken).toHaveBeenCalledWith('old', []);
  });
  it("shows each token's own roles and edits them, keeping what was typed when the router refuses", async () => {
    const { api } = fakeApi();
    api.listTokens.mockResolvedValue([
      token('review-bot', { roles: ['reviewer'] }),
      token('me', { role: 'admin' }),
      token('old', { roles: ['qa'], revokedAt: '2026-11-23T01:00:00Z' }),
    ]);
    renderWithApi(<ConnectPage />, api);
    expect(await screen.findByTestId('token-roles-review-bot')).toHaveTextContent('reviewer');
    expect(screen.getByTestId('token-roles-me')).toHaveTextContent('none');
    expect(screen.getByTestId('token-roles-old')).toHaveTextContent('qa');
    expect(within(screen.getByTestId('tokens-table')).getByRole('columnheader', { name: 'Roles' })).toBeInTheDocument();
    // A revoked token's roles are not edited; an admin token's may be.
    expect(screen.queryByTestId('token-edit-roles-old')).not.toBeInTheDocument();
    expect(screen.getByTestId('token-edit-roles-me')).toBeInTheDocument();

    await userEvent.click(screen.getByTestId('token-edit-roles-review-bot'));
    const input = screen.getByTestId('token-roles-input-review-bot');
    expect(input).toHaveValue('reviewer');
    expect(input).toHaveAccessibleDescription(/never widen what the token reaches/);
    await userEvent.clear(input);
    await userEvent.type(input, ' reviewer, maintainer ,, ');
    await userEvent.click(screen.getByTestId('token-save-roles-review-bot'));
    expect(api.updateTokenRoles).toHaveBeenCalledWith('review-bot', ['reviewer', 'maintainer']);
    await waitFor(() => expect(screen.queryByTestId('token-roles-editor-review-bot')).not.toBeInTheDocument());
    expect(screen.getByTestId('token-roles-review-bot')).toHaveTextContent('reviewermaintainer');

    // The router refuses a reserved name: the editor stays open with the text.
    api.updateTokenRoles.mockRejectedValueOnce('token "review-bot": role "admin" is reserved: it is the role of admin tokens');
    await userEvent.click(screen.getByTestId('token-edit-roles-review-bot'));
    await userEvent.type(screen.getByTestId('token-roles-input-review-bot'), ', admin{Enter}');
    expect(await screen.findByTestId('token-roles-error')).toHaveTextContent('role "admin" is reserved');
    expect(screen.getByTestId('token-roles-input-review-bot')).toHaveValue('reviewer, maintainer, admin');
    expect(screen.getByTestId('token-roles-review-bot')).not.toHaveTextContent('none');

    // Emptied, the roles are cleared.
    await userEvent.clear(screen.getByTestId('token-roles-input-review-bot'));
    await userEvent.click(screen.getByTestId('token-save-roles-review-bot'));
    expect(api.updateTokenRoles).toHaveBeenLastCalledWith('review-bot', []);
    await waitFor(() => expect(screen.getByTestId('token-roles-review-bot')).toHaveTextContent('none'));
  });

  it("puts the client's own upstream credentials in the snippet, for servers with passUpstreamAuth only, and says where they land", async () => {
    const { api } = fakeApi([
      server('github', { transport: 'http', passUpstreamAuth: true }),
      server('jira', { transport: 'http', passUpstreamAuth: true }),
      server('plain', { transport: 'http' }),
    ]);
    const errorLog = vi.spyOn(console, 'error');
    const logLog = vi.spyOn(console, 'log');
    renderWithApi(<ConnectPage />, api);
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('claude-code http <token>'));
    expect(api.snippet).toHaveBeenLastCalledWith('claude-code', 'http', '', []);
    const fields = screen.getByTestId('upstream-auth');
    await userEvent.click(within(fields).getByText(/own credentials for servers/));
    expect(screen.getByTestId('upstream-auth-warning')).toHaveTextContent("they land in the client’s config file");

    await userEvent.click(await screen.findByTestId('upstream-auth-add'));
    const options = within(screen.getByTestId('upstream-auth-server-0'))
      .getAllByRole('option')
      .map((o) => (o as HTMLOptionElement).value);
    expect(options).toEqual(['', '*', 'github', 'jira']); // not plain: it would never be sent its value
    await userEvent.selectOptions(screen.getByTestId('upstream-auth-server-0'), 'github');
    const value = screen.getByTestId('upstream-auth-value-0');
    expect(value).toHaveAttribute('type', 'password');
    expect(value).toHaveAttribute('autocomplete', 'new-password');
    await userEvent.type(value, 'Bearer ghp_one');
    await userEvent.click(screen.getByTestId('upstream-auth-add'));
    // A server already given is not offered again.
    expect(within(screen.getByTestId('upstream-auth-server-1')).getByRole('option', { name: 'github' })).toBeDisabled();
    await userEvent.selectOptions(screen.getByTestId('upstream-auth-server-1'), '*');
    await userEvent.type(screen.getByTestId('upstream-auth-value-1'), '  Bearer all  ');
    await waitFor(() => expect(api.snippet).toHaveBeenLastCalledWith('claude-code', 'http', '', ['github=Bearer ghp_one', '*=Bearer all']));
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('claude-code http <token> github=Bearer ghp_one *=Bearer all'));
    // Not one request a key: typing 'Bearer ghp_one' (14 keys) and the rest asked a handful of times.
    expect(api.snippet.mock.calls.length).toBeLessThan(8);

    // Mode and client keep the credentials.
    await userEvent.click(screen.getByTestId('snippet-mode-stdio'));
    await waitFor(() => expect(api.snippet).toHaveBeenLastCalledWith('claude-code', 'stdio', '', ['github=Bearer ghp_one', '*=Bearer all']));
    // A refusal is shown in place of the snippet (never a stale one).
    api.snippet.mockRejectedValueOnce('upstream auth for "github": the value is longer than 8 KiB');
    await userEvent.click(screen.getByTestId('upstream-auth-remove-1'));
    expect(await screen.findByTestId('snippet-error')).toHaveTextContent('longer than 8 KiB');
    expect(screen.queryByTestId('snippet-text')).toBeNull();
    await userEvent.click(screen.getByTestId('upstream-auth-remove-0'));
    await waitFor(() => expect(api.snippet).toHaveBeenLastCalledWith('claude-code', 'stdio', '', []));
    expect(await screen.findByTestId('snippet-text')).toHaveTextContent('claude-code stdio <token>');
    // Nothing the page did logged a value.
    for (const call of [...errorLog.mock.calls, ...logLog.mock.calls]) expect(JSON.stringify(call)).not.toMatch(/ghp_one|Bearer all/);
  });

  it('offers a server as soon as it takes a client credential (servers:changed while the page is open)', async () => {
    const fake = fakeApi([server('github', { transport: 'http' })]);
    renderWithApi(<ConnectPage />, fake.api);
    await screen.findByTestId('upstream-auth-none');
    act(() => fake.emit(server('github', { transport: 'http', passUpstreamAuth: true })));
    await userEvent.click(await screen.findByTestId('upstream-auth-add'));
    expect(within(screen.getByTestId('upstream-auth-server-0')).getByRole('option', { name: 'github' })).toBeInTheDocument();
  });

  it('says how to give a server a client credential when none takes one, in Japanese too', async () => {
    const { api } = fakeApi([server('plain', { transport: 'http' })]);
    const { unmount } = renderWithApi(<ConnectPage />, api);
    expect(await screen.findByTestId('upstream-auth-none')).toHaveTextContent('Turn on “Pass the client\'s X-Upstream-Authorization” in an HTTP server’s form');
    expect(screen.queryByTestId('upstream-auth-add')).toBeNull();
    unmount();
    const { api: api2 } = fakeApi([server('github', { transport: 'http', passUpstreamAuth: true })]);
    renderWithApi(<ConnectPage />, api2, 'ja');
    expect(await screen.findByTestId('upstream-auth-warning')).toHaveTextContent('クライアントの設定ファイルに保存されます');
    expect(screen.getByTestId('upstream-auth')).toHaveTextContent('「クライアントの X-Upstream-Authorization を渡す」がオンのサーバー');
  });

  it('shows roles in Japanese', async () => {
    const { api } = fakeApi();
    api.listTokens.mockResolvedValue([token('plain')]);
    renderWithApi(<ConnectPage />, api, 'ja');
    expect(await screen.findByTestId('token-roles-plain')).toHaveTextContent('なし');
    expect(screen.getByTestId('token-edit-roles-plain')).toHaveTextContent('ロール…');
  });
});

describe('ConnectPage with profiles', () => {
  it('gives the snippet of a profile\'s endpoint when one is picked', async () => {
    const { api } = fakeApi([server('files')]);
    await api.createProfile({ name: 'work', description: '', mode: 'all', servers: ['files'], tools: {}, path: '' });
    renderWithApi(<ConnectPage />, api);
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('claude-code http <token>'));
    await userEvent.selectOptions(await screen.findByTestId('snippet-profile'), 'work');
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('claude-code http /mcp/work'));
    expect(api.profileSnippet).toHaveBeenCalledWith('work', 'claude-code', 'http', '', []);
    await userEvent.selectOptions(screen.getByTestId('snippet-profile'), '');
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('claude-code http <token>'));
  });

  it('shows no endpoint choice without profiles', async () => {
    const { api } = fakeApi();
    renderWithApi(<ConnectPage />, api);
    await waitFor(() => expect(screen.getByTestId('snippet-text')).not.toBeEmptyDOMElement());
    expect(screen.queryByTestId('snippet-profile')).not.toBeInTheDocument();
  });
});

describe('ConnectPage: a token bound to a profile', () => {
  it('binds and unbinds a client token', async () => {
    const { api } = fakeApi([server('files')]);
    await api.createProfile({ name: 'work', description: '', mode: 'all', servers: ['files'], tools: {}, path: '' });
    api.listTokens.mockResolvedValue([token('laptop'), token('boss', { role: 'admin' })]);
    renderWithApi(<ConnectPage />, api);
    await userEvent.selectOptions(await screen.findByTestId('token-profile-laptop'), 'work');
    expect(api.updateTokenProfile).toHaveBeenCalledWith('laptop', 'work');
    await waitFor(() => expect(screen.getByTestId('token-profile-laptop')).toHaveValue('work'));
    await userEvent.selectOptions(screen.getByTestId('token-profile-laptop'), '');
    expect(api.updateTokenProfile).toHaveBeenLastCalledWith('laptop', '');
    expect(screen.queryByTestId('token-profile-boss')).not.toBeInTheDocument();
  });

  it('shows the refusal of the router', async () => {
    const { api } = fakeApi([server('files')]);
    await api.createProfile({ name: 'work', description: '', mode: 'all', servers: ['files'], tools: {}, path: '' });
    api.listTokens.mockResolvedValue([token('laptop')]);
    api.updateTokenProfile.mockRejectedValueOnce(new Error('token "laptop" was revoked'));
    renderWithApi(<ConnectPage />, api);
    await userEvent.selectOptions(await screen.findByTestId('token-profile-laptop'), 'work');
    expect(await screen.findByTestId('token-profile-error')).toHaveTextContent('was revoked');
  });

  it('adds the router to a client after showing the diff, and writes only that diff', async () => {
    const { api } = fakeApi();
    renderWithApi(<ConnectPage />, api);
    await userEvent.click(await screen.findByTestId('snippet-client-gemini'));
    await waitFor(() => expect(screen.getByTestId('snippet-text')).toHaveTextContent('gemini http <token>'));
    // Gemini CLI has no install link; it can be written.
    expect(screen.queryByTestId('install-link')).toBeNull();

    await userEvent.click(screen.getByTestId('add-to-client-button'));
    expect(api.planAddToClient).toHaveBeenCalledWith('', 'gemini', 'http', '');
    const dialog = await screen.findByTestId('confirm-dialog');
    expect(within(dialog).getByTestId('add-to-client-diff')).toHaveTextContent('+ gemini http default');
    expect(dialog).toHaveTextContent('/home/u/.gemini/config.json');
    expect(api.addToClient).not.toHaveBeenCalled();

    await userEvent.click(within(dialog).getByTestId('confirm'));
    expect(api.addToClient).toHaveBeenCalledWith('', 'gemini', 'http', '', '+ gemini http default ');
    expect(await screen.findByTestId('add-to-client-done')).toHaveTextContent(
      'Wrote /home/u/.gemini/config.json. The old file is at /home/u/.gemini/config.json.bak-20261127T100000Z.',
    );
    expect(screen.queryByTestId('confirm-dialog')).toBeNull();
  });

  it('shows why the file is not written: a refusal, and Cancel writes nothing', async () => {
    const { api } = fakeApi();
    api.planAddToClient.mockRejectedValueOnce(new Error('/home/u/.zed/settings.json: not valid JSON: …; nothing was written'));
    renderWithApi(<ConnectPage />, api);
    await userEvent.click(await screen.findByTestId('snippet-client-zed'));
    await userEvent.click(screen.getByTestId('add-to-client-button'));
    expect(await screen.findByTestId('add-to-client-error')).toHaveTextContent('nothing was written');
    expect(screen.queryByTestId('confirm-dialog')).toBeNull();

    await userEvent.click(screen.getByTestId('add-to-client-button'));
    await screen.findByTestId('confirm-dialog');
    await userEvent.click(screen.getByText('Cancel'));
    expect(screen.queryByTestId('confirm-dialog')).toBeNull();
    expect(api.addToClient).not.toHaveBeenCalled();

    // A file that already holds the entry: said so, no dialog.
    api.planAddToClient.mockResolvedValueOnce({ client: 'zed', path: '/z/settings.json', exists: true, replaces: true, unchanged: true, diff: '' });
    await userEvent.click(screen.getByTestId('add-to-client-button'));
    expect(await screen.findByTestId('add-to-client-done')).toHaveTextContent('/z/settings.json already has this entry.');
    expect(screen.queryByTestId('confirm-dialog')).toBeNull();
  });

  it('shows install links for Cursor, VS Code and LM Studio only', async () => {
    const { api } = fakeApi();
    renderWithApi(<ConnectPage />, api);
    await userEvent.click(await screen.findByTestId('snippet-client-lmstudio'));
    await waitFor(() => expect(screen.getByTestId('install-link-text')).toHaveTextContent('lmstudio://install?&http&'));
    expect(screen.getByTestId('install-link-open')).toHaveAttribute('href', 'lmstudio://install?&http&');
    await userEvent.click(screen.getByTestId('snippet-client-vscode'));
    await waitFor(() => expect(screen.getByTestId('install-link-text')).toHaveTextContent('vscode://install?&http&'));
    // While the next client's link is asked for, the last one is not shown
    // (a copy then would give the wrong client's link).
    let answer: (l: string) => void = () => {};
    api.installLink.mockImplementationOnce(() => new Promise<string>((resolve) => (answer = resolve)));
    await userEvent.click(screen.getByTestId('snippet-client-cursor'));
    expect(screen.queryByTestId('install-link-text')).toBeNull();
    expect(screen.getByTestId('install-link-loading')).toBeInTheDocument();
    answer('cursor://later');
    await waitFor(() => expect(screen.getByTestId('install-link-text')).toHaveTextContent('cursor://later'));
    await userEvent.click(screen.getByTestId('snippet-client-codex'));
    expect(screen.queryByTestId('install-link')).toBeNull();
    expect(screen.getByTestId('add-to-client')).toBeInTheDocument();
  });
});
