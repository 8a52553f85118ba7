// The sample weather server (mcp_servers/weather) behind the router, called
// by the TypeScript SDK client over HTTP. The JMA's forecast JSON is served
// from the recorded files in mcp_servers/weather/testdata by a local HTTP
// server (no network here); the weather server's --base-url points at it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { REPO_ROOT, httpTransport, requirePeers, startRouter, tempDir } from './helpers.mjs';
import { Client } from './sdk.mjs';

requirePeers();

const TESTDATA = path.join(REPO_ROOT, 'mcp_servers', 'weather', 'testdata');

// A stand-in for https://www.jma.go.jp/bosai serving the recorded files;
// `down` makes it answer 503 like a service in maintenance.
function startJMA() {
  const state = { down: false, hits: [] };
  const server = http.createServer((req, res) => {
    state.hits.push(req.url);
    if (state.down) {
      res.writeHead(503, { 'Content-Type': 'text/plain' });
      res.end('maintenance');
      return;
    }
    let file;
    if (req.url === '/bosai/common/const/area.json') file = path.join(TESTDATA, 'area.json');
    const m = /^\/bosai\/forecast\/data\/forecast\/(\d{6})\.json$/.exec(req.url ?? '');
    if (m) file = path.join(TESTDATA, 'forecast', `${m[1]}.json`);
    try {
      const body = readFileSync(file ?? '/nonexistent');
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ state, url: `http://127.0.0.1:${server.address().port}/bosai`, close: () => server.close() }));
  });
}

function buildWeather() {
  const out = path.join(tempDir('weather-bin'), 'weather-mcp');
  const res = spawnSync('go', ['build', '-o', out, './mcp_servers/weather'], {
    cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'], timeout: 10 * 60_000,
    env: { ...process.env, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false' },
  });
  if (res.status !== 0) throw new Error(`go build of the weather server failed (status ${res.status})`);
  return out;
}

describe('the weather sample server through the router (TypeScript SDK client)', { timeout: 180_000 }, () => {
  let jma;
  let router;
  let client;

  before(async () => {
    jma = await startJMA();
    const bin = process.env.MCPR_WEATHER_BIN || buildWeather();
    router = await startRouter({
      label: 'weather',
      servers: [{ name: 'weather', command: bin, args: ['--base-url', jma.url] }],
      expectTools: ['weather__get_forecast', 'weather__list_areas'],
    });
    client = new Client({ name: 'mcpr-e2e-weather', version: '1.0.0' });
    await client.connect(httpTransport(router));
  });
  after(async () => {
    await client?.close();
    await router?.stop();
    jma?.close();
  });

  const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

  test('an area found by its Japanese name', async () => {
    const res = await client.callTool({ name: 'weather__list_areas', arguments: { query: '大阪' } });
    assert.equal(res.isError ?? false, false, text(res));
    assert.match(text(res), /270000 大阪府 \(Osaka\), office of office 270000/);
    assert.equal(res.structuredContent.areas[0].code, '270000');
  });

  test('an area found by its English name', async () => {
    const res = await client.callTool({ name: 'weather__list_areas', arguments: { query: 'tokyo' } });
    assert.equal(res.isError ?? false, false, text(res));
    assert.match(text(res), /130000 東京都 \(Tokyo\)/);
  });

  test('a forecast', async () => {
    const res = await client.callTool({ name: 'weather__get_forecast', arguments: { area: '東京' } });
    assert.equal(res.isError ?? false, false, text(res));
    const t = text(res);
    assert.match(t, /Forecast for 東京都 \(Tokyo\), issued 2026-10-08T17:00:00\+09:00 by 気象庁/);
    assert.match(t, /2026-10-10: 晴れ 時々 くもり; wind: 南の風/);
    assert.match(t, /伊豆諸島北部 \(130020\)/);
    assert.match(t, /temperatures at 東京: 10-09 09:00 24°C, 10-09 00:00 15°C/);
  });

  test('an unknown area', async () => {
    const res = await client.callTool({ name: 'weather__get_forecast', arguments: { area: 'Atlantis' } });
    assert.equal(res.isError, true);
    assert.match(text(res), /unknown area "Atlantis"; call list_areas/);
  });

  test('the upstream API down', async () => {
    jma.state.down = true;
    try {
      const res = await client.callTool({ name: 'weather__get_forecast', arguments: { area: 'Osaka' } });
      assert.equal(res.isError, true);
      assert.match(text(res), /forecast service failed: GET \/forecast\/data\/forecast\/270000\.json answered 503/);
    } finally {
      jma.state.down = false;
    }
    assert.ok(jma.state.hits.some((u) => u.endsWith('/270000.json')), 'the weather server never asked the JMA stand-in');
  });
});
