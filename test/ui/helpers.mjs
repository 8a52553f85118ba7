// What the browser tests share: a router with its own data dir started from
// the built binary, the CLI against that data dir, a Chromium profile driven
// by playwright-core, and the rule that nothing a test started outlives it
// (every process carries a marker in its environment, found through /proc).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
export const BIN = process.env.MCPR_BIN;
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const MARKER_VAR = 'MCPR_TEST_MARKER';

/** Fails at once, with the step that provides it, when a file is missing. */
export function requireFiles(pairs) {
  for (const [file, hint] of pairs) {
    if (!file || !existsSync(file)) throw new Error(`missing ${file || 'a binary'}: ${hint}`);
  }
}

export async function until(fn, what, timeoutMs = 20_000) {
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

export const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

/** The JMA stand-in for the weather server: its tests' recorded files. */
export function startJMA() {
  const testdata = path.join(ROOT, 'mcp_servers', 'weather', 'testdata');
  return http.createServer((req, res) => {
    let file;
    if (req.url === '/bosai/common/const/area.json') file = path.join(testdata, 'area.json');
    const m = /^\/bosai\/forecast\/data\/forecast\/(\d{6})\.json$/.exec(req.url ?? '');
    if (m) file = path.join(testdata, 'forecast', `${m[1]}.json`);
    if (!file || !existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(readFileSync(file));
  });
}

/** Screenshots of the page in both colour schemes, for review. */
export async function shoot(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * One test file's router and browser. `name` names the temp folders and the
 * marker; `env` is added to every process's environment.
 */
export class Harness {
  constructor(name, env = {}) {
    requireFiles([
      [BIN ?? '', 'set MCPR_BIN to the built router (make test-ui does)'],
      [CHROMIUM, 'install chromium (scripts/install-system-deps.sh)'],
    ]);
    mkdirSync(SHOTS, { recursive: true });
    this.marker = `${name}-${randomBytes(6).toString('hex')}`;
    this.extraEnv = env;
    this.dataDir = mkdtempSync(path.join(os.tmpdir(), `mcpr-${name}-data-`));
    this.profileDir = mkdtempSync(path.join(os.tmpdir(), `mcpr-${name}-chromium-`));
    this.router = null;
    this.routerLog = '';
    this.context = null;
  }

  env(extra = {}) {
    return { ...process.env, MCP_ROUTER_KEY_STORE: 'file', ...this.extraEnv, [MARKER_VAR]: this.marker, ...extra };
  }

  /** `KEY=value` that makes a server the router starts carry the marker. */
  get markerEnv() {
    return `${MARKER_VAR}=${this.marker}`;
  }

  /** Runs the CLI against this data dir; its stdout, or an error with stderr. */
  cli(args) {
    const r = spawnSync(BIN, ['--data-dir', this.dataDir, ...args], { env: this.env(), encoding: 'utf8', timeout: 30_000 });
    if (r.status !== 0) throw new Error(`mcp-router ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  }

  /** Processes (other than this one) whose environment carries the marker. */
  markedPids() {
    const out = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
      try {
        if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(`${MARKER_VAR}=${this.marker}`)) out.push(Number(name));
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    return out;
  }

  /** Starts `serve` on a free port; resolves to the base URL once it listens. */
  async startRouter() {
    this.router = spawn(BIN, ['--data-dir', this.dataDir, 'serve', '--listen', '127.0.0.1:0'], { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    this.router.stdout.on('data', (d) => (this.routerLog += d));
    this.router.stderr.on('data', (d) => (this.routerLog += d));
    const addr = await until(() => {
      if (this.router.exitCode !== null) throw new Error(`the router exited ${this.router.exitCode}: ${this.routerLog}`);
      return /MCP Router listening on http:\/\/([\d.:]+)\/mcp/.exec(this.routerLog)?.[1];
    }, 'the router to listen');
    this.base = `http://${addr}`;
    return this.base;
  }

  /** A Chromium page (English, light, 1280×860) with page errors printed. */
  async openPage() {
    this.context = await chromium.launchPersistentContext(this.profileDir, {
      executablePath: CHROMIUM,
      headless: process.env.UI_E2E_HEADED !== '1',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      viewport: { width: 1280, height: 860 },
      locale: 'en-US',
      colorScheme: 'light',
    });
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    page.setDefaultTimeout(30_000); // two busy cores: Monaco can take a while
    page.on('pageerror', (err) => console.error('page error:', err.message));
    return page;
  }

  /**
   * Closes the browser, stops the router and fails when any marked process
   * is still running after it (they are killed so the next test starts clean).
   */
  async stop() {
    await this.context?.close().catch(() => {});
    const r = this.router;
    if (r && r.exitCode === null) {
      r.kill('SIGTERM');
      await until(() => r.exitCode !== null || r.signalCode !== null, 'the router to exit', 15_000).catch(() => r.kill('SIGKILL'));
    }
    try {
      await until(() => this.markedPids().length === 0, 'marked processes to exit', 10_000);
    } catch (err) {
      const left = this.markedPids();
      for (const pid of left) process.kill(pid, 'SIGKILL');
      throw new Error(`processes left running: ${left.join(', ')} (${err.message})`);
    } finally {
      rmSync(this.dataDir, { recursive: true, force: true });
      rmSync(this.profileDir, { recursive: true, force: true });
    }
  }
}
