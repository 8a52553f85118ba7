// MCP Inspector CLI launching the router as a stdio server: `mcp-router connect`
// (the stdio bridge to a running router) and `mcp-router stdio` (standalone).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  EVERYTHING_NODE, connectSkip, inspector, inspectorEnv, requirePeers, routerBin, startRouter,
} from './helpers.mjs';

requirePeers();
const skipConnect = connectSkip();
// How a rejected token shows through the bridge: the router's 401 (the bridge
// reports "the router rejected the token (HTTP 401)", the router "missing bearer token").
const AUTH_FAILURE = /\b401\b|rejected the token|missing bearer token|invalid token/i;

describe('Inspector CLI over stdio', { timeout: 180_000 }, () => {
  let router;

  before(async () => {
    router = await startRouter({
      label: 'insp-stdio',
      servers: [{ name: 'everything', command: EVERYTHING_NODE, args: ['stdio'] }],
      expectTools: ['everything__echo'],
    });
  });

  after(async () => {
    if (router) await router.stop();
  });

  // The inspector takes the server command after `--`; everything after it is
  // passed to the command unchanged.
  const connectCmd = (...extra) => ['--', routerBin(), 'connect', '--url', router.url, ...extra];

  test('connect --token: tools/list', { skip: skipConnect }, async () => {
    const res = await inspector(['--method', 'tools/list', ...connectCmd('--token', router.token)]);
    assert.equal(res.code, 0, `inspector failed:\n${res.stdout}\n${res.stderr}`);
    const names = JSON.parse(res.stdout).tools.map((t) => t.name);
    assert.ok(names.includes('everything__echo'), `no everything__echo in ${names.join(', ')}`);
  });

  test('connect with $MCPR_TOKEN: tools/call everything__echo', { skip: skipConnect }, async () => {
    const res = await inspector([
      '-e', `MCPR_TOKEN=${router.token}`,
      '--method', 'tools/call', '--tool-name', 'everything__echo', '--tool-arg', 'message=hi',
      ...connectCmd(),
    ]);
    assert.equal(res.code, 0, `inspector failed:\n${res.stdout}\n${res.stderr}`);
    assert.deepEqual(JSON.parse(res.stdout).content, [{ type: 'text', text: 'Echo: hi' }]);
  });

  test('connect with a wrong token fails', { skip: skipConnect }, async () => {
    const res = await inspector(['--method', 'tools/list', ...connectCmd('--token', 'mcpr_not-a-real-token')]);
    assert.notEqual(res.code, 0, `inspector succeeded with a bad token:\n${res.stdout}`);
    assert.doesNotMatch(res.stdout, /everything__echo/);
    // The failure must be the router's 401, not any other breakage.
    assert.match(res.stdout + res.stderr, AUTH_FAILURE, `not an auth failure:\n${res.stdout}\n${res.stderr}`);
  });

  test('connect without any token fails', { skip: skipConnect }, async () => {
    // MCPR_TOKEN may be set in the caller's environment: clear it for the child.
    const ie = inspectorEnv({ MCPR_TOKEN: '' });
    try {
      const res = await inspector(['--method', 'tools/list', ...connectCmd()], { env: ie.env });
      assert.notEqual(res.code, 0, `inspector succeeded without a token:\n${res.stdout}`);
      assert.doesNotMatch(res.stdout, /everything__echo/);
      assert.match(res.stdout + res.stderr, AUTH_FAILURE, `not an auth failure:\n${res.stdout}\n${res.stderr}`);
    } finally {
      ie.cleanup();
    }
  });

  test('mcp-router stdio (standalone, same data dir): tools/list and tools/call', async () => {
    const cmd = ['--', routerBin(), '--data-dir', router.dataDir, 'stdio'];
    const list = await inspector(['--method', 'tools/list', ...cmd]);
    assert.equal(list.code, 0, `inspector failed:\n${list.stdout}\n${list.stderr}`);
    assert.ok(JSON.parse(list.stdout).tools.some((t) => t.name === 'everything__echo'), list.stdout.slice(0, 2000));
    const call = await inspector([
      '--method', 'tools/call', '--tool-name', 'everything__echo', '--tool-arg', 'message=hi', ...cmd,
    ]);
    assert.equal(call.code, 0, `inspector failed:\n${call.stdout}\n${call.stderr}`);
    assert.deepEqual(JSON.parse(call.stdout).content, [{ type: 'text', text: 'Echo: hi' }]);
  });
});
