package core

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/discovery"
)

// oauthConfig is what the resource server checks, from the settings.
func (c *Core) oauthConfig(ctx context.Context) auth.OAuthConfig {
	return auth.OAuthConfig{
		Issuers:   c.Settings.OAuthIssuers(ctx),
		Audience:  c.Settings.OAuthAudience(ctx),
		PublicURL: c.Settings.PublicURL(ctx),
	}
}

// protectedResourceMetadata serves the router's RFC 9728 metadata: its
// resource (the audience its tokens must carry), the accepted issuers and
// auth.ScopeAll. It is public — a client reads it to learn where to log in,
// and through a tunnel anyone can — so it never names the router's servers
// (their per-server scopes are accepted all the same).
func (c *Core) protectedResourceMetadata() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cfg := c.Auth.OAuth(r.Context())
		scopes := []string{auth.ScopeAll}
		md := server.ProtectedResourceMetadataConfig{
			Resource:               cfg.Audience,
			AuthorizationServers:   cfg.Issuers,
			ScopesSupported:        scopes,
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "MCP Router",
		}
		server.NewProtectedResourceMetadataHandler(md).ServeHTTP(w, r)
	})
}

// CardName is the router's name in its server card and catalog.
const CardName = "io.github.mcp-router/mcp-router"

// describe is what the router's discovery documents say for r: endpoints
// under the publicURL setting (else the request's own scheme and Host),
// and how to authenticate (auth off: none; mcpr_ tokens only: bearer;
// issuers configured: oauth2, found through the protected-resource
// metadata). noAuth is ServeOptions.NoAuth.
func (c *Core) describe(r *http.Request, noAuth bool) discovery.Description {
	ctx := r.Context()
	cfg := c.Auth.OAuth(ctx)
	base := cfg.BaseURL(r)
	d := discovery.Description{
		BaseURL: base, Name: CardName, Title: "MCP Router", Version: Version,
		Summary:  "One endpoint for many MCP servers, with control over every request.",
		Protocol: mcp.LATEST_PROTOCOL_VERSION, Versions: append([]string(nil), mcp.ValidProtocolVersions...),
		Auth: "bearer",
	}
	switch {
	case noAuth || !c.Settings.AuthEnabled(ctx):
		d.Auth = "none"
	case len(cfg.Issuers) > 0:
		d.Auth, d.Issuers, d.ResourceMetadata = "oauth2", cfg.Issuers, base+auth.MetadataPath
	}
	return d
}
