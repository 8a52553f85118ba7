// Real AI clients against the router, configured the way a user would
// (issue 28 item 5): Gemini CLI (@google/gemini-cli, test/peers) reads the
// printed snippet, or the file `mcp-router clients add` wrote, from a temp
// HOME's ~/.gemini/settings.json, and `gemini mcp list` shows the router
// connected; with a wrong token it is not. opencode (its linux-x64 binary
// package, test/peers) does the same with `opencode mcp list` and
// ~/.config/opencode/opencode.json. Neither needs a login to list.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { childEnv, EVERYTHING_NODE, PEERS, requireFile, requirePeers, run, startRouter, tempDir } from './helpers.mjs';

requirePeers();
const GEMINI = requireFile(path.join(PEERS, '@google', 'gemini-cli', 'bundle', 'gemini.js'), 'run `npm ci` in test/peers (make test-e2e does it)');
const OPENCODE = requireFile(path.join(PEERS, 'opencode-linux-x64', 'bin', 'opencode'), 'run `npm ci` in test/peers (make test-e2e does it)');

let router;
const homes = [];

before(async () => {
  router = await startRouter({
    label: 'clients',
    servers: [{ name: 'ev', command: EVERYTHING_NODE, args: ['stdio'] }],
    expectTools: ['ev__echo'],
  });
});

after(async () => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
  await router?.stop();
});

async function cli(args, env = {}) {
  const res = await run(router.bin, ['--data-dir', router.dataDir, ...args], { timeoutMs: 30_000, env: childEnv(env) });
  assert.equal(res.code, 0, `mcp-router ${args.join(' ')}: ${res.stderr}`);
  return res;
}

// A HOME with Gemini CLI's settings.json: folder trust off, so that the
// user-level MCP servers are not suppressed in the test's (untrusted) cwd.
function geminiHome(extra = {}) {
  const home = tempDir('gemini-home');
  homes.push(home);
  mkdirSync(path.join(home, '.gemini'));
  writeFileSync(path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { folderTrust: { enabled: false } }, ...extra }, null, 2) + '\n');
  return home;
}

function settingsPath(home) {
  return path.join(home, '.gemini', 'settings.json');
}

// mergeSnippet puts the snippet's mcpServers into the HOME's settings.json,
// as the user is told to ("merge it into ~/.gemini/settings.json").
function mergeSnippet(home, snippet) {
  const settings = JSON.parse(readFileSync(settingsPath(home), 'utf8'));
  settings.mcpServers = { ...(settings.mcpServers ?? {}), ...JSON.parse(snippet).mcpServers };
  writeFileSync(settingsPath(home), JSON.stringify(settings, null, 2) + '\n');
}

async function geminiList(home) {
  const res = await run(process.execPath, [GEMINI, 'mcp', 'list'], {
    timeoutMs: 90_000,
    cwd: home,
    env: childEnv({ HOME: home, USERPROFILE: home, NO_COLOR: '1' }),
  });
  assert.equal(res.code, 0, `gemini mcp list: ${res.stderr}`);
  return res.stdout + res.stderr;
}

const connected = (name) => new RegExp(`${name}: .* - Connected`);

describe('Gemini CLI', () => {
  test('the printed http snippet connects; a wrong token does not', async () => {
    const home = geminiHome();
    const { stdout } = await cli(['snippet', '--client', 'gemini', '--url', router.url, '--token', router.token]);
    assert.match(stdout, /"httpUrl"/);
    mergeSnippet(home, stdout);
    const out = await geminiList(home);
    assert.match(out, connected('mcp-router'), out);

    const bad = geminiHome();
    mergeSnippet(bad, stdout.replace(router.token, `${router.token.slice(0, -4)}xxxx`));
    const badOut = await geminiList(bad);
    assert.doesNotMatch(badOut, connected('mcp-router'), badOut);
    assert.match(badOut, /mcp-router: .* - Disconnected/, badOut);
  });

  test('the printed stdio snippet (mcp-router connect) connects', async () => {
    const home = geminiHome();
    const { stdout } = await cli(['snippet', '--client', 'gemini', '--mode', 'stdio', '--url', router.url, '--token', router.token]);
    const entry = JSON.parse(stdout).mcpServers['mcp-router'];
    assert.deepEqual(entry.args, ['connect', '--url', router.url]);
    assert.equal(entry.env.MCPR_TOKEN, router.token);
    mergeSnippet(home, stdout);
    const out = await geminiList(home);
    assert.match(out, connected('mcp-router'), out);
  });

  test('clients add writes a settings.json it connects with, twice: one entry, backups, other keys kept', async () => {
    const home = geminiHome({ ui: { theme: 'GitHub' }, mcpServers: {} });
    for (let i = 0; i < 2; i++) {
      const res = await cli(['clients', 'add', 'gemini', '--yes', '--url', router.url], { HOME: home, USERPROFILE: home });
      // The first run adds the entry, the second replaces its token.
      assert.match(res.stdout, i === 0 ? /\+\s+"mcp-router": \{/ : /-\s+"Authorization": "Bearer mcpr_/);
      assert.match(res.stderr, /Backed up the old file to /);
    }
    const text = readFileSync(settingsPath(home), 'utf8');
    const settings = JSON.parse(text);
    assert.equal(text.split('"mcp-router"').length - 1, 1, text);
    assert.equal(settings.ui.theme, 'GitHub');
    assert.equal(settings.security.folderTrust.enabled, false);
    assert.equal(settings.mcpServers['mcp-router'].httpUrl, router.url);
    const backups = readdirSync(path.join(home, '.gemini')).filter((n) => n.startsWith('settings.json.bak-'));
    assert.ok(backups.length >= 1, `no backup: ${readdirSync(path.join(home, '.gemini'))}`);
    const out = await geminiList(home);
    assert.match(out, connected('mcp-router'), out);
    assert.ok(existsSync(settingsPath(home)));
  });
});

// A HOME for opencode: its user config is $XDG_CONFIG_HOME/opencode, its
// data and cache under the same HOME.
function opencodeHome() {
  const home = tempDir('opencode-home');
  homes.push(home);
  return home;
}

function opencodeEnv(home) {
  return {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    NO_COLOR: '1',
  };
}

async function opencodeList(home) {
  const res = await run(OPENCODE, ['mcp', 'list'], { timeoutMs: 90_000, cwd: home, env: childEnv(opencodeEnv(home)) });
  assert.equal(res.code, 0, `opencode mcp list: ${res.stderr}`);
  // Strip its colour codes, which it prints even with NO_COLOR.
  return (res.stdout + res.stderr).replace(/\x1b\[[0-9;]*m/g, '');
}

describe('opencode', () => {
  test('clients add (http) connects; the printed stdio snippet connects; a wrong token fails', async () => {
    const home = opencodeHome();
    await cli(['clients', 'add', 'opencode', '--yes', '--url', router.url, '--token', router.token], opencodeEnv(home));
    const file = path.join(home, '.config', 'opencode', 'opencode.json');
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).mcp['mcp-router'].type, 'remote');
    let out = await opencodeList(home);
    assert.match(out, /✓ mcp-router\s+connected/, out);

    const stdio = opencodeHome();
    const { stdout } = await cli(['snippet', '--client', 'opencode', '--mode', 'stdio', '--url', router.url, '--token', router.token]);
    mkdirSync(path.join(stdio, '.config', 'opencode'), { recursive: true });
    writeFileSync(path.join(stdio, '.config', 'opencode', 'opencode.json'), stdout);
    out = await opencodeList(stdio);
    assert.match(out, /✓ mcp-router\s+connected/, out);

    const bad = opencodeHome();
    mkdirSync(path.join(bad, '.config', 'opencode'), { recursive: true });
    writeFileSync(path.join(bad, '.config', 'opencode', 'opencode.json'), stdout.replace(router.token, `${router.token.slice(0, -4)}xxxx`));
    out = await opencodeList(bad);
    assert.doesNotMatch(out, /✓ mcp-router/, out);
    assert.match(out, /✗ mcp-router\s+failed/, out);
  });
});
