// state_gate through the router with the TypeScript SDK client (1.32): the
// built-in server added with `servers add state_gate --builtin`, a process
// added with `stategate process add -` (stdin), a run created by the tool,
// the client subscribed to the run's summary: an event that makes a
// transition reaches it as notifications/resources/updated, and the summary
// read afterwards shows the new state.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { httpTransport, requirePeers, run, startRouter, waitFor } from './helpers.mjs';
import { Client, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from './sdk.mjs';

requirePeers();

const PROCESS = `id: e2e-review
version: 1.0.0
states:
  - name: draft
    initial: true
  - name: review
  - name: merged
    final: true
events:
  - name: submit
    payload_schema:
      type: object
      required: [title]
      properties:
        title: { type: string }
  - name: merge
transitions:
  - { from: draft, event: submit, to: review }
  - { from: review, event: merge, to: merged }
`;

let router;
before(async () => {
  router = await startRouter({
    label: 'stategate',
    servers: [{ name: 'state_gate', builtin: true }],
    expectTools: ['state_gate__get_state', 'state_gate__emit_event', 'state_gate__create_run'],
  });
  const res = await run(router.bin, ['--data-dir', router.dataDir, 'stategate', 'process', 'add', '-'], { input: PROCESS });
  assert.equal(res.code, 0, res.stderr);
});
after(async () => {
  if (router) await router.stop();
});

describe('state_gate with the TypeScript SDK client', { timeout: 120_000 }, () => {
  let client;
  const updated = [];
  let listChanged = 0;

  before(async () => {
    client = new Client({ name: 'mcpr-e2e-stategate', version: '1.0.0' });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => listChanged++);
    await client.connect(httpTransport(router));
  });
  after(async () => {
    await client?.close();
  });

  test('resources/updated on a transition, for a subscribed run summary', async () => {
    const created = await client.callTool({ name: 'state_gate__create_run', arguments: { process_id: 'e2e-review', context: { repo: 'api' } } });
    assert.equal(created.isError ?? false, false, JSON.stringify(created));
    const runId = created.structuredContent.run_id;
    assert.match(runId, /^run-/);
    const uri = `stategate://runs/${runId}/summary`;

    // The run is listed (list_changed told us) and its summary readable.
    await waitFor(async () => (await client.listResources()).resources.some((r) => r.uri === uri), { what: 'the run listed', timeoutMs: 10_000 });
    assert.ok(listChanged > 0, 'no notifications/resources/list_changed for the new run');
    const templates = await client.listResourceTemplates();
    assert.ok(templates.resourceTemplates.some((t) => t.uriTemplate === 'stategate://runs/{run_id}/summary'));

    await client.subscribeResource({ uri });
    const state = await client.callTool({ name: 'state_gate__get_state', arguments: { run_id: runId } });
    assert.equal(state.structuredContent.current_state, 'draft');
    assert.deepEqual(state.structuredContent.allowed_events.map((e) => e.event_name), ['submit']);

    const emitted = await client.callTool({
      name: 'state_gate__emit_event',
      arguments: { run_id: runId, event_name: 'submit', payload: { title: 'Add the cache' }, expected_revision: 0, idempotency_key: 'submit-1' },
    });
    assert.deepEqual(emitted.structuredContent.result.transition, { from_state: 'draft', to_state: 'review' });
    assert.equal(emitted.structuredContent.result.new_revision, 1);

    await waitFor(() => updated.includes(uri), { what: 'notifications/resources/updated for the run', timeoutMs: 10_000 });
    const read = await client.readResource({ uri });
    const summary = JSON.parse(read.contents[0].text);
    assert.equal(read.contents[0].mimeType, 'application/json');
    assert.equal(summary.current_state, 'review');
    assert.equal(summary.revision, 1);
    assert.deepEqual(summary.progress, { completed_states: ['draft'], current_state: 'review', remaining_states: ['merged'] });

    // A stale revision is refused as the seed says, and the SDK accepts
    // the refusal's structured content against the output schema.
    const stale = await client.callTool({
      name: 'state_gate__emit_event',
      arguments: { run_id: runId, event_name: 'merge', expected_revision: 0, idempotency_key: 'merge-1' },
    });
    assert.equal(stale.isError, true);
    assert.equal(stale.structuredContent.error.code, 'REVISION_CONFLICT');
    assert.equal(stale.structuredContent.error.details.current_revision, 1);
  });
});
