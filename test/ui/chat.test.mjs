// The chat panel end to end in a real browser: a real `mcp-router serve`
// (auth on), the sample weather server behind it (on the recorded JMA data,
// served locally), and a model server that speaks OpenAI's streamed chat
// completions, scripted here. Checks a streamed answer, a tool card, resume
// after a reload, Stop (the model server sees the request go away),
// Japanese, and a chat without setup (the router's environment carries
// OPENAI_API_KEY and OPENAI_BASE_URL; the chatEnvProvider setting keeps it
// off until the last step); screenshots light and dark go to
// test-results/screenshots/.
//
// Environment: MCPR_BIN (the router), MCPR_WEATHER_BIN (build/bin/weather-mcp),
// CHROMIUM (default /usr/bin/chromium). scripts/ui-e2e.sh builds both.
import http from 'node:http';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, listen, requireFiles, shoot as shootPage, startJMA, until } from './helpers.mjs';

const WEATHER = process.env.MCPR_WEATHER_BIN;
requireFiles([[WEATHER ?? '', 'set MCPR_WEATHER_BIN to build/bin/weather-mcp (scripts/ui-e2e.sh does)']]);

const ANSWER = 'According to the JMA, Tokyo will be sunny (晴れ) tomorrow, with a light north wind.';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The model: OpenAI's chat completions stream, scripted by the last message.
const model = { requests: [], auth: [], cancelled: 0 };
// The key the router's environment carries (docs/chat.md "Without setup").
const ENV_KEY = 'sk-e2e-from-environment-4242';
function startModel() {
  return http.createServer(async (req, res) => {
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'mock-1', object: 'model' }, { id: 'mock-2', object: 'model' }] }));
      return;
    }
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    model.requests.push(body);
    model.auth.push(req.headers.authorization ?? '');
    const last = body.messages[body.messages.length - 1];
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    let open = true;
    res.on('close', () => {
      if (!res.writableEnded) {
        open = false;
        model.cancelled++;
      }
    });
    const send = (delta, finish = null) =>
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    const end = (prompt, completion) => {
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })}\n\n`);
      res.end('data: [DONE]\n\n');
    };
    send({ role: 'assistant', content: '' });
    if (last.role === 'user' && /weather/i.test(last.content)) {
      send({ content: 'Let me check the forecast.' });
      send({ tool_calls: [{ index: 0, id: 'call_w1', type: 'function', function: { name: 'weather__get_forecast', arguments: '' } }] });
      send({ tool_calls: [{ index: 0, function: { arguments: '{"area":' } }] });
      send({ tool_calls: [{ index: 0, function: { arguments: '"Tokyo"}' } }] });
      send({}, 'tool_calls');
      end(120, 18);
    } else if (last.role === 'tool') {
      for (const word of ANSWER.split(/(?<= )/)) {
        if (!open) return;
        send({ content: word });
        await sleep(120);
      }
      send({}, 'stop');
      end(260, 24);
    } else if (/story/i.test(last.content)) {
      for (let i = 0; open && i < 600; i++) {
        send({ content: `word${i} ` });
        await sleep(100);
      }
      if (open) res.end();
    } else {
      send({ content: 'ok' });
      send({}, 'stop');
      end(5, 1);
    }
  });
}

let h;
let base;
let token;
let page;
let jma;
let modelServer;
let modelURL;

before(async () => {
  jma = startJMA();
  const jmaPort = await listen(jma);
  modelServer = startModel();
  modelURL = `http://127.0.0.1:${await listen(modelServer)}/v1`;
  h = new Harness('ui-chat', { OPENAI_API_KEY: ENV_KEY, OPENAI_BASE_URL: modelURL });
  // Off until the last step: the first ones are about configured providers.
  h.cli(['settings', 'set', 'chatEnvProvider', 'off']);
  h.cli(['settings', 'set', 'auth', 'on']);
  token = JSON.parse(h.cli(['tokens', 'create', 'e2e-ui-chat', '--admin', '--json'])).token;
  h.cli(['servers', 'add', 'weather', '--env', h.markerEnv, '--', WEATHER, '--base-url', `http://127.0.0.1:${jmaPort}/bosai`]);
  h.cli(['servers', 'chat', 'weather', '--system-instruction', 'Use the weather tools for questions about Japanese weather.']);
  base = await h.startRouter();
  page = await h.openPage();
});

after(async () => {
  jma?.close();
  modelServer?.closeAllConnections?.();
  modelServer?.close();
  await h?.stop();
});

const tid = (id) => page.getByTestId(id);
const shoot = (name) => shootPage(page, name);

test('the chat panel end to end', { timeout: 300_000 }, async (t) => {
  await t.test('without a provider, the panel says how to configure one', async () => {
    await page.goto(`${base}/ui/#chat`);
    await tid('login-token').fill(token);
    await tid('login-submit').click();
    await tid('chat-page').waitFor();
    await tid('chat-no-provider').getByText('No model provider is configured').waitFor();
    await shoot('chat-no-provider');
  });

  await t.test('adds a provider in Settings; the key comes back masked', async () => {
    await tid('nav-settings').click();
    await tid('chat-provider-add').click();
    await tid('chat-provider-name').fill('mock');
    await tid('chat-provider-url').fill(modelURL);
    await tid('chat-provider-model').fill('mock-1');
    await tid('chat-provider-key').fill('sk-e2e-secret-0123456789');
    await tid('chat-provider-save').click();
    await tid('chat-provider-mock').getByText('sk-…6789').waitFor();
    const html = await page.content();
    assert.ok(!html.includes('sk-e2e-secret-0123456789'), 'the key is in the page');
    await tid('chat-key-store').getByText(/chat-keys\.json/).waitFor();
    await tid('chat-settings').scrollIntoViewIfNeeded();
    await shoot('settings-chat');
  });

  let convId;
  await t.test('streams an answer with a tool card from the weather server', async () => {
    await tid('nav-chat').click();
    await tid('chat-new').click();
    await tid('chat-input').fill('What is the weather in Tokyo tomorrow?');
    await tid('chat-input').press('Enter');
    // The tool card appears while the turn runs.
    const card = tid('chat-card-call_w1');
    await card.waitFor();
    // The answer streams: part of it is on screen before the rest.
    const partial = await until(async () => {
      const text = (await tid('chat-streaming').textContent().catch(() => '')) ?? '';
      return text.length > 5 && !text.includes('north wind.') ? text : null;
    }, 'part of the answer to stream in');
    assert.ok(ANSWER.startsWith(partial.trim().replace(/\s+$/, '').slice(0, 10)), `streamed ${partial}`);
    await tid('chat-msg-assistant').last().getByText(ANSWER).waitFor();
    assert.match((await card.textContent()) ?? '', /weather · get_forecast · done/);
    await card.locator('summary').click();
    await card.getByText(/"area": "Tokyo"/).waitFor();
    await card.getByText(/Forecast for 東京都 \(Tokyo\)/).waitFor();
    await tid('chat-usage').getByText(/Conversation: 380 in \/ 42 out tokens/).waitFor();
    // The model got the tools and the server's system instruction, and the tool's result.
    const second = model.requests[1];
    assert.equal(second.messages[0].role, 'system');
    assert.match(second.messages[0].content, /Use the weather tools/);
    assert.ok(second.tools.some((x) => x.function.name === 'weather__get_forecast'));
    assert.match(second.messages.at(-1).content, /晴れ/);
    convId = (await page.evaluate(() => localStorage.getItem('mcpr.chat.last'))) ?? '';
    await card.locator('summary').click(); // folded again: the answer shows in the shot
    await shoot('chat');
  });

  await t.test('resumes the conversation after a reload, with the last turn’s cards', async () => {
    await page.reload();
    await tid('chat-page').waitFor();
    await tid(`chat-conv-${convId}`).waitFor();
    await tid('chat-msg-user').getByText('What is the weather in Tokyo tomorrow?').waitFor();
    await tid('chat-msg-assistant').last().getByText(ANSWER).waitFor();
    await tid('chat-card-call_w1').waitFor();
  });

  await t.test('Stop ends a streaming answer; the model server sees it cancelled', async () => {
    const before = model.cancelled;
    await tid('chat-input').fill('Tell me a long story');
    await tid('chat-send').click();
    await until(async () => ((await tid('chat-streaming').textContent().catch(() => '')) ?? '').includes('word3'), 'the story to stream');
    await tid('chat-stop').click();
    await until(() => model.cancelled > before, 'the model server to see the request cancelled', 10_000);
    await tid('chat-msg-assistant').last().getByText('Stopped.').waitFor();
    await tid('chat-send').waitFor();
  });

  await t.test('speaks Japanese', async () => {
    await tid('nav-settings').click();
    await tid('setting-language').selectOption('ja');
    await tid('nav-chat').getByText('チャット').click();
    await page.getByRole('heading', { name: 'チャット' }).waitFor();
    await tid('chat-new').getByText('新しい会話').waitFor();
    await tid(`chat-conv-${convId}`).click();
    // Only the last turn's cards are kept: that was the stopped story.
    await tid('chat-msg-assistant').last().getByText('停止しました。').waitFor();
    await tid('chat-send').getByText('送信').waitFor();
    await shoot('chat-ja');
    await tid('nav-settings').click();
    await tid('setting-language').selectOption('en');
  });

  await t.test('without a configured provider, the chat uses OPENAI_API_KEY from the environment and says so', async () => {
    h.cli(['chat', 'providers', 'remove', 'mock']);
    h.cli(['settings', 'set', 'chatEnvProvider', 'auto']);
    await tid('nav-chat').click();
    // The router reads the changed setting within a second or two.
    await until(async () => {
      await page.reload();
      await page.locator('[data-testid="chat-env-provider"], [data-testid="chat-no-provider"]').first().waitFor();
      return (await tid('chat-env-provider').count()) > 0;
    }, 'the page to use the key from the environment', 30_000);
    await tid('chat-env-provider').getByText('Provider: OpenAI (from environment)').waitFor();
    await tid('chat-env-provider').getByText(/using OPENAI_API_KEY from the environment/).waitFor();
    await tid('chat-new').click();
    await tid('chat-provider-env').getByText('OpenAI (from environment)').waitFor();
    const start = model.requests.length;
    await tid('chat-input').fill('And the weather in Tokyo?');
    await tid('chat-input').press('Enter');
    await tid('chat-card-call_w1').waitFor();
    await tid('chat-msg-assistant').last().getByText(ANSWER).waitFor();
    assert.equal(model.auth.at(-1), `Bearer ${ENV_KEY}`, 'the model server got the key from the environment');
    assert.equal(model.requests[start].model, 'gpt-5.5', 'the default model of openai-go');
    assert.ok(!(await page.content()).includes(ENV_KEY), 'the key is in the page');
    await shoot('chat-env');
  });
});
