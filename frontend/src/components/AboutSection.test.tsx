import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApi, toUpdateCheck, type ApiTransport } from '../api';
import { fakeApi, updateCheck } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import { AboutSection } from './AboutSection';

describe('AboutSection', () => {
  afterEach(() => {
    delete (window as unknown as { runtime?: unknown }).runtime;
  });

  it('shows the version and asks nothing while checks are off', async () => {
    const { api } = fakeApi();
    renderWithApi(<AboutSection />, api);
    expect(await screen.findByTestId('about-version')).toHaveTextContent('v0.3.2');
    expect(screen.getByTestId('about-check-toggle')).not.toBeChecked();
    expect(screen.queryByTestId('about-dev-build')).toBeNull();
    await waitFor(() => expect(api.about).toHaveBeenCalled());
    expect(api.checkForUpdates).not.toHaveBeenCalled();
    expect(screen.queryByTestId('about-result')).toBeNull();
  });

  it('checks on the Check now click and links to the newer release', async () => {
    const { api } = fakeApi();
    renderWithApi(<AboutSection />, api);
    await screen.findByText('v0.3.2');
    await userEvent.click(screen.getByTestId('about-check-now'));
    expect(api.checkForUpdates).toHaveBeenCalledWith(true);
    expect(await screen.findByTestId('about-result')).toHaveTextContent('Version v0.4.0 is available.');
    const link = screen.getByTestId('about-release-link');
    expect(link).toHaveAttribute('href', 'https://github.com/mcp-router/mcp-router/releases/tag/v0.4.0');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByTestId('about-notes')).toHaveTextContent("What's Changed");
  });

  it('turns checks on, and then checks when the section opens', async () => {
    const { api } = fakeApi();
    const first = renderWithApi(<AboutSection />, api);
    await userEvent.click(await screen.findByTestId('about-check-toggle'));
    expect(api.setCheckForUpdates).toHaveBeenCalledWith(true);
    await waitFor(() => expect(screen.getByTestId('about-check-toggle')).toBeChecked());
    expect(api.checkForUpdates).not.toHaveBeenCalled(); // the toggle itself asks nothing
    first.unmount();
    renderWithApi(<AboutSection />, api);
    await waitFor(() => expect(api.checkForUpdates).toHaveBeenCalledWith(false));
    expect(await screen.findByTestId('about-result')).toHaveTextContent('Version v0.4.0 is available.');
  });

  it('says when this is the latest version, with no link', async () => {
    const { api } = fakeApi();
    api.checkForUpdates.mockResolvedValueOnce(updateCheck({ current: 'v0.4.0', newer: false }));
    renderWithApi(<AboutSection />, api);
    await userEvent.click(await screen.findByTestId('about-check-now'));
    expect(await screen.findByTestId('about-result')).toHaveTextContent('You have the latest version (v0.4.0).');
    expect(screen.queryByTestId('about-release-link')).toBeNull();
  });

  it('says a development build is one, before any check', async () => {
    const { api } = fakeApi();
    api.about.mockResolvedValueOnce({ version: '10c99cd', devBuild: true, checkForUpdates: false, lastCheck: null });
    api.checkForUpdates.mockResolvedValueOnce(updateCheck({ current: 'v0.4.0-3-g1a2b3c4-dirty', newer: false, devBuild: true }));
    renderWithApi(<AboutSection />, api);
    expect(await screen.findByTestId('about-dev-build')).toHaveTextContent('(development build)');
    expect(screen.getByTestId('about-version')).toHaveTextContent('10c99cd');
    expect(screen.queryByTestId('about-result')).toBeNull();
    await userEvent.click(screen.getByTestId('about-check-now'));
    expect(await screen.findByTestId('about-result')).toHaveTextContent('This is a development build; the latest release is v0.4.0.');
  });

  it('shows why a check failed and keeps the toggle usable', async () => {
    const { api } = fakeApi();
    api.checkForUpdates.mockRejectedValueOnce(new Error("GitHub's rate limit for update checks is used up: try again after 23:47 UTC"));
    renderWithApi(<AboutSection />, api);
    await userEvent.click(await screen.findByTestId('about-check-now'));
    expect(await screen.findByTestId('about-error')).toHaveTextContent('Could not check for updates: GitHub\'s rate limit for update checks is used up: try again after 23:47 UTC');
    expect(screen.queryByTestId('about-result')).toBeNull();
    // The next click succeeds and clears the error.
    await userEvent.click(screen.getByTestId('about-check-now'));
    expect(await screen.findByTestId('about-result')).toBeInTheDocument();
    expect(screen.queryByTestId('about-error')).toBeNull();
  });

  it('in the desktop window, opens the release page in the system browser', async () => {
    const open = vi.fn();
    (window as unknown as { runtime: unknown }).runtime = { BrowserOpenURL: open };
    const { api } = fakeApi();
    renderWithApi(<AboutSection />, api);
    await userEvent.click(await screen.findByTestId('about-check-now'));
    await userEvent.click(await screen.findByTestId('about-release-link'));
    expect(open).toHaveBeenCalledWith('https://github.com/mcp-router/mcp-router/releases/tag/v0.4.0');
  });

  it('never links to anything but a github.com page', async () => {
    expect(toUpdateCheck({ latest: 'v9.0.0', newer: true, url: 'javascript:alert(1)' }).url).toBe('');
    expect(toUpdateCheck({ latest: 'v9.0.0', newer: true, url: 'https://evil.example/x' }).url).toBe('');
    expect(() => toUpdateCheck({ newer: true })).toThrow('missing latest');
    const { api } = fakeApi();
    api.checkForUpdates.mockResolvedValueOnce(toUpdateCheck({ latest: 'v9.0.0', newer: true, url: 'javascript:alert(1)' }));
    renderWithApi(<AboutSection />, api);
    await userEvent.click(await screen.findByTestId('about-check-now'));
    expect(await screen.findByTestId('about-result')).toHaveTextContent('Version v9.0.0 is available.');
    expect(screen.queryByTestId('about-release-link')).toBeNull();
  });

  it('is in Japanese', async () => {
    const { api } = fakeApi();
    renderWithApi(<AboutSection />, api, 'ja');
    expect(await screen.findByText('このアプリについて')).toBeInTheDocument();
    await userEvent.click(screen.getByText('今すぐ確認'));
    expect(await screen.findByTestId('about-result')).toHaveTextContent('バージョン v0.4.0 が利用できます。');
  });

  it('calls the Go methods by their names', async () => {
    const calls: [string, unknown[]][] = [];
    const t: ApiTransport = {
      async call(method, args) {
        calls.push([method, args]);
        if (method === 'CheckForUpdates') return updateCheck();
        return { version: 'v0.3.2', devBuild: false, checkForUpdates: args[0] === true, lastCheck: null };
      },
      on: () => () => {},
    };
    const api = createApi(t);
    expect(await api.about()).toEqual({ version: 'v0.3.2', devBuild: false, checkForUpdates: false, lastCheck: null });
    expect((await api.setCheckForUpdates(true)).checkForUpdates).toBe(true);
    expect((await api.checkForUpdates(true)).latest).toBe('v0.4.0');
    expect(calls).toEqual([
      ['About', []],
      ['SetCheckForUpdates', [true]],
      ['CheckForUpdates', [true]],
    ]);
  });
});
