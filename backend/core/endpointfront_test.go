package core

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcp-router/mcp-router/backend/auth"
)

// With auth off and the default profile, core's front of /mcp copies the
// request once (the identity in its context) and allocates nothing else:
// Anonymous is not boxed per request, and profileScope passes a request for
// the default profile on as it came (it allocated 6 times before).
func TestEndpointFrontAllocations(t *testing.T) {
	h, req, got := endpointFront()
	w := httptest.NewRecorder()
	if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, req) }); n > 3 {
		t.Errorf("%v allocations per request, want at most 3", n)
	}
	if *got != auth.Anonymous.Label() {
		t.Errorf("caller %q", *got)
	}
}

// BenchmarkEndpointFront is the part of every /mcp request that core adds
// in front of the gateway, with auth off (mcp-router serve --no-auth): the
// auth middleware, profileScope, upstreamAuthorization, and the caller the
// pipeline's identity step asks for (profileCaller).
func BenchmarkEndpointFront(b *testing.B) {
	h, req, got := endpointFront()
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
	if *got != auth.Anonymous.Label() {
		b.Fatalf("caller %q", *got)
	}
}

// endpointFront is core's front of /mcp with auth off, before a handler
// that asks for the caller (as the pipeline's identity step does) and
// notes its name in *got.
func endpointFront() (http.Handler, *http.Request, *string) {
	c := &Core{}
	got := new(string)
	next := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { *got = c.profileCaller(r.Context()).Name })
	h := (&auth.Service{}).Middleware(func(context.Context) bool { return false }, c.profileScope(upstreamAuthorization(next)))
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	return h, req, got
}
