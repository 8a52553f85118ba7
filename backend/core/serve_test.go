package core

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/connlimit"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// endpoint is a router serving over real HTTP on a loopback port.
type endpoint struct {
	core *Core
	url  string
	addr string
}

func serve(t *testing.T, dataDir string, defs []spec.Server, noAuth bool) *endpoint {
	t.Helper()
	return serveWith(t, dataDir, defs, noAuth, Options{})
}

func serveWith(t *testing.T, dataDir string, defs []spec.Server, noAuth bool, o Options) *endpoint {
	t.Helper()
	c, err := Open(dataDir, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, d := range defs {
		if _, err := c.Store.Servers().Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Run(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- c.Serve(sctx, ServeOptions{Addr: "127.0.0.1:0", NoAuth: noAuth, Ready: func(a string) { ready <- a }})
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v", err)
		}
		c.Close()
	})
	c.WaitStarted(ctx)
	c.Gateway.Rebuild()
	return &endpoint{core: c, url: "http://" + addr + "/mcp", addr: addr}
}

func everythingDef(t *testing.T, name string) spec.Server {
	return spec.Server{Name: name, Command: testpeers.Everything(t), Args: []string{"stdio"}, Enabled: true}
}

func post(t *testing.T, url string, body []byte, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var initializeBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)

func mcpClient(t *testing.T, url, token string) (*client.Client, error) {
	t.Helper()
	headers := map[string]string{}
	if token != "" {
		headers["Authorization"] = "Bearer " + token
	}
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(headers), transport.WithContinuousListening())
	if err != nil {
		return nil, err
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err := c.Start(context.Background()); err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}})
	return c, err
}

func listTools(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestTokensOverRealHTTP(t *testing.T) {
	dir := t.TempDir()
	ep := serve(t, dir, []spec.Server{everythingDef(t, "one"), everythingDef(t, "two")}, false)
	ctx := context.Background()
	full, _, err := ep.core.Auth.Create(ctx, "full", nil)
	if err != nil {
		t.Fatal(err)
	}
	scoped, _, err := ep.core.Auth.Create(ctx, "scoped", []string{"one"})
	if err != nil {
		t.Fatal(err)
	}
	revoked, _, _ := ep.core.Auth.Create(ctx, "old", nil)
	if err := ep.core.Auth.Revoke(ctx, "old"); err != nil {
		t.Fatal(err)
	}

	for name, header := range map[string]map[string]string{
		"missing": {},
		"wrong":   {"Authorization": "Bearer mcpr_not-a-real-token"},
		"revoked": {"Authorization": "Bearer " + revoked},
		"scheme":  {"Authorization": "Basic " + full},
	} {
		resp, body := post(t, ep.url, initializeBody, header)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "error") {
			t.Errorf("%s token: HTTP %d %s", name, resp.StatusCode, body)
		}
		if resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s token: no WWW-Authenticate header", name)
		}
	}

	c, err := mcpClient(t, ep.url, full)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(listTools(t, c), ",")
	if !strings.Contains(all, "one__echo") || !strings.Contains(all, "two__echo") {
		t.Errorf("full token sees %s", all)
	}
	sc, err := mcpClient(t, ep.url, scoped)
	if err != nil {
		t.Fatal(err)
	}
	seen := strings.Join(listTools(t, sc), ",")
	if !strings.Contains(seen, "one__echo") || strings.Contains(seen, "two__") {
		t.Errorf("scoped token sees %s", seen)
	}
	if _, err := sc.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "two__echo", Arguments: map[string]any{"message": "x"}}}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("scoped call to another server: %v", err)
	}

	// Revoking a token in use (as the CLI would, from another process) locks it out.
	cli, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if err := cli.Tokens().Revoke(ctx, "full", time.Now()); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 3*time.Second, "the revoked token to be refused", func() bool {
		resp, _ := post(t, ep.url, initializeBody, map[string]string{"Authorization": "Bearer " + full})
		return resp.StatusCode == http.StatusUnauthorized
	})
}

func TestEndpointRefusesBadRequestsAndKeepsServing(t *testing.T) {
	ep := serve(t, t.TempDir(), []spec.Server{everythingDef(t, "everything")}, true)
	cases := []struct {
		name   string
		body   []byte
		header map[string]string
		status int
		want   string
	}{
		{"foreign Host (DNS rebinding)", initializeBody, map[string]string{"Host": "evil.example:3282"}, http.StatusForbidden, "Host"},
		{"foreign Origin", initializeBody, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden, "Origin"},
		{"malformed JSON", []byte(`{"jsonrpc": "2.0", "id": 1, "method": `), nil, http.StatusBadRequest, "-32700"},
		{"not JSON-RPC", []byte(`[1, 2, 3]`), nil, http.StatusBadRequest, ""},
		{"oversized body", append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`), bytes.Repeat([]byte("a"), 5<<20)...), []byte(`"}}`)...), nil, http.StatusRequestEntityTooLarge, "too large"},
		// mcp-go answers 404 where the spec prefers 400; either way the
		// client re-initializes.
		{"no session", []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), nil, http.StatusNotFound, "session"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, ep.url, tc.body, tc.header)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("HTTP %d %q, want %d containing %q", resp.StatusCode, truncate(body), tc.status, tc.want)
			}
		})
	}
	// A loopback Origin (a local web UI) is fine, and the router still serves.
	resp, body := post(t, ep.url, initializeBody, map[string]string{"Origin": "http://localhost:5173"})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "mcp-router") {
		t.Errorf("after bad requests: HTTP %d %s", resp.StatusCode, truncate(body))
	}
	c, err := mcpClient(t, ep.url, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "everything__echo", Arguments: map[string]any{"message": "still here"}}})
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("echo after bad requests: %v %v", res, err)
	}
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func TestServerAddedByCLIReachesAConnectedClient(t *testing.T) {
	dir := t.TempDir()
	ep := serve(t, dir, []spec.Server{everythingDef(t, "one")}, true)
	changed := make(chan struct{}, 16)
	tr, _ := transport.NewStreamableHTTP(ep.url, transport.WithContinuousListening())
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			changed <- struct{}{}
		}
	})
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	listTools(t, c)

	cli, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	// Stands for `mcp-router servers add two -- …` while the app runs.
	if _, err := cli.Servers().Create(context.Background(), everythingDef(t, "two")); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for !strings.Contains(strings.Join(listTools(t, c), ","), "two__echo") {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the new server's tools never reached the client")
		}
	}
	// Removing it is announced the same way.
	if err := cli.Servers().Delete(context.Background(), "two"); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 5*time.Second, "two__echo to disappear", func() bool {
		return !strings.Contains(strings.Join(listTools(t, c), ","), "two__")
	})
}

// FuzzEndpoint throws arbitrary bodies at the request path of a router
// with no upstreams: it must never crash, never answer 5xx, and keep serving.
func FuzzEndpoint(f *testing.F) {
	for _, seed := range []string{
		string(initializeBody),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x__y","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"id":{"a":1},"method":["x"]}`,
		``, `null`, `"\u0000"`,
	} {
		f.Add([]byte(seed))
	}
	c, err := Open(f.TempDir(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer c.Close()
	if err := c.Run(context.Background(), time.Hour); err != nil {
		f.Fatal(err)
	}
	handler := c.Gateway.HTTPHandler(nil)
	f.Fuzz(func(t *testing.T, body []byte) {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := &recorder{header: http.Header{}}
		handler.ServeHTTP(rec, req)
		if rec.status >= 500 {
			t.Fatalf("HTTP %d for %q: %s", rec.status, body, rec.body.String())
		}
		if rec.status == http.StatusOK && rec.body.Len() > 0 && strings.HasPrefix(rec.header.Get("Content-Type"), "application/json") {
			var msg map[string]any
			if err := json.Unmarshal(rec.body.Bytes(), &msg); err != nil {
				t.Fatalf("answer is not JSON: %q", rec.body.String())
			}
		}
	})
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(s int) {
	if r.status == 0 {
		r.status = s
	}
}
func (r *recorder) Flush() {}

// A connection that never sends a request is closed after the head
// timeout (10 s), on the lean path every connection starts on, and the
// endpoint serves on. Before, the lean path held such a connection for
// ever: enough of them would have spent the process's file descriptors.
func TestEndpointClosesConnectionsThatSendNothing(t *testing.T) {
	ep := serve(t, t.TempDir(), nil, true)
	nc, err := net.Dial("tcp", ep.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	start := time.Now()
	_ = nc.SetReadDeadline(start.Add(30 * time.Second))
	_, err = nc.Read(make([]byte, 1))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("a connection that sent nothing was still open after 30 s")
	}
	if took := time.Since(start); took < 9*time.Second {
		t.Fatalf("a silent connection closed after %v (%v), before the 10 s head timeout", took, err)
	}
	resp, body := post(t, ep.url, initializeBody, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "mcp-router") {
		t.Fatalf("afterwards: HTTP %d %s", resp.StatusCode, truncate(body))
	}
}

// The endpoint holds at most MCPR_MAX_CONNECTIONS connections: one past
// them gets an HTTP 503 naming the cap, and once one closes the endpoint
// serves again. A bad value stops the endpoint with an error naming the
// variable, as a bad address does.
func TestEndpointCapsItsConnections(t *testing.T) {
	t.Setenv(connlimit.EnvMax, "16")
	ep := serve(t, t.TempDir(), nil, true)
	var held []net.Conn
	for range 16 {
		nc, err := net.Dial("tcp", ep.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		held = append(held, nc)
	}
	// The 16 are open once the endpoint has counted them: a request on a
	// 17th is refused. (They send nothing, so within 10 s they go.)
	var status int
	var body string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		nc, err := net.Dial("tcp", ep.addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(nc, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			status, body = resp.StatusCode, string(b)
		}
		nc.Close()
		if status == http.StatusServiceUnavailable {
			break
		}
	}
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "too many connections") || !strings.Contains(body, connlimit.EnvMax) {
		t.Fatalf("past the cap: HTTP %d %q, want 503 naming %s", status, body, connlimit.EnvMax)
	}
	for _, nc := range held[:4] {
		nc.Close()
	}
	// The endpoint counts a connection closed once it has read the EOF:
	// until then a new one would still get the 503 (and Go's client
	// reads that as "unsolicited response", not as an answer).
	for deadline := time.Now().Add(10 * time.Second); ep.core.conns.Load().Open() > 12 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if open := ep.core.conns.Load().Open(); open > 12 {
		t.Fatalf("%d connections still counted after 4 of 16 closed", open)
	}
	// /metrics (open: auth is off) counts the refusal.
	mresp, err := http.Get("http://" + ep.addr + PathMetrics)
	if err != nil {
		t.Fatal(err)
	}
	metricsText, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	if !regexp.MustCompile(`(?m)^mcpr_connections_refused_total [1-9]`).Match(metricsText) ||
		!regexp.MustCompile(`(?m)^mcpr_connections_open [1-9]`).Match(metricsText) {
		var lines []string
		for _, l := range strings.Split(string(metricsText), "\n") {
			if strings.HasPrefix(l, "mcpr_connections") {
				lines = append(lines, l)
			}
		}
		t.Errorf("/metrics does not count the connections: %q", lines)
	}
	resp, body := post(t, ep.url, initializeBody, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "mcp-router") {
		t.Fatalf("after connections closed: HTTP %d %s", resp.StatusCode, truncate(body))
	}

	t.Setenv(connlimit.EnvMax, "lots")
	c, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Serve(context.Background(), ServeOptions{Addr: "127.0.0.1:0", NoAuth: true})
	if err == nil || !strings.Contains(err.Error(), connlimit.EnvMax) || !strings.Contains(c.Endpoint().Err, connlimit.EnvMax) {
		t.Fatalf("a bad %s: %v (endpoint state %+v)", connlimit.EnvMax, err, c.Endpoint())
	}
}
