package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// Hint tells a client's user how to get a token; it goes with every 401.
const Hint = "create a token with: mcp-router tokens create NAME"

type identityKey struct{}

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
			next.ServeHTTP(w, r.WithContext(WithIdentity(ctx, Anonymous)))
			return
		}
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
			id, err = s.Verify(ctx, token)
		}
		if err != nil {
			if errors.Is(err, ErrUnauthorized) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-router"`)
				writeError(w, http.StatusUnauthorized, err.Error(), Hint)
				return
			}
			s.log.WithError(err).Warn("checking a bearer token")
			writeError(w, http.StatusInternalServerError, "could not check the token: "+err.Error(), "")
			return
		}
		next.ServeHTTP(w, r.WithContext(WithIdentity(ctx, id)))
	})
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
