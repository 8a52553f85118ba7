// Lazy servers, seen from outside (issue 27's check): with 20 lazy servers
// configured, the router starts with no upstream process running; a call
// starts exactly its server; the server stops after the idle time; search
// finds tools of servers that are stopped. The 20 are go-sdk
// everything-server processes, counted by the marker in their environment.
// None is added with --start: each is auto, which is lazy because only a
// search profile has it. The catalog is filled by a first run of the
// router; the check is a second run on the same data dir.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { EVERYTHING_GO, MARKER_VAR, childEnv, freePort, pidsWithMarker, requirePeers, routerBin, run, tempDir, waitFor } from './helpers.mjs';
import { Client, StreamableHTTPClientTransport } from './sdk.mjs';

requirePeers({ goEverything: true });

const NAMES = Array.from({ length: 20 }, (_, i) => `s${String(i + 1).padStart(2, '0')}`);
const marker = `lazy-${process.pid}-${randomBytes(6).toString('hex')}`;
let bin;
let dataDir;
let router;
const clients = [];

async function cli(...args) {
  const res = await run(bin, ['--data-dir', dataDir, ...args], { timeoutMs: 30_000 });
  assert.equal(res.code, 0, `mcp-router ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

// serve starts `serve --no-auth` on the data dir and waits for its ready line.
async function serve() {
  const port = await freePort();
  const child = spawn(bin, ['--data-dir', dataDir, 'serve', '--no-auth', '--listen', `127.0.0.1:${port}`],
    { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 15_000))]);
      if (!done) {
        child.kill('SIGKILL');
        await exited;
      }
    }
  };
  try {
    const url = await waitFor(() => /MCP Router listening on (http:\/\/\S+\/mcp)/.exec(output)?.[1],
      { timeoutMs: 30_000, what: `the router's ready line (output: ${output})` });
    return { url, stop, output: () => output };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function connect(url) {
  const client = new Client({ name: 'mcpr-e2e-lazy', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

// foundServers runs search_tools and returns the servers whose
// test_simple_text it found.
async function foundServers(client) {
  const res = await client.callTool({ name: 'search_tools', arguments: { query: 'simple text response', limit: 50 } }, undefined, { timeout: 30_000 });
  assert.ok(!res.isError, `search_tools: ${text(res)}`);
  const servers = new Set();
  for (const t of JSON.parse(text(res)).tools) {
    const [server, tool] = t.name.split('__');
    if (tool === 'test_simple_text') servers.add(server);
  }
  return servers;
}

const upstreams = () => pidsWithMarker(marker);

before(async () => {
  bin = routerBin();
  dataDir = tempDir('lazy');
  await cli('settings', 'set', 'lazyIdleSeconds', '2');
  for (const n of NAMES) await cli('servers', 'add', n, '--env', `${MARKER_VAR}=${marker}`, '--', EVERYTHING_GO);
  await cli('profiles', 'add', 'finder', '--servers', NAMES.join(','), '--mode', 'search');
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  if (router) await router.stop();
  await waitFor(() => upstreams().length === 0, { timeoutMs: 10_000, what: 'no upstream left' }).catch(() => {});
  const left = upstreams();
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {}
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  assert.deepEqual(left, [], 'upstream processes left behind');
});

describe('20 lazy servers', { timeout: 180_000 }, () => {
  test('auto resolves to lazy for servers only a search profile has', async () => {
    const rows = JSON.parse(await cli('servers', 'list', '--json'));
    assert.equal(rows.length, 20);
    for (const r of rows) {
      assert.equal(r.start ?? '', 'auto', `${r.name}'s stored start`);
      assert.equal(r.resolvedStart, 'lazy', `${r.name} resolves to`);
    }
  });

  test('a first run fills the catalog; every server then stops', async () => {
    router = await serve();
    const client = await connect(`${router.url}/finder`);
    await waitFor(async () => (await foundServers(client)).size === 20, { timeoutMs: 60_000, what: 'all 20 servers listed once' });
    await waitFor(() => upstreams().length === 0, { timeoutMs: 30_000, what: 'every lazy server to stop once idle' });
    await client.close();
    await router.stop();
    router = undefined;
  });

  test('the second run starts none; search finds them; a call starts exactly its server, which stops when idle', async () => {
    router = await serve();
    // Give a wrongly eager server the time to show.
    await new Promise((r) => setTimeout(r, 1_500));
    assert.deepEqual(upstreams(), [], 'no upstream process at launch');

    const client = await connect(`${router.url}/finder`);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['add_tools', 'call_tool', 'search_tools']);
    const found = await foundServers(client);
    assert.equal(found.size, 20, `search found the tools of ${[...found]}`);
    assert.deepEqual(upstreams(), [], 'no upstream process after a search');

    const res = await client.callTool({ name: 'call_tool', arguments: { name: 's07__test_simple_text', arguments: {} } }, undefined, { timeout: 60_000 });
    assert.ok(!res.isError && /simple text response/.test(text(res)), `call_tool: ${text(res)}`);
    assert.equal(upstreams().length, 1, `after one call: ${JSON.stringify(upstreams())}`);
    // The request log (JSONL, one request a line; docs/logs.md) says the call started s07.
    await waitFor(async () => (await cli('logs', '--json', '--method', 'tools/call')).split('\n').filter(Boolean).map((l) => JSON.parse(l))
      .some((r) => r.server === 's07' && /started the lazy server in/.test(r.instance)), { timeoutMs: 10_000, what: 'the log of the start of s07' });

    await waitFor(() => upstreams().length === 0, { timeoutMs: 20_000, what: 's07 to stop after lazyIdleSeconds' });
    assert.equal((await foundServers(client)).size, 20, 'search still finds every stopped server');
  });
});
