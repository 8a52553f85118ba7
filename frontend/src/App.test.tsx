import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from './App';
import { fakeApi, server } from './test/fakeApi';
import { renderWithApi } from './test/render';

describe('App', () => {
  afterEach(() => {
    window.location.hash = '';
  });

  it('opens on Servers and moves between pages by the sidebar, loading each page when first opened', async () => {
    const { api } = fakeApi([server('everything')]);
    renderWithApi(<App />, api);
    expect(await screen.findByTestId('servers-page')).toBeInTheDocument();
    expect(screen.getByTestId('nav-servers')).toHaveAttribute('aria-current', 'page');
    expect(api.listTools).not.toHaveBeenCalled();

    for (const page of ['tools', 'hooks', 'logs', 'connect', 'settings', 'servers']) {
      await userEvent.click(screen.getByTestId(`nav-${page}`));
      expect(await screen.findByTestId(`${page}-page`)).toBeInTheDocument();
      expect(screen.getByTestId(`nav-${page}`)).toHaveAttribute('aria-current', 'page');
    }
    expect(api.listTools).toHaveBeenCalled();
    expect(api.frontendReady).toHaveBeenCalledWith('servers');
  });

  it('follows the system language until the setting says otherwise', async () => {
    const { api } = fakeApi();
    api.getSettings.mockResolvedValueOnce({ ...(await api.getSettings()), language: 'ja' });
    renderWithApi(<App />, api);
    expect(await screen.findByRole('heading', { name: 'サーバー' })).toBeInTheDocument();
  });
});

describe('first paint', () => {
  it('uses the theme and language of the last run until the settings arrive', async () => {
    localStorage.setItem('mcpr.appearance', JSON.stringify({ theme: 'dark', language: 'ja' }));
    const { api } = fakeApi();
    let resolve!: (s: Awaited<ReturnType<typeof api.getSettings>>) => void;
    api.getSettings.mockReturnValueOnce(new Promise((r) => (resolve = r)));
    renderWithApi(<App />, api);
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(await screen.findByRole('heading', { name: 'サーバー' })).toBeInTheDocument();
    resolve({ ...(await fakeApi().api.getSettings()), theme: 'light', language: 'en' });
    expect(await screen.findByRole('heading', { name: 'Servers' })).toBeInTheDocument();
    expect(document.documentElement.dataset.theme).toBe('light');
    expect(JSON.parse(localStorage.getItem('mcpr.appearance')!)).toEqual({ theme: 'light', language: 'en' });
    localStorage.clear();
  });
});
