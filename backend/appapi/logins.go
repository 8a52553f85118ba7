package appapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// LoginStart is an OAuth login of a server waiting for the browser.
type LoginStart struct {
	// URL is the authorization URL the UI opens in the browser.
	URL string `json:"url"`
	// Registration says how the router was registered as a client:
	// client-id-metadata-document, dynamic or client-id.
	Registration string `json:"registration"`
}

// LoginServer starts the OAuth login of an HTTP server that asks for one
// (state needs_login), as `mcp-router servers login` does: it returns the
// authorization URL for the UI to open; the router listens on 127.0.0.1
// for the browser's return, stores the tokens (OS keychain, else a 0600
// file) and reconnects the server. clientID is the one registered for the
// router at the server's authorization server, "" to let the router
// register itself. Admin only, like every method; no token ever leaves.
func (a *API) LoginServer(name, clientID string) (LoginStart, error) {
	r, err := a.core.Store.Servers().Get(bg(), name)
	if err != nil {
		return LoginStart{}, err
	}
	// The login's first request carries the server's headers, secret
	// ones with their values.
	def, err := a.core.ServerSecrets.Resolve(r.Server)
	if err != nil {
		return LoginStart{}, err
	}
	ctx, cancel := context.WithTimeout(bg(), time.Minute)
	defer cancel()
	f, err := a.core.Logins.Login(ctx, def, oauthclient.LoginOptions{ClientID: clientID})
	if err != nil {
		return LoginStart{}, fmt.Errorf("%s: %w", name, err)
	}
	return LoginStart{URL: f.URL, Registration: f.Registration}, nil
}

// LogoutServer removes a server's OAuth login (its tokens); the server asks
// for a login again.
func (a *API) LogoutServer(name string) error {
	if _, err := a.core.Store.Servers().Get(bg(), name); err != nil {
		return err
	}
	return a.core.Logins.Logout(name)
}

// loggedIn says whether an HTTP/SSE server has a stored login that has not
// ended; stdio and built-in servers never log in.
func (a *API) loggedIn(def spec.Server) bool {
	if a.core.Logins == nil || (def.Transport != spec.HTTP && def.Transport != spec.SSE) {
		return false
	}
	return a.core.Logins.HasLogin(def.Name)
}

// forgetLogin deletes the login of a removed server: its tokens must not
// outlive it (nor be picked up by a new server given the same name).
func (a *API) forgetLogin(name string) {
	if a.core.Logins == nil {
		return
	}
	if err := a.core.Logins.Logout(name); err != nil && !errors.Is(err, oauthclient.ErrNoLogin) {
		a.core.Log.Warnf("remove the login of %q: %v", name, err)
	}
}
