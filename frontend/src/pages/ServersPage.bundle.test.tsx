import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { BUNDLE_CHUNK_BYTES, readBlob } from '../api';
import { bundlePreview, fakeApi, server } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import { ServersPage } from './ServersPage';

/** A file of n bytes counting 0..255, named name. */
function file(name: string, n: number): File {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = i % 256;
  return new File([bytes], name);
}

function decoded(chunks: string[]): Uint8Array {
  const parts = chunks.map((c) => Uint8Array.from(atob(c), (ch) => ch.charCodeAt(0)));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('ServersPage: installing a .mcpb bundle', () => {
  it('sends a picked bundle in chunks, shows what it is, asks for its user_config and installs it', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api);
    const picked = file('echo.mcpb', BUNDLE_CHUNK_BYTES + 1000);
    fireEvent.change(await screen.findByTestId('bundle-file'), { target: { files: [picked] } });

    const dialog = await screen.findByTestId('bundle-dialog');
    expect(await within(dialog).findByTestId('bundle-name')).toHaveTextContent('bundle-echo');
    expect(within(dialog).getByTestId('bundle-version')).toHaveTextContent('1.2.3');
    expect(within(dialog).getByTestId('bundle-author')).toHaveTextContent('by Test Author');
    expect(within(dialog).getByTestId('bundle-signature')).toHaveTextContent('Self-signed by Test Signer');
    expect(within(dialog).getByTestId('bundle-fingerprint')).toHaveTextContent('ab'.repeat(32));
    expect(within(dialog).getByTestId('bundle-tools')).toHaveTextContent('show_config');

    // The whole file arrived, in order, in two chunks under the cap.
    const chunks = api.appendBundleUpload.mock.calls.map((c) => c[1]);
    expect(chunks).toHaveLength(2);
    const got = decoded(chunks);
    const want = await readBlob(picked);
    expect(got.length).toBe(want.length);
    expect(got.findIndex((b, i) => b !== want[i])).toBe(-1); // (toEqual on 1.5 MB is minutes in jsdom)

    // The sensitive entry is a password field; a required one left empty is named.
    const key = within(dialog).getByTestId('bundle-config-api_key');
    expect(key).toHaveAttribute('type', 'password');
    expect(within(dialog).getByTestId('bundle-config-greeting')).toHaveValue('hello');
    await userEvent.click(within(dialog).getByTestId('bundle-install'));
    expect(within(dialog).getByTestId('bundle-error-api_key')).toHaveTextContent('API key is required.');
    expect(api.installBundle).not.toHaveBeenCalled();

    await userEvent.type(key, 'sk-1');
    await userEvent.click(within(dialog).getByTestId('bundle-config-verbose'));
    await userEvent.clear(within(dialog).getByTestId('bundle-server-name'));
    await userEvent.type(within(dialog).getByTestId('bundle-server-name'), 'echo');
    await userEvent.click(within(dialog).getByTestId('bundle-install'));
    await waitFor(() => expect(screen.queryByTestId('bundle-dialog')).toBeNull());
    expect(api.installBundle).toHaveBeenCalledWith('up1', 'echo', { api_key: ['sk-1'], greeting: ['hello'], verbose: ['true'] });
    expect(api.discardBundleUpload).not.toHaveBeenCalled();
    expect(await screen.findByTestId('server-bundle-echo')).toHaveTextContent('bundle');
  });

  it('takes a dropped .mcpb, refuses another kind of file, and drops the upload when cancelled', async () => {
    const { api } = fakeApi([server('a')]);
    renderWithApi(<ServersPage />, api);
    const page = await screen.findByTestId('servers-page');
    fireEvent.drop(page, { dataTransfer: { types: ['Files'], files: [file('notes.txt', 10)] } });
    expect(await screen.findByTestId('bundle-drop-error')).toHaveTextContent('notes.txt is not a .mcpb bundle.');
    expect(api.beginBundleUpload).not.toHaveBeenCalled();

    fireEvent.dragOver(page, { dataTransfer: { types: ['Files'], files: [] } });
    expect(screen.getByTestId('bundle-drop-hint')).toBeInTheDocument();
    fireEvent.drop(page, { dataTransfer: { types: ['Files'], files: [file('x.MCPB', 10)] } });
    const dialog = await screen.findByTestId('bundle-dialog');
    await within(dialog).findByTestId('bundle-form');
    await userEvent.click(within(dialog).getByText('Cancel'));
    await waitFor(() => expect(api.discardBundleUpload).toHaveBeenCalledWith('up1'));
    expect(api.installBundle).not.toHaveBeenCalled();
  });

  it('shows why the router refused a bundle, and keeps no upload', async () => {
    const { api } = fakeApi([]);
    api.inspectBundle.mockRejectedValueOnce(new Error('invalid bundle: zip entry "../evil.js" leaves the bundle\'s folder (..)'));
    renderWithApi(<ServersPage />, api);
    fireEvent.change(await screen.findByTestId('bundle-file'), { target: { files: [file('evil.mcpb', 10)] } });
    expect(await screen.findByTestId('bundle-error')).toHaveTextContent("leaves the bundle's folder");
    expect(api.discardBundleUpload).toHaveBeenCalledWith('up1');
    expect(screen.queryByTestId('bundle-form')).toBeNull();
  });

  it('shows an install error and keeps the form for a retry', async () => {
    const { api } = fakeApi([]);
    api.inspectBundle.mockResolvedValueOnce(bundlePreview({ userConfig: [] }));
    api.installBundle.mockRejectedValueOnce(new Error('invalid bundle: this bundle runs its server with "node" and no "node" is on your PATH'));
    renderWithApi(<ServersPage />, api);
    fireEvent.change(await screen.findByTestId('bundle-file'), { target: { files: [file('echo.mcpb', 10)] } });
    await userEvent.click(await screen.findByTestId('bundle-install'));
    expect(await screen.findByTestId('bundle-install-error')).toHaveTextContent('no "node" is on your PATH');
    expect(screen.getByTestId('bundle-form')).toBeInTheDocument();
  });
});

describe('ServersPage: bundles in Japanese', () => {
  it('says it in Japanese', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api, 'ja');
    expect(await screen.findByTestId('install-bundle')).toHaveTextContent('バンドルをインストール…');
    fireEvent.change(screen.getByTestId('bundle-file'), { target: { files: [file('echo.mcpb', 10)] } });
    expect(await screen.findByTestId('bundle-signature')).toHaveTextContent('Test Signer の自己署名');
  });
});
