import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { looksSecret } from '../api';
import { ServersPage } from '../pages/ServersPage';
import { fakeApi, server } from '../test/fakeApi';
import { renderWithApi } from '../test/render';

async function openForm() {
  await userEvent.click(await screen.findByTestId('add-server'));
  await userEvent.click(within(screen.getByTestId('server-dialog')).getByTestId('add-tab-form'));
}

describe('secret env and header values in the server form', () => {
  it('suggests names such as *_KEY, *_TOKEN and Authorization, as the router does', () => {
    for (const n of ['API_KEY', 'GITHUB_TOKEN', 'CLIENT_SECRET', 'DB_PASSWORD', 'Authorization', 'X-Api-Key', 'OPENAI_APIKEY']) expect(looksSecret(n), n).toBe(true);
    for (const n of ['DEBUG', 'PATH', 'MONKEY', 'TOKENIZER_MODE', 'X-Team', 'KEYBOARD']) expect(looksSecret(n), n).toBe(false);
  });

  it('turns the toggle on for a name that looks secret, hides the value, and sends it as secret', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api);
    await openForm();
    await userEvent.type(screen.getByTestId('form-name'), 'gh');
    await userEvent.type(screen.getByTestId('form-command'), 'npx');
    await userEvent.type(screen.getByTestId('form-env-key-0'), 'GITHUB_TOKEN');
    expect(screen.getByTestId('form-env-secret-0')).toBeChecked();
    expect(screen.getByTestId('form-env-suggested-0')).toHaveTextContent('Looks like a secret');
    expect(screen.getByTestId('form-env-value-0')).toHaveAttribute('type', 'password');
    await userEvent.type(screen.getByTestId('form-env-value-0'), 'ghp_s3cret');
    await userEvent.click(screen.getByTestId('form-env-add'));
    await userEvent.type(screen.getByTestId('form-env-key-1'), 'DEBUG');
    expect(screen.getByTestId('form-env-secret-1')).not.toBeChecked();
    expect(screen.getByTestId('form-env-value-1')).toHaveAttribute('type', 'text');
    await userEvent.type(screen.getByTestId('form-env-value-1'), '1');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.addServer).toHaveBeenCalled());
    expect(api.addServer.mock.calls[0]?.[0]).toMatchObject({ env: { GITHUB_TOKEN: 'ghp_s3cret', DEBUG: '1' }, secretEnv: ['GITHUB_TOKEN'] });
  });

  it('lets the user untick a suggestion, and then leaves the toggle alone', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api);
    await openForm();
    await userEvent.type(screen.getByTestId('form-name'), 'remote');
    await userEvent.click(screen.getByTestId('form-transport-http'));
    await userEvent.type(screen.getByTestId('form-url'), 'https://api.example.com/mcp');
    await userEvent.type(screen.getByTestId('form-headers-key-0'), 'Authorization');
    expect(screen.getByTestId('form-headers-secret-0')).toBeChecked();
    await userEvent.click(screen.getByTestId('form-headers-secret-0'));
    expect(screen.queryByTestId('form-headers-suggested-0')).not.toBeInTheDocument();
    await userEvent.type(screen.getByTestId('form-headers-key-0'), '-Extra'); // still unticked: the user chose
    expect(screen.getByTestId('form-headers-secret-0')).not.toBeChecked();
    await userEvent.clear(screen.getByTestId('form-headers-key-0'));
    await userEvent.type(screen.getByTestId('form-headers-key-0'), 'Authorization');
    await userEvent.type(screen.getByTestId('form-headers-value-0'), 'Bearer plain');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.addServer).toHaveBeenCalled());
    const cfg = api.addServer.mock.calls[0]![0];
    expect(cfg.headers).toEqual({ Authorization: 'Bearer plain' });
    expect(cfg.secretHeaders).toBeUndefined();
  });

  it('refuses a new secret without a value', async () => {
    const { api } = fakeApi([]);
    renderWithApi(<ServersPage />, api);
    await openForm();
    await userEvent.type(screen.getByTestId('form-name'), 'x');
    await userEvent.type(screen.getByTestId('form-command'), 'npx');
    await userEvent.type(screen.getByTestId('form-env-key-0'), 'API_KEY');
    await userEvent.click(screen.getByTestId('form-submit'));
    expect(screen.getByTestId('form-error-env')).toHaveTextContent('Enter the secret value of API_KEY.');
    expect(api.addServer).not.toHaveBeenCalled();
  });

  it('edits a stored secret: never shows it, keeps it when left empty, replaces it, or makes it plain', async () => {
    const { api } = fakeApi([server('gh')]);
    api.getServer.mockResolvedValue({
      name: 'gh', transport: 'stdio', command: 'srv', enabled: true, prefixMode: 'always',
      env: { API_KEY: '${secret:API_KEY}', DEBUG: '1' }, secretEnv: ['API_KEY'],
    });
    renderWithApi(<ServersPage />, api);
    const edit = async () => {
      await userEvent.click(await screen.findByTestId('server-edit-gh'));
      await screen.findByTestId('form-command');
    };
    await edit();
    const row = screen.getByTestId('form-env-key-0').getAttribute('value') === 'API_KEY' ? 0 : 1;
    expect(screen.getByTestId(`form-env-secret-${row}`)).toBeChecked();
    expect(screen.getByTestId(`form-env-value-${row}`)).toHaveValue('');
    expect(screen.getByTestId(`form-env-value-${row}`)).toHaveAttribute('placeholder', 'Kept in the keychain — type to replace');
    expect(screen.queryByDisplayValue('${secret:API_KEY}')).not.toBeInTheDocument();
    // Saved unchanged: the placeholder asks the router to keep the value.
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalledTimes(1));
    expect(api.updateServer.mock.calls[0]![1]).toMatchObject({ env: { API_KEY: '${secret:API_KEY}', DEBUG: '1' }, secretEnv: ['API_KEY'] });

    await edit();
    await userEvent.type(screen.getByTestId(`form-env-value-${row}`), 'rotated');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalledTimes(2));
    expect(api.updateServer.mock.calls[1]![1]).toMatchObject({ env: { API_KEY: 'rotated' }, secretEnv: ['API_KEY'] });

    // Unticked with the value left empty: plain, with the stored value (the router puts it back).
    await edit();
    await userEvent.click(screen.getByTestId(`form-env-secret-${row}`));
    expect(screen.getByTestId(`form-env-value-${row}`)).toHaveAttribute('placeholder', 'Leave empty to keep the stored value, now as plain text');
    await userEvent.click(screen.getByTestId('form-submit'));
    await waitFor(() => expect(api.updateServer).toHaveBeenCalledTimes(3));
    const plain = api.updateServer.mock.calls[2]![1];
    expect(plain.env).toMatchObject({ API_KEY: '${secret:API_KEY}' });
    expect(plain.secretEnv).toBeUndefined();

    // Renamed without a value: the kept value is another entry's.
    await edit();
    await userEvent.clear(screen.getByTestId(`form-env-key-${row}`));
    await userEvent.type(screen.getByTestId(`form-env-key-${row}`), 'NEW_KEY');
    await userEvent.click(screen.getByTestId('form-submit'));
    expect(screen.getByTestId('form-error-env')).toHaveTextContent('Enter the value of NEW_KEY: the kept one belongs to API_KEY.');
    expect(api.updateServer).toHaveBeenCalledTimes(3);
  });

  it('asks for the values an import left out and sends each to the router', async () => {
    const { api } = fakeApi([]);
    api.addServersFromJSON.mockResolvedValueOnce({
      added: ['gh', 'remote'],
      skipped: [],
      needsSecrets: [
        { server: 'gh', kind: 'env', name: 'GITHUB_TOKEN' },
        { server: 'remote', kind: 'header', name: 'Authorization' },
      ],
    });
    api.setServerSecret.mockRejectedValueOnce('the keychain is locked');
    renderWithApi(<ServersPage />, api);
    await userEvent.click(await screen.findByTestId('add-server'));
    await userEvent.click(screen.getByTestId('paste-json'));
    await userEvent.paste('{"mcpServers": {"gh": {"command": "srv", "env": {"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"}}}}');
    await userEvent.click(screen.getByTestId('paste-submit'));
    const ask = await screen.findByTestId('needed-secrets');
    expect(screen.getByTestId('server-dialog')).toBeInTheDocument(); // stays open to ask
    expect(ask).toHaveTextContent('2 secret values were not in what you imported');
    expect(ask).toHaveTextContent('gh: environment variable GITHUB_TOKEN');
    expect(ask).toHaveTextContent('remote: header Authorization');
    expect(screen.getByTestId('needed-secret-0')).toHaveAttribute('type', 'password');
    await userEvent.type(screen.getByTestId('needed-secret-0'), 'ghp_typed');
    await userEvent.type(screen.getByTestId('needed-secret-1'), 'Bearer typed');
    await userEvent.click(screen.getByTestId('needed-secrets-save'));
    expect(await screen.findByTestId('needed-secrets-error')).toHaveTextContent('the keychain is locked');
    expect(screen.getByTestId('needed-secret-0')).toHaveValue('ghp_typed'); // kept to try again
    await userEvent.click(screen.getByTestId('needed-secrets-save'));
    await waitFor(() => expect(screen.getByTestId('needed-secret-done-1')).toBeInTheDocument());
    expect(screen.getByTestId('needed-secret-done-0')).toHaveTextContent('Saved in the keychain');
    expect(api.setServerSecret.mock.calls).toEqual([
      ['gh', 'env', 'GITHUB_TOKEN', 'ghp_typed'], // refused: the keychain is locked
      ['gh', 'env', 'GITHUB_TOKEN', 'ghp_typed'],
      ['remote', 'header', 'Authorization', 'Bearer typed'],
    ]);
    expect(screen.getByTestId('needed-secrets-save')).toBeDisabled();
  });
});
