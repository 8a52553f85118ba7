package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// HeaderUpstreamAuthorization is the request header a client of the
// router sets to give an HTTP upstream with passUpstreamAuth its own
// Authorization (docs/auth.md).
const HeaderUpstreamAuthorization = "X-Upstream-Authorization"

// HeaderUpstreamAuthorizationFor is the request header that gives servers
// values of their own: a JSON object of server names and values
// (ParseClientAuthorizationFor, docs/auth.md).
const HeaderUpstreamAuthorizationFor = "X-Upstream-Authorization-For"

// MaxClientAuthorization bounds its value.
const MaxClientAuthorization = 8 << 10

// MaxClientAuthorizationServers bounds how many servers a client names
// with their own values.
const MaxClientAuthorizationServers = 32

type clientAuthKey struct{}

// ClientAuthorization is what a client gave for upstreams with
// passUpstreamAuth: All for every such server, PerServer for the servers
// it names (which then take their own value instead of All).
type ClientAuthorization struct {
	All       string
	PerServer map[string]string
}

// Empty: the client gave nothing.
func (a ClientAuthorization) Empty() bool { return a.All == "" && len(a.PerServer) == 0 }

// For is the value for the server named server, "" for none.
func (a ClientAuthorization) For(server string) string {
	if v, ok := a.PerServer[server]; ok {
		return v
	}
	return a.All
}

// WithClientAuthorization returns ctx carrying the Authorization value a
// client gave for every upstream with passUpstreamAuth. Only requests made
// with that ctx (the client's own calls) send it; the value is never logged.
func WithClientAuthorization(ctx context.Context, v string) context.Context {
	return WithClientAuthorizations(ctx, ClientAuthorization{All: v})
}

// WithClientAuthorizations returns ctx carrying a client's values for
// upstreams with passUpstreamAuth, per server (ClientAuthorization).
func WithClientAuthorizations(ctx context.Context, a ClientAuthorization) context.Context {
	return context.WithValue(ctx, clientAuthKey{}, a)
}

// clientAuthorization is the value a client gave in ctx for the server
// named server.
func clientAuthorization(ctx context.Context, server string) (string, bool) {
	a, ok := ctx.Value(clientAuthKey{}).(ClientAuthorization)
	if !ok {
		return "", false
	}
	v := a.For(server)
	return v, v != ""
}

// CheckClientAuthorization reports whether v can go into a header: no
// control characters, at most MaxClientAuthorization bytes. The error
// never repeats v.
func CheckClientAuthorization(v string) error {
	if len(v) > MaxClientAuthorization {
		return errors.New(HeaderUpstreamAuthorization + " is longer than 8 KiB")
	}
	if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
		return errors.New(HeaderUpstreamAuthorization + " holds control characters")
	}
	return nil
}

// clientAuthHeaders is the header func of mcp-go's transports for the
// server named server, with passUpstreamAuth.
func clientAuthHeaders(server string) func(ctx context.Context) map[string]string {
	return func(ctx context.Context) map[string]string {
		if v, ok := clientAuthorization(ctx, server); ok {
			return map[string]string{"Authorization": v}
		}
		return nil
	}
}

// MaxClientAuthorizationFor bounds the X-Upstream-Authorization-For header.
const MaxClientAuthorizationFor = 64 << 10

// ParseClientAuthorizationFor reads a request's X-Upstream-Authorization-For
// header: a JSON object of server names and their values,
// {"github":"Bearer …","jira":"Basic …"}. The errors never repeat a value:
// the header given twice or over MaxClientAuthorizationFor bytes, not such
// an object, a name that cannot be a server's, more than
// MaxClientAuthorizationServers servers, a value CheckClientAuthorization
// refuses or that is empty.
func ParseClientAuthorizationFor(vals []string) (map[string]string, error) {
	switch {
	case len(vals) == 0:
		return nil, nil
	case len(vals) > 1:
		return nil, errors.New(HeaderUpstreamAuthorizationFor + " is given more than once")
	case len(vals[0]) > MaxClientAuthorizationFor:
		return nil, errors.New(HeaderUpstreamAuthorizationFor + " is longer than 64 KiB")
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(vals[0]), &m); err != nil || m == nil {
		return nil, errors.New(HeaderUpstreamAuthorizationFor + ` must be a JSON object of server names and values: {"SERVER":"Bearer …"}`)
	}
	if len(m) > MaxClientAuthorizationServers {
		return nil, fmt.Errorf("%s names %d servers, at most %d", HeaderUpstreamAuthorizationFor, len(m), MaxClientAuthorizationServers)
	}
	for name, v := range m {
		if !spec.ValidName(name) {
			return nil, fmt.Errorf("%s: %q is not a server name", HeaderUpstreamAuthorizationFor, name)
		}
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, fmt.Errorf("%s: the value for %q is empty", HeaderUpstreamAuthorizationFor, name)
		}
		if err := CheckClientAuthorization(v); err != nil {
			return nil, fmt.Errorf("%s: the value for %q: %w", HeaderUpstreamAuthorizationFor, name, err)
		}
		m[name] = v
	}
	return m, nil
}
