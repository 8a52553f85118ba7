package upstream

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
)

// ErrNeedsLogin: an HTTP server answered 401: it wants an OAuth login the
// router does not have, or no longer has (a refresh that failed). The server
// waits in StateNeedsLogin, without retries, until a login (backend/
// oauthclient) restarts it.
var ErrNeedsLogin = errors.New("needs login")

// needsLoginError is a 401 from a server; it matches ErrNeedsLogin.
type needsLoginError struct{ msg string }

func (e *needsLoginError) Error() string        { return e.msg }
func (e *needsLoginError) Is(target error) bool { return target == ErrNeedsLogin }

// Authorizer gives HTTP upstreams the credential of an OAuth login made for
// them (backend/oauthclient). It goes in the Authorization header of the
// server's requests unless a client's own value replaces it
// (passUpstreamAuth); it is never logged.
type Authorizer interface {
	// Authorization is the Authorization value for the server's requests
	// to url: "" when it has no login for that URL, an error wrapping
	// ErrNeedsLogin when its login has ended (the refresh failed). It
	// refreshes a token near its expiry.
	Authorization(ctx context.Context, server, url string) (string, error)
	// Rejected reports that the server answered 401 to value: the next
	// Authorization refreshes the token, or reports ErrNeedsLogin.
	Rejected(server, value string)
}

// fromMCPGo turns the 401 of mcp-go's transports (SSE, HTTP through a
// proxy), transport.ErrAuthorizationRequired, into a needsLoginError.
func fromMCPGo(err error, target string) error {
	var are *transport.AuthorizationRequiredError
	if err == nil || !errors.Is(err, transport.ErrAuthorizationRequired) || errors.Is(err, ErrNeedsLogin) {
		return err
	}
	msg := "HTTP 401 from " + target + ": the server asks for a login (mcp-router servers login NAME, or Log in on the Servers page)"
	if errors.As(err, &are) && are.ResourceMetadataURL != "" && visibleASCII(are.ResourceMetadataURL) {
		msg += "; its resource metadata: " + are.ResourceMetadataURL
	}
	return &needsLoginError{msg: msg}
}

// loginAuth is one server's view of the Authorizer, kept by its transport.
type loginAuth struct {
	a      Authorizer
	server string
	url    string
}

func (l *loginAuth) value(ctx context.Context) (string, error) {
	if l == nil || l.a == nil {
		return "", nil
	}
	v, err := l.a.Authorization(ctx, l.server, l.url)
	if err != nil {
		return "", err
	}
	if CheckClientAuthorization(v) != nil {
		return "", &needsLoginError{msg: "the stored login cannot go into a header: log in again"}
	}
	return v, nil
}

func (l *loginAuth) rejected(v string) {
	if l != nil && l.a != nil && v != "" {
		l.a.Rejected(l.server, v)
	}
}

// loginHeaders is the header func of mcp-go's transports (SSE, HTTP through
// a proxy): the client's value for a server with passUpstreamAuth, else the
// login's. A login that has ended sends nothing, and the server's 401 ends
// the connection. What it sent is noted in the request's sentLogin, if its
// context has one (withSentLogin): the login's value, or "" for a client's
// value or the configured header, which are never refreshed.
func loginHeaders(server string, pass bool, l *loginAuth) func(context.Context) map[string]string {
	return func(ctx context.Context) map[string]string {
		sent, _ := ctx.Value(sentLoginKey{}).(*sentLogin)
		if pass {
			if h := clientAuthHeaders(server)(ctx); h != nil {
				sent.set("")
				return h
			}
		}
		if v, err := l.value(ctx); err == nil && v != "" {
			sent.set(v)
			return map[string]string{"Authorization": v}
		}
		sent.set("")
		return nil
	}
}

// sentLogin is what loginHeaders put in the Authorization of one request
// made through an mcp-go transport: the login's value, else "".
type sentLogin struct {
	mu sync.Mutex
	v  string
}

type sentLoginKey struct{}

func (s *sentLogin) set(v string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.v = v
	s.mu.Unlock()
}

func (s *sentLogin) get() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v
}

// withSentLogin returns ctx with a fresh sentLogin for loginHeaders to fill.
func withSentLogin(ctx context.Context) (context.Context, *sentLogin) {
	s := &sentLogin{}
	return context.WithValue(ctx, sentLoginKey{}, s), s
}

// retryAfter401 decides whether a request of an mcp-go transport that the
// server answered err goes once more, as the router's own transport does
// (httpconn.go): only when err is a 401 and the request carried the
// login's value sent (never a client's value, never the configured
// header). The value is reported refused (Rejected), and the login asked
// for its next one: a refresh the authorization server refuses ends the
// login, and that error (ErrNeedsLogin) is returned instead of a retry.
func (l *loginAuth) retryAfter401(ctx context.Context, sent string, err error) (bool, error) {
	unauthorized := errors.Is(err, transport.ErrAuthorizationRequired) || errors.Is(err, ErrNeedsLogin) // raw, or through fromMCPGo
	if l == nil || l.a == nil || sent == "" || !unauthorized || ctx.Err() != nil {
		return false, err
	}
	l.rejected(sent)
	v, lerr := l.value(ctx)
	switch {
	case lerr != nil:
		return false, lerr
	case v == "" || v == sent:
		// Nothing new to send (the login was removed meanwhile).
		return false, err
	}
	return true, nil
}

// resourceMetadata is the resource_metadata parameter of a 401's
// WWW-Authenticate (RFC 9728 §5.1), "" when there is none.
func resourceMetadata(values []string) string {
	for _, h := range values {
		i := strings.Index(h, "resource_metadata=")
		if i < 0 {
			continue
		}
		v := h[i+len("resource_metadata="):]
		if strings.HasPrefix(v, `"`) {
			if end := strings.Index(v[1:], `"`); end >= 0 {
				return v[1 : 1+end]
			}
			continue
		}
		if end := strings.IndexAny(v, ", "); end >= 0 {
			v = v[:end]
		}
		return v
	}
	return ""
}
