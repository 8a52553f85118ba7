// A real OAuth 2.1 authorization server for the tests (oauth2-mock-server):
// RS256 keys, RFC 8414/OIDC metadata, JWKS, token endpoint. Started by
// internal/testpeers.StartOAuthIssuer; prints "ISSUER <url>" when listening
// and stops when its stdin closes.
//
// Each token carries a random jti. Test-only token request parameters, applied through the library's
// beforeTokenSigning hook: resource (RFC 8707, becomes aud), sub,
// test_exp_in (seconds until exp; negative: already expired), test_iss
// (claims another issuer: the token is then signed by this server's key,
// which the other issuer's JWKS does not hold), test_roles (space-separated:
// the token's "roles" claim, an array).
//
// What a real authorization server does and the mock does not, kept here
// for the router's OAuth client (docs/auth.md, "The router as an OAuth
// client"):
//   - a refresh token keeps the scope and resource of its grant, and is
//     good once (rotation): using it again, or after /revoke (RFC 7009)
//     named it or another of its grant, answers 400 invalid_grant;
//   - the authorization request may carry test_exp_in (seconds): the
//     access tokens of that grant, refreshed ones too, live that long
//     (exp and expires_in);
//   - flags after the port: --register serves dynamic client registration
//     (RFC 7591) at /register and names it in the metadata; --cimd says
//     client_id_metadata_document_supported in the metadata.
//   - GET /test/grants answers how many token requests of each grant type
//     came, and the client ids seen at /authorize.
import { randomUUID } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';

const port = Number(process.argv[2] || 0);
const flags = new Set(process.argv.slice(3));
const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
// What an authorization request asked for, by code: a real authorization
// server grants the scope and resource (RFC 8707) asked for at /authorize;
// the mock does not keep them, so this does.
const granted = new Map();
// Live refresh tokens, each with its grant; spent ones are gone. Every
// refresh token ever issued, with its grant, for /revoke.
const refreshGrants = new Map();
const issuedRefresh = new Map();
const grants = {};
const authorizeClients = [];
server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  const code = redirect.url.searchParams.get('code');
  authorizeClients.push(String(req.query.client_id || ''));
  if (code) granted.set(code, { scope: req.query.scope, resource: req.query.resource, expIn: req.query.test_exp_in });
});
// The grant behind a token request: its code's, or its refresh token's.
function grantOf(b) {
  if (b.grant_type === 'authorization_code') return granted.get(b.code);
  if (b.grant_type === 'refresh_token') return refreshGrants.get(b.refresh_token);
  return undefined;
}
server.service.on('beforeTokenSigning', (token, req) => {
  const b = req.body || {};
  // Every token unique, as a real authorization server's are (the mock's
  // are byte for byte the same when issued in the same second with the
  // same claims: a refresh would give back the refused token).
  token.payload.jti = randomUUID();
  const g = grantOf(b);
  if (g) {
    if (g.scope) token.payload.scope = g.scope;
    if (g.resource) token.payload.aud = g.resource;
    if (g.expIn !== undefined) token.payload.exp = Math.floor(Date.now() / 1000) + Number(g.expIn);
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
  if (b.test_roles !== undefined) token.payload.roles = String(b.test_roles).split(' ').filter((r) => r !== '');
});
server.service.on('beforeResponse', (resp, req) => {
  const b = req.body || {};
  grants[b.grant_type] = (grants[b.grant_type] || 0) + 1;
  if (b.grant_type === 'refresh_token' && (!refreshGrants.has(b.refresh_token) || refreshGrants.get(b.refresh_token).revoked)) {
    resp.statusCode = 400;
    resp.body = { error: 'invalid_grant', error_description: 'the refresh token is unknown, spent or revoked' };
    return;
  }
  const g = grantOf(b);
  if (b.grant_type === 'refresh_token') refreshGrants.delete(b.refresh_token); // rotation: good once
  if (resp.body.refresh_token) {
    refreshGrants.set(resp.body.refresh_token, g || {});
    issuedRefresh.set(resp.body.refresh_token, g || {});
  }
  if (g && g.expIn !== undefined) resp.body.expires_in = Number(g.expIn);
  if (g && g.scope) resp.body.scope = g.scope;
});
// Revoking a refresh token revokes its grant (RFC 7009 §2.1): the
// refresh tokens it was rotated into too.
server.service.on('beforeRevoke', (_resp, req) => {
  const t = (req.body || {}).token;
  const g = t && issuedRefresh.get(t);
  if (g) g.revoked = true;
});

// Routes the library lacks, put before its own (its last one answers 404).
const app = server.service.requestHandler;
const before = app.router.stack.length;
// RFC 7009's request is a form; the library parses none at /revoke.
app.post('/revoke', (req, _res, next) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (d) => { raw += d; });
  req.on('end', () => { req.body = Object.fromEntries(new URLSearchParams(raw)); next(); });
});
app.get('/test/grants', (_req, res) => res.json({ grants, authorizeClients }));
const metadata = (_req, res, next) => {
  // The library's document, with what the flags add.
  const json = res.json.bind(res);
  res.json = (body) => {
    if (flags.has('--register')) body.registration_endpoint = server.issuer.url + '/register';
    if (flags.has('--cimd')) body.client_id_metadata_document_supported = true;
    body.grant_types_supported = [...new Set([...(body.grant_types_supported || []), 'refresh_token'])];
    return json(body);
  };
  next();
};
app.get('/.well-known/openid-configuration', metadata);
app.get('/.well-known/oauth-authorization-server', metadata, (req, res, next) => {
  req.url = '/.well-known/openid-configuration';
  next();
});
if (flags.has('--register')) {
  app.post('/register', (req, res) => {
    const b = req.body || {};
    if (!Array.isArray(b.redirect_uris) || b.redirect_uris.length === 0) {
      res.status(400).json({ error: 'invalid_redirect_uri', error_description: 'redirect_uris is required' });
      return;
    }
    res.status(201).json({ ...b, client_id: 'dcr-' + randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: 'none' });
  });
}
const added = app.router.stack.splice(before);
// After express's own json/urlencoded/cors layers (the first few), before
// the library's routes.
app.router.stack.splice(3, 0, ...added);

await server.start(port, '127.0.0.1');
console.log('ISSUER ' + server.issuer.url);
process.stdin.resume();
process.stdin.on('end', () => server.stop().then(() => process.exit(0)));
