// The official MCP conformance suite (@modelcontextprotocol/conformance
// 0.2.0-alpha.12) against the router with auth off, fronting the go-sdk
// conformance everything-server with prefix mode `never` (the scenarios call
// that server's fixed tool names): both requirement sets (2025-11-25, with
// sessions; 2026-07-28, stateless, with multi-round-trip requests), each with
// the upstream over stdio and over streamable HTTP (stateful: the router's own
// HTTP client transport, so progress, sampling, elicitation, logging and
// subscriptions all cross it), and 2026-07-28 also with the upstream over
// stateless HTTP, which the router speaks 2026-07-28 to (its input_required
// results, subscriptions/listen) and over stdio with `--protocol
// 2026-07-28`, which puts the pipe on 2026-07-28 too. Six runs, in
// parallel.
//
// A ratchet, not a threshold: every scored scenario must pass except those
// named in conformance-known-failures.json for that set and upstream kind, and
// a listed scenario that passes fails the test too (take it off the list).
// The 2025-11-25 set allows no known failures.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

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

const KNOWN_FAILURES_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'conformance-known-failures.json');
const KNOWN_FAILURES = JSON.parse(readFileSync(KNOWN_FAILURES_FILE, 'utf8'));

// Scored scenarios per requirement set in the pinned suite version (its
// `--requirements` runs exactly these, plus unscored extension and pending
// ones that it names after the summary).
const SCORED = { '2025-11-25': 30, '2026-07-28': 37 };
// The upstream kinds each set runs against: stdio and stateful HTTP (both on
// the 2025-11-25 handshake), and for 2026-07-28 also stateless HTTP, which
// the router uses on 2026-07-28 (no initialize, no session). The 2025-11-25
// set is not run against the stateless server: with no session it cannot
// ask a client mid-call on any revision (its test_elicitation answers a
// 2025-11-25 client directly with "client does not support elicitation").
// stdio-2026-07-28 is the stdio upstream with the server's protocol
// setting at 2026-07-28 (the pipe on that revision, server/discover
// first); plain stdio stays on the handshake (auto).
const UPSTREAMS = {
  '2025-11-25': ['stdio', 'http'],
  '2026-07-28': ['stdio', 'stdio-2026-07-28', 'http', 'http-stateless'],
};

// parseRun reads one suite run: the runner's summary ("✓ name: N passed, M
// failed"), the scenarios it lists as not scored for the set, and each
// scenario's checks.json under outDir (server-<scenario>-<timestamp>/).
function parseRun(stdout, outDir) {
  const summaryText = stdout.split('=== SUMMARY ===')[1] ?? '';
  const [scoredPart, unscoredPart = ''] = summaryText.split(/^Not scored for /mu);
  const summary = new Map();
  for (const m of scoredPart.matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed/gmu)) {
    summary.set(m[2], { passed: Number(m[3]), failed: Number(m[4]) });
  }
  const unscored = new Set([...unscoredPart.matchAll(/^\s+[✓✗] (\S+) \(/gmu)].map((m) => m[1]));

  const checks = new Map();
  for (const dir of readdirSync(outDir)) {
    const file = path.join(outDir, dir, 'checks.json');
    if (!existsSync(file)) continue;
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
    assert.ok(m, `unexpected result dir ${dir}`);
    checks.set(m[1], JSON.parse(readFileSync(file, 'utf8')));
  }
  return { summary, unscored, checks };
}

// verdicts: for each scored scenario, whether it passed and, if not, why
// (its failing checks' messages).
function verdicts({ summary, unscored, checks }) {
  const out = new Map();
  for (const [scenario, s] of summary) {
    if (unscored.has(scenario)) continue;
    const cs = checks.get(scenario) ?? [];
    const failing = cs.filter((c) => c.status === 'FAILURE');
    const passed = s.failed === 0 && failing.length === 0 && cs.some((c) => c.status === 'SUCCESS');
    const why = failing.map((c) => `${c.id}: ${(c.errorMessage ?? JSON.stringify(c.details ?? {})).slice(0, 300)}`);
    if (!passed && why.length === 0) why.push(`no successful check (${cs.map((c) => c.status).join(', ') || 'no checks.json'})`);
    out.set(scenario, { passed, why });
  }
  return out;
}

describe('official conformance suite 0.2.0-alpha.12 through the router', { concurrency: 6, timeout: 600_000 }, () => {
  for (const requirements of Object.keys(SCORED)) {
    for (const upstream of UPSTREAMS[requirements]) {
      const tag = `conformance ${requirements} (${upstream} upstream)`;
      test(`--requirements ${requirements}, upstream over ${upstream}: every scored scenario passes but the known failures`, async () => {
        requirePeers({ goEverything: true });
        requireFile(CONFORMANCE_JS, 'run `npm ci` in test/peers');
        const known = KNOWN_FAILURES[requirements]?.[upstream];
        assert.ok(known && typeof known === 'object', `${KNOWN_FAILURES_FILE} has no entry for ${requirements} / ${upstream}`);
        if (requirements === '2025-11-25') {
          assert.deepEqual(Object.keys(known), [], 'the 2025-11-25 set allows no known failures');
        }
        for (const [scenario, reason] of Object.entries(known)) {
          assert.ok(typeof reason === 'string' && reason.trim(), `known failure ${scenario} has no reason`);
        }

        let httpServer;
        let router;
        const outDir = tempDir(`conformance-${requirements}-${upstream}-out`);
        try {
          let server = { name: 'conformance', command: EVERYTHING_GO, prefix: 'never' };
          if (upstream === 'stdio-2026-07-28') {
            server.protocol = '2026-07-28';
          } else if (upstream !== 'stdio') {
            httpServer = await startGoEverythingHTTP({ stateless: upstream === 'http-stateless' });
            server = { name: 'conformance', url: httpServer.url, prefix: 'never' };
          }
          router = await startRouter({
            label: `conformance-${requirements}-${upstream}`,
            noAuth: true,
            servers: [server],
            expectTools: ['test_simple_text'],
          });

          const started = Date.now();
          const res = await run(NODE22, [CONFORMANCE_JS, 'server', '--url', router.url, '--requirements', requirements, '-o', outDir], {
            timeoutMs: 480_000,
          });
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          assert.ok(res.code === 0 || res.code === 1, `conformance exited ${res.code ?? res.signal}:\n${res.stdout}\n${res.stderr}`);

          const parsed = parseRun(res.stdout, outDir);
          const results = verdicts(parsed);
          const passed = [...results.values()].filter((v) => v.passed).length;

          // Print the run (prefixed, so it is not taken for the runner's own totals).
          const lines = [`${tag}: ${passed}/${results.size} scored scenarios passed in ${seconds} s (${known ? Object.keys(known).length : 0} known failures)`];
          for (const [scenario, v] of results) {
            lines.push(`${tag}:   ${v.passed ? 'ok  ' : known[scenario] ? 'KNOWN' : 'FAIL'} ${scenario}`);
            if (!v.passed) for (const w of v.why) lines.push(`${tag}:       ${w}`);
          }
          console.log(lines.join('\n'));

          // The suite ran for real: the set's scored scenarios, each with a
          // result file, as many as the runner summarised.
          assert.equal(results.size, SCORED[requirements], `scored scenarios in the summary (exit ${res.code}):\n${res.stdout}\n${res.stderr}`);
          assert.deepEqual([...parsed.checks.keys()].sort(), [...parsed.summary.keys()].sort(), 'result files and summary disagree');

          const unexpected = [...results].filter(([s, v]) => !v.passed && !known[s]).map(([s, v]) => `${s}: ${v.why.join('; ')}`);
          const fixed = Object.keys(known).filter((s) => results.get(s)?.passed);
          const stale = Object.keys(known).filter((s) => !results.has(s));
          assert.deepEqual(unexpected, [], `${unexpected.length} scored scenario(s) failed that ${path.basename(KNOWN_FAILURES_FILE)} does not list`);
          assert.deepEqual(fixed, [], `listed as known failures but passing now: take them off ${path.basename(KNOWN_FAILURES_FILE)}`);
          assert.deepEqual(stale, [], `listed as known failures but not scored scenarios of ${requirements}`);
        } finally {
          rmSync(outDir, { recursive: true, force: true });
          if (router) await router.stop();
          if (httpServer) await httpServer.stop();
        }
      });
    }
  }
});
