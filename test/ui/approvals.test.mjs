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
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
const TESTDATA = path.join(ROOT, 'mcp_servers', 'weather', 'testdata');
const BIN = process.env.MCPR_BIN;
const WEATHER = process.env.MCPR_WEATHER_BIN;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const MARKER_VAR = 'MCPR_TEST_MARKER';
const marker = `ui-approvals-${randomBytes(6).toString('hex')}`;

for (const [file, hint] of [
  [BIN ?? '', 'set MCPR_BIN to the built router (scripts/ui-e2e.sh does)'],
  [WEATHER ?? '', 'set MCPR_WEATHER_BIN to the weather server (scripts/ui-e2e.sh does)'],
  [CHROMIUM, 'install chromium (scripts/install-system-deps.sh)'],
]) {
  if (!file || !existsSync(file)) throw new Error(`missing ${file || 'a binary'}: ${hint}`);
}

const POLICY = `policies:
  - name: forecast-needs-a-person
    match: {tools: ["get_forecast"]}
    require: {human_approval: true, approval_timeout_seconds: 120}
`;

async function until(fn, what, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

// The JMA stand-in: the recorded files of the weather server's tests.
function startJMA() {
  return http.createServer((req, res) => {
    let file;
    if (req.url === '/bosai/common/const/area.json') file = path.join(TESTDATA, 'area.json');
    const m = /^\/bosai\/forecast\/data\/forecast\/(\d{6})\.json$/.exec(req.url ?? '');
    if (m) file = path.join(TESTDATA, 'forecast', `${m[1]}.json`);
    if (!file || !existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(readFileSync(file));
  });
}

let dataDir;
let profileDir;
let router;
let routerLog = '';
let base;
let adminToken;
let clientToken;
let context;
let page;
let jma;

function cli(args) {
  const r = spawnSync(BIN, ['--data-dir', dataDir, ...args], { env: { ...process.env, [MARKER_VAR]: marker, MCP_ROUTER_KEY_STORE: 'file' }, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`mcp-router ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

function markedPids() {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(`${MARKER_VAR}=${marker}`)) out.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

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
  mkdirSync(SHOTS, { recursive: true });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'mcpr-ui-approvals-'));
  profileDir = mkdtempSync(path.join(os.tmpdir(), 'mcpr-ui-approvals-chromium-'));
  jma = startJMA();
  const jmaPort = await listen(jma);
  cli(['settings', 'set', 'auth', 'on']);
  adminToken = JSON.parse(cli(['tokens', 'create', 'e2e-ui-approvals', '--admin', '--json'])).token;
  clientToken = JSON.parse(cli(['tokens', 'create', 'forecaster', '--json'])).token;
  cli(['servers', 'add', 'weather', '--env', `${MARKER_VAR}=${marker}`, '--', WEATHER, '--base-url', `http://127.0.0.1:${jmaPort}/bosai`]);
  writeFileSync(path.join(dataDir, 'policy.yaml'), POLICY);

  router = spawn(BIN, ['--data-dir', dataDir, 'serve', '--listen', `127.0.0.1:0`], {
    env: { ...process.env, [MARKER_VAR]: marker, MCP_ROUTER_KEY_STORE: 'file' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  router.stdout.on('data', (d) => (routerLog += d));
  router.stderr.on('data', (d) => (routerLog += d));
  const addr = await until(() => /MCP Router listening on http:\/\/([\d.:]+)\/mcp/.exec(routerLog)?.[1], 'the router to listen');
  base = `http://${addr}`;

  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: process.env.UI_E2E_HEADED !== '1',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1280, height: 860 },
    locale: 'en-US',
    colorScheme: 'light',
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (err) => console.error('page error:', err.message));
});

after(async () => {
  await context?.close().catch(() => {});
  if (router && router.exitCode === null) {
    router.kill('SIGTERM');
    await until(() => router.exitCode !== null || router.signalCode !== null, 'the router to exit', 15_000).catch(() => router.kill('SIGKILL'));
  }
  jma?.close();
  try {
    await until(() => markedPids().length === 0, 'marked processes to exit', 10_000);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(profileDir, { recursive: true, force: true });
  }
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
