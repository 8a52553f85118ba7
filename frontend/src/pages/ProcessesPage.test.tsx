import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { ProcessView, RunDetail, RunInfo } from '../api';
import type { CodeEditorProps } from '../components/CodeEditor';
import { layoutDiagram } from '../lib/stateDiagram';
import { fakeApi } from '../test/fakeApi';
import { renderWithApi } from '../test/render';
import ProcessesPage from './ProcessesPage';

// Monaco cannot run in jsdom: a textarea stands in, with the markers it was given.
vi.mock('../components/CodeEditor', () => ({
  default: ({ value, onChange, label, testId, problems, language }: CodeEditorProps) => (
    <div data-testid={testId} data-language={language}>
      <textarea aria-label={label} defaultValue={value} onChange={(e) => onChange(e.target.value)} data-testid="source" />
      <span data-testid="markers">{(problems ?? []).map((p) => `${p.line}:${p.column}`).join(',')}</span>
    </div>
  ),
}));

const review: ProcessView = {
  file: 'review.yaml',
  id: 'review',
  version: '1.0.0',
  name: 'Code review',
  description: '',
  source: 'id: review\n',
  states: [
    { name: 'draft', description: '', initial: true, final: false, requiredArtifacts: [] },
    { name: 'approved', description: '', initial: false, final: false, requiredArtifacts: [] },
    { name: 'merged', description: '', initial: false, final: true, requiredArtifacts: [] },
  ],
  events: [{ name: 'approve', description: '', roles: [] }],
  guards: [{ name: 'has_tests', description: 'tests', expression: 'true' }],
  transitions: [
    { from: ['draft'], event: 'approve', to: 'approved', guard: 'has_tests' },
    { from: ['draft'], event: 'comment', to: 'draft' },
    { from: ['approved'], event: 'merge', to: 'merged' },
  ],
  artifacts: [],
  problems: [],
};

const run: RunInfo = {
  run_id: 'run-1',
  process_id: 'review',
  process_version: '1.0.0',
  current_state: 'approved',
  revision: 1,
  context: {},
  workspace: '/w',
  summary_uri: 'stategate://runs/run-1/summary',
  created_by: 'agent',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:01Z',
};

const detail: RunDetail = {
  run,
  state: {
    current_state: 'approved',
    revision: 1,
    missing_guards: [{ guard_name: 'has_merge_ok', description: 'CI must pass', current_status: 'CI is red' }],
    required_artifacts: [{ type: 'report', description: 'Report', status: 'missing' }],
    allowed_events: [{ event_name: 'merge', description: '' }],
  },
  events: {
    events: [
      { event_name: 'merge', description: '', transitions: [{ to_state: 'merged', guard_status: 'no_guard' }], is_allowed: true, blocked_reason: null },
    ],
  },
  summary: { progress: { completed_states: ['draft'], current_state: 'approved', remaining_states: ['merged'] } },
  history: [
    {
      seq: 1,
      event_id: 'evt-1',
      event_name: 'approve',
      payload: {},
      actor: 'alice',
      from_state: 'draft',
      to_state: 'approved',
      idempotency_key: 'k1',
      time: '2026-01-01T00:00:01Z',
    },
  ],
  artifacts: [{ event_id: 'evt-1', type: 'report', path: 'out/report.md', size: 12, sha256: 'ab'.repeat(32), time: '' }],
};

describe('state diagram layout', () => {
  it('puts states in columns by distance from the initial state and numbers parallel edges', () => {
    const l = layoutDiagram(review.states, [...review.transitions, { from: ['approved'], event: 'reopen', to: 'draft' }]);
    const x = Object.fromEntries(l.nodes.map((n) => [n.name, n.x]));
    expect(x.draft).toBeLessThan(x.approved!);
    expect(x.approved).toBeLessThan(x.merged!);
    const between = l.edges.filter((e) => [e.from, e.to].sort().join() === 'approved,draft');
    expect(between.map((e) => e.lane)).toEqual([0, 1]);
    expect(l.width).toBeGreaterThan(3 * 150);
  });
});

describe('ProcessesPage', () => {
  it('draws the process, lists its runs and shows a run with its current state highlighted', async () => {
    const { api } = fakeApi();
    api.listProcesses.mockResolvedValue([review]);
    api.listRuns.mockResolvedValue([run]);
    api.getRun.mockResolvedValue(detail);
    renderWithApi(<ProcessesPage />, api);
    const diagram = await screen.findByTestId('process-diagram');
    expect(within(diagram).getByRole('img', { name: 'State diagram of Code review' })).toBeInTheDocument();
    for (const s of ['draft', 'approved', 'merged']) expect(within(diagram).getByTestId(`state-${s}`)).toBeInTheDocument();
    expect(within(diagram).getByTestId('edge-draft-approved-approve')).toHaveTextContent('approve [has_tests]');
    expect(within(diagram).getByTestId('edge-draft-draft-comment')).toBeInTheDocument();
    expect(await screen.findByTestId('process-source')).toHaveAttribute('data-language', 'yaml');

    await userEvent.click(await screen.findByTestId('run-row-run-1'));
    const view = await screen.findByTestId('run-view');
    expect(api.getRun).toHaveBeenCalledWith('run-1');
    expect(within(view).getByTestId('run-state')).toHaveTextContent('approved');
    expect(within(view).getByTestId('run-guards')).toHaveTextContent('has_merge_ok — CI must pass: CI is red');
    expect(within(view).getByTestId('run-required')).toHaveTextContent('report (Report): missing');
    expect(within(view).getByTestId('run-history')).toHaveTextContent('approve');
    expect(within(view).getByTestId('run-artifacts')).toHaveTextContent('out/report.md');
    await waitFor(() => expect(screen.getByTestId('state-approved')).toHaveClass('current'));
    expect(screen.getByTestId('state-draft')).toHaveClass('visited');
  });

  it('marks an errored run in the list and says why in its view', async () => {
    const { api } = fakeApi();
    const why = 'guard has_tests: the guard was stopped: it exceeded its cost limit of 100000 units';
    const errored = { ...run, error: why };
    api.listProcesses.mockResolvedValue([review]);
    api.listRuns.mockResolvedValue([errored]);
    api.getRun.mockResolvedValue({ ...detail, run: errored });
    renderWithApi(<ProcessesPage />, api);
    const badge = await screen.findByTestId('run-errored-run-1');
    expect(badge).toHaveTextContent('errored');
    expect(badge).toHaveAttribute('title', why);
    await userEvent.click(screen.getByTestId('run-row-run-1'));
    expect(await screen.findByTestId('run-error')).toHaveTextContent(`errored: ${why}`);
  });

  it('shows the router\'s problems inline while typing and saves only a valid definition', async () => {
    const { api } = fakeApi();
    api.checkProcess.mockImplementation(async (src) =>
      src.includes('nowhere') ? [{ line: 12, column: 9, message: 'unknown state "nowhere"' }] : [],
    );
    api.saveProcess.mockResolvedValue(review);
    renderWithApi(<ProcessesPage />, api);
    await userEvent.click(await screen.findByTestId('process-new'));
    const source = await screen.findByTestId('source');
    await userEvent.type(source, 'to: nowhere');
    expect(await screen.findByTestId('process-problems')).toHaveTextContent('Line 12, column 9: unknown state "nowhere"');
    expect(screen.getByTestId('markers')).toHaveTextContent('12:9');
    expect(screen.getByTestId('process-save')).toBeDisabled();
    await userEvent.clear(source);
    await userEvent.type(source, 'id: fine');
    await waitFor(() => expect(screen.queryByTestId('process-problems')).not.toBeInTheDocument());
    await userEvent.click(screen.getByTestId('process-save'));
    await waitFor(() => expect(api.saveProcess).toHaveBeenCalledWith('id: fine', false));
  });

  it('offers to enable state_gate when it is not enabled, in Japanese too', async () => {
    const { api } = fakeApi();
    api.getStateGateStatus.mockResolvedValue({ added: false, enabled: false, state: '', dir: '/d/processes' });
    renderWithApi(<ProcessesPage />, api, 'ja');
    expect(await screen.findByTestId('gate-off')).toHaveTextContent('state_gate サーバーが有効ではありません');
    await userEvent.click(screen.getByTestId('gate-enable'));
    await waitFor(() => expect(screen.queryByTestId('gate-off')).not.toBeInTheDocument());
    expect(api.enableStateGate).toHaveBeenCalled();
  });

  it('refetches when a run changes', async () => {
    const { api, stateGateChanged } = fakeApi();
    renderWithApi(<ProcessesPage />, api);
    await waitFor(() => expect(api.listRuns).toHaveBeenCalledTimes(1));
    stateGateChanged();
    await waitFor(() => expect(api.listRuns).toHaveBeenCalledTimes(2));
  });
});
