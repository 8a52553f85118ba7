// An MCP client with the TypeScript SDK's OAuth support, for the tests:
// it connects to the router URL given, gets 401, finds the router's
// protected-resource metadata and the authorization server from it, runs
// the authorization code flow with PKCE headlessly (the consent of
// oauth2-mock-server needs no user: its redirect is followed by hand), then
// calls the tool given and prints one JSON line:
//   {"tools": [...], "result": <CallToolResult>} or {"error": "..."}.
// Usage: node oauth-client.mjs ROUTER_URL TOOL [SCOPE]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const [url, tool, scope] = process.argv.slice(2);
const redirectUrl = 'http://127.0.0.1:1/callback';
let tokens, verifier, code;
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: 'test', redirect_uris: [redirectUrl], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none', ...(scope ? { scope } : {}) };
  },
  clientInformation() { return { client_id: 'test-client' }; },
  tokens() { return tokens; },
  saveTokens(t) { tokens = t; },
  saveCodeVerifier(v) { verifier = v; },
  codeVerifier() { return verifier; },
  async redirectToAuthorization(authUrl) {
    const resp = await fetch(authUrl, { redirect: 'manual' });
    const loc = new URL(resp.headers.get('location'));
    code = loc.searchParams.get('code');
    if (!code) throw new Error('no code in ' + loc);
  },
};

const out = {};
try {
  let transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  let client = new Client({ name: 'oauth-test', version: '1' });
  try {
    await client.connect(transport);
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
    out.redirected = true;
    await transport.finishAuth(code);
    transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    client = new Client({ name: 'oauth-test', version: '1' });
    await client.connect(transport);
  }
  out.tools = (await client.listTools()).tools.map((t) => t.name);
  out.result = await client.callTool({ name: tool, arguments: { message: 'via oauth' } });
  await client.close();
} catch (e) {
  out.error = String(e && e.message || e);
}
console.log(JSON.stringify(out));
process.exit(0);
