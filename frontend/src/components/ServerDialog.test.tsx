import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, server } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import { ServersPage } from '../pages/ServersPage';
import { emptyForm, validateForm } from './ServerDialog';
import { en } from '../i18n/messages';

async function openAdd() {
  await userEvent.click(await screen.findByTestId('add-server'));
  return screen.getByTestId('server-dialog');
}

describe('adding a server', () => {
  it('refuses bad pasted JSON with its position and keeps the text', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api);
    await openAdd();
    const box = screen.getByTestId('paste-json');
    await userEvent.click(box);
    await userEvent.paste('{"mcpServers": {"x": {"command": "npx"}\n');
    await userEvent.click(screen.getByTestId('paste-submit'));
    expect(screen.getByTestId('paste-error')).toHaveTextContent(/Not valid JSON at line 2/);
    expect(box).toHaveValue('{"mcpServers": {"x": {"command": "npx"}\n');
    expect(api.addServersFromJSON).not.toHaveBeenCalled();

    await userEvent.clear(box);
    await userEvent.paste('{"other": {}}');
    await userEvent.click(screen.getByTestId('paste-submit'));
    expect(screen.getByTestId('paste-error')).toHaveTextContent('Expected an object with "mcpServers"');
  });

  it('sends pasted JSONC (VS Code servers) and closes when all were added', async () => {
    const { api } = fakeApi([]);
    api.addServersFromJSON.mockResolvedValueOnce({ added: ['everything'], skipped: [], needsSecrets: [] });
    renderWithApi(<ServersPage />, api);
    await openAdd();
    const text = '{\n  // VS Code\n  "servers": {"everything": {"command": "npx", "args": ["-y", "x"],},},\n}';
    await userEvent.click(screen.getByTestId('paste-json'));
    await userEvent.paste(text);
    await userEvent.click(screen.getByTestId('paste-submit'));
    await waitFor(() => expect(screen.queryByTestId('server-dialog')).not.toBeInTheDocument());
    expect(api.addServersFromJSON).toHaveBeenCalledWith(text);
  });

  it('shows why servers were skipped (a duplicate name) and keeps the text', async () => {
    const { api } = fakeApi([server('everything')]);
    api.addServersFromJSON.mockResolvedValueOnce({ added: [], skipped: [{ name: 'everything', reason: 'a server named "everything" already exists' }], needsSecrets: [] });
    renderWithApi(<ServersPage />, api);
    await openAdd();
    await userEvent.click(screen.getByTestId('paste-json'));
    await userEvent.paste('{"mcpServers": {"everything": {"command": "npx"}}}');
    await userEvent.click(screen.getByTestId('paste-submit'));
    const report = await screen.findByTestId('import-report');
    expect(report).toHaveTextContent('a server named "everything" already exists');
    expect(screen.getByTestId('paste-json')).toHaveValue('{"mcpServers": {"everything": {"command": "npx"}}}');
  });

  it('validates the form per field, refuses a duplicate name, and sends a stdio config', async () => {
    const { api } = fakeApi([server('taken')]);
    renderWithApi(<ServersPage />, api);
    const dialog = await openAdd();
    await userEvent.click(within(dialog).getByTestId('add-tab-form'));
    await userEvent.click(screen.getByTestId('form-submit'));
    expect(screen.getByTestId('form-error-name')).toHaveTextContent('Enter a name.');
    expect(screen.getByTestId('form-error-command')).toHaveTextContent('Enter the command to run.');

    await userEvent.type(screen.getByTestId('form-name'), 'taken');
    await userEvent.type(screen.getByTestId('form-command'), 'npx');
    await userEvent.type(screen.getByTestId('form-args'), '-y{enter}@modelcontextprotocol/server-everything');
    // A value without a name, then a name that is not one.
    await userEvent.type(screen.getByTestId('form-env-value-0'), 'NONAME');
    await userEvent.click(screen.getByTestId('form-submit'));
    expect(screen.getByTestId('form-error-name')).toHaveTextContent('"taken" is already taken');
    expect(screen.getByTestId('form-error-env')).toHaveTextContent('Row 1 has no name.');
    await userEvent.type(screen.getByTestId('form-env-key-0'), 'A=B');
    await userEvent.click(screen.getByTestId('form-submit'));
    expect(screen.getByTestId('form-error-env')).toHaveTextContent('Row 1: "A=B" is not a valid name.');
    expect(api.addServer).not.toHaveBeenCalled();

    await userEvent.clear(screen.getByTestId('form-name'));
    await userEvent.type(screen.getByTestId('form-name'), 'fresh');
    await userEvent.clear(screen.getByTestId('form-env-key-0'));
    await userEvent.type(screen.getByTestId('form-env-key-0'), 'A');
    await userEvent.clear(screen.getByTestId('form-env-value-0'));
    await userEvent.type(screen.getByTestId('form-env-value-0'), '1');
    await userEvent.click(screen.getByTestId('form-env-add'));
    await userEvent.type(screen.getByTestId('form-env-key-1'), ' B ');
    await userEvent.type(screen.getByTestId('form-env-value-1'), 'two');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.addServer).toHaveBeenCalled());
    expect(api.addServer.mock.calls[0]?.[0]).toMatchObject({
      name: 'fresh',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
      env: { A: '1', B: 'two' },
      enabled: true,
    });
    expect(await screen.findByTestId('server-row-fresh')).toBeInTheDocument();
  });

  it('sends an HTTP config with headers and shows a refusal from the router without losing input', async () => {
    const { api } = fakeApi([]);
    api.addServer.mockRejectedValueOnce('url: connection refused');
    renderWithApi(<ServersPage />, api);
    const dialog = await openAdd();
    await userEvent.click(within(dialog).getByTestId('add-tab-form'));
    await userEvent.type(screen.getByTestId('form-name'), 'remote');
    await userEvent.click(screen.getByTestId('form-transport-sse'));
    await userEvent.type(screen.getByTestId('form-url'), 'ftp://x');
    await userEvent.click(screen.getByTestId('form-submit'));
    expect(screen.getByTestId('form-error-url')).toHaveTextContent('http:// or https://');
    await userEvent.clear(screen.getByTestId('form-url'));
    await userEvent.type(screen.getByTestId('form-url'), 'http://127.0.0.1:9000/sse');
    await userEvent.type(screen.getByTestId('form-headers-key-0'), 'X-Team');
    await userEvent.type(screen.getByTestId('form-headers-value-0'), ' blue ');
    await userEvent.click(screen.getByTestId('form-submit'));
    expect(await screen.findByTestId('form-submit-error')).toHaveTextContent('url: connection refused');
    expect(api.addServer.mock.calls[0]?.[0]).toMatchObject({
      transport: 'sse',
      url: 'http://127.0.0.1:9000/sse',
      headers: { 'X-Team': 'blue' },
    });
    expect(screen.getByTestId('form-url')).toHaveValue('http://127.0.0.1:9000/sse');
  });

  it('finds the endpoint behind a bare base URL, fills it in and shows what was tried', async () => {
    const { api } = fakeApi([]);
    api.discoverServer.mockResolvedValueOnce({
      input: 'https://mcp.example.com',
      endpoint: 'https://mcp.example.com/legacy/sse',
      transport: 'sse',
      needsAuth: true,
      authorizationServers: ['https://auth.example.com'],
      steps: [
        { what: 'ai-catalog', url: 'https://mcp.example.com/.well-known/ai-catalog.json', ok: false, result: 'HTTP 404 Not Found' },
        { what: 'sse', url: 'https://mcp.example.com/legacy/sse', ok: true, result: '401: needs authorization' },
      ],
    });
    api.discoverServer.mockResolvedValueOnce({
      input: 'https://nothing.example',
      needsAuth: false,
      authorizationServers: [],
      steps: [{ what: 'streamable-http', url: 'https://nothing.example', ok: false, result: 'HTTP 404 Not Found' }],
    });
    api.discoverServer.mockRejectedValueOnce('"ftp://x" is not an http(s) URL');
    renderWithApi(<ServersPage />, api);
    const dialog = await openAdd();
    await userEvent.click(within(dialog).getByTestId('add-tab-form'));
    await userEvent.type(screen.getByTestId('form-name'), 'remote');
    await userEvent.click(screen.getByTestId('form-transport-http'));
    expect(screen.getByTestId('form-discover')).toBeDisabled();
    await userEvent.type(screen.getByTestId('form-url'), 'https://mcp.example.com');
    await userEvent.click(screen.getByTestId('form-discover'));
    const result = await screen.findByTestId('discover-result');
    expect(api.discoverServer).toHaveBeenCalledWith('https://mcp.example.com');
    expect(result).toHaveTextContent('Found https://mcp.example.com/legacy/sse');
    expect(result).toHaveTextContent('It needs authorization (https://auth.example.com)');
    expect(within(result).getByTestId('discover-steps').children).toHaveLength(2);
    expect(result).toHaveTextContent('ai-catalog https://mcp.example.com/.well-known/ai-catalog.json: HTTP 404 Not Found');
    expect(screen.getByTestId('form-url')).toHaveValue('https://mcp.example.com/legacy/sse');
    expect(screen.getByTestId('form-transport-sse')).toBeChecked();
    expect(api.addServer).not.toHaveBeenCalled();

    // Nothing found: the URL typed stays, the attempts are shown.
    await userEvent.clear(screen.getByTestId('form-url'));
    await userEvent.type(screen.getByTestId('form-url'), 'https://nothing.example');
    await userEvent.click(screen.getByTestId('form-discover'));
    await waitFor(() => expect(screen.getByTestId('discover-result')).toHaveTextContent('No MCP endpoint answered'));
    expect(screen.getByTestId('form-url')).toHaveValue('https://nothing.example');

    // A refusal is shown; the form keeps its input.
    await userEvent.clear(screen.getByTestId('form-url'));
    await userEvent.type(screen.getByTestId('form-url'), 'ftp://x');
    await userEvent.click(screen.getByTestId('form-discover'));
    expect(await screen.findByTestId('discover-error')).toHaveTextContent('is not an http(s) URL');
    expect(screen.getByTestId('form-url')).toHaveValue('ftp://x');

    // Saving sends what was found the first time, once put back.
    await userEvent.clear(screen.getByTestId('form-url'));
    await userEvent.type(screen.getByTestId('form-url'), 'https://mcp.example.com/legacy/sse');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.addServer).toHaveBeenCalled());
    expect(api.addServer.mock.calls[0]?.[0]).toMatchObject({ name: 'remote', transport: 'sse', url: 'https://mcp.example.com/legacy/sse' });
  });

  it('keeps what was pasted when switching tabs', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api);
    const dialog = await openAdd();
    await userEvent.click(screen.getByTestId('paste-json'));
    await userEvent.paste('{"mcpServers"');
    await userEvent.click(within(dialog).getByTestId('add-tab-form'));
    await userEvent.type(screen.getByTestId('form-name'), 'abc');
    await userEvent.click(within(dialog).getByTestId('add-tab-json'));
    expect(screen.getByTestId('paste-json')).toHaveValue('{"mcpServers"');
    await userEvent.click(within(dialog).getByTestId('add-tab-form'));
    expect(screen.getByTestId('form-name')).toHaveValue('abc');
    // A stray click outside the dialog does not close it.
    fireEvent.mouseDown(document.querySelector('.dialog-backdrop')!);
    expect(screen.getByTestId('server-dialog')).toBeInTheDocument();
  });

  it('imports a detected client config file', async () => {
    const { api } = fakeApi([]);
    api.listClientConfigs.mockResolvedValueOnce([{ client: 'Claude Desktop', path: '/home/u/.config/Claude/claude_desktop_config.json', servers: 2 }]);
    api.importClientConfig.mockResolvedValueOnce({ added: ['a'], skipped: [{ name: 'b', reason: 'duplicate' }], needsSecrets: [] });
    renderWithApi(<ServersPage />, api);
    const dialog = await openAdd();
    await userEvent.click(within(dialog).getByTestId('add-tab-import'));
    await userEvent.click(await screen.findByRole('button', { name: /Import/ }));
    expect(api.importClientConfig).toHaveBeenCalledWith('/home/u/.config/Claude/claude_desktop_config.json');
    expect(await screen.findByTestId('import-report')).toHaveTextContent('Added: a');
    expect(screen.getByTestId('import-report')).toHaveTextContent('b: duplicate');
  });

  it('edits a server: loads its config, keeps unknown fields, allows a rename', async () => {
    const { api } = fakeApi([server('old')]);
    api.getServer.mockResolvedValueOnce({ name: 'old', transport: 'stdio', command: 'node', args: ['a.js'], enabled: true, prefixMode: 'never', timeoutSeconds: 30 });
    renderWithApi(<ServersPage />, api);
    await userEvent.click(await screen.findByTestId('server-edit-old'));
    expect(await screen.findByTestId('form-command')).toHaveValue('node');
    await userEvent.clear(screen.getByTestId('form-name'));
    await userEvent.type(screen.getByTestId('form-name'), 'renamed');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalled());
    expect(api.updateServer.mock.calls[0]).toEqual([
      'old',
      expect.objectContaining({ name: 'renamed', command: 'node', args: ['a.js'], prefixMode: 'never', timeoutSeconds: 30 }),
    ]);
  });

  it('edits the timeout and the activate gate, and checks them', async () => {
    const { api } = fakeApi([server('penpot')]);
    api.getServer.mockResolvedValueOnce({
      name: 'penpot', transport: 'stdio', command: 'node', args: ['p.js'], enabled: true, prefixMode: 'always', timeoutSeconds: 30,
      gate: { enabled: false, message: 'kept', initArgFiles: {} },
    });
    renderWithApi(<ServersPage />, api);
    await userEvent.click(await screen.findByTestId('server-edit-penpot'));
    expect(await screen.findByTestId('form-timeout')).toHaveValue('30');
    expect(screen.getByTestId('form-gateMessage')).toHaveValue('kept');
    const gate = screen.getByTestId('form-gate');
    expect(gate).not.toHaveAttribute('open'); // the gate is off: folded
    await userEvent.click(within(gate).getByText('Activate gate'));
    expect(gate).toHaveAttribute('open');

    await userEvent.clear(screen.getByTestId('form-timeout'));
    await userEvent.type(screen.getByTestId('form-timeout'), 'soon');
    await userEvent.click(screen.getByTestId('form-gateEnabled'));
    await userEvent.click(screen.getByTestId('form-gateInitArgs'));
    await userEvent.paste('[1]');
    await userEvent.type(screen.getByTestId('form-gateInitArgFiles'), 'code=relative.js');
    await userEvent.click(screen.getByTestId('form-submit'));
    expect(screen.getByTestId('form-error-timeout')).toHaveTextContent('whole number of seconds');
    expect(screen.getByTestId('form-error-gateInitArgs')).toHaveTextContent('JSON object');
    expect(screen.getByTestId('form-error-gateInitArgFiles')).toHaveTextContent('Line 1 is not name=/absolute/path');
    expect(api.updateServer).not.toHaveBeenCalled();

    await userEvent.clear(screen.getByTestId('form-timeout'));
    await userEvent.clear(screen.getByTestId('form-gateInitArgs'));
    await userEvent.click(screen.getByTestId('form-gateInitArgs'));
    await userEvent.paste('{"mode": "init"}');
    await userEvent.clear(screen.getByTestId('form-gateInitArgFiles'));
    await userEvent.type(screen.getByTestId('form-gateInitArgFiles'), 'code=/home/me/init.js');
    await userEvent.click(screen.getByTestId('form-submit'));
    expect(screen.getByTestId('form-error-gateInitTool')).toHaveTextContent('need an init tool');
    expect(api.updateServer).not.toHaveBeenCalled();
    await userEvent.clear(screen.getByTestId('form-gateMessage'));
    await userEvent.type(screen.getByTestId('form-gateMessage'), 'Call penpot__activate first');
    await userEvent.type(screen.getByTestId('form-gateInitTool'), 'execute_code');
    await userEvent.type(screen.getByTestId('form-gateOverviewTool'), 'overview');
    await userEvent.click(screen.getByTestId('form-gateHideTools'));
    // Turning the gate off and on again leaves the section open.
    await userEvent.click(screen.getByTestId('form-gateEnabled'));
    expect(screen.getByTestId('form-gate')).toHaveAttribute('open');
    await userEvent.click(screen.getByTestId('form-gateEnabled'));
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalled());
    const [, cfg] = api.updateServer.mock.calls[0]!;
    expect(cfg.timeoutSeconds).toBeUndefined(); // empty: the timeout setting
    expect(cfg.gate).toEqual({
      enabled: true, message: 'Call penpot__activate first', initTool: 'execute_code', initArgs: { mode: 'init' },
      initArgFiles: { code: '/home/me/init.js' }, overviewTool: 'overview', hideTools: true,
    });
  });

  it('sets isolation: per-client sent, shared left out (as the CLI stores it), an edit shows and keeps it', async () => {
    const { api } = fakeApi([server('fs')]);
    renderWithApi(<ServersPage />, api);
    await openAdd();
    await userEvent.click(screen.getByTestId('add-tab-form'));
    await userEvent.type(screen.getByTestId('form-name'), 'proj');
    await userEvent.type(screen.getByTestId('form-command'), 'srv');
    expect(screen.getByTestId('form-isolation')).toHaveValue('shared');
    expect(screen.getByText(/\$\{client\.roots\}/)).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByTestId('form-isolation'), 'per-client');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.addServer).toHaveBeenCalled());
    expect(api.addServer.mock.calls[0]?.[0]).toMatchObject({ name: 'proj', isolation: 'per-client' });

    api.getServer.mockResolvedValue({ name: 'fs', transport: 'stdio', command: 'srv', args: ['${client.roots}'], enabled: true, prefixMode: 'always', isolation: 'per-client' });
    await userEvent.click(await screen.findByTestId('server-edit-fs'));
    expect(await screen.findByTestId('form-isolation')).toHaveValue('per-client');
    await userEvent.selectOptions(screen.getByTestId('form-isolation'), 'shared');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalled());
    expect(api.updateServer.mock.calls[0]?.[1].isolation).toBeUndefined();
  });

  it('sets the protocol: 2026-07-28 sent, auto left out (as the CLI stores it), an edit shows and keeps it', async () => {
    const { api } = fakeApi([server('gosdk')]);
    renderWithApi(<ServersPage />, api);
    await openAdd();
    await userEvent.click(screen.getByTestId('add-tab-form'));
    await userEvent.type(screen.getByTestId('form-name'), 'modern');
    await userEvent.type(screen.getByTestId('form-command'), 'everything-server');
    expect(screen.getByTestId('form-protocol')).toHaveValue('auto');
    await userEvent.selectOptions(screen.getByTestId('form-protocol'), '2026-07-28');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.addServer).toHaveBeenCalled());
    expect(api.addServer.mock.calls[0]?.[0]).toMatchObject({ name: 'modern', protocol: '2026-07-28' });

    api.getServer.mockResolvedValue({ name: 'gosdk', transport: 'stdio', command: 'srv', enabled: true, prefixMode: 'always', protocol: '2026-07-28' });
    await userEvent.click(await screen.findByTestId('server-edit-gosdk'));
    expect(await screen.findByTestId('form-protocol')).toHaveValue('2026-07-28');
    await userEvent.selectOptions(screen.getByTestId('form-protocol'), 'auto');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalled());
    expect(api.updateServer.mock.calls[0]?.[1].protocol).toBeUndefined();
  });

  it('refuses protocol 2026-07-28 on an SSE server before sending', () => {
    const v = { ...emptyForm, name: 'old', transport: 'sse' as const, url: 'https://h/sse', protocol: '2026-07-28' as const };
    const r = validateForm(v, en, []);
    expect('errors' in r && r.errors.protocol).toBe(en.errProtocolSSE);
    const ok = validateForm({ ...v, protocol: '2025-11-25' }, en, []);
    expect('config' in ok && ok.config.protocol).toBe('2025-11-25');
  });

  it('offers passUpstreamAuth for HTTP and SSE servers only and sends it when ticked', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api);
    await openAdd();
    await userEvent.click(screen.getByTestId('add-tab-form'));
    await userEvent.type(screen.getByTestId('form-name'), 'gh');
    expect(screen.queryByTestId('form-passUpstreamAuth')).not.toBeInTheDocument(); // stdio
    await userEvent.click(screen.getByTestId('form-transport-http'));
    const box = screen.getByTestId('form-passUpstreamAuth');
    expect(box).not.toBeChecked();
    expect(screen.getByText(/X-Upstream-Authorization reaches this server/)).toBeInTheDocument();
    await userEvent.click(box);
    await userEvent.type(screen.getByTestId('form-url'), 'https://api.example.com/mcp');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.addServer).toHaveBeenCalled());
    expect(api.addServer.mock.calls[0]?.[0]).toMatchObject({ name: 'gh', transport: 'http', url: 'https://api.example.com/mcp', passUpstreamAuth: true });
  });

  it('edits passUpstreamAuth: shown ticked, cleared when unticked or when the server becomes stdio', async () => {
    const { api } = fakeApi([server('gh')]);
    const loaded = { name: 'gh', transport: 'sse' as const, url: 'https://api.example.com/sse', enabled: true, prefixMode: 'always' as const, passUpstreamAuth: true };
    api.getServer.mockResolvedValue(loaded);
    renderWithApi(<ServersPage />, api);
    await userEvent.click(await screen.findByTestId('server-edit-gh'));
    expect(await screen.findByTestId('form-passUpstreamAuth')).toBeChecked();
    // Saved unchanged: kept.
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalledTimes(1));
    expect(api.updateServer.mock.calls[0]?.[1]).toMatchObject({ passUpstreamAuth: true });

    await userEvent.click(await screen.findByTestId('server-edit-gh'));
    await userEvent.click(await screen.findByTestId('form-passUpstreamAuth'));
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalledTimes(2));
    expect(api.updateServer.mock.calls[1]?.[1].passUpstreamAuth).toBeUndefined();

    await userEvent.click(await screen.findByTestId('server-edit-gh'));
    expect(await screen.findByTestId('form-passUpstreamAuth')).toBeChecked();
    await userEvent.click(screen.getByTestId('form-transport-stdio'));
    await userEvent.type(screen.getByTestId('form-command'), 'node');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalledTimes(3));
    const cfg = api.updateServer.mock.calls[2]![1];
    expect(cfg.transport).toBe('stdio');
    expect(cfg.passUpstreamAuth).toBeUndefined();
  });

  it('sends a timeout of its own, and no gate when none is set', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api);
    await openAdd();
    await userEvent.click(screen.getByTestId('add-tab-form'));
    await userEvent.type(screen.getByTestId('form-name'), 'slow');
    await userEvent.type(screen.getByTestId('form-command'), 'npx');
    await userEvent.type(screen.getByTestId('form-timeout'), '300');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.addServer).toHaveBeenCalled());
    const [cfg] = api.addServer.mock.calls[0]!;
    expect(cfg.timeoutSeconds).toBe(300);
    expect(cfg.gate).toBeUndefined();
  });
});
