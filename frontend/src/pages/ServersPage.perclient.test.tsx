import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, server } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import { ServersPage } from './ServersPage';

describe('ServersPage: per-client servers', () => {
  it("lists a per-client server's instances (client, pid, since, calls)", async () => {
    const { api } = fakeApi([
      server('fs', {
        isolation: 'per-client',
        instances: [
          { id: 1, client: 'claude-code (dev) a1b2c3', pid: 4242, since: Date.UTC(2026, 10, 27, 9, 0, 0), calls: 7, state: 'running' },
          { id: 3, client: 'cursor (dev) d4e5f6', pid: 4343, since: Date.UTC(2026, 10, 27, 9, 5, 0), calls: 1, state: 'running' },
        ],
      }),
      server('plain'),
    ]);
    renderWithApi(<ServersPage />, api);
    const row = await screen.findByTestId('server-row-fs');
    expect(within(row).getByTestId('server-perclient-fs')).toHaveTextContent('per-client · 2 instances');
    expect(screen.queryByTestId('server-perclient-plain')).toBeNull();

    await userEvent.click(screen.getByTestId('server-open-fs'));
    await userEvent.click(await screen.findByTestId('details-tab-instances'));
    const first = await screen.findByTestId('server-instance-fs-1');
    expect(first).toHaveTextContent('#1');
    expect(first).toHaveTextContent('claude-code (dev) a1b2c3');
    expect(first).toHaveTextContent('4242');
    expect(first).toHaveTextContent('7');
    expect(screen.getByTestId('server-instance-fs-3')).toHaveTextContent('cursor (dev) d4e5f6');

    // A shared server has no instances tab.
    await userEvent.click(screen.getByTestId('server-open-plain'));
    expect(screen.queryByTestId('details-tab-instances')).toBeNull();
  });

  it('offers to make a shared server that asks its clients per-client, and does it', async () => {
    const { api } = fakeApi([server('fs', { suggestPerClient: { what: 'roots', clients: 2, at: Date.now() } }), server('quiet')]);
    renderWithApi(<ServersPage />, api);
    const hint = await screen.findByTestId('server-suggest-fs');
    expect(hint).toHaveTextContent('asked for roots while 2 clients used it');
    expect(screen.queryByTestId('server-suggest-quiet')).toBeNull();

    await userEvent.click(screen.getByTestId('server-make-perclient-fs'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalled());
    const [name, cfg] = api.updateServer.mock.calls[0]!;
    expect(name).toBe('fs');
    expect(cfg.isolation).toBe('per-client');
    // Everything else of the definition is kept.
    expect(cfg.command).toBe((await api.getServer('fs')).command);
  });

  it("shows the router's refusal when the switch fails", async () => {
    const { api } = fakeApi([server('fs', { suggestPerClient: { what: 'sampling', clients: 3, at: Date.now() } })]);
    api.updateServer.mockRejectedValueOnce(new Error('server "fs": invalid server definition'));
    renderWithApi(<ServersPage />, api);
    await userEvent.click(await screen.findByTestId('server-make-perclient-fs'));
    expect(await screen.findByTestId('server-suggest-error-fs')).toHaveTextContent('invalid server definition');
  });
});
