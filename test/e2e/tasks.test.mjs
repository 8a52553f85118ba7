// Tasks through the router with real peers on both sides: the TypeScript SDK
// (1.32) client's experimental tasks API over streamable HTTP, and
// server-everything (2026.8.31), whose simulate-research-query runs only as a
// task, as a stdio upstream. The router passes the task on and maps its id
// (docs/endpoint.md, "Tasks").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { EVERYTHING_NODE, childEnv, httpTransport, requirePeers, routerBin, run, startRouter, waitFor } from './helpers.mjs';
import { Client, CreateTaskResultSchema, StdioClientTransport, tasksV2 } from './sdk.mjs';

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

// A 2026-07-28 client (stateless; the io.modelcontextprotocol/tasks
// extension), by hand over fetch, each answer held to the extension's own
// schemas as @modelcontextprotocol/ext-tasks 0.2.2 defines them (core/v2).
describe('tasks for a 2026-07-28 client (ext-tasks V2 schemas)', { timeout: 120_000 }, () => {
  const meta = (declare = true) => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'mcpr-e2e-modern', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': declare ? { extensions: { [tasksV2.TASKS_EXTENSION_ID_V2]: {} } } : {},
  });
  let nextId = 1;
  async function rpc(method, params, { name, declare = true } = {}) {
    const res = await fetch(router.url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${router.token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': method,
        ...(name ? { 'Mcp-Name': name } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta(declare) } }),
    });
    assert.equal(res.status, 200, `${method}: HTTP ${res.status}`);
    return res.json();
  }

  test('create, poll to the inline result, cancel, update', async () => {
    const disc = await rpc('server/discover', {});
    assert.ok(disc.result?.capabilities?.extensions?.[tasksV2.TASKS_EXTENSION_ID_V2], JSON.stringify(disc));

    const tool = 'everything__simulate-research-query';
    const undeclared = await rpc('tools/call', { name: tool, arguments: { topic: 'x' } }, { name: tool, declare: false });
    assert.equal(undeclared.error?.code, -32021, JSON.stringify(undeclared));
    assert.ok(undeclared.error.data.requiredCapabilities.extensions[tasksV2.TASKS_EXTENSION_ID_V2]);

    const created = await rpc('tools/call', { name: tool, arguments: { topic: 'modern' } }, { name: tool });
    tasksV2.CreateTaskResultV2Schema.parse(created.result);
    assert.ok(tasksV2.isCreateTaskResultV2(created.result), JSON.stringify(created));
    const id = created.result.taskId;
    assert.match(id, /^mcpr-task-/);

    let got;
    for (let i = 0; i < 100; i++) {
      got = (await rpc('tasks/get', { taskId: id }, { name: id })).result;
      tasksV2.GetTaskResultV2Schema.parse(got);
      if (got.status === 'completed') break;
      await new Promise((r) => setTimeout(r, got.pollIntervalMs ?? 200));
    }
    assert.equal(got.status, 'completed', JSON.stringify(got));
    assert.match(got.result.content[0].text, /# Research Report: modern/);

    const other = (await rpc('tools/call', { name: tool, arguments: { topic: 'cancel' } }, { name: tool })).result;
    const upd = await rpc('tasks/update', { taskId: other.taskId, inputResponses: {} }, { name: other.taskId });
    tasksV2.UpdateTaskResultV2Schema.parse(upd.result);
    const cancel = await rpc('tasks/cancel', { taskId: other.taskId }, { name: other.taskId });
    tasksV2.CancelTaskResultV2Schema.parse(cancel.result);
    const after = (await rpc('tasks/get', { taskId: other.taskId }, { name: other.taskId })).result;
    tasksV2.GetTaskResultV2Schema.parse(after);
    assert.equal(after.status, 'cancelled', JSON.stringify(after));
  });
});

// The same client over `mcp-router stdio` (its own upstream, on the same
// data dir): the router reads stdin before mcp-go and answers the tasks.
describe('tasks over mcp-router stdio (TypeScript SDK client)', { timeout: 120_000 }, () => {
  let client;
  before(async () => {
    client = new Client({ name: 'mcpr-e2e-tasks-stdio', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      new StdioClientTransport({ command: routerBin(), args: ['--data-dir', router.dataDir, 'stdio'], env: childEnv(), stderr: 'pipe' }),
      { timeout: 30_000 },
    );
  });
  after(async () => {
    await client?.close();
  });

  test('callToolStream runs the task through the stdio router', async () => {
    // Over stdio initialize is answered before the upstreams are up, so
    // its capabilities need not name tasks yet; the tool list says which
    // tools run as tasks (execution.taskSupport), and the client goes by it.
    await waitFor(async () => (await client.listTools(undefined, { timeout: 30_000 })).tools.some((t) => t.name === 'everything__simulate-research-query'),
      { timeoutMs: 30_000, what: 'the task tool over stdio' });
    let created;
    let result;
    for await (const msg of client.experimental.tasks.callToolStream(
      { name: 'everything__simulate-research-query', arguments: { topic: 'stdin' } },
      undefined,
      { timeout: 60_000 },
    )) {
      if (msg.type === 'taskCreated') created = msg.task;
      if (msg.type === 'result') result = msg.result;
      if (msg.type === 'error') throw msg.error;
    }
    assert.match(created?.taskId ?? '', /^mcpr-task-/);
    assert.match(result.content[0].text, /# Research Report: stdin/);
  });
});
