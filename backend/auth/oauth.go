package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	"github.com/mcp-router/mcp-router/backend/store"
)

// The router as an OAuth 2.1 resource server (docs/auth.md): besides mcpr_
// tokens the endpoint accepts JWT access tokens signed by a configured
// issuer, for the router's resource URL.
//
// Scopes map to servers and tools:
//
//	mcp:*                      every server
//	mcp:server:<name>          the server <name>
//	mcp:tool:<server>/<tool>   one tool of a server, by the upstream's own
//	                           name (split at the first '/': a server name
//	                           never holds one)
//
// A JWT with none of these is valid but reaches nothing: the endpoint
// answers it 403 insufficient_scope. A JWT caller is always a client, never
// an admin: it cannot open the browser UI or its API.
const (
	ScopeAll          = "mcp:*"
	ScopeServerPrefix = "mcp:server:"
	ScopeToolPrefix   = "mcp:tool:"
)

// Leeway is the clock skew allowed on exp, nbf and iat.
const Leeway = 30 * time.Second

// SubjectPrefix starts the caller name of a JWT caller: "oauth:<sub>". A
// token name cannot contain ':', so a JWT can never pass for an mcpr_
// token in logs, gate rules or hooks.
const SubjectPrefix = "oauth:"

// OAuthConfig is what the resource server checks, read on every request.
type OAuthConfig struct {
	Issuers  []string // accepted issuers; none: JWTs are refused
	Audience string   // the aud a JWT must carry: the router's resource URL
	// PublicURL is the base URL clients reach the router at; "" means
	// the scheme and Host of each request (BaseURL).
	PublicURL string
}

// MetadataPath is where the router's protected-resource metadata (RFC
// 9728) is served for its resource <base>/mcp; the bare
// /.well-known/oauth-protected-resource serves the same document.
const MetadataPath = "/.well-known/oauth-protected-resource/mcp"

// BaseURL is the URL the router is reached at for r: PublicURL when set,
// else the request's scheme and Host. It is only ever used to tell a client
// where documents are, never to check a token's audience (a client chooses
// its Host header).
func (c OAuthConfig) BaseURL(r *http.Request) string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// challenge is the WWW-Authenticate value of a 401 (errCode "" when no
// token was sent) or, with errCode "insufficient_scope", of a 403.
func (c OAuthConfig) challenge(r *http.Request, errCode, desc string) string {
	v := `Bearer realm="mcp-router"`
	if len(c.Issuers) > 0 {
		v += `, resource_metadata="` + c.BaseURL(r) + MetadataPath + `"`
	}
	if errCode != "" {
		v += `, error="` + errCode + `"`
		if desc != "" {
			v += `, error_description="` + quoteSafe(desc) + `"`
		}
	}
	if errCode == "insufficient_scope" {
		v += `, scope="` + ScopeAll + `"`
	}
	return v
}

// quoteSafe keeps s inside a quoted-string: no quotes, backslashes or
// control characters.
func quoteSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < 0x20 || r == 0x7f {
			return '\''
		}
		return r
	}, s)
}

// jwtMethods are the signing algorithms accepted: asymmetric only, so a
// token can never be "signed" with a public key used as an HMAC secret.
var jwtMethods = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// ErrInsufficientScope is why a valid JWT with no mcp scope is refused.
var ErrInsufficientScope = errors.New("insufficient scope")

// SetOAuth makes the service accept JWT access tokens as cfg says; nil
// (the default) accepts mcpr_ tokens only.
func (s *Service) SetOAuth(cfg func(ctx context.Context) OAuthConfig) {
	s.oauthMu.Lock()
	s.oauthCfg = cfg
	s.oauthMu.Unlock()
}

// OAuth returns the current resource-server configuration.
func (s *Service) OAuth(ctx context.Context) OAuthConfig {
	s.oauthMu.Lock()
	cfg := s.oauthCfg
	s.oauthMu.Unlock()
	if cfg == nil {
		return OAuthConfig{}
	}
	return cfg(ctx)
}

// issuerKeys is the JWKS of one issuer, found through its metadata and
// kept fresh by keyfunc; failed says when discovery last failed.
type issuerKeys struct {
	kf     keyfunc.Keyfunc
	failed time.Time
	err    error
}

// discoveryRetry bounds how often a failed discovery is tried again.
const discoveryRetry = 30 * time.Second

// looksLikeJWT reports whether s has the shape header.payload.signature.
func looksLikeJWT(s string) bool {
	return strings.Count(s, ".") == 2 && !strings.ContainsAny(s, " \t\r\n")
}

type jwtClaims struct {
	jwt.RegisteredClaims
	Scope string   `json:"scope"`
	Scp   []string `json:"scp"`
	// Roles is the caller's roles as the authorization server grants them
	// (a "roles" array, as Entra ID and many others send it), matched by
	// built-in servers like a token's own roles (roles.go). Read leniently:
	// a claim of another shape is no roles, never a refused token.
	Roles json.RawMessage `json:"roles"`
}

// jwtRoles reads a roles claim: an array of strings, of which those
// CheckRoles accepts (admin and client never: a JWT caller is a client).
func jwtRoles(raw json.RawMessage) []string {
	var roles []string
	if len(raw) == 0 || json.Unmarshal(raw, &roles) != nil {
		return nil
	}
	return usableRoles(roles)
}

func invalidJWT(format string, a ...any) error {
	return &authError{msg: fmt.Sprintf(format, a...), kind: ErrInvalidToken}
}

// verifyJWT checks a JWT access token and returns its identity.
func (s *Service) verifyJWT(ctx context.Context, raw string) (Identity, error) {
	cfg := s.OAuth(ctx)
	if len(cfg.Issuers) == 0 {
		return Identity{}, ErrInvalidToken
	}
	var peek jwtClaims
	if _, _, err := jwt.NewParser().ParseUnverified(raw, &peek); err != nil {
		return Identity{}, invalidJWT("malformed JWT: %v", err)
	}
	if !slices.Contains(cfg.Issuers, peek.Issuer) {
		return Identity{}, invalidJWT("JWT issuer %q is not accepted (settings oauthIssuers)", peek.Issuer)
	}
	kf, err := s.issuerKeyfunc(ctx, peek.Issuer)
	if err != nil {
		return Identity{}, err
	}
	var claims jwtClaims
	_, err = jwt.ParseWithClaims(raw, &claims, kf.KeyfuncCtx(ctx),
		jwt.WithValidMethods(jwtMethods),
		jwt.WithLeeway(Leeway),
		jwt.WithIssuer(peek.Issuer),
		jwt.WithAudience(cfg.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt())
	if err != nil {
		switch {
		case errors.Is(err, jwt.ErrTokenExpired):
			return Identity{}, invalidJWT("JWT expired")
		case errors.Is(err, jwt.ErrTokenNotValidYet):
			return Identity{}, invalidJWT("JWT not valid yet")
		case errors.Is(err, jwt.ErrTokenInvalidAudience),
			errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && len(peek.Audience) == 0:
			return Identity{}, invalidJWT("JWT audience is not this router (%s)", cfg.Audience)
		case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
			return Identity{}, invalidJWT("JWT signature does not verify")
		}
		return Identity{}, invalidJWT("JWT refused: %v", err)
	}
	if claims.Subject == "" {
		return Identity{}, invalidJWT("JWT has no sub")
	}
	scopes := strings.Fields(claims.Scope)
	scopes = append(scopes, claims.Scp...)
	id := Identity{TokenName: SubjectPrefix + claims.Subject, Subject: claims.Subject, Issuer: claims.Issuer,
		Role: store.RoleClient, Roles: jwtRoles(claims.Roles), Scopes: scopes, Scoped: true}
	for _, sc := range scopes {
		if sc == ScopeAll {
			id.Servers, id.Scoped = nil, false
			break
		}
		if name, ok := strings.CutPrefix(sc, ScopeServerPrefix); ok && name != "" && !slices.Contains(id.Servers, name) {
			id.Servers = append(id.Servers, name)
		}
		if server, tool, ok := parseToolScope(sc); ok && !slices.Contains(id.Tools[server], tool) {
			if id.Tools == nil {
				id.Tools = map[string][]string{}
			}
			id.Tools[server] = append(id.Tools[server], tool)
		}
	}
	if !id.Scoped {
		id.Tools = nil // mcp:* reaches every tool
	}
	return id, nil
}

// parseToolScope reads mcp:tool:<server>/<tool>. The server is what comes
// before the first '/' (server names hold none); the tool, the upstream's
// own name, is the rest and may hold more. Either part empty: not a tool
// scope.
func parseToolScope(sc string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(sc, ScopeToolPrefix)
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "/")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// issuerKeyfunc returns the keyfunc of issuer, discovering its JWKS on
// first use.
func (s *Service) issuerKeyfunc(ctx context.Context, issuer string) (keyfunc.Keyfunc, error) {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if k, ok := s.issuers[issuer]; ok {
		if k.kf != nil {
			return k.kf, nil
		}
		if s.now().Sub(k.failed) < discoveryRetry {
			return nil, k.err
		}
	}
	kf, err := s.discoverKeys(ctx, issuer)
	if err != nil {
		err = fmt.Errorf("cannot get the signing keys of issuer %s: %w", issuer, err)
		s.issuers[issuer] = &issuerKeys{failed: s.now(), err: err}
		return nil, err
	}
	s.issuers[issuer] = &issuerKeys{kf: kf}
	return kf, nil
}

// metadataURLs are where an issuer's metadata may be: RFC 8414's
// oauth-authorization-server (well-known inserted before the path), then
// OpenID Connect discovery in both placements.
func metadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	p := strings.TrimSuffix(u.Path, "/")
	at := func(path string) string { c := *u; c.Path = path; c.RawPath = ""; return c.String() }
	out := []string{at("/.well-known/oauth-authorization-server" + p)}
	if p != "" {
		out = append(out, at("/.well-known/openid-configuration"+p))
	}
	return append(out, at(p+"/.well-known/openid-configuration"))
}

func (s *Service) discoverKeys(ctx context.Context, issuer string) (keyfunc.Keyfunc, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	var tried []string
	for _, mu := range metadataURLs(issuer) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, mu, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", mu, err))
			continue
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tried = append(tried, fmt.Sprintf("%s: HTTP %d", mu, resp.StatusCode))
			continue
		}
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(body, &md); err != nil {
			tried = append(tried, fmt.Sprintf("%s: not JSON", mu))
			continue
		}
		// RFC 8414 §3.3: the metadata must name the issuer it came from.
		if md.Issuer != issuer {
			return nil, fmt.Errorf("%s names issuer %q", mu, md.Issuer)
		}
		ju, err := url.Parse(md.JWKSURI)
		if err != nil || (ju.Scheme != "https" && ju.Scheme != "http") || ju.Host == "" {
			return nil, fmt.Errorf("%s has no usable jwks_uri (%q)", mu, md.JWKSURI)
		}
		no := false
		return keyfunc.NewDefaultOverrideCtx(s.bg, []string{md.JWKSURI}, keyfunc.Override{
			Client:                    client,
			NoErrorReturnFirstHTTPReq: &no,
			RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
				return func(_ context.Context, err error) {
					s.log.WithError(err).Warnf("refreshing the JWKS of issuer %s from %s", issuer, u)
				}
			},
		})
	}
	return nil, fmt.Errorf("no authorization server metadata (%s)", strings.Join(tried, "; "))
}
