import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, server } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import ProfilesPage from './ProfilesPage';

describe('ProfilesPage', () => {
  it('creates a profile with chosen servers, tools and mode, and copies its snippet', async () => {
    const { api } = fakeApi([server('files'), server('github')]);
    api.serverTools.mockResolvedValue([
      { name: 'search_issues', description: 'find issues', enabled: true, finalName: 'github__search_issues' },
      { name: 'create_issue', description: 'open an issue', enabled: true, finalName: 'github__create_issue' },
    ]);
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderWithApi(<ProfilesPage />, api);
    expect(await screen.findByText('No profiles yet.')).toBeInTheDocument();

    await userEvent.click(screen.getByTestId('profile-new'));
    await userEvent.click(screen.getByTestId('profile-save'));
    expect(screen.getByTestId('profile-error')).toHaveTextContent('Enter a name.');
    await userEvent.type(screen.getByTestId('profile-name'), 'research');
    await userEvent.click(screen.getByTestId('profile-save'));
    expect(screen.getByTestId('profile-error')).toHaveTextContent('Pick at least one server.');

    await userEvent.click(await screen.findByTestId('profile-server-files'));
    await userEvent.click(screen.getByTestId('profile-server-github'));
    await userEvent.click(screen.getByTestId('profile-tools-pick-github'));
    expect(api.serverTools).toHaveBeenCalledWith('github');
    await userEvent.click(await screen.findByTestId('profile-tool-github-search_issues'));
    await userEvent.click(screen.getByTestId('profile-mode-search'));
    await userEvent.click(screen.getByTestId('profile-save'));

    expect(api.createProfile).toHaveBeenCalledWith({
      name: 'research', description: '', mode: 'search', servers: ['files', 'github'], tools: { github: ['search_issues'] }, path: '',
    });
    const row = await screen.findByTestId('profile-row-research');
    expect(row).toHaveTextContent('/mcp/research');
    expect(row).toHaveTextContent('github: 1 tools');
    expect(row).toHaveTextContent('files: All tools');

    await waitFor(() => expect(screen.getByTestId('profile-snippet-text')).toHaveTextContent('claude-code http /mcp/research'));
    await userEvent.click(screen.getByTestId('profile-snippet-client-cursor'));
    await userEvent.click(screen.getByTestId('profile-snippet-mode-stdio'));
    await waitFor(() => expect(screen.getByTestId('profile-snippet-text')).toHaveTextContent('cursor stdio /mcp/research'));
    await userEvent.click(screen.getByTestId('profile-snippet-copy'));
    expect(writeText).toHaveBeenCalledWith('cursor stdio /mcp/research');
  });

  it('shows the router\'s refusal and keeps the form', async () => {
    const { api } = fakeApi([server('files')]);
    api.createProfile.mockRejectedValueOnce(new Error('bad profile name "a b"'));
    renderWithApi(<ProfilesPage />, api);
    await userEvent.click(await screen.findByTestId('profile-new'));
    await userEvent.type(screen.getByTestId('profile-name'), 'a b');
    await userEvent.click(await screen.findByTestId('profile-server-files'));
    await userEvent.click(screen.getByTestId('profile-save'));
    expect(await screen.findByTestId('profile-error')).toHaveTextContent('bad profile name');
    expect(screen.getByTestId('profile-name')).toHaveValue('a b');
  });

  it('edits the mode and removes a profile after confirming', async () => {
    const { api } = fakeApi([server('files')]);
    await api.createProfile({ name: 'work', description: '', mode: 'all', servers: ['files'], tools: {}, path: '' });
    renderWithApi(<ProfilesPage />, api);
    await userEvent.click(await screen.findByTestId('profile-edit-work'));
    expect(screen.getByTestId('profile-name')).toBeDisabled();
    await userEvent.click(screen.getByTestId('profile-mode-gated'));
    await userEvent.click(screen.getByTestId('profile-save'));
    expect(api.updateProfile).toHaveBeenCalledWith(expect.objectContaining({ name: 'work', mode: 'gated', servers: ['files'] }));
    await userEvent.click(await screen.findByTestId('profile-remove-work'));
    await userEvent.click(within(screen.getByTestId('confirm-dialog')).getByTestId('confirm'));
    expect(api.removeProfile).toHaveBeenCalledWith('work');
    await waitFor(() => expect(screen.queryByTestId('profile-row-work')).not.toBeInTheDocument());
  });
});
