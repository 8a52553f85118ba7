// Per-client servers (issue 26, docs/perclient.md) with the real
// @modelcontextprotocol/server-filesystem (test/peers) and TypeScript SDK
// clients that declare roots: as a per-client server started on
// ${client.roots}, each client sees only its own directories, follows its
// own roots change, and its instance ends with its session or after the idle
// time; past the instance cap a client gets an error naming the setting. As a
// shared server, no client's roots reach it (the router refuses to guess).
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { PEERS, httpTransport, pidsWithMarker, requireFile, requirePeers, startRouter, tempDir, waitFor } from './helpers.mjs';
import { Client, ListRootsRequestSchema } from './sdk.mjs';

requirePeers();
const FILESYSTEM = requireFile(path.join(PEERS, '.bin', 'mcp-server-filesystem'), 'run `npm ci` in test/peers');

function project(name) {
  const dir = realpathSync(tempDir(`perclient-${name}`));
  writeFileSync(path.join(dir, `${name}.txt`), `contents of ${name}`);
  return dir;
}

// A TypeScript SDK client whose roots are roots.current (file URIs of dirs).
async function rootsClient(router, name, roots) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: roots.current.map((d) => ({ uri: pathToFileURL(d).href, name: path.basename(d) })),
  }));
  const transport = httpTransport(router);
  await client.connect(transport, { timeout: 30_000 });
  return { client, transport };
}

async function call(client, tool, args = {}) {
  const res = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 });
  return { text: res.content.map((c) => c.text ?? '').join('\n'), isError: !!res.isError };
}

describe('per-client server-filesystem', { timeout: 180_000 }, () => {
  let router;
  const dirA = project('alpha');
  const dirA2 = project('alpha-next');
  const dirB = project('beta');
  const rootsA = { current: [dirA] };
  const rootsB = { current: [dirB] };
  let a;
  let b;

  before(async () => {
    router = await startRouter({
      label: 'perclient',
      servers: [{ name: 'fs', command: FILESYSTEM, args: ['${client.roots}'], isolation: 'per-client' }],
      expectTools: ['fs__list_allowed_directories', 'fs__read_text_file'],
      settings: { perClientMaxInstances: 2, perClientIdleSeconds: 10 },
    });
    a = await rootsClient(router, 'client-alpha', rootsA);
    b = await rootsClient(router, 'client-beta', rootsB);
  });
  after(async () => {
    for (const c of [a, b]) await c?.client.close().catch(() => {});
    if (router) await router.stop();
  });

  const log = () => `\nrouter output:\n${router.output()}`;

  test('each client sees only its own directory', async () => {
    const [la, lb] = await Promise.all([call(a.client, 'fs__list_allowed_directories'), call(b.client, 'fs__list_allowed_directories')]);
    assert.ok(la.text.includes(dirA) && !la.text.includes(dirB), `alpha sees: ${la.text}${log()}`);
    assert.ok(lb.text.includes(dirB) && !lb.text.includes(dirA), `beta sees: ${lb.text}${log()}`);
    const outside = await call(a.client, 'fs__read_text_file', { path: path.join(dirB, 'beta.txt') });
    assert.ok(outside.isError && !outside.text.includes('contents of beta'), `alpha read beta's file: ${outside.text}`);
    const own = await call(b.client, 'fs__read_text_file', { path: path.join(dirB, 'beta.txt') });
    assert.equal(own.text, 'contents of beta');
    // The catalog connection and one instance per client.
    assert.equal(pidsWithMarker(router.marker).length, 3, JSON.stringify(pidsWithMarker(router.marker)));
  });

  test('a client that changes its roots: its instance follows, the other keeps its own', async () => {
    rootsA.current = [dirA2];
    await a.client.sendRootsListChanged();
    await waitFor(
      async () => {
        const { text } = await call(a.client, 'fs__list_allowed_directories');
        return text.includes(dirA2) && !text.includes(`${dirA}\n`) && !text.endsWith(dirA);
      },
      { timeoutMs: 30_000, intervalMs: 300, what: 'alpha to see its new root' },
    );
    const lb = await call(b.client, 'fs__list_allowed_directories');
    assert.ok(lb.text.includes(dirB) && !lb.text.includes(dirA2), `beta sees: ${lb.text}`);
  });

  test('past the instance cap: a clear error naming the setting', async () => {
    const c = await rootsClient(router, 'client-gamma', { current: [dirA] });
    try {
      await assert.rejects(call(c.client, 'fs__list_allowed_directories'), (err) => {
        assert.match(err.message, /2 is its cap/);
        assert.match(err.message, /perClientMaxInstances/);
        return true;
      });
    } finally {
      await c.transport.terminateSession().catch(() => {});
      await c.client.close();
    }
  });

  test('an instance ends with its session, and after the idle time', async () => {
    await b.transport.terminateSession();
    await b.client.close();
    b = undefined;
    await waitFor(() => pidsWithMarker(router.marker).length === 2, { timeoutMs: 15_000, what: "beta's instance to end with its session" });
    // alpha's instance: no call for perClientIdleSeconds (10).
    await waitFor(() => pidsWithMarker(router.marker).length === 1, { timeoutMs: 30_000, intervalMs: 250, what: "alpha's idle instance to end" });
    // Its next call starts it again, on its roots.
    const la = await call(a.client, 'fs__list_allowed_directories');
    assert.ok(la.text.includes(dirA2), la.text);
  });
});

describe('shared server-filesystem', { timeout: 120_000 }, () => {
  let router;
  const dirA = project('shared-alpha');
  const dirB = project('shared-beta');
  let a;
  let b;
  before(async () => {
    mkdirSync(dirA, { recursive: true });
    router = await startRouter({
      label: 'shared',
      servers: [{ name: 'fs', command: FILESYSTEM }],
      expectTools: ['fs__list_allowed_directories'],
    });
    a = await rootsClient(router, 'client-alpha', { current: [dirA] });
    b = await rootsClient(router, 'client-beta', { current: [dirB] });
  });
  after(async () => {
    for (const c of [a, b]) await c?.client.close().catch(() => {});
    if (router) await router.stop();
  });

  test("no client's roots reach a shared server: the router refuses to guess", async () => {
    await a.client.sendRootsListChanged();
    const [la, lb] = await Promise.all([call(a.client, 'fs__list_allowed_directories'), call(b.client, 'fs__list_allowed_directories')]);
    for (const { text } of [la, lb]) {
      assert.ok(!text.includes(dirA) && !text.includes(dirB), `a shared server got a client's roots: ${text}`);
    }
    assert.match(router.output(), /roots request of server fs refused/);
  });
});
