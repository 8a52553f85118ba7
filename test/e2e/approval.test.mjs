// Human approval by elicitation (docs/policy.md), with the TypeScript SDK
// client as the one asked: a policy.yaml requiring approval for echo is
// written into the running router's data dir; with no UI attached the
// router asks the calling client (elicitation/create on the call's own
// stream). Accept runs the call, decline refuses it as approval_denied,
// silence past the rule's timeout as approval_timeout, and a client that
// did not declare elicitation gets approval_unavailable.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { EVERYTHING_NODE, httpTransport, requirePeers, startRouter } from './helpers.mjs';
import { Client, ElicitRequestSchema } from './sdk.mjs';

requirePeers();

const POLICY = `policies:
  - name: approve-echo
    match:
      tools: ["echo"]
    require:
      human_approval: true
      approval_timeout_seconds: 2
`;

describe('approval by elicitation (TypeScript SDK client)', { timeout: 120_000 }, () => {
  let router;
  let plain; // declares no elicitation
  let asked; // declares elicitation; answers as `answer` says
  let answer = 'accept';
  const questions = [];

  before(async () => {
    router = await startRouter({
      label: 'approval',
      servers: [{ name: 'everything', command: EVERYTHING_NODE, args: ['stdio'] }],
      expectTools: ['everything__echo'],
    });
    plain = new Client({ name: 'mcpr-e2e-plain', version: '1.0.0' });
    await plain.connect(httpTransport(router));
    asked = new Client({ name: 'mcpr-e2e-approver', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    asked.setRequestHandler(ElicitRequestSchema, async (req) => {
      questions.push(req.params.message);
      if (answer === 'silence') return new Promise(() => {}); // never answers
      return { action: answer, content: {} };
    });
    await asked.connect(httpTransport(router));

    writeFileSync(path.join(router.dataDir, 'policy.yaml'), POLICY);
    // The router reloads the file on its watch tick: wait until the policy
    // is in force, seen as the plain client's refusal.
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await plain.callTool({ name: 'everything__echo', arguments: { message: 'probe' } });
      } catch (err) {
        if (err.data?.reason === 'approval_unavailable') break;
        throw err;
      }
      if (Date.now() > deadline) throw new Error('policy.yaml not in force after 15 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  after(async () => {
    await plain?.close();
    await asked?.close();
    await router?.stop();
  });

  const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

  test('a client without elicitation is refused with approval_unavailable', async () => {
    await assert.rejects(plain.callTool({ name: 'everything__echo', arguments: { message: 'x' } }),
      (err) => err.data?.reason === 'approval_unavailable');
  });

  test('accepted: the call runs', async () => {
    answer = 'accept';
    const before = questions.length;
    const res = await asked.callTool({ name: 'everything__echo', arguments: { message: 'approved call' } });
    assert.match(text(res), /approved call/);
    assert.equal(questions.length, before + 1);
    assert.match(questions.at(-1), /approve-echo/);
    assert.match(questions.at(-1), /approved call/); // the arguments are shown to the person
  });

  test('declined: approval_denied', async () => {
    answer = 'decline';
    await assert.rejects(asked.callTool({ name: 'everything__echo', arguments: { message: 'declined call' } }),
      (err) => err.data?.reason === 'approval_denied');
  });

  test('no answer within the rule\'s timeout: approval_timeout', async () => {
    answer = 'silence';
    await assert.rejects(asked.callTool({ name: 'everything__echo', arguments: { message: 'ignored call' } }, undefined, { timeout: 30_000 }),
      (err) => err.data?.reason === 'approval_timeout');
  });

  test('other tools need no approval', async () => {
    answer = 'decline';
    const res = await asked.callTool({ name: 'everything__get-sum', arguments: { a: 1, b: 2 } });
    assert.match(text(res), /3/);
  });
});
