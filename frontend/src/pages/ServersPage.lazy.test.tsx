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

describe('ServersPage: lazy servers in Japanese', () => {
  it('says it in Japanese', async () => {
    const { api } = fakeApi([server('sleepy', { lazy: true, state: 'stopped' })]);
    renderWithApi(<ServersPage />, api, 'ja');
    expect(await screen.findByTestId('server-lazy-sleepy')).toHaveTextContent('停止中 — 使用時に起動');
  });
});
