package core

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// openLogins builds the upstream logins (backend/oauthclient); the upstream
// service asks it for each HTTP server's token.
func (c *Core) openLogins() {
	c.Logins = oauthclient.New(oauthclient.Options{
		DataDir:           c.DataDir,
		Logger:            c.Log,
		ClientMetadataURL: c.clientMetadataURL,
		Changed:           c.loginChanged,
	})
}

// clientMetadataURL is the router's Client ID Metadata Document URL
// (oauthclient.ClientMetadataURL of the publicURL setting).
func (c *Core) clientMetadataURL() string {
	return oauthclient.ClientMetadataURL(c.Settings.PublicURL(context.Background()))
}

// clientMetadata serves the Client ID Metadata Document: a public client
// (no secret) whose redirect is a loopback listener on any port (RFC 8252
// §7.3).
func (c *Core) clientMetadata() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := c.clientMetadataURL()
		if id == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=3600")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"client_id":                  id,
			"client_name":                "MCP Router",
			"client_uri":                 "https://github.com/mcp-router/mcp-router",
			"redirect_uris":              []string{"http://127.0.0.1/callback"},
			"grant_types":                []string{"authorization_code", "refresh_token"},
			"response_types":             []string{"code"},
			"token_endpoint_auth_method": "none",
		})
	})
}

// loginChanged: a login was made or removed in this process. The store's
// generation tells other router processes on the data dir; this one
// reconnects the server now.
func (c *Core) loginChanged(server string) {
	ctx := context.Background()
	if err := c.Store.Logins().Changed(ctx, server); err != nil {
		c.Log.Warnf("record the login of %q: %v", server, err)
	} else if gens, err := c.Store.Logins().Generations(ctx); err == nil {
		c.loginMu.Lock()
		c.loginGens = gens // this change is not news to reload
		c.loginMu.Unlock()
	}
	if err := c.Servers.Restart(server); err != nil && !errors.Is(err, upstream.ErrUnknownServer) {
		c.Log.Warnf("reconnect %q after its login changed: %v", server, err)
	}
}

// syncLogins, on a configuration change, reconnects the servers whose
// login another process (the CLI) made or removed.
func (c *Core) syncLogins(ctx context.Context, first bool) {
	gens, err := c.Store.Logins().Generations(ctx)
	if err != nil {
		c.Log.Warnf("read the logins: %v", err)
		return
	}
	c.loginMu.Lock()
	old := c.loginGens
	c.loginGens = gens
	c.loginMu.Unlock()
	if first {
		return
	}
	for server, g := range gens {
		if old[server] == g {
			continue
		}
		c.Logins.Forget(server)
		if err := c.Servers.Restart(server); err != nil && !errors.Is(err, upstream.ErrUnknownServer) {
			c.Log.Warnf("reconnect %q after its login changed: %v", server, err)
		}
	}
}
