package upstream

import (
	"context"
	"errors"
	"strings"
)

// HeaderUpstreamAuthorization is the request header a client of the
// router sets to give an HTTP upstream with passUpstreamAuth its own
// Authorization (docs/auth.md).
const HeaderUpstreamAuthorization = "X-Upstream-Authorization"

// MaxClientAuthorization bounds its value.
const MaxClientAuthorization = 8 << 10

type clientAuthKey struct{}

// WithClientAuthorization returns ctx carrying the Authorization value a
// client gave for upstreams with passUpstreamAuth. Only requests made with
// that ctx (the client's own calls) send it; the value is never logged.
func WithClientAuthorization(ctx context.Context, v string) context.Context {
	return context.WithValue(ctx, clientAuthKey{}, v)
}

// clientAuthorization is the value WithClientAuthorization put in ctx.
func clientAuthorization(ctx context.Context) (string, bool) {
	v, ok := ctx.Value(clientAuthKey{}).(string)
	return v, ok && v != ""
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

// clientAuthHeaders is the header func of mcp-go's transports for a server
// with passUpstreamAuth.
func clientAuthHeaders(ctx context.Context) map[string]string {
	if v, ok := clientAuthorization(ctx); ok {
		return map[string]string{"Authorization": v}
	}
	return nil
}
