// Human approval in the browser, end to end: a real `mcp-router serve`
// (auth on) with a policy.yaml in its data dir that makes get_forecast
// wait for a person, the sample weather server behind it (on the recorded
// JMA data, served locally), and an MCP client speaking raw HTTP to /mcp
// with a client token. The approvals panel appears over the page the
// browser shows; Approve lets the call's result through, Deny refuses it
// with approval_denied.
//
// Environment: MCPR_BIN (the router), MCPR_WEATHER_BIN (the weather
// server), CHROMIUM (default /usr/bin/chromium). scripts/ui-e2e.sh builds both.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, SHOTS, listen, requireFiles, startJMA } from './helpers.mjs';

const WEATHER = process.env.MCPR_WEATHER_BIN;
requireFiles([[WEATHER ?? '', 'set MCPR_WEATHER_BIN to the weather server (scripts/ui-e2e.sh does)']]);

const POLICY = `policies:
  - name: forecast-needs-a-person
    match: {tools: ["get_forecast"]}
    require: {human_approval: true, approval_timeout_seconds: 120}
`;

let h;
let base;
let adminToken;
let clientToken;
let page;
let jma;

// A minimal MCP client over raw HTTP: one session, JSON-RPC posts; an
// answer that comes as an SSE stream is its last data line.
async function mcpSession(token) {
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const post = async (body, sid) => {
    const res = await fetch(`${base}/mcp`, { method: 'POST', headers: sid ? { ...headers, 'Mcp-Session-Id': sid } : headers, body: JSON.stringify(body) });
    const text = await res.text();
    const data = text.includes('data: ') ? text.slice(text.lastIndexOf('data: ') + 6).trim() : text;
    return { res, msg: data ? JSON.parse(data) : null };
  };
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
  const sid = init.res.headers.get('mcp-session-id');
  assert.ok(sid, `no session: ${JSON.stringify(init.msg)}`);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid);
  let id = 1;
  return { call: async (name, args) => (await post({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } }, sid)).msg };
}

before(async () => {
  h = new Harness('ui-approvals');
  jma = startJMA();
  const jmaPort = await listen(jma);
  h.cli(['settings', 'set', 'auth', 'on']);
  adminToken = JSON.parse(h.cli(['tokens', 'create', 'e2e-ui-approvals', '--admin', '--json'])).token;
  clientToken = JSON.parse(h.cli(['tokens', 'create', 'forecaster', '--json'])).token;
  h.cli(['servers', 'add', 'weather', '--env', h.markerEnv, '--', WEATHER, '--base-url', `http://127.0.0.1:${jmaPort}/bosai`]);
  writeFileSync(path.join(h.dataDir, 'policy.yaml'), POLICY);
  base = await h.startRouter();
  page = await h.openPage();
});

after(async () => {
  jma?.close();
  await h?.stop();
});

const tid = (id) => page.getByTestId(id);

// Calls get_forecast; a call refused as approval_unavailable (the page's
// event stream not attached yet, so no UI to ask) is made again.
async function forecast(mcp) {
  for (;;) {
    const msg = await mcp.call('weather__get_forecast', { area: 'Tokyo' });
    if (msg?.error?.data?.reason !== 'approval_unavailable') return msg;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('approvals in the browser', { timeout: 180_000 }, async (t) => {
  await page.goto(`${base}/ui/#servers`);
  await tid('login-token').fill(adminToken);
  await tid('login-submit').click();
  await tid('servers-page').waitFor();
  const mcp = await mcpSession(clientToken);

  await t.test('Approve: the panel shows the call, the result arrives', async () => {
    const call = forecast(mcp);
    const panel = tid('approval-panel');
    await panel.waitFor();
    assert.equal(await tid('approval-client').textContent(), 'forecaster');
    assert.equal(await tid('approval-server').textContent(), 'weather');
    assert.equal(await tid('approval-tool').textContent(), 'get_forecast');
    assert.equal(await tid('approval-arguments').textContent(), '{\n  "area": "Tokyo"\n}');
    assert.match((await tid('approval-time-left').textContent()) ?? '', /^Refused in \d+ s if nobody answers\.$/);
    await page.screenshot({ path: path.join(SHOTS, 'approval-panel-light.png') });
    await tid('approval-approve').click();
    const msg = await call;
    assert.equal(msg.error, undefined, JSON.stringify(msg.error));
    assert.match(JSON.stringify(msg.result.content), /Forecast for 東京都 \(Tokyo\)/);
    await panel.waitFor({ state: 'detached' });
  });

  await t.test('Deny: approval_denied, decided by the UI', async () => {
    await tid('nav-logs').click(); // the panel shows over any page
    await tid('logs-page').waitFor();
    const call = forecast(mcp);
    await tid('approval-panel').waitFor();
    await tid('approval-deny').click();
    const msg = await call;
    assert.equal(msg.error?.data?.reason, 'approval_denied', JSON.stringify(msg));
    assert.match(msg.error.message, /denied by the UI/);
    await tid('approval-panel').waitFor({ state: 'detached' });
  });
});
