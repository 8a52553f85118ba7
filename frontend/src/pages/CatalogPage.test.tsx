import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import { CATALOG_PAGE_SIZE } from '../stores/catalog';
import CatalogPage from './CatalogPage';

describe('CatalogPage', () => {
  it('searches, pages with the registry cursor, and shows an entry with its packages and remotes', async () => {
    const { api } = fakeApi([]);
    // Two servers a page, so there is a next page.
    const search = api.registrySearch.getMockImplementation()!;
    api.registrySearch.mockImplementation((q, c) => search(q, c, 2));
    renderWithApi(<CatalogPage />, api);
    expect(await screen.findByTestId('catalog-row-io.github.example/alpha')).toBeInTheDocument();
    expect(api.registrySearch).toHaveBeenLastCalledWith('', '', CATALOG_PAGE_SIZE);
    expect(screen.queryByTestId('catalog-row-io.github.example/weather')).not.toBeInTheDocument();
    expect(screen.getByTestId('catalog-previous')).toBeDisabled();

    await userEvent.click(screen.getByTestId('catalog-next'));
    expect(await screen.findByTestId('catalog-row-io.github.example/weather')).toBeInTheDocument();
    expect(api.registrySearch).toHaveBeenLastCalledWith('', '2', CATALOG_PAGE_SIZE);
    expect(screen.getByTestId('catalog-next')).toBeDisabled();
    await userEvent.click(screen.getByTestId('catalog-previous'));
    expect(await screen.findByTestId('catalog-row-io.github.example/alpha')).toBeInTheDocument();

    await userEvent.type(screen.getByTestId('catalog-query'), 'weather');
    await userEvent.click(screen.getByTestId('catalog-search'));
    await waitFor(() => expect(api.registrySearch).toHaveBeenLastCalledWith('weather', '', CATALOG_PAGE_SIZE));
    expect(screen.queryByTestId('catalog-row-io.github.example/alpha')).not.toBeInTheDocument();

    await userEvent.click(await screen.findByTestId('catalog-details-io.github.example/weather'));
    const detail = await screen.findByTestId('catalog-detail');
    expect(api.registryShow).toHaveBeenCalledWith('io.github.example/weather', '1.0.0');
    expect(within(detail).getByTestId('catalog-target-package-1')).toHaveTextContent('npm @example/weather 1.0.0');
    expect(within(detail).getByTestId('catalog-target-package-2')).toHaveTextContent('Not installable: mcpb packages are not run by the router');
    expect(within(detail).queryByTestId('catalog-install-package-2')).not.toBeInTheDocument();
    expect(within(detail).getByTestId('catalog-target-remote-1')).toHaveTextContent('streamable-http https://weather.example.com/mcp');
  });

  it('installs a package, asking its declared values with the secret as a password field', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<CatalogPage />, api);
    await userEvent.click(await screen.findByTestId('catalog-details-io.github.example/weather'));
    await userEvent.click(await screen.findByTestId('catalog-install-package-1'));
    const dialog = await screen.findByTestId('catalog-install-dialog');
    const secret = within(dialog).getByTestId('catalog-field-WEATHER_API_KEY');
    expect(secret).toHaveAttribute('type', 'password');
    expect(within(dialog).getByText('secret: kept in the keychain, not in the database')).toBeInTheDocument();
    expect(within(dialog).getByTestId('catalog-field-units')).toHaveValue('metric');
    expect(within(dialog).getByTestId('catalog-server-name')).toHaveValue('weather');

    // A required value missing is said in the dialog, and nothing is sent.
    await userEvent.click(within(dialog).getByTestId('catalog-install-submit'));
    expect(within(dialog).getByTestId('catalog-install-error')).toHaveTextContent('WEATHER_API_KEY is required.');
    expect(api.registryInstall).not.toHaveBeenCalled();

    await userEvent.type(secret, 'k-123');
    await userEvent.selectOptions(within(dialog).getByTestId('catalog-field-units'), 'imperial');
    await userEvent.clear(within(dialog).getByTestId('catalog-server-name'));
    await userEvent.type(within(dialog).getByTestId('catalog-server-name'), 'wx');
    await userEvent.click(within(dialog).getByTestId('catalog-install-submit'));
    expect(api.registryInstall).toHaveBeenCalledWith('io.github.example/weather', '1.0.0', { kind: 'package', index: 1 }, 'wx', {
      args: { units: 'imperial' },
      env: { WEATHER_API_KEY: 'k-123' },
      headers: {},
    });
    expect(await screen.findByTestId('catalog-installed')).toHaveTextContent('Installed as wx.');
    expect(screen.queryByTestId('catalog-install-dialog')).not.toBeInTheDocument();
  });

  it("shows the router's refusal in the dialog and keeps what was typed", async () => {
    const { api } = fakeApi([]);
    api.registryInstall.mockRejectedValueOnce(new Error('server "weather" already exists'));
    renderWithApi(<CatalogPage />, api, 'ja');
    await userEvent.click(await screen.findByTestId('catalog-details-io.github.example/weather'));
    await userEvent.click(await screen.findByTestId('catalog-install-package-1'));
    const dialog = await screen.findByTestId('catalog-install-dialog');
    expect(dialog).toHaveTextContent('io.github.example/weather をインストール');
    await userEvent.type(within(dialog).getByTestId('catalog-field-WEATHER_API_KEY'), 'k-1');
    await userEvent.click(within(dialog).getByTestId('catalog-install-submit'));
    expect(await within(dialog).findByTestId('catalog-install-error')).toHaveTextContent('server "weather" already exists');
    expect(within(dialog).getByTestId('catalog-field-WEATHER_API_KEY')).toHaveValue('k-1');
  });

  it('lists installed servers whose registry has a newer version', async () => {
    const { api } = fakeApi([]);
    api.outdatedServers.mockResolvedValue([
      { server: 'weather', source: { registry: 'https://r.example', name: 'io.github.example/weather', version: '1.0.0' }, latest: '1.2.0', outdated: true, error: '' },
      { server: 'alpha', source: { registry: 'https://r.example', name: 'io.github.example/alpha', version: '2.0.0' }, latest: '2.0.0', outdated: false, error: '' },
    ]);
    renderWithApi(<CatalogPage />, api);
    expect(await screen.findByTestId('catalog-outdated-weather')).toHaveTextContent('weather: 1.0.0 installed, 1.2.0 available');
    expect(screen.queryByTestId('catalog-outdated-alpha')).not.toBeInTheDocument();
  });

  it("says when the registry cannot be asked, with the router's message", async () => {
    const { api } = fakeApi([]);
    api.registrySearch.mockRejectedValueOnce(new Error('bad answer from the registry: the answer to GET /v0/servers is larger than 4096 KB (the registryMaxKB setting'));
    renderWithApi(<CatalogPage />, api);
    expect(await screen.findByText(/registryMaxKB/)).toBeInTheDocument();
    expect(screen.getByText('Could not ask the registry')).toBeInTheDocument();
  });
});
