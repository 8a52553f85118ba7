// The cluster TestTeam (test/team/team_test.go) started, handed to the
// TypeScript SDK checks in MCPR_TEAM: the balancer's URL, the replicas
// (name, url, base, pid) and the tokens. These files run only under it.
import { Client, StreamableHTTPClientTransport } from '../e2e/sdk.mjs';

export const team = (() => {
  const spec = process.env.MCPR_TEAM;
  if (!spec) throw new Error('MCPR_TEAM is not set: run these files through `make test-team` (scripts/test-team.sh)');
  return JSON.parse(spec);
})();

export const SIMPLE = 'everything__test_simple_text';
export const SESSION_ID = /^(r\d+)\.[A-Za-z0-9_-]{22,}\.[A-Za-z0-9_-]+$/;

// connect opens a TypeScript SDK client (1.32: a 2025-11-25 session) to url.
export async function connect(url = team.balancer, name = 'team-ts') {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${team.token}` } },
  });
  await client.connect(transport);
  return { client, transport, owner: ownerOf(transport.sessionId) };
}

// ownerOf names the replica a session ID says created it ('' if none).
export function ownerOf(sessionId) {
  const m = SESSION_ID.exec(sessionId ?? '');
  return m ? m[1] : '';
}

export const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// rawPost sends one JSON-RPC request of a session by hand, to any replica.
export async function rawPost(url, sessionId, body, extraHeaders = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${team.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': '2025-11-25',
      ...extraHeaders,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: await res.text() };
}
