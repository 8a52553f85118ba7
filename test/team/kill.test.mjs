// One replica SIGKILLed during a load run (issue 29, "How it will be
// checked"): nine TypeScript SDK sessions call through the balancer; r2 is
// killed. Every call ends with an answer (a result or an error, never
// silence); a session r2 owned gets 404, initializes again on a living
// replica and goes on; the sessions of the others see no error at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SIMPLE, connect, team } from './team.mjs';

const CALL_TIMEOUT_MS = 20_000;
const VICTIM = 'r2';

test('a replica killed with SIGKILL during load: no call lost, its sessions re-initialize', { timeout: 180_000 }, async () => {
  const victim = team.replicas.find((r) => r.name === VICTIM);
  assert.ok(victim, `no replica ${VICTIM} in ${JSON.stringify(team.replicas)}`);

  const clients = [];
  for (let i = 0; i < 9; i++) {
    const c = await connect(team.balancer, `team-kill-${i}`);
    clients.push({ i, ...c, firstOwner: c.owner, ok: 0, okAfterReinit: 0, errors: [], reinits: [], lost: 0 });
  }
  const onVictim = clients.filter((c) => c.firstOwner === VICTIM);
  assert.ok(onVictim.length > 0, `no session was made by ${VICTIM}: ${clients.map((c) => c.owner)}`);

  let killedAt = 0;
  let stop = false;
  const loop = async (c) => {
    while (!stop) {
      try {
        await c.client.callTool({ name: SIMPLE, arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS });
        c.ok++;
        if (c.reinits.length) c.okAfterReinit++;
      } catch (err) {
        if (/Request timed out/i.test(String(err?.message)) || err?.code === -32001) {
          c.lost++; // no answer within 20 s: the one thing that must not happen
        } else {
          c.errors.push({ at: Date.now() - killedAt, code: err?.code, message: String(err?.message).slice(0, 200) });
        }
        if (err?.code === 404) {
          // The session is gone with its replica: initialize again.
          await c.client.close().catch(() => {});
          const fresh = await connect(team.balancer, `team-kill-${c.i}-again`);
          c.client = fresh.client;
          c.transport = fresh.transport;
          c.owner = fresh.owner;
          c.reinits.push(fresh.owner);
        } else {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
  };
  const running = clients.map(loop);

  // Load first, then the kill, then load on the survivors.
  await new Promise((r) => setTimeout(r, 2_000));
  assert.ok(clients.every((c) => c.ok > 0), 'some client made no call before the kill');
  killedAt = Date.now();
  process.kill(victim.pid, 'SIGKILL');
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !onVictim.every((c) => c.okAfterReinit >= 5)) {
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 2_000));
  stop = true;
  await Promise.all(running);
  for (const c of clients) await c.client.close().catch(() => {});

  const report = clients.map((c) => ({ i: c.i, first: c.firstOwner, now: c.owner, ok: c.ok, reinits: c.reinits, lost: c.lost, errors: c.errors }));
  console.log(JSON.stringify(report, null, 1));
  for (const c of clients) {
    assert.equal(c.lost, 0, `client ${c.i} (${c.firstOwner}): ${c.lost} calls got no answer within ${CALL_TIMEOUT_MS} ms`);
    if (c.firstOwner === VICTIM) {
      assert.ok(c.errors.some((e) => e.code === 404), `client ${c.i} on ${VICTIM} never got 404: ${JSON.stringify(c.errors)}`);
      assert.ok(c.reinits.length >= 1 && c.reinits.every((o) => o && o !== VICTIM), `client ${c.i} re-initialized on ${c.reinits}`);
      assert.ok(c.okAfterReinit >= 5, `client ${c.i}: ${c.okAfterReinit} calls after it re-initialized`);
    } else {
      assert.deepEqual(c.errors, [], `client ${c.i} on ${c.firstOwner} (alive) saw errors`);
    }
  }
});
