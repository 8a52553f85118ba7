import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError, type AuditRow } from '../api';
import type { CodeEditorProps } from '../components/CodeEditor';
import { fakeApi, policyView } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import PolicyPage from './PolicyPage';

// Monaco cannot run in jsdom: a textarea stands in, with the problems it was given.
vi.mock('../components/CodeEditor', () => ({
  default: ({ value, onChange, label, testId, problems, language }: CodeEditorProps) => (
    <div data-testid={testId} data-language={language}>
      <textarea aria-label={label} defaultValue={value} onChange={(e) => onChange(e.target.value)} data-testid="source" />
      <span data-testid="markers">{(problems ?? []).map((p) => `${p.line}:${p.column}`).join(',')}</span>
    </div>
  ),
}));

const GOOD = 'policies:\n  - name: no-fs\n    servers: {deny: [fs]}\n';

describe('PolicyPage', () => {
  it('without a file: says so, starts from a template, saves what was typed', async () => {
    const { api } = fakeApi();
    renderWithApi(<PolicyPage />, api);
    expect(await screen.findByTestId('policy-none')).toHaveTextContent('No policy file');
    const source = await screen.findByTestId('source');
    expect((source as HTMLTextAreaElement).value).toContain('policies: []');
    expect(screen.getByTestId('policy-source')).toHaveAttribute('data-language', 'yaml');
    await userEvent.clear(source);
    await userEvent.paste(GOOD);
    await waitFor(() => expect(api.checkPolicy).toHaveBeenLastCalledWith(GOOD));
    await userEvent.click(screen.getByTestId('policy-save'));
    await waitFor(() => expect(api.savePolicy).toHaveBeenCalledWith(GOOD));
    expect(await screen.findByTestId('policy-notice')).toHaveTextContent('Saved: 1 rule in force.');
    expect(screen.getByTestId('policy-active')).toHaveTextContent('1 rule in force from /data/policy.yaml');
  });

  it('marks the problems the router finds inline and will not save them', async () => {
    const { api } = fakeApi();
    api.getPolicy.mockResolvedValue(policyView(GOOD));
    api.checkPolicy.mockImplementation(async (src) =>
      src.includes('nope') ? [{ line: 3, column: 5, message: 'unknown field "nope"' }] : [],
    );
    renderWithApi(<PolicyPage />, api);
    const source = await screen.findByTestId('source');
    expect(source).toHaveValue(GOOD);
    await userEvent.type(source, '    nope: 1');
    expect(await screen.findByTestId('policy-problems')).toHaveTextContent('Line 3, column 5: unknown field "nope"');
    expect(screen.getByTestId('markers')).toHaveTextContent('3:5');
    expect(screen.getByTestId('policy-save')).toBeDisabled();
    expect(api.savePolicy).not.toHaveBeenCalled();
  });

  it('shows a bad file on disk with its line and column while the last good policy holds', async () => {
    const { api } = fakeApi();
    const bad = 'policies:\n  - name: x\n    servers: {deny: [fs]\n';
    api.getPolicy.mockResolvedValue(
      policyView(bad, { active: true, rules: 2, problems: [{ line: 3, column: 14, message: "could not find flow mapping end token '}'" }] }),
    );
    api.checkPolicy.mockResolvedValue([{ line: 3, column: 14, message: "could not find flow mapping end token '}'" }]);
    renderWithApi(<PolicyPage />, api);
    const alert = await screen.findByTestId('policy-file-error');
    expect(alert).toHaveTextContent('The last good policy stays in force');
    expect(alert).toHaveTextContent("Line 3, column 14: could not find flow mapping end token '}'");
    expect(screen.getByTestId('policy-active')).toHaveTextContent('2 rules in force');
    expect(await screen.findByTestId('source')).toHaveValue(bad);
    expect(screen.getByTestId('markers')).toHaveTextContent('3:14');
  });

  it('keeps the text when the router refuses the save', async () => {
    const { api } = fakeApi();
    api.savePolicy.mockRejectedValue(new ApiError('/data/policy.yaml: permission denied'));
    renderWithApi(<PolicyPage />, api);
    const source = await screen.findByTestId('source');
    await userEvent.clear(source);
    await userEvent.paste(GOOD);
    await waitFor(() => expect(api.checkPolicy).toHaveBeenLastCalledWith(GOOD));
    await userEvent.click(screen.getByTestId('policy-save'));
    expect(await screen.findByTestId('policy-save-error')).toHaveTextContent('permission denied');
    expect(screen.getByTestId('source')).toHaveValue(GOOD);
  });

  it('reports a failed load', async () => {
    const { api } = fakeApi();
    api.getPolicy.mockRejectedValue(new ApiError('boom'));
    renderWithApi(<PolicyPage />, api);
    expect(await screen.findByText('Could not load the policy')).toBeInTheDocument();
  });
});

describe('PolicyPage audit trail', () => {
  const row = (id: number, over: Partial<AuditRow> = {}): AuditRow => ({
    id,
    time: '2026-01-01T00:00:00Z',
    client: 'claude',
    server: 'fs',
    tool: 'delete_file',
    target: 'fs__delete_file',
    policies: 'guard',
    arguments: `{"id":${id}}`,
    status: 'ok',
    prevHash: 'p',
    hash: 'h',
    ...over,
  });

  it('lists audited calls newest first, pages to older ones, and verifies the chain', async () => {
    const { api } = fakeApi();
    api.getPolicy.mockResolvedValue(policyView(GOOD));
    api.auditRows.mockImplementation(async (before) =>
      before === 0 ? { rows: [row(3), row(2, { status: 'blocked', error: 'denied' })], before: 2 } : { rows: [row(1)], before: 0 },
    );
    api.verifyAudit.mockResolvedValueOnce({ rows: 3, head: 'abcdef0123456789abcdef', problems: [] });
    renderWithApi(<PolicyPage />, api);
    expect(await screen.findByTestId('audit-row-3')).toHaveTextContent('fs__delete_file');
    expect(screen.getByTestId('audit-row-2')).toHaveTextContent('blocked');
    expect(api.auditRows).toHaveBeenCalledWith(0, 50);
    await userEvent.click(screen.getByTestId('audit-older'));
    expect(await screen.findByTestId('audit-row-1')).toHaveTextContent('{"id":1}');
    expect(api.auditRows).toHaveBeenLastCalledWith(2, 50);
    expect(screen.queryByTestId('audit-older')).not.toBeInTheDocument();
    await userEvent.click(screen.getByTestId('audit-verify'));
    expect(await screen.findByTestId('audit-report')).toHaveTextContent('Intact: 3 rows, head abcdef0123456789…');

    api.verifyAudit.mockResolvedValueOnce({ rows: 2, head: 'x', problems: ['rows 2 to 2 are missing (deleted)'] });
    await userEvent.click(screen.getByTestId('audit-verify'));
    await waitFor(() => expect(screen.getByTestId('audit-report')).toHaveTextContent('tampered with'));
    expect(screen.getByTestId('audit-report')).toHaveTextContent('rows 2 to 2 are missing (deleted)');
  });
});
