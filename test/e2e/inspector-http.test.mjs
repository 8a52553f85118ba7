// MCP Inspector CLI (the real one, 2.12 on Node 22) against `mcp-router serve`
// over streamable HTTP with a bearer token.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { EVERYTHING_NODE, inspector, requirePeers, startRouter } from './helpers.mjs';

describe('Inspector CLI over streamable HTTP', { timeout: 180_000 }, () => {
  let router;

  before(async () => {
    requirePeers();
    router = await startRouter({
      label: 'insp-http',
      servers: [{ name: 'everything', command: EVERYTHING_NODE, args: ['stdio'] }],
      expectTools: ['everything__echo'],
    });
  });

  after(async () => {
    if (router) await router.stop();
  });

  const auth = () => ['--header', `Authorization: Bearer ${router.token}`];

  test('tools/list with a token lists the namespaced tools', async () => {
    const res = await inspector([router.url, '--transport', 'http', ...auth(), '--method', 'tools/list']);
    assert.equal(res.code, 0, `inspector failed:\n${res.stderr}`);
    const names = JSON.parse(res.stdout).tools.map((t) => t.name);
    assert.ok(names.includes('everything__echo'), `no everything__echo in ${names.join(', ')}`);
    assert.ok(names.includes('everything__get-sum'), `no everything__get-sum in ${names.join(', ')}`);
    assert.ok(names.every((n) => n.startsWith('everything__')), `unprefixed tool in ${names.join(', ')}`);
  });

  test('tools/call everything__echo returns "Echo: hi"', async () => {
    const res = await inspector([
      router.url, '--transport', 'http', ...auth(),
      '--method', 'tools/call', '--tool-name', 'everything__echo', '--tool-arg', 'message=hi',
    ]);
    assert.equal(res.code, 0, `inspector failed:\n${res.stderr}`);
    const result = JSON.parse(res.stdout);
    assert.notEqual(result.isError, true, res.stdout);
    assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: hi' }]);
  });

  test('without the Authorization header the CLI fails with the router\'s 401', async () => {
    // --stored-auth-only: no token is stored, so the CLI reports the 401 instead
    // of trying an interactive OAuth flow.
    const res = await inspector([router.url, '--transport', 'http', '--stored-auth-only', '--method', 'tools/list']);
    assert.notEqual(res.code, 0, `inspector succeeded without a token:\n${res.stdout}`);
    const out = res.stdout + res.stderr;
    assert.match(out, /auth_required/);
    assert.match(out, /missing bearer token/);
    assert.doesNotMatch(out, /everything__echo/);
  });

  test('a wrong token is rejected too', async () => {
    const res = await inspector([
      router.url, '--transport', 'http', '--stored-auth-only',
      '--header', 'Authorization: Bearer mcpr_not-a-real-token', '--method', 'tools/list',
    ]);
    assert.notEqual(res.code, 0, `inspector succeeded with a bad token:\n${res.stdout}`);
    assert.doesNotMatch(res.stdout + res.stderr, /everything__echo/);
  });

  test('the endpoint answers 401 with a Bearer challenge to a request with no token', async () => {
    const res = await fetch(router.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
    await res.body?.cancel();
  });
});
