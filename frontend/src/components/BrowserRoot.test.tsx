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

  it('shows a connection failure with a retry', async () => {
    const { api } = fakeApi();
    const session = vi.fn().mockRejectedValueOnce(new Error('Failed to fetch')).mockResolvedValueOnce({ authRequired: false, valid: true });
    render(<BrowserRoot api={api} session={session} />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to fetch');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.getByTestId('servers-page')).toBeInTheDocument());
  });
});
