// Tasks through the router with real peers on both sides: the TypeScript SDK
// (1.32) client's experimental tasks API over streamable HTTP, and
// server-everything (2026.8.31), whose simulate-research-query runs only as a
// task, as a stdio upstream. The router passes the task on and maps its id
// (docs/endpoint.md, "Tasks").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { EVERYTHING_NODE, httpTransport, requirePeers, run, startRouter } from './helpers.mjs';
import { Client, CreateTaskResultSchema } from './sdk.mjs';

requirePeers();

let router;
let alice;
let bob;
before(async () => {
  router = await startRouter({
    label: 'tasks',
    servers: [{ name: 'everything', command: EVERYTHING_NODE, args: ['stdio'] }],
    expectTools: ['everything__simulate-research-query'],
  });
  const out = await run(router.bin, ['--data-dir', router.dataDir, 'tokens', 'create', 'e2e-tasks-bob', '--json']);
  assert.equal(out.code, 0, out.stderr);
  const bobToken = JSON.parse(out.stdout).token;
  alice = new Client({ name: 'mcpr-e2e-tasks-alice', version: '1.0.0' }, { capabilities: {} });
  await alice.connect(httpTransport(router), { timeout: 30_000 });
  bob = new Client({ name: 'mcpr-e2e-tasks-bob', version: '1.0.0' }, { capabilities: {} });
  await bob.connect(httpTransport(router, bobToken), { timeout: 30_000 });
});
after(async () => {
  await alice?.close();
  await bob?.close();
  if (router) await router.stop();
});

describe('tasks through the router (TypeScript SDK client)', { timeout: 120_000 }, () => {
  test('the router offers tasks, since its upstream does', () => {
    const caps = alice.getServerCapabilities();
    assert.ok(caps.tasks?.requests?.tools?.call, JSON.stringify(caps));
    assert.ok(caps.tasks?.cancel, JSON.stringify(caps));
  });

  test('callToolStream runs the upstream task to its result under the router id', async () => {
    await alice.listTools(); // the client learns which tools run as tasks
    const seen = [];
    let created;
    let result;
    for await (const msg of alice.experimental.tasks.callToolStream(
      { name: 'everything__simulate-research-query', arguments: { topic: 'routers' } },
      undefined,
      { timeout: 60_000 },
    )) {
      seen.push(msg.type);
      if (msg.type === 'taskCreated') created = msg.task;
      if (msg.type === 'result') result = msg.result;
      if (msg.type === 'error') throw msg.error;
    }
    assert.match(created?.taskId ?? '', /^mcpr-task-[0-9a-f]{32}$/, JSON.stringify(seen));
    assert.ok(seen.includes('taskStatus'), JSON.stringify(seen));
    assert.match(result.content[0].text, /# Research Report: routers/);
    const task = await alice.experimental.tasks.getTask(created.taskId);
    assert.equal(task.status, 'completed');
    assert.equal(task.taskId, created.taskId);

    // Another token knows nothing of it.
    await assert.rejects(bob.experimental.tasks.getTask(created.taskId), /not found/);
    await assert.rejects(bob.experimental.tasks.cancelTask(created.taskId), /not found/);
    const { tasks } = await bob.experimental.tasks.listTasks();
    assert.deepEqual(tasks, []);
  });

  test('cancelTask reaches the upstream', async () => {
    const res = await alice.request(
      { method: 'tools/call', params: { name: 'everything__simulate-research-query', arguments: { topic: 'cancel me' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const id = res.task.taskId;
    await alice.experimental.tasks.cancelTask(id);
    const task = await alice.experimental.tasks.getTask(id);
    assert.equal(task.status, 'cancelled');
  });
});
