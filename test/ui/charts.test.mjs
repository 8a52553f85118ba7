// The charts of the Servers and Logs pages in a real browser (issue 29, item
// 6): a real `mcp-router serve` (auth on) with the go-sdk everything-server
// as its upstream; calls made by a real MCP client (a client token, over
// HTTP) move the figures the pages draw — the server's calls per minute and
// p95 beside its sparklines, the Logs page's calls, errors and latency — and
// more calls move them again. The router samples every 5 s.
//
// Environment: MCPR_BIN (the router, embedding a current frontend/dist),
// CHROMIUM (default /usr/bin/chromium). scripts/ui-e2e.sh builds the router.
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, ROOT, requireFiles, shoot, until } from './helpers.mjs';

const GO_EVERYTHING = path.join(ROOT, '.tools', 'bin', 'everything-server');
requireFiles([[GO_EVERYTHING, 'build the go-sdk everything-server into .tools/bin (make test-deps)']]);

let h;
let base;
let adminToken;
let clientToken;
let page;

before(async () => {
  h = new Harness('ui-charts');
  h.cli(['settings', 'set', 'auth', 'on']);
  adminToken = JSON.parse(h.cli(['tokens', 'create', 'e2e-ui-charts', '--admin', '--json'])).token;
  clientToken = JSON.parse(h.cli(['tokens', 'create', 'client', '--json'])).token;
  h.cli(['servers', 'add', 'gosdk', '--env', h.markerEnv, '--', GO_EVERYTHING]);
  base = await h.startRouter();
  page = await h.openPage();
});

after(async () => {
  await h?.stop();
});

const tid = (id) => page.getByTestId(id);

// A real MCP session with the client token: initialize, then tools/call.
async function mcpSession() {
  const headers = { Authorization: `Bearer ${clientToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  let sid = '';
  let id = 0;
  const post = async (body) => {
    const res = await fetch(`${base}/mcp`, { method: 'POST', headers: sid ? { ...headers, 'Mcp-Session-Id': sid } : headers, body: JSON.stringify(body) });
    const text = await res.text();
    const data = text.includes('data: ') ? text.slice(text.lastIndexOf('data: ') + 6).trim() : text;
    return { res, msg: data ? JSON.parse(data) : null };
  };
  const init = await post({ jsonrpc: '2.0', id: id++, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e-charts', version: '1' } } });
  sid = init.res.headers.get('mcp-session-id') ?? '';
  assert.ok(sid, `no session: ${init.res.status} ${JSON.stringify(init.msg)}`);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const list = await post({ jsonrpc: '2.0', id: id++, method: 'tools/list' });
  const tool = list.msg.result.tools.map((t) => t.name).find((n) => n.endsWith('test_simple_text'));
  assert.ok(tool, `no test_simple_text tool: ${JSON.stringify(list.msg)}`);
  return {
    async call(name = tool) {
      const r = await post({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: {} } });
      return r.msg;
    },
  };
}

// "Last minute: 12 calls/min, 6 errors/min, p95 40 ms · …" → its figures.
function summaryFigures(text) {
  const m = /Last minute: ([\d.]+) calls\/min, ([\d.]+) errors\/min, p95 ([\d.–]+) ms/.exec(text ?? '');
  return m ? { calls: Number(m[1]), errors: Number(m[2]), p95: Number(m[3]) } : null;
}

test('the charts move with real calls', { timeout: 180_000 }, async (t) => {
  await page.goto(`${base}/ui/`);
  await tid('login-token').fill(adminToken);
  await tid('login-submit').click();
  await tid('servers-page').waitFor();
  await until(async () => (await tid('server-state-gosdk').getAttribute('data-state')) === 'running', 'gosdk to run', 60_000);
  const client = await mcpSession();

  await t.test('Servers page: "No calls yet", then the server’s calls per minute and p95', async () => {
    await tid('server-activity-empty-gosdk').waitFor();
    assert.equal((await tid('server-activity-empty-gosdk').textContent())?.trim(), 'No calls yet');
    const emptyBox = await tid('server-activity-gosdk').boundingBox();
    for (let i = 0; i < 10; i++) {
      const r = await client.call();
      assert.ok(r.result && !r.result.isError, JSON.stringify(r));
    }
    // The next sample (at most 5 s) and the page's next ask (5 s).
    await tid('server-calls-per-min-gosdk').waitFor({ timeout: 20_000 });
    const perMin = Number(/([\d.]+)\/min/.exec((await tid('server-calls-per-min-gosdk').textContent()) ?? '')?.[1]);
    assert.ok(perMin > 0, `calls per minute: ${perMin}`);
    assert.match((await tid('server-p95-gosdk').textContent()) ?? '', /^p95 [\d.]+ ms$/);
    const spark = tid('server-calls-spark-gosdk');
    assert.match((await spark.getAttribute('aria-label')) ?? '', /^gosdk: [\d.]+ calls per minute in the last minute, p95 latency [\d.]+ ms$/);
    // A line from the second point on (a dot before).
    await until(async () => (await spark.locator('svg path.recharts-curve').count()) > 0, 'the sparkline to draw a line', 20_000);
    // No layout jump: the cell kept its height.
    const box = await tid('server-activity-gosdk').boundingBox();
    assert.ok(emptyBox && box && Math.abs(box.height - emptyBox.height) < 1, `cell height ${emptyBox?.height} → ${box?.height}`);
    await shoot(page, 'charts-servers');
  });

  await t.test('Logs page: calls, errors and latency, and they move with more calls', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await client.call('no-such-tool');
      assert.ok(r.error || r.result?.isError, JSON.stringify(r));
    }
    await tid('nav-logs').click();
    await tid('logs-charts').waitFor();
    const first = await until(async () => {
      const f = summaryFigures(await tid('logs-charts-summary').textContent());
      return f && f.errors > 0 ? f : null;
    }, 'the errors in the Logs page figures', 20_000);
    assert.ok(first.calls > 0 && first.p95 > 0, JSON.stringify(first));
    assert.ok((await tid('logs-chart-calls').locator('svg path.recharts-curve').count()) >= 2, 'calls and errors lines');
    assert.ok((await tid('logs-chart-latency').locator('svg path.recharts-curve').count()) >= 1, 'a latency line');
    assert.equal(await page.getByRole('img', { name: /^Calls and errors per minute over the last \d+ samples$/ }).count(), 1);
    await shoot(page, 'charts-logs');

    for (let i = 0; i < 30; i++) await client.call();
    const later = await until(async () => {
      const f = summaryFigures(await tid('logs-charts-summary').textContent());
      return f && f.calls > first.calls ? f : null;
    }, 'the calls per minute to rise after 30 more calls', 20_000);
    assert.ok(later.calls > first.calls, `${first.calls} → ${later.calls}`);
  });
});
