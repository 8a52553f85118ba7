import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
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
  });
});
