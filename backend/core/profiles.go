package core

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/gateway"
	"github.com/mcp-router/mcp-router/backend/profile"
)

// Profiles at the endpoint (docs/profiles.md): /mcp/<name> serves the
// profile name; plain /mcp the default profile, or the profile the
// request's token is bound to. The profile is a narrowing of the caller in
// the pipeline's identity step (callerFrom), never a second router.

// profileScope resolves the profile of an authenticated HTTP request and
// puts its name in the request's context; it refuses an unknown profile
// (404) and a token bound to another profile (403). It runs after the auth
// middleware, before the gateway.
func (c *Core) profileScope(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, fromPath := profileInPath(r.URL.Path)
		if fromPath && name == "" {
			http.NotFound(w, r)
			return
		}
		id, _ := auth.IdentityFrom(r.Context())
		bound := c.boundProfile(r.Context(), id)
		switch {
		case bound != "" && fromPath && name != bound:
			profileError(w, http.StatusForbidden, fmt.Sprintf("token %q is bound to profile %q: it reaches %s/%s only",
				id.TokenName, bound, gateway.PathMCP, bound))
			return
		case bound != "":
			name = bound
		}
		if name != "" {
			if _, ok := c.Profiles.Lookup(name); !ok {
				msg := fmt.Sprintf("no profile %q (mcp-router profiles list)", name)
				if bound != "" {
					msg = fmt.Sprintf("token %q is bound to profile %q, which does not exist: it reaches nothing until the profile is created again",
						id.TokenName, bound)
				}
				profileError(w, http.StatusNotFound, msg)
				return
			}
		}
		if _, selected := profile.Selected(r.Context()); name == "" && !selected {
			// The default profile: "" selects it, and nothing selected
			// another; the request as it came (no copy of it per request).
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(profile.WithSelected(r.Context(), name)))
	})
}

// profileInPath splits /mcp/<name>, /sse/<name> and /message/<name> into
// name; fromPath is false for any other path (plain /mcp, /sse, /message).
func profileInPath(path string) (name string, fromPath bool) {
	var rest string
	ok := false
	for _, base := range []string{gateway.PathMCP, gateway.PathSSE, gateway.PathMessage} {
		if rest, ok = strings.CutPrefix(path, base+"/"); ok {
			break
		}
	}
	if !ok {
		return "", false
	}
	rest = strings.TrimSuffix(rest, "/")
	if profile.CheckName(rest) != nil {
		return "", true
	}
	return rest, true
}

// boundProfile is the profile the identity's token is bound to ("" none).
func (c *Core) boundProfile(ctx context.Context, id auth.Identity) string {
	if id.IsAnonymous() || id.Subject != "" {
		return ""
	}
	return id.Profile
}

func profileError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// narrowToProfile narrows caller to the profile named in ctx, if any. A
// profile named in ctx that no longer exists reaches nothing (a removed
// profile never widens what its clients reach).
func (c *Core) narrowToProfile(ctx context.Context, caller gateway.Caller) gateway.Caller {
	name, ok := profile.Selected(ctx)
	if !ok {
		return caller
	}
	caller.Profile = name
	p, found := c.Profiles.Lookup(name)
	if found {
		caller.Discovery = p.Mode
	}
	if !found {
		caller.Allows = func(string) bool { return false }
		caller.AllowsTool = nil
		caller.InProfile = func(string, string) bool { return false }
		return caller
	}
	token := caller.Allows
	caller.Allows = func(server string) bool {
		return p.HasServer(server) && (token == nil || token(server))
	}
	tokenTool := caller.AllowsTool
	if tokenTool != nil {
		caller.AllowsTool = func(server, item string) bool { return p.HasServer(server) && tokenTool(server, item) }
	}
	// A gated server's activate tool belongs to every profile that has
	// the server: without it the server could never be unlocked.
	caller.InProfile = func(server, item string) bool {
		return p.HasTool(server, item) || item == gate.ActivateItem && p.HasServer(server)
	}
	return caller
}
