import { screen, waitFor } from '@testing-library/react';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenStore } from '../api';
import { fakeApi } from '../test/fakeApi';
import { BrowserRoot } from './BrowserRoot';

describe('BrowserRoot', () => {
  beforeEach(() => sessionStorage.clear());

  it('goes straight to the app when no login is needed', async () => {
    const { api } = fakeApi();
    render(<BrowserRoot api={api} session={async () => ({ authRequired: false, valid: true })} />);
    expect(await screen.findByTestId('servers-page')).toBeInTheDocument();
    expect(screen.queryByTestId('logout')).not.toBeInTheDocument();
  });

  it('asks for a token, refuses a wrong one, keeps a good one in sessionStorage', async () => {
    const { api } = fakeApi();
    const session = vi.fn(async () => ({ authRequired: true, valid: tokenStore.get() === 'mcpr_good' }));
    render(<BrowserRoot api={api} session={session} />);
    await userEvent.type(await screen.findByTestId('login-token'), 'mcpr_bad');
    await userEvent.click(screen.getByTestId('login-submit'));
    expect(await screen.findByRole('alert')).toHaveTextContent('did not accept that token');
    expect(tokenStore.get()).toBe('');

    await userEvent.clear(screen.getByTestId('login-token'));
    await userEvent.type(screen.getByTestId('login-token'), 'mcpr_good');
    await userEvent.click(screen.getByTestId('login-submit'));
    expect(await screen.findByTestId('servers-page')).toBeInTheDocument();
    expect(sessionStorage.getItem('mcpr.uiToken')).toBe('mcpr_good');

    await userEvent.click(screen.getByTestId('logout'));
    expect(await screen.findByTestId('login')).toBeInTheDocument();
    expect(tokenStore.get()).toBe('');
  });

  it('refuses a client token with the command that makes an admin token', async () => {
    const { api } = fakeApi();
    const session = vi.fn(async () => {
      const tok = tokenStore.get();
      if (tok === 'mcpr_admin') return { authRequired: true, valid: true, role: 'admin' as const };
      if (tok === 'mcpr_client') return { authRequired: true, valid: false, role: 'client' as const, error: 'token "claude-code" is a client token' };
      return { authRequired: true, valid: false };
    });
    render(<BrowserRoot api={api} session={session} />);
    expect(await screen.findByTestId('login-command')).toHaveTextContent('mcp-router tokens create NAME --admin');
    await userEvent.type(screen.getByTestId('login-token'), 'mcpr_client');
    await userEvent.click(screen.getByTestId('login-submit'));
    const alert = await screen.findByTestId('login-error');
    expect(alert).toHaveTextContent('That is a client token');
    expect(alert).toHaveTextContent('cannot open this UI');
    expect(screen.queryByTestId('servers-page')).not.toBeInTheDocument();
    expect(tokenStore.get()).toBe('');

    await userEvent.clear(screen.getByTestId('login-token'));
    await userEvent.type(screen.getByTestId('login-token'), 'mcpr_admin');
    await userEvent.click(screen.getByTestId('login-submit'));
    expect(await screen.findByTestId('servers-page')).toBeInTheDocument();
  });

  it('shows a connection failure with a retry', async () => {
    const { api } = fakeApi();
    const session = vi.fn().mockRejectedValueOnce(new Error('Failed to fetch')).mockResolvedValueOnce({ authRequired: false, valid: true });
    render(<BrowserRoot api={api} session={session} />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to fetch');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.getByTestId('servers-page')).toBeInTheDocument());
  });
});
