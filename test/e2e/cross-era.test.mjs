// Across the eras (issue 25, item 7): the TypeScript SDK client (1.32, a
// 2025-11-25 client with a session) through the router against an upstream
// the router speaks 2026-07-28 to — the go-sdk everything-server over
// stateless HTTP, whose test_input_required_result_* tools answer with
// `resultType: "input_required"` instead of asking mid-call. The router asks
// this client each question through its session (elicitation/create,
// sampling/createMessage, roots/list), sends the call again with the answers
// and the upstream's requestState, and the client sees one ordinary result.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { childEnv, requirePeers, routerBin, run, startGoEverythingHTTP, startRouter } from './helpers.mjs';
import {
  Client,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  StreamableHTTPClientTransport,
} from './sdk.mjs';

requirePeers({ goEverything: true });

const SAMPLED_TEXT = 'cross-era sampled reply 5c1e';

let upstream;
let router;
before(async () => {
  upstream = await startGoEverythingHTTP({ stateless: true });
  router = await startRouter({
    label: 'cross-era',
    servers: [{ name: 'modern', url: upstream.url, prefix: 'never' }],
    expectTools: ['test_input_required_result_elicitation'],
  });
});
after(async () => {
  if (router) await router.stop();
  if (upstream) await upstream.stop();
});

async function connect({ capabilities, asked }) {
  const client = new Client({ name: 'mcpr-e2e-cross-era', version: '1.0.0' }, { capabilities });
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push({ method: 'elicitation/create', params: req.params });
      return { action: 'accept', content: { name: 'Alice' } };
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      asked.push({ method: 'sampling/createMessage', params: req.params });
      return { model: 'e2e-model', role: 'assistant', content: { type: 'text', text: SAMPLED_TEXT }, stopReason: 'endTurn' };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push({ method: 'roots/list' });
      return { roots: [{ uri: 'file:///cross-era/root', name: 'Cross-era root' }] };
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(router.url), {
    requestInit: { headers: { Authorization: `Bearer ${router.token}` } },
  });
  await client.connect(transport, { timeout: 30_000 });
  return client;
}

// ordinary: a complete result, none of the multi-round-trip fields.
function assertOrdinary(result) {
  const raw = JSON.stringify(result);
  assert.notEqual(result.isError, true, raw);
  assert.ok(!('inputRequests' in result) && !('requestState' in result), `the client got a multi-round-trip result: ${raw}`);
  assert.ok(result.resultType === undefined || result.resultType === 'complete', raw);
}

describe('TypeScript SDK client (2025-11-25 session) against a 2026-07-28 upstream', { timeout: 120_000 }, () => {
  test('the router speaks 2026-07-28 to the upstream', async () => {
    const res = await run(routerBin(), ['--data-dir', router.dataDir, 'servers', 'list', '--connect', '--json'], { timeoutMs: 30_000, env: childEnv() });
    assert.equal(res.code, 0, res.stderr);
    const out = res.stdout;
    const row = JSON.parse(out).find((r) => r.name === 'modern');
    assert.equal(row?.protocol, '2026-07-28', out);
  });

  test('input_required elicitation, sampling and roots are asked through the session; one ordinary result each', async () => {
    const asked = [];
    const client = await connect({ capabilities: { elicitation: {}, sampling: {}, roots: {} }, asked });
    try {
      const call = (name) => client.callTool({ name, arguments: {} }, undefined, { timeout: 30_000 });

      let result = await call('test_input_required_result_elicitation');
      assertOrdinary(result);
      assert.deepEqual(asked.map((a) => a.method), ['elicitation/create'], JSON.stringify(asked));
      assert.equal(asked[0].params.message, 'What is your name?');
      assert.match(JSON.stringify(result.content), /Alice/, JSON.stringify(result));

      asked.length = 0;
      result = await call('test_input_required_result_sampling');
      assertOrdinary(result);
      assert.deepEqual(asked.map((a) => a.method), ['sampling/createMessage'], JSON.stringify(asked));
      assert.ok(JSON.stringify(result.content).includes(SAMPLED_TEXT), `the sampled text did not reach the upstream: ${JSON.stringify(result)}`);

      asked.length = 0;
      result = await call('test_input_required_result_list_roots');
      assertOrdinary(result);
      assert.deepEqual(asked.map((a) => a.method), ['roots/list'], JSON.stringify(asked));
      assert.match(JSON.stringify(result.content), /cross-era/, JSON.stringify(result));

      // Several rounds: each asked in turn, still one result.
      asked.length = 0;
      result = await call('test_input_required_result_multi_round');
      assertOrdinary(result);
      assert.ok(asked.length >= 2, `multi_round asked ${asked.length} question(s): ${JSON.stringify(asked)}`);
    } finally {
      await client.close();
    }
  });

  // A client that declared no elicitation is not asked: the call fails with
  // -32021 naming the capability, rather than the router answering for it.
  test('a client without the capability gets -32021, not a question', async () => {
    const asked = [];
    const client = await connect({ capabilities: {}, asked });
    try {
      await assert.rejects(
        client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} }, undefined, { timeout: 30_000 }),
        (err) => {
          assert.equal(err.code, -32021, String(err));
          assert.deepEqual(err.data?.requiredCapabilities, { elicitation: {} }, JSON.stringify(err.data));
          return true;
        },
      );
      assert.deepEqual(asked, []);
    } finally {
      await client.close();
    }
  });
});
