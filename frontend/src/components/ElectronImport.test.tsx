import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ElectronPlan } from '../api';
import { fakeApi } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import { ElectronImport } from './ElectronImport';
import { ServersPage } from '../pages/ServersPage';
import { en, ja } from '../i18n/messages';

const DB = '/home/u/.config/MCP Router/mcprouter.db';

/** The plan of the Go test's database (backend/electronimport, testelectron.UserData). */
function plan(over: Partial<ElectronPlan> = {}): ElectronPlan {
  return {
    source: DB,
    kind: 'database',
    workspace: 'Local',
    servers: [
      {
        name: 'GitHub-MCP',
        from: 'GitHub MCP',
        transport: 'stdio',
        target: 'npx -y @modelcontextprotocol/server-github',
        enabled: true,
        disabledTools: ['create_issue', 'delete_repo'],
        secretEnv: ['GITHUB_PERSONAL_ACCESS_TOKEN'],
        secretHeaders: [],
        project: 'Web Dev',
      },
      { name: 'filesystem', from: 'filesystem', transport: 'stdio', target: 'npx fs', enabled: false, disabledTools: [], secretEnv: [], secretHeaders: [], project: '' },
    ],
    profiles: [{ name: 'Web-Dev', from: 'Web Dev', servers: ['GitHub-MCP'] }],
    skipped: [{ kind: 'server', name: 'bundle', reason: 'unsupported server type "dxt"' }],
    tokens: 3,
    tokensNote: '3 access token(s) of the Electron app are not carried over',
    notes: ['workspace "Team B" was not read; import it with --db "/x/database.db"'],
    ...over,
  };
}

describe('Electron MCP Router import', () => {
  it('finds the database, previews, and imports only after a preview of what is on screen', async () => {
    const { api } = fakeApi([]);
    api.findElectronDatabase.mockResolvedValue({ path: DB, exists: true });
    api.previewElectronImport.mockResolvedValue(plan());
    api.importElectron.mockResolvedValue(plan());
    renderWithApi(<ElectronImport />, api);

    expect(await screen.findByTestId('electron-found')).toHaveTextContent(en.electronFound(DB));
    await waitFor(() => expect(screen.getByTestId('electron-path')).toHaveValue(DB));
    expect(screen.queryByTestId('electron-import-button')).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: en.electronPreview }));
    const preview = await screen.findByTestId('electron-preview');
    expect(api.previewElectronImport).toHaveBeenCalledWith('database', DB);
    expect(preview).toHaveTextContent(en.electronPreviewTitle);
    expect(preview).toHaveTextContent('GitHub-MCP');
    expect(preview).toHaveTextContent(en.electronFrom('GitHub MCP'));
    expect(preview).toHaveTextContent(en.electronToolsOff(2, 'create_issue, delete_repo'));
    expect(preview).toHaveTextContent(en.electronSecrets('GITHUB_PERSONAL_ACCESS_TOKEN'));
    expect(preview).toHaveTextContent(en.electronDisabled);
    expect(preview).toHaveTextContent('Web-Dev');
    expect(preview).toHaveTextContent('unsupported server type "dxt"');
    expect(preview).toHaveTextContent('workspace "Team B" was not read');
    const tokens = within(preview).getByTestId('electron-tokens');
    expect(tokens).toHaveTextContent(en.electronTokens(3));
    expect(within(tokens).getByRole('link', { name: en.electronNewTokens })).toHaveAttribute('href', '#/connect');
    expect(api.importElectron).not.toHaveBeenCalled();

    // Editing the path drops the preview: Import never runs on a file not previewed.
    await userEvent.type(screen.getByTestId('electron-path'), 'x');
    expect(screen.queryByTestId('electron-preview')).not.toBeInTheDocument();
    expect(screen.queryByTestId('electron-import-button')).not.toBeInTheDocument();
    await userEvent.clear(screen.getByTestId('electron-path'));
    await userEvent.type(screen.getByTestId('electron-path'), DB);
    await userEvent.click(screen.getByRole('button', { name: en.electronPreview }));
    await userEvent.click(await screen.findByTestId('electron-import-button'));

    const done = await screen.findByTestId('electron-done');
    expect(api.importElectron).toHaveBeenCalledWith('database', DB);
    expect(done).toHaveTextContent(en.electronDoneTitle);
    expect(screen.queryByTestId('electron-import-button')).not.toBeInTheDocument();
    await waitFor(() => expect(api.listProfiles).toHaveBeenCalled());
  });

  it('says when there is no database, and imports an export file', async () => {
    const { api } = fakeApi([]);
    api.previewElectronImport.mockResolvedValue(plan({ kind: 'export', source: '/tmp/e.json', workspace: '', tokens: 0, tokensNote: '' }));
    renderWithApi(<ElectronImport />, api);
    expect(await screen.findByTestId('electron-found')).toHaveTextContent(en.electronNotFound(DB));
    expect(screen.getByTestId('electron-path')).toHaveValue('');
    expect(screen.getByRole('button', { name: en.electronPreview })).toBeDisabled();
    await userEvent.selectOptions(screen.getByTestId('electron-kind'), 'export');
    await userEvent.type(screen.getByTestId('electron-path'), '/tmp/e.json');
    await userEvent.click(screen.getByRole('button', { name: en.electronPreview }));
    expect(await screen.findByTestId('electron-preview')).toBeInTheDocument();
    expect(api.previewElectronImport).toHaveBeenCalledWith('export', '/tmp/e.json');
    expect(screen.queryByTestId('electron-tokens')).not.toBeInTheDocument();
  });

  it('shows an error of the file and no Import button; a plan that adds nothing says so', async () => {
    const { api } = fakeApi([]);
    api.findElectronDatabase.mockResolvedValue({ path: DB, exists: true });
    api.previewElectronImport.mockRejectedValueOnce(new Error('table servers, row 2: a value has 1048577 bytes, more than the cap of 1048576 (MaxValueBytes, fixed)'));
    renderWithApi(<ElectronImport />, api);
    await waitFor(() => expect(screen.getByTestId('electron-path')).toHaveValue(DB));
    await userEvent.click(screen.getByRole('button', { name: en.electronPreview }));
    expect(await screen.findByRole('alert')).toHaveTextContent('MaxValueBytes');
    expect(screen.queryByTestId('electron-import-button')).not.toBeInTheDocument();

    api.previewElectronImport.mockResolvedValueOnce(
      plan({ servers: [], profiles: [], skipped: [{ kind: 'server', name: 'GitHub MCP', reason: 'already here with the same command or URL (imported before): left as it is' }] }),
    );
    await userEvent.click(screen.getByRole('button', { name: en.electronPreview }));
    expect(await screen.findByTestId('electron-preview')).toHaveTextContent(en.electronNothing);
    expect(screen.queryByTestId('electron-import-button')).not.toBeInTheDocument();
  });

  it('is on the Servers page import tab, in Japanese too', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api, 'ja');
    await userEvent.click(await screen.findByTestId('add-server'));
    await userEvent.click(screen.getByTestId('add-tab-import'));
    const section = await screen.findByTestId('electron-import');
    expect(section).toHaveTextContent(ja.electronTitle);
    expect(section).toHaveTextContent(ja.electronIntro);
  });
});
