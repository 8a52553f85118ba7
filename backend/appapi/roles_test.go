package appapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The questions these tests answer: can a client token (what a snippet
// puts into an AI client's config) reach any admin surface — a method, the
// event stream — or create or escalate a token; can an admin-only action
// be reached through the MCP endpoint; does the desktop window, which
// calls the methods in-process, need a token.

// zeroArgs is a JSON array of the zero value of each of m's arguments: a
// body the method decodes, so only the role check can refuse it.
func zeroArgs(t *testing.T, m reflect.Method) string {
	t.Helper()
	args := make([]any, m.Type.NumIn()-1)
	for i := range args {
		args[i] = reflect.Zero(m.Type.In(i + 1)).Interface()
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeArgs(m, b); err != nil {
		t.Fatalf("%s: zero arguments %s do not decode: %v", m.Name, b, err)
	}
	return string(b)
}

// snapshot is everything a method could change that the tests can see:
// servers, tokens (with roles and revocations), hooks, settings.
func snapshot(t *testing.T, f *fixture) string {
	t.Helper()
	ctx := context.Background()
	servers, err := f.c.Store.Servers().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := f.c.Auth.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tokens {
		tokens[i].LastUsedAt = nil // every request that shows a token moves it
	}
	hooks, err := f.c.Store.Hooks().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	settings, err := f.c.Store.Settings().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal([]any{servers, tokens, hooks, settings})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestClientTokenGets403OnEveryMethod: a table over every bound method
// (Methods(), so a method added later is covered without touching this
// test). A client token, scoped or not, gets 403 naming it as a client
// token, with arguments the method would accept; an admin token reaches
// every method (TestEveryBoundMethodIsReachableAndDocumented); nothing
// changed.
func TestClientTokenGets403OnEveryMethod(t *testing.T) {
	h := newHTTPFixture(t, nil)
	client, err := h.api.CreateToken("claude-code", nil)
	if err != nil {
		t.Fatal(err)
	}
	scoped, err := h.api.CreateToken("ci", []string{"everything"})
	if err != nil {
		t.Fatal(err)
	}
	// Roles of its own (state_gate's) do not make a client token an admin.
	withRoles, _, err := h.c.Auth.CreateToken(context.Background(), auth.NewToken{Name: "reviewer-bot", Roles: []string{"reviewer", "maintainer"}})
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, h.fixture)
	methods := boundMethods()
	if len(methods) < 30 {
		t.Fatalf("only %d bound methods: the table would prove little", len(methods))
	}
	for _, name := range Methods() {
		m := methods[name]
		args := zeroArgs(t, m)
		for _, tok := range []struct{ name, secret string }{{"claude-code", client.Token}, {"ci", scoped.Token}, {"reviewer-bot", withRoles}} {
			r := h.call(t, name, tok.secret, args)
			if r.code != http.StatusForbidden {
				t.Errorf("%s %s with client token %s: %d %s, want 403", name, args, tok.name, r.code, r.body)
				continue
			}
			var body struct{ Error, Hint string }
			if err := json.Unmarshal([]byte(r.body), &body); err != nil ||
				!strings.Contains(body.Error, fmt.Sprintf("token %q is a client token", tok.name)) ||
				body.Hint != auth.AdminHint {
				t.Errorf("%s: 403 body %s", name, r.body)
			}
		}
		// No token at all: 401, with the admin hint.
		if r := h.call(t, name, "", args); r.code != http.StatusUnauthorized || !strings.Contains(r.body, "--admin") {
			t.Errorf("%s without a token: %d %s", name, r.code, r.body)
		}
	}
	// The zero arguments are not what refused the client: the same bodies
	// pass the check with the admin token (read-only methods, so the
	// snapshot below still holds).
	for _, name := range []string{"ListServers", "ListTokens", "GetSettings", "EndpointStatus", "ListHooks"} {
		if r := h.call(t, name, h.token, zeroArgs(t, methods[name])); r.code != 200 {
			t.Errorf("%s with the admin token: %d %s", name, r.code, r.body)
		}
	}
	// Escalation: a client token asking, with well-formed arguments, for a
	// new token or a server that starts a command.
	for _, c := range []struct{ method, args string }{
		{"CreateToken", `["escalated", null]`},
		{"RevokeToken", `["browser"]`},
		{"UpdateTokenRoles", `["claude-code", ["reviewer"]]`},
		{"AddServersFromJSON", `["{\"mcpServers\":{\"evil\":{\"command\":\"echo\",\"args\":[\"started by a client token\"]}}}"]`},
		{"SaveSettings", `[{"port":3282,"authEnabled":false,"separator":"__","retentionDays":30,"timeoutSeconds":60,"theme":"dark","language":"system"}]`},
	} {
		for _, secret := range []string{client.Token, withRoles} {
			if r := h.call(t, c.method, secret, c.args); r.code != http.StatusForbidden {
				t.Errorf("client token %s: %d %s", c.method, r.code, r.body)
			}
		}
	}
	if after := snapshot(t, h.fixture); after != before {
		t.Errorf("client tokens changed the router:\nbefore %s\nafter  %s", before, after)
	}

	// The event stream: header or ?token=, both refused for a client token
	// (only the status is read: an accepted stream would never end).
	eventsStatus := func(query, token string) int {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.base+PathEvents+query, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := eventsStatus("", client.Token); code != http.StatusForbidden {
		t.Errorf("events with a client token = %d", code)
	}
	if code := eventsStatus("?token="+client.Token, ""); code != http.StatusForbidden {
		t.Errorf("events with a client token in the query = %d", code)
	}
	if code := eventsStatus("?token="+h.token, ""); code != http.StatusOK {
		t.Errorf("events with the admin token in the query = %d", code)
	}
	// Any other path under /ui/api/ answers 404 and nothing else; the pages
	// (no assets here) carry no data.
	for _, p := range []string{"/ui/api/", "/ui/api/tokens", "/ui/api/call", "/ui/api/call/", "/ui/api/events/x"} {
		r := h.do(t, http.MethodGet, p, client.Token, "")
		if r.code != http.StatusForbidden && r.code != http.StatusNotFound {
			t.Errorf("GET %s with a client token = %d %s", p, r.code, r.body)
		}
		if strings.Contains(r.body, "everything") || strings.Contains(r.body, "mcpr_") {
			t.Errorf("GET %s leaks data: %s", p, r.body)
		}
	}
	// The client token still does its job on the MCP endpoint.
	if _, err := mcpSession(t, h.base+"/mcp", client.Token); err != nil {
		t.Errorf("client token on /mcp: %v", err)
	}
	if _, err := mcpSession(t, h.base+"/mcp", h.token); err != nil {
		t.Errorf("admin token on /mcp: %v", err)
	}
}

func mcpSession(t *testing.T, url, token string) (*client.Client, error) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return nil, err
	}
	c := client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "roles-test", Version: "1"}}})
	return c, err
}

// TestMCPEndpointReachesNoAdminAction: what a client token sees on /mcp is
// the upstreams' tools and nothing of the UI's methods; calling a bound
// method's name as a tool or as a JSON-RPC method is an error, and nothing
// changes.
func TestMCPEndpointReachesNoAdminAction(t *testing.T) {
	h := newHTTPFixture(t, nil)
	h.waitState(t, "everything", "running")
	testpeers.Eventually(t, 10*time.Second, "the echo tool", func() bool {
		tools, _ := h.api.ListTools()
		return slices.ContainsFunc(tools, func(x AggregatedTool) bool { return x.Name == "everything__echo" })
	})
	ct, err := h.api.CreateToken("claude-code", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcpSession(t, h.base+"/mcp", ct.Token)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	before := snapshot(t, h.fixture)

	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) == 0 {
		t.Fatal("no tools: the check below would pass vacuously")
	}
	for _, tool := range tools.Tools {
		if !strings.HasPrefix(tool.Name, "everything__") {
			t.Errorf("tool %q is not one of the upstream's", tool.Name)
		}
	}
	if prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{}); err == nil {
		for _, p := range prompts.Prompts {
			if !strings.HasPrefix(p.Name, "everything__") {
				t.Errorf("prompt %q is not one of the upstream's", p.Name)
			}
		}
	}
	tr := c.GetTransport()
	for i, name := range Methods() {
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: map[string]any{}}})
		if err == nil && !res.IsError {
			t.Errorf("tools/call %s succeeded: %+v", name, res.Content)
		}
		for _, method := range []string{name, "ui/" + name, "appapi." + name} {
			resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
				ID: mcp.NewRequestId(int64(1000 + i)), Method: method, Params: map[string]any{}})
			if err == nil && resp.Error == nil {
				t.Errorf("JSON-RPC %s answered %s", method, resp.Result)
			}
		}
	}
	if after := snapshot(t, h.fixture); after != before {
		t.Errorf("the MCP endpoint changed the router:\nbefore %s\nafter  %s", before, after)
	}
}

// TestAuthOffOpensTheAPIToThisMachineOnly: with auth off the MCP endpoint
// needs no token, and neither does the API from a loopback address; from
// any other address the API still needs an admin token.
func TestAuthOffOpensTheAPIToThisMachineOnly(t *testing.T) {
	f := newFixture(t)
	admin, _, err := f.c.Auth.CreateAdmin(context.Background(), "me")
	if err != nil {
		t.Fatal(err)
	}
	client, err := f.api.CreateToken("cursor", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct {
		name  string
		opts  HTTPOptions
		setup func()
	}{
		{"serve --no-auth", HTTPOptions{NoAuth: true}, func() {}},
		{"auth setting off", HTTPOptions{}, func() {
			if err := f.c.Settings.Set(context.Background(), "auth", "off"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(o.name, func(t *testing.T) {
			o.setup()
			h := Handler(f.api, o.opts)
			do := func(path, remote, token string) (int, string) {
				req := httptest.NewRequest(http.MethodPost, path, strings.NewReader("[]"))
				req.Header.Set("Content-Type", "application/json")
				if strings.HasSuffix(path, "session") || strings.HasSuffix(path, "events") {
					req.Method = http.MethodGet
				}
				req.RemoteAddr = remote
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				ctx, cancel := context.WithTimeout(req.Context(), 2*time.Second)
				defer cancel()
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req.WithContext(ctx))
				return rec.Code, rec.Body.String()
			}
			for _, remote := range []string{"127.0.0.1:50000", "[::1]:50000", "127.9.9.9:1", "[::ffff:127.0.0.1]:2"} {
				if code, body := do(PathCall+"ListTokens", remote, ""); code != 200 {
					t.Errorf("from %s without a token: %d %s", remote, code, body)
				}
				if code, body := do(PathSession, remote, ""); body != `{"authRequired":false,"valid":true}`+"\n" && body != `{"authRequired":false,"valid":true}` {
					t.Errorf("session from %s: %d %s", remote, code, body)
				}
			}
			for _, remote := range []string{"192.168.1.20:50000", "[fe80::1]:50000", "10.0.0.1:1", "garbage"} {
				cases := []struct {
					token string
					code  int
				}{{"", 401}, {client.Token, 403}, {admin, 200}}
				for _, tc := range cases {
					if code, body := do(PathCall+"ListTokens", remote, tc.token); code != tc.code {
						t.Errorf("from %s with token %.12q: %d %s, want %d", remote, tc.token, code, body, tc.code)
					}
				}
				if code, _ := do(PathEvents, remote, client.Token); code != 403 {
					t.Errorf("events from %s with a client token: %d", remote, code)
				}
				var s Session
				_, body := do(PathSession, remote, "")
				if err := json.Unmarshal([]byte(body), &s); err != nil || !s.AuthRequired || s.Valid {
					t.Errorf("session from %s = %s", remote, body)
				}
			}
		})
	}
}

// TestDesktopWindowNeedsNoToken: the window calls the bound methods
// in-process (Wails), with no identity anywhere. No method refuses for
// want of a token, and the admin actions work: a server that starts a
// command, a token, a setting.
func TestDesktopWindowNeedsNoToken(t *testing.T) {
	f := newFixture(t)
	methods := boundMethods()
	for _, name := range Methods() {
		m := methods[name]
		args := make([]reflect.Value, m.Type.NumIn()-1)
		for i := range args {
			args[i] = reflect.Zero(m.Type.In(i + 1))
		}
		_, err := invoke(f.api, m, args)
		if err != nil && (errors.Is(err, auth.ErrUnauthorized) || errors.Is(err, auth.ErrNotAdmin) ||
			strings.Contains(err.Error(), "admin token") || strings.Contains(err.Error(), "bearer")) {
			t.Errorf("%s in-process: %v", name, err)
		}
	}

	srv := everything(t, "everything")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{
		"command": srv.Command, "args": srv.Args, "env": srv.Env}}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.api.AddServersFromJSON(string(cfg))
	if err != nil || !slices.Equal(rep.Added, []string{"everything"}) {
		t.Fatalf("AddServersFromJSON in-process = %+v, %v", rep, err)
	}
	f.waitState(t, "everything", "running")
	ct, err := f.api.CreateToken("from-the-window", nil)
	if err != nil || ct.View.Role != "client" {
		t.Fatalf("CreateToken in-process = %+v, %v", ct.View, err)
	}
	s, _ := f.api.GetSettings()
	s.Theme = "dark"
	if got, err := f.api.SaveSettings(s); err != nil || got.Theme != "dark" {
		t.Errorf("SaveSettings in-process = %+v, %v", got, err)
	}
	if err := f.api.RemoveServer("everything"); err != nil {
		t.Errorf("RemoveServer in-process: %v", err)
	}
}
