// Installing a .mcpb bundle on the Servers page in a real browser (issue 28,
// docs/bundles.md): a bundle packed and signed by the real `mcpb` CLI is
// dropped on the page (a real drop event carrying the file), the dialog
// shows what it is, takes its user_config, installs it; the router serves
// the bundle's tool with the values given; removing the server deletes the
// bundle's files. Then the file picker, in Japanese.
//
// Environment: MCPR_BIN (the router, embedding a current frontend/dist),
// CHROMIUM (default /usr/bin/chromium). scripts/ui-e2e.sh builds the router.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, ROOT, requireFiles, shoot, until } from './helpers.mjs';

const PEERS = path.join(ROOT, 'test', 'peers', 'node_modules');
const MCPB = path.join(PEERS, '.bin', 'mcpb');
requireFiles([
  [MCPB, 'run `npm ci` in test/peers (make test-deps)'],
  [path.join(PEERS, '@modelcontextprotocol', 'sdk'), 'run `npm ci` in test/peers (make test-deps)'],
]);

let h;
let base;
let adminToken;
let clientToken;
let page;
let work;
let bundleFile;

before(async () => {
  // The echo bundle of internal/testbundles, packed and signed by mcpb.
  work = mkdtempSync(path.join(os.tmpdir(), 'mcpr-ui-bundle-'));
  cpSync(path.join(ROOT, 'internal', 'testbundles', 'echo'), path.join(work, 'src'), { recursive: true });
  bundleFile = path.join(work, 'echo.mcpb');
  execFileSync(MCPB, ['pack', path.join(work, 'src'), bundleFile], { cwd: work, stdio: 'pipe' });
  execFileSync(MCPB, ['sign', '--self-signed', bundleFile], { cwd: work, stdio: 'pipe' });

  h = new Harness('ui-bundles');
  h.cli(['settings', 'set', 'auth', 'on']);
  adminToken = JSON.parse(h.cli(['tokens', 'create', 'e2e-ui-bundles', '--admin', '--json'])).token;
  clientToken = JSON.parse(h.cli(['tokens', 'create', 'client', '--json'])).token;
  base = await h.startRouter();
  page = await h.openPage();
});

after(async () => {
  await h?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const tid = (id) => page.getByTestId(id);

// Calls a tool through the router's MCP endpoint with the client token.
async function callTool(name) {
  const headers = { Authorization: `Bearer ${clientToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const post = async (body, sid) => {
    const res = await fetch(`${base}/mcp`, { method: 'POST', headers: sid ? { ...headers, 'Mcp-Session-Id': sid } : headers, body: JSON.stringify(body) });
    const text = await res.text();
    const data = text.includes('data: ') ? text.slice(text.lastIndexOf('data: ') + 6).trim() : text;
    return { res, msg: data ? JSON.parse(data) : null };
  };
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
  const sid = init.res.headers.get('mcp-session-id');
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid);
  const call = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }, sid);
  return call.msg;
}

// Drops file on the Servers page the way a file manager does: a drop event
// whose DataTransfer holds the file.
async function dropFile(file) {
  const bytes = [...readFileSync(file)];
  const dt = await page.evaluateHandle(
    ({ bytes, name }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], name));
      return dt;
    },
    { bytes, name: path.basename(file) },
  );
  await tid('servers-page').dispatchEvent('dragover', { dataTransfer: dt });
  await tid('bundle-drop-hint').waitFor();
  await tid('servers-page').dispatchEvent('drop', { dataTransfer: dt });
}

const sha256 = (s) => createHash('sha256').update(s).digest('hex');

test('installing a .mcpb bundle on the Servers page', { timeout: 180_000 }, async (t) => {
  await page.goto(`${base}/ui/#servers`);
  await tid('login-token').fill(adminToken);
  await tid('login-submit').click();
  await tid('servers-page').waitFor();

  await t.test('a dropped bundle is shown, configured, installed and runs', async () => {
    await dropFile(bundleFile);
    await tid('bundle-form').waitFor();
    assert.equal(await tid('bundle-name').textContent(), 'bundle-echo');
    assert.equal(await tid('bundle-version').textContent(), '1.2.3');
    assert.match((await tid('bundle-author').textContent()) ?? '', /Test Author/);
    assert.equal(await tid('bundle-signature').getAttribute('data-status'), 'self-signed');
    assert.match((await tid('bundle-tools').textContent()) ?? '', /show_config/);
    assert.equal(await tid('bundle-config-api_key').getAttribute('type'), 'password');
    await shoot(page, 'bundle-dialog');
    await tid('bundle-config-api_key').fill('ui-e2e-key-1');
    await tid('bundle-config-sdk_dir').fill(PEERS);
    await tid('bundle-config-greeting').fill('from the page');
    await tid('bundle-install').click();
    await tid('server-bundle-bundle-echo').waitFor();
    const answer = await until(async () => {
      const msg = await callTool('bundle-echo__show_config');
      return msg?.result?.content?.[0]?.text ? msg : null;
    }, 'the bundle tool to answer', 60_000);
    const got = JSON.parse(answer.result.content[0].text);
    assert.equal(got.apiKeySha256, sha256('ui-e2e-key-1'));
    assert.equal(got.greeting, 'from the page');
    for (const f of ['mcp-router.db', 'mcp-router.db-wal']) {
      const file = path.join(h.dataDir, f);
      if (existsSync(file)) assert.doesNotMatch(readFileSync(file, 'latin1'), /ui-e2e-key-1/, `${f} holds the sensitive value`);
    }
  });

  await t.test('removing its server deletes the bundle files', async () => {
    const dir = path.join(h.dataDir, 'bundles', 'bundle-echo', '1.2.3');
    assert.ok(existsSync(dir), dir);
    const res = await fetch(`${base}/ui/api/call/RemoveServer`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
      body: '["bundle-echo"]',
    });
    assert.equal(res.status, 200, await res.text());
    assert.ok(!existsSync(path.join(h.dataDir, 'bundles', 'bundle-echo')), 'bundle folder left');
    await until(async () => (await tid('server-bundle-bundle-echo').count()) === 0, 'the row to go');
  });

  await t.test('the file picker, in Japanese', async () => {
    await tid('nav-settings').click();
    await tid('setting-language').selectOption('ja');
    await tid('nav-servers').click();
    await tid('install-bundle').getByText('バンドルをインストール…').waitFor();
    await tid('bundle-file').setInputFiles(bundleFile);
    await tid('bundle-form').waitFor();
    assert.match((await tid('bundle-signature').textContent()) ?? '', /自己署名/);
    await shoot(page, 'bundle-dialog-ja');
    await page.getByRole('button', { name: 'キャンセル' }).click();
    await until(async () => (await tid('bundle-dialog').count()) === 0, 'the dialog to close');
    await tid('nav-settings').click();
    await tid('setting-language').selectOption('en');
  });
});
