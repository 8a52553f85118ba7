// The official MCP conformance suite (@modelcontextprotocol/conformance, active
// server scenarios) against the router with auth off, fronting the go-sdk
// conformance everything-server with prefix mode `never` (the scenarios call
// that server's fixed tool names). Every active scenario must pass, with the
// upstream over stdio and over streamable HTTP (the router's own HTTP client
// transport: progress, sampling, elicitation, logging and subscriptions all
// cross it).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  CONFORMANCE_JS,
  EVERYTHING_GO,
  NODE22,
  requireFile,
  requirePeers,
  run,
  startGoEverythingHTTP,
  startRouter,
  tempDir,
} from './helpers.mjs';

for (const upstream of ['stdio', 'http']) {
  describe(`official conformance suite (server, active), upstream over ${upstream}`, { timeout: 600_000 }, () => {
    let router;
    let outDir;
    let httpServer;

    before(async () => {
      requirePeers({ goEverything: true });
      requireFile(CONFORMANCE_JS, 'run `npm ci` in test/peers');
      let server = { name: 'conformance', command: EVERYTHING_GO, prefix: 'never' };
      if (upstream === 'http') {
        httpServer = await startGoEverythingHTTP();
        server = { name: 'conformance', url: httpServer.url, prefix: 'never' };
      }
      router = await startRouter({
        label: `conformance-${upstream}`,
        noAuth: true,
        servers: [server],
        expectTools: ['test_simple_text'],
      });
      outDir = tempDir(`conformance-${upstream}-out`);
    });

    after(async () => {
      if (outDir) rmSync(outDir, { recursive: true, force: true });
      if (router) await router.stop();
      if (httpServer) await httpServer.stop();
    });

    test('every active scenario passes', async () => {
      const res = await run(NODE22, [CONFORMANCE_JS, 'server', '--url', router.url, '--suite', 'active', '-o', outDir], {
        timeoutMs: 480_000,
      });

      // The runner's own summary: "✓ name: N passed, M failed" per scenario.
      const summary = [];
      for (const m of res.stdout.matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed/gmu)) {
        summary.push({ scenario: m[2], passed: Number(m[3]), failed: Number(m[4]) });
      }

      // The result files: <outDir>/server-<scenario>-<timestamp>/checks.json.
      const scenarios = new Map();
      for (const dir of readdirSync(outDir)) {
        const file = path.join(outDir, dir, 'checks.json');
        if (!existsSync(file)) continue;
        const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
        assert.ok(m, `unexpected result dir ${dir}`);
        scenarios.set(m[1], JSON.parse(readFileSync(file, 'utf8')));
      }

      const failures = [];
      let passedChecks = 0;
      for (const [scenario, checks] of scenarios) {
        for (const c of checks) {
          if (c.status === 'SUCCESS') passedChecks++;
          if (c.status === 'FAILURE') failures.push(`${scenario} / ${c.id}: ${c.errorMessage ?? JSON.stringify(c.details ?? {})}`);
        }
        if (!checks.some((c) => c.status === 'SUCCESS')) {
          if (!checks.some((c) => c.status === 'FAILURE')) failures.push(`${scenario}: no successful check (${checks.map((c) => c.status).join(', ')})`);
        }
      }

      // Print the summary (prefixed, so it is not taken for the runner's own totals).
      const tag = `conformance (${upstream} upstream)`;
      const lines = [`${tag}: ${scenarios.size} scenarios, ${passedChecks} checks passed, ${failures.length} failed`];
      for (const s of summary) lines.push(`${tag}:   ${s.failed ? 'FAIL' : 'ok  '} ${s.scenario} (${s.passed} passed, ${s.failed} failed)`);
      for (const f of failures) lines.push(`${tag}: FAILURE ${f}`);
      console.log(lines.join('\n'));

      // The suite ran for real: about 30 active scenarios, each with a result file
      // matching the runner's summary.
      assert.ok(summary.length >= 30, `only ${summary.length} scenarios in the summary (exit ${res.code}):\n${res.stdout}\n${res.stderr}`);
      assert.deepEqual([...scenarios.keys()].sort(), summary.map((s) => s.scenario).sort(), 'result files and summary disagree');
      assert.equal(failures.length, 0, `${failures.length} conformance check(s) failed:\n${failures.join('\n')}`);
      assert.equal(res.code, 0, `conformance exited ${res.code}:\n${res.stderr}`);
    });
  });
}
