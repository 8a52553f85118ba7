import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { fakeApi, logRow } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import LogsPage from './LogsPage';

const page = (from: number, n: number) => Array.from({ length: n }, (_, i) => logRow(from - i));

describe('LogsPage', () => {
  it('shows a page of rows and pages older and newer with beforeId', async () => {
    const { api } = fakeApi();
    api.queryLogs.mockResolvedValueOnce({ rows: page(200, 100), nextBeforeId: 101 }).mockResolvedValueOnce({ rows: page(100, 100) });
    renderWithApi(<LogsPage />, api);
    expect(await screen.findByTestId('log-row-200')).toBeInTheDocument();
    expect(screen.getByTestId('logs-newer')).toBeDisabled();
    await userEvent.click(screen.getByTestId('logs-older'));
    expect(await screen.findByTestId('log-row-100')).toBeInTheDocument();
    expect(api.queryLogs).toHaveBeenLastCalledWith({ limit: 100, beforeId: 101 });
    expect(screen.queryByTestId('log-row-200')).not.toBeInTheDocument();
    expect(screen.getByTestId('logs-older')).toBeDisabled();
  });

  it('filters by status, server, client and method', async () => {
    const { api } = fakeApi();
    renderWithApi(<LogsPage />, api);
    await waitFor(() => expect(api.queryLogs).toHaveBeenCalledTimes(1));
    await userEvent.selectOptions(screen.getByTestId('filter-status'), 'blocked');
    await userEvent.type(screen.getByTestId('filter-server'), 'everything');
    await userEvent.type(screen.getByTestId('filter-client'), 'ui');
    await userEvent.type(screen.getByTestId('filter-method'), 'tools/call');
    await waitFor(() =>
      expect(api.queryLogs).toHaveBeenLastCalledWith({ status: 'blocked', server: 'everything', client: 'ui', method: 'tools/call', limit: 100 }),
    );
  });

  it('prepends live rows while on the first page', async () => {
    const fake = fakeApi();
    fake.api.queryLogs.mockResolvedValueOnce({ rows: [logRow(5)] });
    renderWithApi(<LogsPage />, fake.api);
    await screen.findByTestId('log-row-5');
    act(() => fake.logs([logRow(6, { status: 'blocked', error: 'blocked by hook "x"' })]));
    const rows = within(screen.getByTestId('logs-table')).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveAttribute('data-testid', 'log-row-6');
    expect(rows[0]).toHaveTextContent('Blocked');
  });

  it('opens a detail with pretty request and response JSON', async () => {
    const { api } = fakeApi();
    api.queryLogs.mockResolvedValueOnce({ rows: [logRow(9, { status: 'error', error: 'upstream failed' })] });
    api.getLog.mockResolvedValueOnce({ ...logRow(9, { status: 'error', error: 'upstream failed' }), request: '{"params":{"name":"echo"}}', response: '' });
    renderWithApi(<LogsPage />, api);
    await userEvent.click(await screen.findByTestId('log-row-9'));
    const detail = await screen.findByTestId('log-detail');
    await waitFor(() => expect(screen.getByTestId('log-request').textContent).toBe('{\n  "params": {\n    "name": "echo"\n  }\n}'));
    expect(screen.getByTestId('log-response')).toHaveTextContent('(none)');
    expect(screen.getByTestId('log-detail-error')).toHaveTextContent('upstream failed');
    await userEvent.keyboard('{Escape}');
    expect(detail).not.toBeInTheDocument();
  });

  it('shows the backend server and tool of an ability call as "via server/tool"', async () => {
    const { api } = fakeApi();
    const ability = logRow(12, { server: 'calc', target: 'sum', backendTool: 'get-sum', status: 'error', error: 'mcp-router: invalid arguments for sum' });
    api.queryLogs.mockResolvedValueOnce({ rows: [ability, logRow(11)] });
    api.getLog.mockImplementation(async (id) => (id === 12 ? { ...ability, request: '{"params":{"name":"sum"}}' } : { ...logRow(11), request: '{}' }));
    renderWithApi(<LogsPage />, api);
    const row = await screen.findByTestId('log-row-12');
    expect(within(row).getByTitle('sum (via calc/get-sum)')).toHaveTextContent('sum');
    await userEvent.click(row);
    expect(await screen.findByTestId('log-detail-via')).toHaveTextContent(/^via calc\/get-sum$/);
    expect(screen.getByTestId('log-detail')).toHaveTextContent('tools/call sum via calc/get-sum');
    await userEvent.keyboard('{Escape}');
    // A call of an upstream tool as itself has no "via".
    await userEvent.click(screen.getByTestId('log-row-11'));
    await waitFor(() => expect(screen.getByTestId('log-request')).toHaveTextContent('{}'));
    expect(screen.queryByTestId('log-detail-via')).not.toBeInTheDocument();
  });

  it('keeps the rows and offers a retry when a page fails', async () => {
    const { api } = fakeApi();
    api.queryLogs.mockResolvedValueOnce({ rows: [logRow(3)], nextBeforeId: 3 }).mockRejectedValueOnce('database is locked');
    renderWithApi(<LogsPage />, api);
    await screen.findByTestId('log-row-3');
    await userEvent.click(screen.getByTestId('logs-older'));
    expect(await screen.findByRole('alert')).toHaveTextContent('database is locked');
    expect(screen.getByTestId('log-row-3')).toBeInTheDocument();
  });
});
