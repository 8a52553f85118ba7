import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { CodeEditorProps } from '../components/CodeEditor';
import { fakeApi, hook } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import HooksPage from './HooksPage';

// Monaco cannot run in jsdom: a textarea stands in, with the problems it was given.
vi.mock('../components/CodeEditor', () => ({
  default: ({ value, onChange, label, testId, problems }: CodeEditorProps) => (
    <div data-testid={testId}>
      <textarea aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} data-testid="script" />
      <span data-testid="markers">{(problems ?? []).map((p) => `${p.line}:${p.column}`).join(',')}</span>
    </div>
  ),
}));

function dataTransfer() {
  const data = new Map<string, string>();
  return { setData: (k: string, v: string) => data.set(k, v), getData: (k: string) => data.get(k) ?? '', effectAllowed: '', dropEffect: '' };
}

describe('HooksPage', () => {
  it('creates a hook: name required, no duplicates, then saved with the script', async () => {
    const { api } = fakeApi();
    api.listHooks.mockResolvedValueOnce([hook(1, { name: 'existing' })]);
    renderWithApi(<HooksPage />, api);
    await screen.findByTestId('hook-item-existing');
    await userEvent.click(screen.getByTestId('hook-new'));
    const script = await screen.findByTestId('script');
    await userEvent.clear(script);
    await userEvent.paste('return { continue: false }');
    await userEvent.click(screen.getByTestId('hook-save'));
    expect(screen.getByTestId('hook-name-error')).toHaveTextContent('Enter a name.');
    await userEvent.type(screen.getByTestId('hook-name'), 'existing');
    await userEvent.click(screen.getByTestId('hook-save'));
    expect(screen.getByTestId('hook-name-error')).toHaveTextContent('"existing" is already taken');
    expect(api.saveHook).not.toHaveBeenCalled();
    expect(screen.getByTestId('script')).toHaveValue('return { continue: false }');

    await userEvent.clear(screen.getByTestId('hook-name'));
    await userEvent.type(screen.getByTestId('hook-name'), 'blocker');
    await userEvent.selectOptions(screen.getByTestId('hook-type'), 'both');
    await userEvent.click(screen.getByTestId('hook-save'));
    await waitFor(() => expect(api.saveHook).toHaveBeenCalled());
    expect(api.saveHook.mock.calls[0]?.[0]).toEqual({
      id: 0,
      name: 'blocker',
      enabled: true,
      hookType: 'both',
      script: 'return { continue: false }',
      failClosed: false,
    });
    expect(await screen.findByTestId('hook-item-blocker')).toBeInTheDocument();
  });

  it('shows a refused save and keeps the script', async () => {
    const { api } = fakeApi();
    api.listHooks.mockResolvedValueOnce([hook(1, { name: 'h', script: 'return;' })]);
    api.saveHook.mockRejectedValueOnce('syntax error at line 1, column 5: Unexpected token');
    renderWithApi(<HooksPage />, api);
    const script = await screen.findByTestId('script');
    await userEvent.type(script, ' (');
    await userEvent.click(screen.getByTestId('hook-save'));
    expect(await screen.findByTestId('hook-save-error')).toHaveTextContent('syntax error at line 1, column 5');
    expect(screen.getByTestId('script')).toHaveValue('return; (');
  });

  it("marks the router's compile problems", async () => {
    const { api } = fakeApi();
    api.listHooks.mockResolvedValueOnce([hook(1, { name: 'h' })]);
    api.checkHookScript.mockResolvedValue([{ line: 2, column: 7, message: 'Unexpected token )' }]);
    renderWithApi(<HooksPage />, api);
    await screen.findByTestId('script');
    await waitFor(() => expect(screen.getByTestId('markers')).toHaveTextContent('2:7'), { timeout: 2000 });
    expect(screen.getByTestId('hook-problems')).toHaveTextContent('Line 2, column 7: Unexpected token )');
  });

  it('reorders by keyboard (Alt+Arrow), by buttons and by drag and drop', async () => {
    const { api } = fakeApi();
    api.listHooks.mockResolvedValue([hook(1, { name: 'a' }), hook(2, { name: 'b' }), hook(3, { name: 'c' })]);
    renderWithApi(<HooksPage />, api);
    const a = await screen.findByTestId('hook-item-a');
    a.focus();
    await userEvent.keyboard('{Alt>}{ArrowDown}{/Alt}');
    expect(api.reorderHooks).toHaveBeenLastCalledWith([2, 1, 3]);
    const names = () => within(screen.getByTestId('hook-list')).getAllByRole('listitem').map((li) => li.dataset.testid);
    await waitFor(() => expect(names()).toEqual(['hook-item-b', 'hook-item-a', 'hook-item-c']));

    await userEvent.click(screen.getByTestId('hook-up-c'));
    expect(api.reorderHooks).toHaveBeenLastCalledWith([2, 3, 1]);

    const dt = dataTransfer();
    fireEvent.dragStart(screen.getByTestId('hook-item-a'), { dataTransfer: dt });
    fireEvent.dragOver(screen.getByTestId('hook-item-b'), { dataTransfer: dt });
    fireEvent.drop(screen.getByTestId('hook-item-b'), { dataTransfer: dt });
    expect(api.reorderHooks).toHaveBeenLastCalledWith([1, 2, 3]);
    await waitFor(() => expect(names()).toEqual(['hook-item-a', 'hook-item-b', 'hook-item-c']));
  });

  it('runs the hook on a sample context and shows the result and console', async () => {
    const { api } = fakeApi();
    api.listHooks.mockResolvedValueOnce([hook(1, { name: 'h' })]);
    api.testHook.mockResolvedValueOnce({
      result: { continue: false, blocked: { hook: 'h', phase: 'pre', message: 'no' }, context: {} },
      console: ['saw echo'],
      durationMs: 0.4,
    });
    renderWithApi(<HooksPage />, api);
    await screen.findByTestId('script');
    const tester = screen.getByTestId('hook-tester');
    await userEvent.click(within(tester).getByText('Try with a sample context'));
    const ctx = screen.getByTestId('hook-test-context');
    expect((ctx as HTMLTextAreaElement).value).toContain('"toolName": "echo"');
    await userEvent.click(screen.getByTestId('hook-test-run'));
    const result = await screen.findByTestId('hook-test-result');
    expect(result).toHaveTextContent('"continue": false');
    expect(result).toHaveTextContent('saw echo');
    expect(screen.getByTestId('hook-test-verdict')).toHaveTextContent('The request is blocked: no');
    expect(api.testHook.mock.calls[0]?.[0]).toMatchObject({ id: 1, name: 'h' });
    expect(JSON.parse(api.testHook.mock.calls[0]![1]).toolName).toBe('echo');

    await userEvent.clear(ctx);
    await userEvent.click(ctx);
    await userEvent.paste('{bad');
    await userEvent.click(screen.getByTestId('hook-test-run'));
    expect(within(tester).getByRole('alert')).toHaveTextContent('Not valid JSON');
    expect(ctx).toHaveValue('{bad');
  });

  it("shows the hook's log live", async () => {
    const fake = fakeApi();
    fake.api.listHooks.mockResolvedValueOnce([hook(4, { name: 'logger' })]);
    fake.api.hookLogs.mockResolvedValueOnce(['first']);
    renderWithApi(<HooksPage />, fake.api);
    const log = await screen.findByTestId('hook-log');
    await waitFor(() => expect(log).toHaveTextContent('first'));
    act(() => fake.hookLog(4, ['second']));
    expect(log).toHaveTextContent('second');
  });

  it("shows a hook the router cannot load, with the reason, and saves it as shown to repair it (en, ja)", async () => {
    const reason = 'the stored row cannot be read as a hook: bad execution_order';
    const { api } = fakeApi();
    const broken = hook(2, { name: 'garbled', loadError: reason, failClosed: true });
    api.listHooks.mockResolvedValue([hook(1, { name: 'fine' }), broken]);
    api.saveHook.mockResolvedValueOnce(hook(2, { name: 'garbled', failClosed: true }));
    const { unmount } = renderWithApi(<HooksPage />, api);
    await screen.findByTestId('hook-item-garbled');
    expect(screen.getByTestId('hook-broken-garbled')).toHaveTextContent('Cannot be loaded');
    expect(screen.queryByTestId('hook-broken-fine')).toBeNull();
    // The first hook is selected: it loads, so no alert and nothing to save.
    expect(screen.queryByTestId('hook-load-error')).toBeNull();
    expect(screen.getByTestId('hook-save')).toBeDisabled();

    await userEvent.click(screen.getByTestId('hook-item-garbled'));
    const alert = await screen.findByTestId('hook-load-error');
    expect(alert).toHaveTextContent(reason);
    expect(alert).toHaveTextContent('its script never runs');
    // Unchanged, it can still be saved: that writes the row whole again.
    expect(screen.getByTestId('hook-save')).toBeEnabled();
    await userEvent.click(screen.getByTestId('hook-save'));
    await waitFor(() => expect(api.saveHook).toHaveBeenCalledTimes(1));
    expect(api.saveHook.mock.calls[0]?.[0]).toEqual({ id: 2, name: 'garbled', enabled: true, hookType: 'pre', script: 'return;', failClosed: true });
    unmount();

    renderWithApi(<HooksPage />, api, 'ja');
    await userEvent.click(await screen.findByTestId('hook-item-garbled'));
    expect(screen.getByTestId('hook-broken-garbled')).toHaveTextContent('読み込めません');
    expect(await screen.findByTestId('hook-load-error')).toHaveTextContent(`ルーターが読み取れないため(${reason})`);
  });

  it('keeps unsaved edits when switching between hooks', async () => {
    const { api } = fakeApi();
    api.listHooks.mockResolvedValue([hook(1, { name: 'a', script: 'A' }), hook(2, { name: 'b', script: 'B' })]);
    renderWithApi(<HooksPage />, api);
    const script = await screen.findByTestId('script');
    await userEvent.type(script, '-edited');
    await userEvent.click(screen.getByTestId('hook-item-b'));
    await waitFor(() => expect(screen.getByTestId('script')).toHaveValue('B'));
    await userEvent.click(screen.getByTestId('hook-item-a'));
    await waitFor(() => expect(screen.getByTestId('script')).toHaveValue('A-edited'));
  });
});
