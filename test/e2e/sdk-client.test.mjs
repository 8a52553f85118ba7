// The TypeScript SDK client (1.32) against the router over every downstream
// transport a client can use: streamable HTTP with a bearer token, stdio via
// `mcp-router connect`, and stdio via the standalone `mcp-router stdio`.
// Each runs the same checks: tools/list, a call, progress notifications and a
// sampling round trip (upstream → router → this client → back).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  EVERYTHING_NODE, childEnv, connectSkip, requirePeers, routerBin, startRouter, waitFor,
} from './helpers.mjs';
import { Client, CreateMessageRequestSchema, StdioClientTransport, StreamableHTTPClientTransport } from './sdk.mjs';

requirePeers();
const skipConnect = connectSkip();

const SAMPLED_TEXT = 'fixed reply from the e2e sampling handler 7f3a';

let router;
before(async () => {
  router = await startRouter({
    label: 'sdk',
    servers: [{ name: 'everything', command: EVERYTHING_NODE, args: ['stdio'] }],
    expectTools: ['everything__echo', 'everything__trigger-long-running-operation', 'everything__trigger-sampling-request'],
  });
});
after(async () => {
  if (router) await router.stop();
});

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// One suite per transport; makeTransport() is called after the router is up.
function suite(name, makeTransport, { skip = false } = {}) {
  describe(`TypeScript SDK client over ${name}`, { timeout: 120_000 }, () => {
    if (skip) {
      // Skip test by test (not the suite) so the runner's skipped count shows it.
      for (const t of ['tools/list', 'tools/call', 'progress', 'sampling']) test(t, { skip }, () => {});
      return;
    }
    let client;
    let transport;
    let stderr = '';
    const samplingRequests = [];

    before(async () => {
      transport = makeTransport();
      transport.stderr?.on('data', (d) => (stderr += d));
      client = new Client({ name: `mcpr-e2e-${name}`, version: '1.0.0' }, { capabilities: { sampling: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        samplingRequests.push(request.params);
        return { model: 'e2e-fixed-model', role: 'assistant', content: { type: 'text', text: SAMPLED_TEXT }, stopReason: 'endTurn' };
      });
      await client.connect(transport, { timeout: 30_000 });
    });

    after(async () => {
      if (!client) return;
      const pid = transport.pid;
      await client.close();
      if (pid) {
        // A stdio router must exit once its client closes stdin.
        await waitFor(() => !pidAlive(pid), { timeoutMs: 10_000, what: `stdio router pid ${pid} to exit` });
      }
    });

    const ctx = () => (stderr ? `\nrouter stderr:\n${stderr}` : '');

    test('tools/list has the namespaced upstream tools', async () => {
      const { tools } = await client.listTools(undefined, { timeout: 30_000 });
      const names = tools.map((t) => t.name);
      for (const want of ['everything__echo', 'everything__trigger-long-running-operation', 'everything__trigger-sampling-request']) {
        assert.ok(names.includes(want), `no ${want} in ${names.join(', ')}${ctx()}`);
      }
      const echo = tools.find((t) => t.name === 'everything__echo');
      assert.deepEqual(echo.inputSchema.required, ['message']);
    });

    test('tools/call everything__echo', async () => {
      const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } }, undefined, { timeout: 30_000 });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: hi' }]);
    });

    test('progress notifications reach onprogress', async () => {
      const progress = [];
      const result = await client.callTool(
        { name: 'everything__trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
        undefined,
        { timeout: 30_000, onprogress: (p) => progress.push(p) },
      );
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.match(JSON.stringify(result.content), /completed/i);
      assert.ok(progress.length >= 1, `onprogress never fired${ctx()}`);
      assert.ok(progress.length <= 3, `more progress notifications than steps: ${JSON.stringify(progress)}`);
      for (let i = 1; i < progress.length; i++) {
        assert.ok(progress[i].progress > progress[i - 1].progress, `progress not increasing: ${JSON.stringify(progress)}`);
      }
      assert.equal(progress.at(-1).total, 3, JSON.stringify(progress));
    });

    test('sampling round trip through the router', async () => {
      const before = samplingRequests.length;
      const result = await client.callTool(
        { name: 'everything__trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 5 } },
        undefined,
        { timeout: 30_000 },
      );
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal(samplingRequests.length, before + 1, `sampling handler called ${samplingRequests.length - before} times${ctx()}`);
      const req = samplingRequests.at(-1);
      assert.equal(req.maxTokens, 5);
      assert.match(JSON.stringify(req.messages), /hi/);
      assert.ok(JSON.stringify(result).includes(SAMPLED_TEXT), `result lacks the sampled text: ${JSON.stringify(result)}`);
    });
  });
}

suite('streamable HTTP', () =>
  new StreamableHTTPClientTransport(new URL(router.url), { requestInit: { headers: { Authorization: `Bearer ${router.token}` } } }),
);

suite(
  'stdio (mcp-router connect)',
  () =>
    new StdioClientTransport({
      command: routerBin(),
      args: ['connect', '--url', router.url],
      env: childEnv({ MCPR_TOKEN: router.token }),
      stderr: 'pipe',
    }),
  { skip: skipConnect },
);

suite('stdio (mcp-router stdio)', () =>
  new StdioClientTransport({
    command: routerBin(),
    args: ['--data-dir', router.dataDir, 'stdio'],
    env: childEnv(),
    stderr: 'pipe',
  }),
);
