import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, server } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import { ServersPage } from './ServersPage';

describe('ServersPage: lazy servers', () => {
  it('says a stopped lazy server starts on use, a running one is lazy, and an eager one nothing', async () => {
    const { api } = fakeApi([
      server('sleepy', { lazy: true, state: 'stopped' }),
      server('awake', { lazy: true, state: 'running' }),
      server('eager', { state: 'stopped' }),
    ]);
    renderWithApi(<ServersPage />, api);
    const sleepy = await screen.findByTestId('server-row-sleepy');
    expect(within(sleepy).getByTestId('server-lazy-sleepy')).toHaveTextContent('stopped — starts on use');
    expect(within(screen.getByTestId('server-row-awake')).getByTestId('server-lazy-awake')).toHaveTextContent(/^\s*lazy$/);
    expect(screen.queryByTestId('server-lazy-eager')).toBeNull();
  });
});

describe('ServersPage: lazy by default (start: auto)', () => {
  it('marks an auto-lazy server "(auto)" and says why in its title; an explicit lazy one has neither', async () => {
    const { api } = fakeApi([
      server('found', { lazy: true, lazyWhy: 'search-only', state: 'stopped' }),
      server('locked', { lazy: true, lazyWhy: 'gated', state: 'running' }),
      server('asked', { lazy: true, state: 'running' }),
    ]);
    renderWithApi(<ServersPage />, api);
    const found = await screen.findByTestId('server-lazy-found');
    expect(found).toHaveTextContent(/^\s*stopped — starts on use \(auto\)$/);
    expect(found.getAttribute('title')).toMatch(/only search profiles have it/);
    const locked = screen.getByTestId('server-lazy-locked');
    expect(locked).toHaveTextContent(/^\s*lazy \(auto\)$/);
    expect(locked.getAttribute('title')).toMatch(/the server is gated/);
    const asked = screen.getByTestId('server-lazy-asked');
    expect(asked).toHaveTextContent(/^\s*lazy$/);
    expect(asked.getAttribute('title')).not.toMatch(/start: auto/);
  });

  it('says it in Japanese', async () => {
    const { api } = fakeApi([server('found', { lazy: true, lazyWhy: 'search-only', state: 'running' })]);
    renderWithApi(<ServersPage />, api, 'ja');
    const found = await screen.findByTestId('server-lazy-found');
    expect(found).toHaveTextContent(/^\s*遅延起動（自動）$/);
    expect(found.getAttribute('title')).toMatch(/search プロファイルにしか含まれない/);
  });
});

describe('ServersPage: lazy servers in Japanese', () => {
  it('says it in Japanese', async () => {
    const { api } = fakeApi([server('sleepy', { lazy: true, state: 'stopped' })]);
    renderWithApi(<ServersPage />, api, 'ja');
    expect(await screen.findByTestId('server-lazy-sleepy')).toHaveTextContent('停止中 — 使用時に起動');
  });
});
