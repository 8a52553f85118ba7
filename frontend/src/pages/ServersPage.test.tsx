import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, server } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import { ServersPage } from './ServersPage';

describe('ServersPage', () => {
  it('renders a row per server with status, transport, target and tools', async () => {
    const { api } = fakeApi([
      server('everything', { tools: 16, target: 'npx -y @modelcontextprotocol/server-everything' }),
      server('weather', { transport: 'http', state: 'errored', error: 'connection refused', target: 'http://127.0.0.1:9000/mcp', tools: 0 }),
      server('files', { state: 'restarting', restarts: 3, enabled: true }),
      server('old', { state: 'stopped', enabled: false }),
    ]);
    renderWithApi(<ServersPage />, api);

    const row = await screen.findByTestId('server-row-everything');
    expect(within(row).getByText('npx -y @modelcontextprotocol/server-everything')).toBeInTheDocument();
    expect(within(row).getByTestId('server-tools-everything')).toHaveTextContent('16');
    expect(screen.getByTestId('server-state-everything')).toHaveTextContent(/^Running$/);

    expect(screen.getByTestId('server-state-weather')).toHaveTextContent(/^Error$/);
    expect(screen.getByTestId('server-error-weather')).toHaveTextContent('connection refused');
    expect(within(screen.getByTestId('server-row-weather')).getByText('http')).toBeInTheDocument();

    expect(screen.getByTestId('server-state-files')).toHaveTextContent(/^Restarting · restart 3$/);
    expect(screen.getByTestId('server-state-old')).toHaveTextContent(/^Stopped$/);
    expect(within(screen.getByTestId('server-row-old')).getByText('disabled')).toBeInTheDocument();

    expect(screen.getByText('4 servers · 1 running')).toBeInTheDocument();
    expect(screen.queryByTestId('servers-empty')).not.toBeInTheDocument();
  });

  it('lists the built-in state_gate like any server, without an edit form', async () => {
    const { api } = fakeApi([server('state_gate', { transport: 'builtin', target: 'built in', tools: 5 })]);
    renderWithApi(<ServersPage />, api);
    const row = await screen.findByTestId('server-row-state_gate');
    expect(within(row).getByText('builtin')).toBeInTheDocument();
    expect(within(row).getByText('built in')).toBeInTheDocument();
    expect(within(row).queryByTestId('server-edit-state_gate')).not.toBeInTheDocument();
    expect(within(row).getByTestId('server-remove-state_gate')).toBeInTheDocument();
  });

  it('shows how to add a server when there are none', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api);

    const empty = await screen.findByTestId('servers-empty');
    expect(empty).toHaveTextContent('No servers yet');
    expect(empty).toHaveTextContent('mcp-router servers add NAME -- CMD ARGS…');
    expect(screen.queryByTestId('servers-table')).not.toBeInTheDocument();
  });

  it('shows the API error and recovers on retry', async () => {
    const { api } = fakeApi([server('alpha')]);
    api.listServers.mockRejectedValueOnce(new Error('router is not running'));
    renderWithApi(<ServersPage />, api);

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load servers');
    expect(alert).toHaveTextContent('router is not running');
    expect(screen.queryByTestId('servers-empty')).not.toBeInTheDocument();

    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByTestId('server-row-alpha')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('updates a badge on servers:changed and stops listening on unmount', async () => {
    const fake = fakeApi([server('alpha', { state: 'starting' })]);
    const { unmount } = renderWithApi(<ServersPage />, fake.api);
    expect(await screen.findByTestId('server-state-alpha')).toHaveTextContent(/^Starting$/);

    act(() => fake.emit(server('alpha', { state: 'running' })));
    expect(screen.getByTestId('server-state-alpha')).toHaveTextContent(/^Running$/);

    unmount();
    expect(fake.listenerCount()).toBe(0);
  });

  it('tells the Go side once that the page is ready', async () => {
    const { api } = fakeApi([server('alpha')]);
    renderWithApi(<ServersPage />, api);
    await waitFor(() => expect(api.frontendReady).toHaveBeenCalledWith('servers'));
    expect(api.frontendReady).toHaveBeenCalledTimes(1);
  });

  it("shows each server's protocol revision on its row and what it offers in its details", async () => {
    const { api } = fakeApi([
      server('gosdk', { protocol: '2025-11-25', protocolsOffered: ['2026-07-28', '2025-11-25', '2025-06-18'] }),
      server('everything', { transport: 'http', protocol: '2025-11-25' }),
      server('piped', { protocol: '2025-11-25' }),
      server('never', { state: 'stopped' }),
    ]);
    api.serverTools.mockResolvedValue([]);
    renderWithApi(<ServersPage />, api);
    expect(await screen.findByTestId('server-protocol-gosdk')).toHaveTextContent('MCP 2025-11-25');
    expect(screen.getByTestId('server-protocol-everything')).toHaveTextContent('MCP 2025-11-25');
    expect(screen.queryByTestId('server-protocol-never')).toBeNull();

    await userEvent.click(screen.getByTestId('server-open-gosdk'));
    const note = await screen.findByTestId('server-protocols-gosdk');
    expect(note).toHaveTextContent('Protocol: 2025-11-25.');
    expect(note).toHaveTextContent('The server offers 2026-07-28, 2025-11-25, 2025-06-18');
    expect(note).toHaveTextContent('connects with the 2025-11-25 handshake for now');

    await userEvent.click(screen.getByTestId('server-open-everything'));
    const plain = await screen.findByTestId('server-protocols-everything');
    expect(plain).toHaveTextContent('named no revisions in answer to server/discover');
    expect(plain).not.toHaveTextContent('handshake for now');

    await userEvent.click(screen.getByTestId('server-open-piped'));
    const piped = await screen.findByTestId('server-protocols-piped');
    expect(piped).toHaveTextContent('Protocol: 2025-11-25.');
    expect(piped).not.toHaveTextContent('server/discover'); // stdio is not asked
  });

  it('shows the protocol revision in Japanese', async () => {
    const { api } = fakeApi([server('gosdk', { protocol: '2025-11-25', protocolsOffered: ['2026-07-28', '2025-11-25'] })]);
    api.serverTools.mockResolvedValue([]);
    renderWithApi(<ServersPage />, api, 'ja');
    await userEvent.click(await screen.findByTestId('server-open-gosdk'));
    expect(await screen.findByTestId('server-protocols-gosdk')).toHaveTextContent('プロトコル: 2025-11-25. サーバーは 2026-07-28, 2025-11-25 に対応しています');
  });

  it('speaks Japanese', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api, 'ja');
    expect(await screen.findByTestId('servers-empty')).toHaveTextContent('サーバーはまだありません');
  });

  it('shows a starting server with elapsed time, console lines and a Cancel that stops it', async () => {
    const fake = fakeApi([server('slow', { state: 'starting', tools: 0 })]);
    fake.api.serverConsole.mockResolvedValueOnce(['npm warn exec The following package was not found']);
    renderWithApi(<ServersPage />, fake.api);
    const row = await screen.findByTestId('server-row-slow');
    expect(within(row).getByText(/^\d+s$/)).toBeInTheDocument();
    await userEvent.click(screen.getByTestId('server-open-slow'));
    const consoleEl = await screen.findByTestId('console-slow');
    await waitFor(() => expect(consoleEl).toHaveTextContent('npm warn exec'));
    act(() => fake.console('slow', ['downloading…']));
    expect(consoleEl).toHaveTextContent('downloading…');
    await userEvent.click(screen.getByTestId('server-cancel-slow'));
    expect(fake.api.stopServer).toHaveBeenCalledWith('slow');
  });

  it('asks before removing and removes on confirm', async () => {
    const { api } = fakeApi([server('alpha'), server('beta')]);
    renderWithApi(<ServersPage />, api);
    await userEvent.click(await screen.findByTestId('server-remove-alpha'));
    const dialog = screen.getByTestId('confirm-dialog');
    expect(dialog).toHaveTextContent('Remove alpha?');
    // Focus starts inside and Tab keeps it there.
    expect(within(dialog).getByText('Cancel')).toHaveFocus();
    await userEvent.tab();
    expect(screen.getByTestId('confirm')).toHaveFocus();
    await userEvent.tab();
    expect(within(dialog).getByText('Cancel')).toHaveFocus();
    await userEvent.click(within(dialog).getByText('Cancel'));
    expect(api.removeServer).not.toHaveBeenCalled();
    await userEvent.click(screen.getByTestId('server-remove-alpha'));
    await userEvent.click(screen.getByTestId('confirm'));
    await waitFor(() => expect(screen.queryByTestId('server-row-alpha')).not.toBeInTheDocument());
    expect(api.removeServer).toHaveBeenCalledWith('alpha');
  });

  it('starts, stops, restarts and toggles a server, and shows a refused action on its row', async () => {
    const { api } = fakeApi([server('up'), server('down', { state: 'stopped' })]);
    api.restartServer.mockRejectedValueOnce('server up: restart failed: exit status 1');
    renderWithApi(<ServersPage />, api);
    await userEvent.click(await screen.findByTestId('server-start-down'));
    expect(api.startServer).toHaveBeenCalledWith('down');
    await userEvent.click(screen.getByTestId('server-stop-up'));
    expect(api.stopServer).toHaveBeenCalledWith('up');
    await userEvent.click(screen.getByTestId('server-restart-up'));
    expect(await screen.findByTestId('server-action-error-up')).toHaveTextContent('restart failed: exit status 1');
    await userEvent.click(screen.getByTestId('server-enabled-down'));
    expect(api.setServerEnabled).toHaveBeenCalledWith('down', false);
  });

  it("lists a server's tools with toggles and a prefix mode", async () => {
    const { api } = fakeApi([server('everything')]);
    api.serverTools.mockResolvedValue([
      { name: 'echo', description: 'Echoes', enabled: true, finalName: 'everything__echo' },
      { name: 'add', description: 'Adds', enabled: false, finalName: 'everything__add' },
    ]);
    renderWithApi(<ServersPage />, api);
    await userEvent.click(await screen.findByTestId('server-open-everything'));
    const tools = await screen.findByTestId('server-tools');
    expect(tools).toHaveTextContent('everything__echo');
    expect(screen.getByTestId('tool-enabled-add')).toHaveAttribute('aria-checked', 'false');
    await userEvent.click(screen.getByTestId('tool-enabled-echo'));
    expect(api.setToolEnabled).toHaveBeenCalledWith('everything', 'echo', false);
    expect(screen.getByTestId('tool-enabled-echo')).toHaveAttribute('aria-checked', 'false');
    await userEvent.selectOptions(screen.getByTestId('prefix-mode'), 'never');
    expect(api.setPrefixMode).toHaveBeenCalledWith('everything', 'never');
  });
  it('shows needs_login with a Log in button that opens the login page', async () => {
    const fake = fakeApi([
      server('remote', { transport: 'http', state: 'needs_login', error: 'HTTP 401 from http://a.example/mcp: the server asks for a login', tools: 0 }),
      server('everything'),
    ]);
    fake.api.loginServer.mockResolvedValueOnce({ url: 'https://auth.example/authorize?client_id=dcr-1&state=s', registration: 'dynamic' });
    renderWithApi(<ServersPage />, fake.api);

    expect(await screen.findByTestId('server-state-remote')).toHaveTextContent(/^Needs login$/);
    expect(screen.getByTestId('server-error-remote')).toHaveTextContent('the server asks for a login');
    expect(screen.queryByTestId('server-login-everything')).not.toBeInTheDocument();
    expect(screen.queryByTestId('server-start-remote')).not.toBeInTheDocument();

    await userEvent.click(screen.getByTestId('server-login-remote'));
    expect(fake.api.loginServer).toHaveBeenCalledWith('remote', '');
    expect(fake.api.openExternal).toHaveBeenCalledWith('https://auth.example/authorize?client_id=dcr-1&state=s');
    // Should the browser not have opened, the page is a link away.
    const link = await screen.findByTestId('server-login-link-remote');
    expect(link).toHaveAttribute('href', 'https://auth.example/authorize?client_id=dcr-1&state=s');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');

    // The login done, the server runs: no button, no link.
    act(() => fake.emit(server('remote', { transport: 'http', state: 'running', tools: 3 })));
    expect(screen.getByTestId('server-state-remote')).toHaveTextContent(/^Running$/);
    expect(screen.queryByTestId('server-login-remote')).not.toBeInTheDocument();
    expect(screen.queryByTestId('server-login-link-remote')).not.toBeInTheDocument();
  });

  it('shows why a login could not start, and opens nothing', async () => {
    const fake = fakeApi([server('remote', { transport: 'http', state: 'needs_login' })]);
    fake.api.loginServer.mockRejectedValueOnce(new Error('remote: the authorization server offers no client registration (http://auth.example): give the client id registered there for the router (--client-id)'));
    renderWithApi(<ServersPage />, fake.api);
    await userEvent.click(await screen.findByTestId('server-login-remote'));
    expect(await screen.findByTestId('server-action-error-remote')).toHaveTextContent('offers no client registration');
    expect(fake.api.openExternal).not.toHaveBeenCalled();
    expect(screen.queryByTestId('server-login-link-remote')).not.toBeInTheDocument();

    // The client id registered there: the login goes again with it.
    expect(screen.getByTestId('server-login-with-id-remote')).toBeDisabled();
    await userEvent.type(screen.getByTestId('server-login-client-id-remote'), ' my-client ');
    await userEvent.click(screen.getByTestId('server-login-with-id-remote'));
    expect(fake.api.loginServer).toHaveBeenLastCalledWith('remote', 'my-client');
    expect(fake.api.openExternal).toHaveBeenCalledWith('https://auth.example/authorize?client_id=x');
    expect(await screen.findByTestId('server-login-link-remote')).toBeInTheDocument();
    expect(screen.queryByTestId('server-login-client-id-remote')).not.toBeInTheDocument();
  });

  it('logs out of a server with a stored login, and offers it only there', async () => {
    const fake = fakeApi([server('remote', { transport: 'http', loggedIn: true }), server('plain', { transport: 'http' }), server('everything')]);
    renderWithApi(<ServersPage />, fake.api);
    const button = await screen.findByTestId('server-logout-remote');
    expect(button).toHaveTextContent('Log out');
    expect(screen.queryByTestId('server-logout-plain')).not.toBeInTheDocument();
    expect(screen.queryByTestId('server-logout-everything')).not.toBeInTheDocument();
    await userEvent.click(button);
    expect(fake.api.logoutServer).toHaveBeenCalledWith('remote');
    expect(screen.queryByTestId('server-logout-remote')).not.toBeInTheDocument();
    // The router reconnects it without a token: it asks for a login again.
    act(() => fake.emit(server('remote', { transport: 'http', state: 'needs_login', loggedIn: false })));
    expect(screen.getByTestId('server-login-remote')).toBeInTheDocument();
  });

  it('shows why a logout failed', async () => {
    const fake = fakeApi([server('remote', { transport: 'http', loggedIn: true })]);
    fake.api.logoutServer.mockRejectedValueOnce(new Error('the keychain refused: locked'));
    renderWithApi(<ServersPage />, fake.api);
    await userEvent.click(await screen.findByTestId('server-logout-remote'));
    expect(await screen.findByTestId('server-action-error-remote')).toHaveTextContent('the keychain refused: locked');
    expect(screen.getByTestId('server-logout-remote')).toBeInTheDocument();
  });

  it('shows Needs login in Japanese', async () => {
    const fake = fakeApi([server('remote', { transport: 'http', state: 'needs_login' })]);
    renderWithApi(<ServersPage />, fake.api, 'ja');
    expect(await screen.findByTestId('server-state-remote')).toHaveTextContent(/^ログインが必要$/);
    expect(screen.getByTestId('server-login-remote')).toHaveTextContent('ログイン');
  });
});
