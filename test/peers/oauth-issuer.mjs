// A real OAuth 2.1 authorization server for the tests (oauth2-mock-server):
// RS256 keys, RFC 8414/OIDC metadata, JWKS, token endpoint. Started by
// internal/testpeers.StartOAuthIssuer; prints "ISSUER <url>" when listening
// and stops when its stdin closes.
//
// Test-only token request parameters, applied through the library's
// beforeTokenSigning hook: resource (RFC 8707, becomes aud), sub,
// test_exp_in (seconds until exp; negative: already expired), test_iss
// (claims another issuer: the token is then signed by this server's key,
// which the other issuer's JWKS does not hold).
import { OAuth2Server } from 'oauth2-mock-server';

const port = Number(process.argv[2] || 0);
const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
// What an authorization request asked for, by code: a real authorization
// server grants the scope and resource (RFC 8707) asked for at /authorize;
// the mock does not keep them, so this does.
const granted = new Map();
server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  const code = redirect.url.searchParams.get('code');
  if (code) granted.set(code, { scope: req.query.scope, resource: req.query.resource });
});
server.service.on('beforeTokenSigning', (token, req) => {
  const b = req.body || {};
  if (b.grant_type === 'authorization_code' && granted.has(b.code)) {
    const g = granted.get(b.code);
    if (g.scope) token.payload.scope = g.scope;
    if (g.resource) token.payload.aud = g.resource;
  }
  if (b.resource) token.payload.aud = b.resource;
  if (b.sub) token.payload.sub = b.sub;
  if (b.test_exp_in !== undefined) {
    const now = Math.floor(Date.now() / 1000);
    token.payload.iat = now - 7200;
    token.payload.nbf = now - 7200;
    token.payload.exp = now + Number(b.test_exp_in);
  }
  if (b.test_iss) token.payload.iss = b.test_iss;
});
await server.start(port, '127.0.0.1');
console.log('ISSUER ' + server.issuer.url);
process.stdin.resume();
process.stdin.on('end', () => server.stop().then(() => process.exit(0)));
