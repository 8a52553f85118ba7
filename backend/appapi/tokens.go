package appapi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/store"
)

// TokenView is one access token, without its secret.
type TokenView struct {
	ID         uint       `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Servers    []string   `json:"servers"` // empty: every server
	Role       string     `json:"role"`    // "client" (the MCP endpoint only) or "admin" (the browser UI too)
	Roles      []string   `json:"roles"`   // the token's own roles, for state_gate (auth.CheckRoles); never widen its reach
	Profile    string     `json:"profile"` // the profile it is bound to ("" none): it reaches /mcp/<profile> only
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty"`
}

// CreatedToken is a new token with its secret, shown once.
type CreatedToken struct {
	Token string    `json:"token"`
	View  TokenView `json:"view"`
}

// EndpointStatus says where clients reach the router and whether they can.
type EndpointStatus struct {
	URL         string `json:"url"`
	Running     bool   `json:"running"`
	AuthEnabled bool   `json:"authEnabled"`
	Error       string `json:"error,omitempty"`
}

// TokenPlaceholder stands in for a token in a snippet the user asked for
// without one.
const TokenPlaceholder = "mcpr_PASTE_YOUR_TOKEN_HERE"

func tokenView(t store.Token) TokenView {
	servers := t.Servers
	if servers == nil {
		servers = []string{}
	}
	role := store.RoleClient
	if t.Role == store.RoleAdmin {
		role = store.RoleAdmin
	}
	roles := t.Roles
	if roles == nil {
		roles = []string{}
	}
	return TokenView{ID: t.ID, Name: t.Name, Prefix: t.Prefix, Servers: servers, Role: string(role), Roles: roles, Profile: t.Profile,
		CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
}

// ListTokens returns every token, revoked ones included.
func (a *API) ListTokens() ([]TokenView, error) {
	toks, err := a.core.Auth.List(bg())
	if err != nil {
		return nil, err
	}
	out := make([]TokenView, 0, len(toks))
	for _, t := range toks {
		out = append(out, tokenView(t))
	}
	return out, nil
}

// CreateToken makes a client token for the given servers (none: all
// servers): it reaches the MCP endpoint only. Admin tokens are made with
// `mcp-router tokens create NAME --admin`.
func (a *API) CreateToken(name string, servers []string) (CreatedToken, error) {
	for _, s := range servers {
		if _, err := a.core.Store.Servers().Get(bg(), s); err != nil {
			return CreatedToken{}, err
		}
	}
	secret, t, err := a.core.Auth.Create(bg(), strings.TrimSpace(name), servers)
	if err != nil {
		return CreatedToken{}, err
	}
	return CreatedToken{Token: secret, View: tokenView(t)}, nil
}

// RevokeToken revokes a token at once.
func (a *API) RevokeToken(name string) error { return a.core.Auth.Revoke(bg(), name) }

// DeleteToken removes a token for good, revoked or not: it stops working at
// once and its name is free again.
func (a *API) DeleteToken(name string) error { return a.core.Auth.Delete(bg(), name) }

// UpdateTokenServers changes the servers a token may use (none: all
// servers); every server must exist, and a revoked token is refused.
func (a *API) UpdateTokenServers(name string, servers []string) (TokenView, error) {
	for _, s := range servers {
		if _, err := a.core.Store.Servers().Get(bg(), s); err != nil {
			return TokenView{}, err
		}
	}
	t, err := a.core.Auth.SetServers(bg(), name, servers)
	if err != nil {
		return TokenView{}, err
	}
	return tokenView(t), nil
}

// UpdateTokenRoles replaces a token's own roles (none: clear them), which
// state_gate matches against an event's roles; admin and client are
// reserved, and a revoked token is refused.
func (a *API) UpdateTokenRoles(name string, roles []string) (TokenView, error) {
	t, err := a.core.Auth.SetRoles(bg(), name, roles)
	if err != nil {
		return TokenView{}, err
	}
	return tokenView(t), nil
}

// Snippet returns the config that connects client to the router in mode
// (http or stdio). An empty token prints a placeholder when auth is on.
// upstreamAuth is the client's own credentials for servers with
// passUpstreamAuth, SERVER=VALUE entries as `snippet --upstream-auth`
// takes them (see snippetUpstreamAuth). The values go into the snippet
// only: nothing stores or logs them, and no error repeats one.
func (a *API) Snippet(client, mode, token string, upstreamAuth []string) (string, error) {
	return a.snippetAt("", client, mode, token, upstreamAuth)
}

// snippetAt is Snippet for the endpoint of profile ("" the default: /mcp).
func (a *API) snippetAt(profile, client, mode, token string, upstreamAuth []string) (string, error) {
	o, err := a.snippetOptions(profile, client, mode, token, upstreamAuth)
	if err != nil {
		return "", err
	}
	return config.Snippet(client, mode, o)
}

// snippetOptions are the options of a snippet, an install link or an Add
// for the endpoint of profile: the endpoint's real URL, the token (checked
// not to be an admin token; the placeholder when none is given and auth is
// on), the upstream credentials, the binary for stdio.
func (a *API) snippetOptions(profile, client, mode, token string, upstreamAuth []string) (config.SnippetOptions, error) {
	if err := config.CheckSnippet(client, mode); err != nil {
		return config.SnippetOptions{}, err
	}
	// The address the endpoint really listens on (say, `serve --listen`
	// on another port), as the Connect page shows it; the port setting
	// when the endpoint is not running.
	ep, _ := a.EndpointStatus()
	url := ep.URL
	if profile != "" {
		url += "/" + profile
	}
	o := config.SnippetOptions{URL: url, Token: strings.TrimSpace(token)}
	if profile != "" {
		o.Name = config.SnippetServerName + "-" + profile // two profiles fit in one client config
	}
	if o.Token != "" {
		// A snippet goes into an AI client's config: an admin token there
		// would hand the client the UI's powers.
		if id, err := a.core.Auth.Verify(bg(), o.Token); err == nil && id.IsAdmin() {
			return config.SnippetOptions{}, fmt.Errorf("token %q is an admin token; a client's snippet needs a client token (create one on this page)", id.TokenName)
		}
	}
	if o.Token == "" && a.core.Settings.AuthEnabled(bg()) {
		o.Token = TokenPlaceholder
	}
	if len(upstreamAuth) > 0 {
		m, err := a.snippetUpstreamAuth(upstreamAuth)
		if err != nil {
			return config.SnippetOptions{}, err
		}
		o.UpstreamAuth = m
	}
	if mode == config.ModeStdio {
		bin, err := a.opts.Executable()
		if err != nil {
			return config.SnippetOptions{}, err
		}
		o.BinaryPath = bin
	}
	return o, nil
}

// EndpointStatus reports the HTTP endpoint's URL and state.
func (a *API) EndpointStatus() (EndpointStatus, error) {
	ep := a.core.Endpoint()
	st := EndpointStatus{URL: a.core.Settings.EndpointURL(bg()), Running: ep.Running,
		AuthEnabled: a.core.Settings.AuthEnabled(bg()), Error: ep.Err}
	if ep.Running {
		st.URL = "http://" + ep.Addr + "/mcp"
		if u := a.core.Settings.EndpointURL(bg()); strings.HasSuffix(u, ":"+portOf(ep.Addr)+"/mcp") {
			st.URL = u // the loopback name for 0.0.0.0
		}
	}
	return st, nil
}

func portOf(addr string) string {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return ""
	}
	return addr[i+1:]
}

func executablePath() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", errors.New("cannot find the mcp-router binary for a stdio snippet: " + err.Error())
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Abs(p)
}

// snippetUpstreamAuth reads the Connect page's upstream credentials:
// config.ParseUpstreamAuth's bounds, and each named server must exist and
// take a client's credential (passUpstreamAuth), else its value would sit
// in the client's config and never be sent. * stands for every such server.
func (a *API) snippetUpstreamAuth(entries []string) (map[string]string, error) {
	// One entry a server, and *: anything longer is refused before parsing.
	if most := config.MaxUpstreamAuthServers + 1; len(entries) > most {
		return nil, fmt.Errorf("upstream auth: %d entries, at most %d (%d servers and *; the router's fixed cap, not a setting)",
			len(entries), most, config.MaxUpstreamAuthServers)
	}
	m, err := config.ParseUpstreamAuth(entries)
	if err != nil {
		return nil, err
	}
	for name, v := range m {
		// This router's own token (a paste, or a browser's autofill of the
		// login's) would go to the upstream server and sit in the client's
		// config. Looked up without marking the token used.
		for _, f := range strings.Fields(v) {
			if !strings.HasPrefix(f, auth.SecretPrefix) {
				continue
			}
			if tok, err := a.core.Store.Tokens().Lookup(bg(), store.HashToken(f)); err == nil {
				return nil, fmt.Errorf("upstream auth for %q: the value holds this router's own token %q, which would be sent to the upstream server; give the server's own credential", name, tok.Name)
			}
		}
		if name == config.UpstreamAuthAll {
			continue
		}
		r, err := a.core.Store.Servers().Get(bg(), name)
		if err != nil {
			return nil, fmt.Errorf("upstream auth for %q: %w", name, err)
		}
		if !r.Server.PassUpstreamAuth {
			return nil, fmt.Errorf("upstream auth for %q: the server does not take a client's credential (passUpstreamAuth is off), so the value would never be sent; turn on \"Pass the client's X-Upstream-Authorization\" in its form first", name)
		}
	}
	return m, nil
}
