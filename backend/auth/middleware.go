package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-router/mcp-router/backend/store"
)

// Hint tells a client's user how to get a token; it goes with every 401
// of the MCP endpoint.
const Hint = "create a token with: mcp-router tokens create NAME"

// AdminHint tells the user of the browser UI how to get a token that opens
// it; it goes with every 401 and 403 of RequireAdmin.
const AdminHint = "create an admin token with: mcp-router tokens create NAME --admin"

// ErrNotAdmin is why RequireAdmin refuses a valid token that is not an
// admin token.
var ErrNotAdmin = errors.New("not an admin token")

// NotAdminError says why id may not use an admin surface; it wraps
// ErrNotAdmin. The message is meant for the user of the browser UI.
func NotAdminError(id Identity) error {
	if id.Role == store.RoleAdmin && len(id.Servers) > 0 {
		return &notAdminError{fmt.Sprintf("token %q is limited to %s; an admin token manages every server",
			id.TokenName, strings.Join(id.Servers, ", "))}
	}
	if id.Subject != "" {
		return &notAdminError{fmt.Sprintf("the OAuth access token of %s (%s) reaches the MCP endpoint only; "+
			"the browser UI and its API need an admin token", id.Subject, id.TokenName)}
	}
	return &notAdminError{fmt.Sprintf("token %q is a client token: it reaches the MCP endpoint (/mcp, /sse) only; "+
		"the browser UI and its API need an admin token", id.TokenName)}
}

type notAdminError struct{ msg string }

func (e *notAdminError) Error() string { return e.msg }
func (e *notAdminError) Unwrap() error { return ErrNotAdmin }

type identityKey struct{}

// anonymousValue is Anonymous boxed once: with auth off every request
// carries it, and boxing the struct allocates it again per request.
var anonymousValue any = Anonymous

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity Middleware put into ctx.
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// BearerToken extracts the token from an Authorization header value:
// "Bearer <token>", scheme matched case-insensitively. ok is false when the
// header is empty or uses another scheme.
func BearerToken(header string) (token string, ok bool) {
	scheme, rest, found := strings.Cut(strings.TrimSpace(header), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(rest)
	return token, token != ""
}

// Middleware authenticates each request before next sees it. When enabled
// reports true (a nil enabled counts as true), the request needs
// `Authorization: Bearer <token>` with a valid, unrevoked token, else it
// gets 401 with a JSON body {"error", "hint"}; when false, every request
// acts as Anonymous. Either way next finds the identity with IdentityFrom.
func (s *Service) Middleware(enabled func(ctx context.Context) bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if enabled != nil && !enabled(ctx) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, identityKey{}, anonymousValue)))
			return
		}
		id, ok := s.authenticate(w, r, Hint)
		if !ok {
			return
		}
		if id.ReachesNothing() {
			// A valid JWT that reaches no server: never an empty list.
			msg := fmt.Sprintf("the access token of %s carries no mcp scope: ask for %s, %s<server> or %s<server>/<tool>",
				id.Subject, ScopeAll, ScopeServerPrefix, ScopeToolPrefix)
			w.Header().Set("WWW-Authenticate", s.OAuth(ctx).challenge(r, "insufficient_scope", msg))
			writeError(w, http.StatusForbidden, msg, "")
			return
		}
		next.ServeHTTP(w, r.WithContext(WithIdentity(ctx, id)))
	})
}

// RequireAdmin guards an admin surface (the browser UI's API): every
// request needs an admin token, whatever the auth setting. A missing, bad
// or revoked token gets 401 as in Middleware; a valid token that is not an
// admin token gets 403 saying so. Both bodies carry AdminHint. next finds
// the identity with IdentityFrom.
func (s *Service) RequireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := s.authenticate(w, r, AdminHint)
		if !ok {
			return
		}
		if !id.IsAdmin() || len(id.Servers) > 0 || id.Profile != "" {
			writeError(w, http.StatusForbidden, NotAdminError(id).Error(), AdminHint)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithIdentity(r.Context(), id)))
	})
}

// authenticate finds the identity of the request's bearer token, or
// answers 401 (with hint) or 500 and returns false.
func (s *Service) authenticate(w http.ResponseWriter, r *http.Request, hint string) (Identity, bool) {
	var err error
	var id Identity
	header := r.Header.Get("Authorization")
	token, ok := BearerToken(header)
	switch {
	case strings.TrimSpace(header) == "":
		err = ErrMissingToken
	case !ok:
		err = &authError{msg: "missing bearer token: the Authorization header must be \"Bearer <token>\"", kind: ErrMissingToken}
	default:
		id, err = s.Verify(r.Context(), token)
	}
	if err != nil {
		if errors.Is(err, ErrUnauthorized) {
			code := "invalid_token"
			if errors.Is(err, ErrMissingToken) {
				code = "" // RFC 6750 §3.1: no error code when no credentials were sent
			}
			w.Header().Set("WWW-Authenticate", s.OAuth(r.Context()).challenge(r, code, err.Error()))
			writeError(w, http.StatusUnauthorized, err.Error(), hint)
			return Identity{}, false
		}
		s.log.WithError(err).Warn("checking a bearer token")
		writeError(w, http.StatusInternalServerError, "could not check the token: "+err.Error(), "")
		return Identity{}, false
	}
	return id, true
}

func writeError(w http.ResponseWriter, code int, msg, hint string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	body := struct {
		Error string `json:"error"`
		Hint  string `json:"hint,omitempty"`
	}{msg, hint}
	_ = json.NewEncoder(w).Encode(body)
}
