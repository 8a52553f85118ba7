// 2025-11-25 sessions through the balancer (issue 29, item 3): the TypeScript
// SDK client's session ID names the replica that made it, signed; HAProxy
// routes on that prefix; a replica that gets another's session forwards it
// once to the owner; a forged or foreign-made ID is refused with 404.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { SIMPLE, connect, ownerOf, rawPost, team, text } from './team.mjs';

const names = team.replicas.map((r) => r.name);
const open = [];
after(async () => {
  for (const c of open) await c.client.close().catch(() => {});
});

describe('TypeScript SDK sessions through the balancer', { timeout: 120_000 }, () => {
  test('six sessions: each ID names a replica, calls and progress work', async () => {
    for (let i = 0; i < 6; i++) open.push(await connect(team.balancer, `team-ts-${i}`));
    for (const c of open) {
      assert.ok(names.includes(c.owner), `session ID ${c.transport.sessionId} does not begin with a replica's name (${names})`);
      const { tools } = await c.client.listTools();
      assert.ok(tools.some((t) => t.name === SIMPLE), 'tools/list lacks ' + SIMPLE);
      for (let n = 0; n < 3; n++) assert.ok(text(await c.client.callTool({ name: SIMPLE, arguments: {} })).length > 0);
    }
    const owners = new Set(open.map((c) => c.owner));
    assert.ok(owners.size >= 2, `six sessions through a round-robin balancer all made by ${[...owners]}`);
    // Progress notifications come back on the session, from its replica.
    const progress = [];
    await open[0].client.callTool({ name: 'everything__test_tool_with_progress', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p),
      timeout: 30_000,
    });
    assert.ok(progress.length > 0, 'no progress notification reached the client');
  });

  test('a request sent to another replica is forwarded to the session\'s owner', async () => {
    const c = open[0];
    const other = team.replicas.find((r) => r.name !== c.owner);
    const res = await rawPost(other.url, c.transport.sessionId, { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
    assert.equal(res.status, 200, `${other.name} answered ${res.status}: ${res.body}`);
    assert.match(res.body, new RegExp(SIMPLE));
  });

  test('a client\'s own X-MCP-Router-Forwarded is not taken for a replica\'s', async () => {
    const c = open[0];
    const other = team.replicas.find((r) => r.name !== c.owner);
    for (const value of [c.owner, other.name, `${other.name}.0.AAAA`]) {
      const res = await rawPost(other.url, c.transport.sessionId, { jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} }, { 'X-MCP-Router-Forwarded': value });
      assert.ok(res.status >= 400 && res.status < 500, `${other.name} answered ${res.status} to a client's X-MCP-Router-Forwarded: ${value}: ${res.body}`);
    }
  });

  test('a forged session ID is refused with 404 on every replica', async () => {
    const real = open[0].transport.sessionId;
    const [owner, random, mac] = real.split('.');
    // The first character: the last one of a 22-character base64 carries
    // padding bits that a lenient decoder ignores.
    const flipped = (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1);
    const forged = [
      `${owner}.${random}.${flipped}`, // the MAC changed
      `${names.find((n) => n !== owner)}.${random}.${mac}`, // another replica's name on a real ID
      `${owner}.${'A'.repeat(22)}.${mac}`, // a made-up random part
    ];
    for (const id of forged) {
      for (const r of team.replicas) {
        const res = await rawPost(r.url, id, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
        assert.equal(res.status, 404, `${r.name} answered ${res.status} to the forged session ${id}: ${res.body}`);
      }
    }
  });
});
