import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../App';
import { ApiError, toPendingApprovals, type PendingApproval } from '../api';
import { fakeApi, server } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import { ApprovalsPanel, prettyArguments, secondsLeft } from './ApprovalsPanel';

function pending(id: string, over: Partial<PendingApproval> = {}): PendingApproval {
  return {
    id,
    rule: 'guard',
    client: 'claude-code',
    server: 'notes',
    tool: 'delete_note',
    target: 'notes__delete_note',
    arguments: { id: 'n1', force: true },
    askedAt: new Date().toISOString(),
    deadline: new Date(Date.now() + 42_000).toISOString(),
    ...over,
  };
}

describe('ApprovalsPanel', () => {
  afterEach(() => {
    window.location.hash = '';
  });

  it('shows nothing while nothing waits, then the oldest call over any page, and answers it', async () => {
    const f = fakeApi([server('notes')]);
    renderWithApi(<App />, f.api);
    expect(await screen.findByTestId('servers-page')).toBeInTheDocument();
    expect(screen.queryByTestId('approval-panel')).toBeNull();
    expect(f.api.pendingApprovals).toHaveBeenCalled();

    act(() => f.approvalsChanged([pending('a'), pending('b', { client: 'cursor', subject: 'u-1' })]));
    const panel = await screen.findByTestId('approval-panel');
    expect(panel).toHaveAttribute('role', 'alertdialog');
    expect(screen.getByTestId('approval-client')).toHaveTextContent('claude-code');
    expect(screen.getByTestId('approval-server')).toHaveTextContent('notes');
    expect(screen.getByTestId('approval-tool')).toHaveTextContent('delete_note');
    expect(screen.getByTestId('approval-arguments').textContent).toBe('{\n  "id": "n1",\n  "force": true\n}');
    expect(screen.getByTestId('approval-time-left').textContent).toMatch(/^Refused in (41|42) s if nobody answers\.$/);
    expect(panel).toHaveTextContent('1 more call waits after this one.');
    expect(panel).toHaveTextContent('Policy "guard"');

    await userEvent.click(screen.getByTestId('approval-approve'));
    expect(f.api.decideApproval).toHaveBeenCalledWith('a', 'approve');
    // The next one, at once (before the event).
    expect(await screen.findByTestId('approval-client')).toHaveTextContent('cursor (u-1)');
    await userEvent.click(screen.getByTestId('approval-always'));
    expect(f.api.decideApproval).toHaveBeenLastCalledWith('b', 'always');
    await waitFor(() => expect(screen.queryByTestId('approval-panel')).toBeNull());

    act(() => f.approvalsChanged([pending('c')]));
    await userEvent.click(await screen.findByTestId('approval-deny'));
    expect(f.api.decideApproval).toHaveBeenLastCalledWith('c', 'deny');
  });

  it('a call withdrawn or timed out disappears with the event', async () => {
    const f = fakeApi();
    f.api.pendingApprovals.mockResolvedValueOnce([pending('w')]);
    renderWithApi(<ApprovalsPanel />, f.api);
    expect(await screen.findByTestId('approval-panel')).toBeInTheDocument();
    act(() => f.approvalsChanged([]));
    await waitFor(() => expect(screen.queryByTestId('approval-panel')).toBeNull());
  });

  it('says why an answer failed and shows what still waits', async () => {
    const f = fakeApi();
    f.api.pendingApprovals.mockResolvedValueOnce([pending('x')]).mockResolvedValueOnce([pending('y', { client: 'cursor' })]);
    f.api.decideApproval.mockRejectedValueOnce(new ApiError('no pending approval with this id (it was decided, timed out or withdrawn)'));
    renderWithApi(<ApprovalsPanel />, f.api);
    await userEvent.click(await screen.findByTestId('approval-approve'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not answer: no pending approval with this id');
    expect(f.api.pendingApprovals).toHaveBeenCalledTimes(2);
    await waitFor(() => expect(screen.getByTestId('approval-client')).toHaveTextContent('cursor'));
  });

  it('speaks Japanese', async () => {
    const f = fakeApi();
    f.api.pendingApprovals.mockResolvedValueOnce([pending('j')]);
    renderWithApi(<ApprovalsPanel />, f.api, 'ja');
    expect(await screen.findByTestId('approval-approve')).toHaveTextContent('承認');
    expect(screen.getByTestId('approval-always')).toHaveTextContent('このクライアントにはこのツールを常に許可');
    expect(screen.getByTestId('approval-time-left').textContent).toMatch(/^応答がなければ (41|42) 秒後に拒否されます。$/);
  });

  it('stops listening when unmounted', async () => {
    const f = fakeApi();
    const { unmount } = renderWithApi(<ApprovalsPanel />, f.api);
    await waitFor(() => expect(f.api.onApprovalsChanged).toHaveBeenCalled());
    const before = f.allListenerCount();
    unmount();
    expect(f.allListenerCount()).toBeLessThan(before);
  });
});

describe('approval helpers', () => {
  it('secondsLeft counts down to zero and knows no deadline', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    expect(secondsLeft('2026-11-26T10:00:30Z', now)).toBe(30);
    expect(secondsLeft('2026-11-26T10:00:00.200Z', now)).toBe(1);
    expect(secondsLeft('2026-11-26T09:59:00Z', now)).toBe(0);
    expect(secondsLeft('', now)).toBeNull();
    expect(secondsLeft('soon', now)).toBeNull();
  });

  it('prettyArguments indents JSON of any shape', () => {
    expect(prettyArguments({ a: [1, 2] })).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
    expect(prettyArguments(null)).toBe('{}');
    expect(prettyArguments('text')).toBe('"text"');
  });

  it('the event payload is checked: a call without an id is refused', () => {
    expect(() => toPendingApprovals([{ client: 'x' }])).toThrow(/missing id/);
    expect(toPendingApprovals(null)).toEqual([]);
    expect(() => toPendingApprovals({})).toThrow(/expected a list/);
    expect(toPendingApprovals([{ id: 'a', arguments: { q: 1 }, deadline: '2026-11-26T10:00:00Z' }])[0]).toMatchObject({
      id: 'a',
      arguments: { q: 1 },
      subject: undefined,
    });
  });
});
