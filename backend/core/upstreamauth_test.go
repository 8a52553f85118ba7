package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
)

type authKey struct{}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// echoAuthUpstream is a real streamable HTTP MCP server whose tool answers
// with a digest of the Authorization header its request carried; every
// Authorization it saw is kept.
func echoAuthUpstream(t *testing.T) (url string, seen func() []string) {
	t.Helper()
	s := server.NewMCPServer("echo-auth", "1")
	s.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, _ := ctx.Value(authKey{}).(string)
		return mcp.NewToolResultText("auth:" + digest(v)), nil
	})
	h := server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		return context.WithValue(ctx, authKey{}, r.Header.Get("Authorization"))
	}))
	var mu sync.Mutex
	var all []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		all = append(all, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), all...)
	}
}

// echoAuthSSEUpstream is echoAuthUpstream over legacy SSE (GET /sse for
// the stream, POST /message for each request): its tool answers with a
// digest of the Authorization of the POST that carried the call.
func echoAuthSSEUpstream(t *testing.T) (url string, seen func() []string) {
	t.Helper()
	s := server.NewMCPServer("echo-auth-sse", "1")
	s.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, _ := ctx.Value(authKey{}).(string)
		return mcp.NewToolResultText("auth:" + digest(v)), nil
	})
	h := server.NewSSEServer(s, server.WithSSEEndpoint("/sse"), server.WithMessageEndpoint("/message"),
		server.WithSSEContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			return context.WithValue(ctx, authKey{}, r.Header.Get("Authorization"))
		}))
	var mu sync.Mutex
	var all []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		all = append(all, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/sse", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), all...)
	}
}

func clientWith(t *testing.T, url string, headers map[string]string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(headers))
	if err != nil {
		t.Fatal(err)
	}
	return started(t, tr, mcp.ProtocolVersion20251125)
}

// sseClientWith is clientWith over the legacy SSE transport: headers go
// with the GET stream and with every POST.
func sseClientWith(t *testing.T, url string, headers map[string]string) *client.Client {
	t.Helper()
	tr, err := transport.NewSSE(url, transport.WithHeaders(headers))
	if err != nil {
		t.Fatal(err)
	}
	return started(t, tr, mcp.ProtocolVersion20241105)
}

// started starts a client on tr and initializes it with version; it is
// closed when the test ends.
func started(t *testing.T, tr transport.Interface, version string) *client.Client {
	t.Helper()
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: version, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func whoami(t *testing.T, c *client.Client, tool string) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool}})
	if err != nil || res.IsError {
		t.Errorf("%s: %v %+v", tool, err, res)
		return ""
	}
	return mcp.GetTextFromContent(res.Content[0])
}

// X-Upstream-Authorization reaches an upstream with passUpstreamAuth as its
// Authorization, per client, with two clients calling at once; an upstream
// without the flag never gets it; the router's own token never leaves.
func TestUpstreamAuthorizationPerClient(t *testing.T) {
	upURL, seen := echoAuthUpstream(t)
	dir := t.TempDir()
	ctx := context.Background()
	ep, tokA, a, b, c := passAndPlain(t, dir, spec.HTTP, upURL)

	want := map[*client.Client]string{a: "auth:" + digest("Bearer alice-upstream-secret"), b: "auth:" + digest("Bearer bob-upstream-secret")}
	callsSeeTheirOwnValue(t, want, a, c, configured)
	for _, h := range seen() {
		if strings.Contains(h, "mcpr_") {
			t.Fatalf("the router's own token reached the upstream: %q", h)
		}
		switch h {
		case configured, "Bearer alice-upstream-secret", "Bearer bob-upstream-secret":
		default:
			t.Errorf("the upstream got Authorization %q", h)
		}
	}

	// Refused: too long, or given twice; the request goes no further.
	resp, body := post(t, ep.url, initializeBody, map[string]string{"Authorization": "Bearer " + tokA, "X-Upstream-Authorization": strings.Repeat("x", 9<<10)})
	if resp.StatusCode != 400 || !strings.Contains(body, "longer than 8 KiB") {
		t.Errorf("long value: HTTP %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequest(http.MethodPost, ep.url, strings.NewReader(string(initializeBody)))
	req.Header.Set("Authorization", "Bearer "+tokA)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Add("X-Upstream-Authorization", "Bearer one")
	req.Header.Add("X-Upstream-Authorization", "Bearer two")
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 400 {
		t.Errorf("twice: %v %v", r, err)
	}
	// Without a valid router token the header is never looked at: 401.
	resp, _ = post(t, ep.url, initializeBody, map[string]string{"X-Upstream-Authorization": "Bearer alice-upstream-secret"})
	if resp.StatusCode != 401 {
		t.Errorf("no router token: HTTP %d", resp.StatusCode)
	}

	// Never logged: the values appear nowhere in the database.
	if err := ep.core.Requests.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(config.DBPath(dir) + "-wal")
	for _, secret := range []string{"alice-upstream-secret", "bob-upstream-secret"} {
		if strings.Contains(string(db), secret) || strings.Contains(string(wal), secret) {
			t.Errorf("%s is in the database", secret)
		}
	}
}

// The same over a legacy SSE upstream: each client's value goes with the
// POST of its own calls, with three clients calling at once (two on
// streamable HTTP, one on the router's own legacy SSE endpoint); the
// stream (GET /sse) and the connection's own requests use the configured
// header.
func TestUpstreamAuthorizationPerClientOverSSE(t *testing.T) {
	upURL, seen := echoAuthSSEUpstream(t)
	ctx := context.Background()
	ep, _, a, b, c := passAndPlain(t, t.TempDir(), spec.SSE, upURL)
	// A third client reaches the router itself over legacy SSE (/sse and
	// /message): its value travels on its POSTs to the router.
	tokD, _, _ := ep.core.Auth.Create(ctx, "dave", nil)
	d := sseClientWith(t, "http://"+ep.addr+"/sse", map[string]string{"Authorization": "Bearer " + tokD, "X-Upstream-Authorization": "Bearer dave-upstream-secret"})

	want := map[*client.Client]string{a: "auth:" + digest("Bearer alice-upstream-secret"), b: "auth:" + digest("Bearer bob-upstream-secret"),
		d: "auth:" + digest("Bearer dave-upstream-secret")}
	callsSeeTheirOwnValue(t, want, a, c, configured)
	clientPosts := 0
	for _, line := range seen() {
		method, rest, _ := strings.Cut(line, " ")
		path, h, _ := strings.Cut(rest, " ")
		if strings.Contains(h, "mcpr_") {
			t.Fatalf("the router's own token reached the upstream: %q", line)
		}
		switch {
		case method == http.MethodGet && h != configured:
			t.Errorf("the stream was opened with Authorization %q, want the configured one", h)
		case h == "Bearer alice-upstream-secret" || h == "Bearer bob-upstream-secret" || h == "Bearer dave-upstream-secret":
			if method != http.MethodPost || path != "/message" {
				t.Errorf("a client's value went with %s %s", method, path)
			}
			clientPosts++
		case h != configured:
			t.Errorf("the upstream got Authorization %q on %s %s", h, method, path)
		}
	}
	if clientPosts != 120 {
		t.Errorf("%d POSTs carried a client's value, want 120 (the calls of a, b and d)", clientPosts)
	}
}

// callsSeeTheirOwnValue has each client in want call pass__whoami 40 times
// (4 at once) and expect its own value upstream; then a client without the
// header (bare) must get the configured Authorization on pass, and a
// client with one (withHeader) the configured one on plain, which does not
// pass it on.
func callsSeeTheirOwnValue(t *testing.T, want map[*client.Client]string, withHeader, bare *client.Client, configured string) {
	t.Helper()
	var wg sync.WaitGroup
	for cl, w := range want {
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					if got := whoami(t, cl, "pass__whoami"); got != w {
						t.Errorf("pass__whoami = %s, want %s", got, w)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	if got := whoami(t, bare, "pass__whoami"); got != "auth:"+digest(configured) {
		t.Errorf("a client without the header: %s, want the configured Authorization", got)
	}
	if got := whoami(t, withHeader, "plain__whoami"); got != "auth:"+digest(configured) {
		t.Errorf("a server without passUpstreamAuth got the client's value: %s", got)
	}
}

// configured is the Authorization the owner configured on both servers of
// passAndPlain.
const configured = "Bearer configured-by-owner"

// passAndPlain serves two servers of transport at upURL, both with the
// configured Authorization: "pass" with passUpstreamAuth on, "plain"
// without. Three clients connect over streamable HTTP: alice (a, her token
// tokA) and bob (b), each with an X-Upstream-Authorization value of their
// own, and carol (c) without one.
func passAndPlain(t *testing.T, dir string, transport spec.Transport, upURL string) (ep *endpoint, tokA string, a, b, c *client.Client) {
	t.Helper()
	ep = serve(t, dir, []spec.Server{
		{Name: "pass", Transport: transport, URL: upURL, Headers: map[string]string{"Authorization": configured}, PassUpstreamAuth: true, Enabled: true},
		{Name: "plain", Transport: transport, URL: upURL, Headers: map[string]string{"Authorization": configured}, Enabled: true},
	}, false)
	ctx := context.Background()
	tokA, _, _ = ep.core.Auth.Create(ctx, "alice", nil)
	tokB, _, _ := ep.core.Auth.Create(ctx, "bob", nil)
	tokC, _, _ := ep.core.Auth.Create(ctx, "carol", nil)
	a = clientWith(t, ep.url, map[string]string{"Authorization": "Bearer " + tokA, "X-Upstream-Authorization": "Bearer alice-upstream-secret"})
	b = clientWith(t, ep.url, map[string]string{"Authorization": "Bearer " + tokB, "X-Upstream-Authorization": "Bearer bob-upstream-secret"})
	c = clientWith(t, ep.url, map[string]string{"Authorization": "Bearer " + tokC})
	return ep, tokA, a, b, c
}

// X-Upstream-Authorization-For gives named servers values of their own: a
// server named there gets its own value, another server with
// passUpstreamAuth the X-Upstream-Authorization value (or the configured
// one without it), a server without the flag never any; on the router's
// own HTTP transport and on mcp-go's (legacy SSE), two clients at once.
func TestUpstreamAuthorizationForNamedServers(t *testing.T) {
	upURL, _ := echoAuthUpstream(t)
	sseURL, _ := echoAuthSSEUpstream(t)
	h := map[string]string{"Authorization": configured}
	ep := serve(t, t.TempDir(), []spec.Server{
		{Name: "one", Transport: spec.HTTP, URL: upURL, Headers: h, PassUpstreamAuth: true, Enabled: true},
		{Name: "two", Transport: spec.HTTP, URL: upURL, Headers: h, PassUpstreamAuth: true, Enabled: true},
		{Name: "sse", Transport: spec.SSE, URL: sseURL, Headers: h, PassUpstreamAuth: true, Enabled: true},
		{Name: "plain", Transport: spec.HTTP, URL: upURL, Headers: h, Enabled: true},
	}, false)
	ctx := context.Background()
	tokA, _, _ := ep.core.Auth.Create(ctx, "alice", nil)
	tokB, _, _ := ep.core.Auth.Create(ctx, "bob", nil)
	a := clientWith(t, ep.url, map[string]string{"Authorization": "Bearer " + tokA, "X-Upstream-Authorization": "Bearer all-a",
		"X-Upstream-Authorization-For": `{"one":"Bearer one-a","sse":"Bearer sse-a","plain":"Bearer plain-a"}`})
	b := clientWith(t, ep.url, map[string]string{"Authorization": "Bearer " + tokB,
		"X-Upstream-Authorization-For": `{"two":"Bearer two-b"}`})
	want := map[*client.Client]map[string]string{
		a: {"one": "Bearer one-a", "two": "Bearer all-a", "sse": "Bearer sse-a", "plain": configured},
		b: {"one": configured, "two": "Bearer two-b", "sse": configured, "plain": configured},
	}
	var wg sync.WaitGroup
	for cl, servers := range want {
		for server, v := range servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					if got := whoami(t, cl, server+"__whoami"); got != "auth:"+digest(v) {
						t.Errorf("%s__whoami = %s, want the digest of %q", server, got, v)
						return
					}
				}
			}()
		}
	}
	wg.Wait()

	for _, tc := range []struct{ header, want string }{
		{`github Bearer x`, "must be a JSON object"},
		{`{"not a name":"Bearer x"}`, "is not a server name"},
		{`{"one":"Bearer x\u0001"}`, "control characters"},
	} {
		resp, body := post(t, ep.url, initializeBody, map[string]string{"Authorization": "Bearer " + tokA, "X-Upstream-Authorization-For": tc.header})
		if resp.StatusCode != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: HTTP %d %s", tc.header, resp.StatusCode, body)
		}
	}
	resp, _ := post(t, ep.url, initializeBody, map[string]string{"X-Upstream-Authorization-For": `{"one":"Bearer x"}`})
	if resp.StatusCode != 401 {
		t.Errorf("no router token: HTTP %d", resp.StatusCode)
	}
}
