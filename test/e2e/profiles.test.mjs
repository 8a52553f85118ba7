// Profiles with the TypeScript SDK client (issue 27): on a search profile the
// client finds a tool it was never listed and calls it through call_tool —
// through the user's hook, the policy and the request log; on a gated profile
// it sees the servers' activate tools until it activates one; on an `all`
// profile it sees exactly the profile's tools; a token bound to one profile
// cannot reach another's endpoint or tools.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { EVERYTHING_NODE, requirePeers, run, startRouter, tempDir, waitFor } from './helpers.mjs';
import { Client, StreamableHTTPClientTransport } from './sdk.mjs';

requirePeers();

let router;
let boundToken;
const clients = [];

async function cli(...args) {
  const res = await run(router.bin, ['--data-dir', router.dataDir, ...args], { timeoutMs: 30_000 });
  assert.equal(res.code, 0, `mcp-router ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

async function connect(profile, token = router.token) {
  const url = new URL(profile ? `${router.url}/${profile}` : router.url);
  const client = new Client({ name: `mcpr-e2e-profiles-${profile ?? 'default'}`, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

// initialize posts an initialize request to a profile's endpoint.
function initialize(profile, token) {
  return fetch(`${router.url}/${profile}`, { method: 'POST', headers: { Authorization: `Bearer ${token}`,
    'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) });
}

const names = async (client) => (await client.listTools(undefined, { timeout: 30_000 })).tools.map((t) => t.name).sort();

before(async () => {
  router = await startRouter({
    label: 'profiles',
    servers: [
      { name: 'ev', command: EVERYTHING_NODE, args: ['stdio'] },
      { name: 'other', command: EVERYTHING_NODE, args: ['stdio'] },
    ],
    expectTools: ['ev__echo', 'ev__get-sum', 'other__echo'],
  });
  const dir = tempDir('profiles-files');
  const hook = path.join(dir, 'no-tiny-sums.js');
  writeFileSync(hook, "if (context.toolName === 'get-sum' && context.arguments.a === 0) return { continue: false, error: { message: 'the hook refuses sums from zero' } };\n");
  await cli('hooks', 'add', 'no-tiny-sums', '--type', 'pre', '--file', hook);
  writeFileSync(path.join(router.dataDir, 'policy.yaml'),
    'policies:\n  - name: no-long-ops\n    match: {profiles: [search]}\n    tools: {hide: ["trigger-long-running-operation"]}\n');
  await cli('profiles', 'add', 'search', '--servers', 'ev', '--mode', 'search');
  await cli('profiles', 'add', 'two-tools', '--servers', 'ev', '--tools', 'ev/echo,ev/get-sum');
  await cli('profiles', 'add', 'locked', '--servers', 'ev,other', '--mode', 'gated');
  boundToken = JSON.parse(await cli('tokens', 'create', 'bound', '--profile', 'two-tools', '--json')).token;
  // The running router picks the profiles up within a second.
  await waitFor(async () => (await initialize('locked', router.token)).status === 200,
    { timeoutMs: 10_000, what: 'the profiles to be served' });
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  if (router) await router.stop();
});

describe('profiles with the TypeScript SDK client', { timeout: 120_000 }, () => {
  test('all: exactly the profile\'s tools', async () => {
    assert.deepEqual(await names(await connect('two-tools')), ['ev__echo', 'ev__get-sum']);
  });

  test('search: finds and calls a tool it was never listed, through hook, policy and log', async () => {
    const client = await connect('search');
    assert.deepEqual(await names(client), ['add_tools', 'call_tool', 'search_tools']);
    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'add two numbers', limit: 5 } });
    const tools = JSON.parse(found.content[0].text).tools;
    assert.equal(tools[0]?.name, 'ev__get-sum', JSON.stringify(tools.map((t) => t.name)));
    assert.ok(tools[0].inputSchema?.properties?.a, 'search_tools gives the schema');
    assert.ok(!tools.some((t) => t.name.startsWith('other__')), 'a server outside the profile was found');
    // The policy hides this tool for the search profile: not found, not callable.
    const long = await client.callTool({ name: 'search_tools', arguments: { query: 'long running operation' } });
    assert.ok(!JSON.parse(long.content[0].text).tools.some((t) => t.name === 'ev__trigger-long-running-operation'));
    await assert.rejects(client.callTool({ name: 'call_tool', arguments: { name: 'ev__trigger-long-running-operation', arguments: {} } }));

    const sum = await client.callTool({ name: 'call_tool', arguments: { name: 'ev__get-sum', arguments: { a: 2, b: 3 } } });
    assert.notEqual(sum.isError, true, JSON.stringify(sum));
    assert.match(JSON.stringify(sum.content), /5/);
    // The hook sees the call made through call_tool.
    const refused = await client.callTool({ name: 'call_tool', arguments: { name: 'ev__get-sum', arguments: { a: 0, b: 1 } } })
      .then((r) => JSON.stringify(r), (e) => String(e));
    assert.match(refused, /the hook refuses sums from zero/);
    // The request log is written in batches: wait (bounded) for both entries.
    let log = [];
    await waitFor(async () => {
      log = (await cli('logs', '--json')).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
      return log.some((e) => e.target === 'ev__get-sum' && e.status === 'ok') && log.some((e) => e.target === 'ev__get-sum' && e.status === 'blocked');
    }, { timeoutMs: 10_000, what: 'the call and the hook\'s refusal in the request log' }).catch((err) => {
      throw new Error(`${err.message}\n${JSON.stringify(log.map((e) => [e.target, e.status, e.server]))}`);
    });
  });

  test('gated: activate tools until activated', async () => {
    const client = await connect('locked');
    assert.deepEqual(await names(client), ['ev__activate', 'other__activate']);
    const locked = await client.callTool({ name: 'ev__echo', arguments: { message: 'hi' } });
    assert.equal(locked.isError, true);
    await client.callTool({ name: 'ev__activate', arguments: {} });
    const after = await names(client);
    assert.ok(after.includes('ev__echo') && after.includes('other__activate') && !after.includes('other__echo'), after.join(', '));
    const echo = await client.callTool({ name: 'ev__echo', arguments: { message: 'hi' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: hi' }]);
  });

  test('a token bound to one profile reaches no other', async () => {
    assert.equal((await initialize('search', boundToken)).status, 403);
    // Plain /mcp is its profile, never everything.
    const client = await connect(undefined, boundToken);
    assert.deepEqual(await names(client), ['ev__echo', 'ev__get-sum']);
    await assert.rejects(client.callTool({ name: 'other__echo', arguments: { message: 'x' } }));
  });
});
