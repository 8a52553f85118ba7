package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// testAuthorizer is a hand-written Authorizer: value is what it gives,
// next replaces it on Rejected, fail is its error.
type testAuthorizer struct {
	mu       sync.Mutex
	value    string
	next     string
	fail     error
	rejected []string
	asked    []string // the URLs it was asked for
}

func (a *testAuthorizer) Authorization(_ context.Context, server, url string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, server+" "+url)
	return a.value, a.fail
}

func (a *testAuthorizer) Rejected(server, value string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rejected = append(a.rejected, value)
	if a.value == value && a.next != "" {
		a.value, a.next = a.next, ""
	}
}

func (a *testAuthorizer) set(fn func(a *testAuthorizer)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fn(a)
}

// An HTTP server that answers 401 waits in needs_login, without retries,
// until a login restarts it; the login's token goes in its Authorization;
// a token it refuses is refreshed once (Rejected) and the request sent
// again; a login that ends sends it back to needs_login.
func TestUnauthorizedHTTPServerWaitsForALogin(t *testing.T) {
	var want atomic.Value
	want.Store("Bearer good")
	var refused atomic.Int32
	f := newFakeMCP(t, false)
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		switch msg["method"] {
		case "tools/list":
			writeJSON(w, msg["id"], map[string]any{"tools": []any{}})
		case "ping":
			writeJSON(w, msg["id"], map[string]any{})
		default:
			return false
		}
		return true
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want.Load().(string) {
			refused.Add(1)
			http.Error(w, "who are you", http.StatusUnauthorized) // no resource_metadata
			return
		}
		f.serve(w, r)
	}))
	defer srv.Close()
	auth := &testAuthorizer{}
	o := fastOptions()
	o.Authorizer = auth
	s := New(o)
	defer s.Close()
	def := spec.Server{Name: "remote", Transport: spec.HTTP, URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer configured"}, Enabled: true}
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "remote", StateNeedsLogin, 10*time.Second)
	if !strings.Contains(st.Error, "HTTP 401 from "+srv.URL+"/mcp: the server asks for a login") || st.Restarts != 0 || !st.NextRetryAt.IsZero() {
		t.Fatalf("status %+v", st)
	}
	before := refused.Load()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.Connect(ctx, "remote"); !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "needs_login") {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := s.Request(ctx, "remote", "tools/list", nil); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Request: %v", err)
	}
	if got := refused.Load(); got != before {
		t.Fatalf("needs_login retried: %d → %d refused requests", before, got)
	}

	// A login: its token replaces the configured Authorization.
	auth.set(func(a *testAuthorizer) { a.value = "Bearer good" })
	if err := s.Restart("remote"); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "remote", StateRunning, 10*time.Second)
	auth.mu.Lock()
	asked := fmt.Sprint(auth.asked)
	auth.mu.Unlock()
	if !strings.Contains(asked, "remote "+srv.URL+"/mcp") {
		t.Fatalf("asked %s", asked)
	}

	// The server stops taking the token: one Rejected, one retry with the
	// refreshed one, and the request succeeds.
	want.Store("Bearer fresh")
	auth.set(func(a *testAuthorizer) { a.next = "Bearer fresh" })
	if _, err := s.Request(ctx, "remote", "tools/list", nil); err != nil {
		t.Fatalf("request after a refused token: %v", err)
	}
	auth.mu.Lock()
	rejected := fmt.Sprint(auth.rejected)
	auth.mu.Unlock()
	if !strings.HasPrefix(rejected, "[Bearer good") {
		t.Fatalf("rejected %s", rejected)
	}

	// The login ends (its refresh refused): back to needs_login.
	auth.set(func(a *testAuthorizer) { a.value, a.fail = "", fmt.Errorf("%w: refresh refused", ErrNeedsLogin) })
	if _, err := s.Request(ctx, "remote", "tools/list", nil); !errors.Is(err, ErrNeedsLogin) {
		t.Fatalf("request with an ended login: %v", err)
	}
	st = waitState(t, s, "remote", StateNeedsLogin, 10*time.Second)
	if !strings.Contains(st.Error, "refresh refused") {
		t.Fatalf("status %+v", st)
	}
}

func TestResourceMetadataParameter(t *testing.T) {
	for in, want := range map[string]string{
		`Bearer realm="x", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp"`: "https://a.example/.well-known/oauth-protected-resource/mcp",
		`Bearer resource_metadata=https://a.example/prm, error="invalid_token"`:                            "https://a.example/prm",
		`Bearer realm="x"`:            "",
		`Bearer resource_metadata="x`: "",
	} {
		if got := resourceMetadata([]string{in}); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// The legacy SSE transport (mcp-go's) meets a 401 too: needs_login, with
// the resource metadata, no retries.
func TestUnauthorizedSSEServerNeedsALogin(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource/sse"`)
		http.Error(w, "login first", http.StatusUnauthorized)
	}))
	defer srv.Close()
	s := newTestService(t)
	if err := s.Sync([]spec.Server{{Name: "legacy", Transport: spec.SSE, URL: srv.URL + "/sse", Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "legacy", StateNeedsLogin, 10*time.Second)
	if !strings.Contains(st.Error, "HTTP 401 from "+srv.URL+"/sse: the server asks for a login") ||
		!strings.Contains(st.Error, "/.well-known/oauth-protected-resource/sse") || st.Restarts != 0 {
		t.Fatalf("status %+v", st)
	}
	n := hits.Load()
	if err := s.Restart("legacy"); err != nil {
		t.Fatal(err)
	}
	testWaitHits(t, &hits, n+1)
	waitState(t, s, "legacy", StateNeedsLogin, 10*time.Second)
}

// testWaitHits waits until the server has seen at least n requests.
func testWaitHits(t *testing.T, hits *atomic.Int32, n int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for hits.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests, want %d", hits.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// On the router's own transport too, a client's own value (passUpstreamAuth)
// that the server refuses fails that client's call only: it is not sent
// again, refreshes nothing, and the connection, made with the login, serves
// on.
func TestRefusedClientAuthorizationKeepsTheConnection(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	f := newFakeMCP(t, false)
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		switch msg["method"] {
		case "tools/list":
			writeJSON(w, msg["id"], map[string]any{"tools": []any{}})
		default:
			return false
		}
		return true
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer login" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		f.serve(w, r)
	}))
	defer srv.Close()
	auth := &testAuthorizer{value: "Bearer login", next: "Bearer other"}
	o := fastOptions()
	o.Authorizer = auth
	s := New(o)
	defer s.Close()
	if err := s.Sync([]spec.Server{{Name: "remote", Transport: spec.HTTP, URL: srv.URL + "/mcp", PassUpstreamAuth: true, Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "remote", StateRunning, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.Request(WithClientAuthorization(ctx, "Bearer client"), "remote", "tools/list", nil)
	if err == nil || errors.Is(err, ErrNeedsLogin) || !strings.Contains(err.Error(), "the server refused the X-Upstream-Authorization the client gave") {
		t.Fatalf("request with a refused client value: %v", err)
	}
	if _, err := s.Request(ctx, "remote", "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	clientSent := 0
	for _, v := range sent {
		if v == "Bearer client" {
			clientSent++
		}
	}
	mu.Unlock()
	auth.mu.Lock()
	rejected := len(auth.rejected)
	auth.mu.Unlock()
	now, _ := s.Status("remote")
	if clientSent != 1 || rejected != 0 || now.Connection != st.Connection || now.State != StateRunning {
		t.Fatalf("client value sent %d times, %d rejections, status %+v (was connection %d)", clientSent, rejected, now, st.Connection)
	}
}
