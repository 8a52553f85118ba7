package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Connections on 2026-07-28 (modern.go): an HTTP server whose
// server/discover names that revision is used on it, with no initialize
// and no session; every other server keeps the handshake.

// The go-sdk v1.8.0 everything-server, stateless: no handshake, no
// session; its lists and calls work with the per-request _meta and
// headers; its input_required comes back as it sent it (its own keys);
// list_changed comes on the subscriptions/listen stream.
func TestModernConnectionGoSDKStateless(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=true")
	changed := make(chan struct{}, 1)
	c := dialHTTP(t, "http://"+addr+"/mcp", ClientSide{
		Elicitation: func(context.Context, string, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			t.Error("a server on 2026-07-28 sent elicitation/create")
			return nil, fmt.Errorf("not expected")
		},
	}, func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	if c.modernEra == nil || c.init.ProtocolVersion != mcp.ProtocolVersion20260728 {
		t.Fatalf("connection on %q (modern %v), want 2026-07-28", c.init.ProtocolVersion, c.modernEra != nil)
	}
	if c.tr.GetSessionId() != "" {
		t.Fatalf("a session (%q) on 2026-07-28", c.tr.GetSessionId())
	}
	if c.init.ServerInfo.Name == "" || c.init.Capabilities.Tools == nil {
		t.Fatalf("server info and capabilities not taken from server/discover: %+v", c.init)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cat, err := fetchCatalog(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) == 0 || len(cat.Prompts) == 0 || len(cat.Resources) == 0 {
		t.Fatalf("catalog on 2026-07-28: %d tools, %d prompts, %d resources", len(cat.Tools), len(cat.Prompts), len(cat.Resources))
	}
	if got := callTool(t, c, "test_simple_text", nil); !strings.Contains(got, `"type":"text"`) {
		t.Fatalf("test_simple_text: %s", got)
	}
	// The server asks for input in its result, with its own key, and the
	// retry with the answer under that key gets the result.
	userNameRoundTrip(t, ctx, c, "on 2026-07-28")
	// A list change reaches the handler on the listen stream.
	testpeers.Eventually(t, 10*time.Second, "the listen stream", func() bool {
		callTool(t, c, "test_trigger_tool_change", map[string]any{})
		select {
		case <-changed:
			return true
		case <-time.After(time.Second):
			return false
		}
	})
	// Health checks are server/discover, which this server answers.
	if err := c.ping(ctx); err != nil {
		t.Fatalf("ping on 2026-07-28: %v", err)
	}
}

// The same server with sessions (-stateless=false) names only the
// handshake's revisions, and server-everything has no server/discover:
// both keep initialize and a session (TestDiscoverGoSDKHTTP,
// TestDiscoverServerEverythingHTTP check the same of their answers).
func TestModernNotForOlderServers(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=false")
	c := dialHTTP(t, "http://"+addr+"/mcp", ClientSide{}, nil)
	if c.modernEra != nil || c.tr.GetSessionId() == "" {
		t.Fatalf("stateful go-sdk server: modern %v, session %q", c.modernEra != nil, c.tr.GetSessionId())
	}
	checkHandshake(t, c, "test_simple_text", nil, `"type":"text"`)

	port := testpeers.FreePort(t)
	testpeers.StartEverythingHTTP(t, "streamableHttp", port, marker(t))
	c = dialHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/mcp", port), ClientSide{}, nil)
	if c.modernEra != nil || c.tr.GetSessionId() == "" {
		t.Fatalf("server-everything: modern %v, session %q", c.modernEra != nil, c.tr.GetSessionId())
	}
	checkHandshake(t, c, "echo", map[string]any{"message": "still here"}, "still here")
}

// recordingModernServer is an mcp-go server that speaks 2026-07-28 over
// stateless HTTP and records the headers and _meta of what it gets.
type recordingModernServer struct {
	mu       sync.Mutex
	requests []recorded
}

type recorded struct {
	method, name, version string
	meta                  map[string]any
	headers               http.Header
}

func (r *recordingModernServer) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.requests...)
}

func startRecordingModernServer(t *testing.T) (*recordingModernServer, string) {
	s := server.NewMCPServer("modern", "1.0", server.WithToolCapabilities(true), server.WithPromptCapabilities(false))
	s.AddTool(mcp.NewTool("hello"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hello from modern"), nil
	})
	s.AddPrompt(mcp.NewPrompt("greet"), func(_ context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("greet", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("hi"))}), nil
	})
	h := server.NewStreamableHTTPServer(s, server.WithStateLess(true))
	rec := &recordingModernServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string         `json:"name"`
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &m)
		if m.Method != "" {
			rec.mu.Lock()
			rec.requests = append(rec.requests, recorded{method: m.Method, name: m.Params.Name, meta: m.Params.Meta, headers: r.Header.Clone()})
			rec.mu.Unlock()
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return rec, ts.URL + "/mcp"
}

// Every request on 2026-07-28 carries the revision, the client's identity
// and capabilities in _meta, and Mcp-Method / Mcp-Name; a forwarded
// client's own identity is kept; no initialize, no session id.
func TestModernRequestsCarryMetaAndHeaders(t *testing.T) {
	rec, url := startRecordingModernServer(t)
	c := dialHTTP(t, url, ClientSide{Elicitation: func(context.Context, string, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
		return nil, fmt.Errorf("unused")
	}}, nil)
	if c.modernEra == nil {
		t.Fatalf("mcp-go's stateless server (2026-07-28) not used on it: %+v", c.discovered)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.request(ctx, "tools/call", map[string]any{"name": "hello"}); err != nil {
		t.Fatal(err)
	}
	clientInfo := map[string]any{"name": "the-client", "version": "9"}
	if _, err := c.request(ctx, "prompts/get", map[string]any{"name": "greet", "_meta": map[string]any{
		mcp.MetaKeyClientInfo: clientInfo, mcp.MetaKeyProtocolVersion: "2026-07-28"}}); err != nil {
		t.Fatal(err)
	}
	var sawCall, sawPrompt bool
	for _, r := range rec.all() {
		if r.method == "initialize" {
			t.Fatal("initialize sent to a server on 2026-07-28")
		}
		if r.headers.Get("Mcp-Session-Id") != "" {
			t.Fatalf("%s sent with a session id", r.method)
		}
		if r.headers.Get("Mcp-Method") != r.method || r.headers.Get("Mcp-Protocol-Version") != "2026-07-28" || r.meta[mcp.MetaKeyProtocolVersion] != "2026-07-28" {
			t.Fatalf("%s: headers %v, _meta %v", r.method, r.headers, r.meta)
		}
		switch r.method {
		case "tools/call":
			sawCall = true
			info, _ := r.meta[mcp.MetaKeyClientInfo].(map[string]any)
			caps, _ := r.meta[mcp.MetaKeyClientCapabilities].(map[string]any)
			if r.headers.Get("Mcp-Name") != "hello" || info["name"] != "mcp-router-test" || caps["elicitation"] == nil {
				t.Fatalf("tools/call: Mcp-Name %q, clientInfo %v, clientCapabilities %v", r.headers.Get("Mcp-Name"), info, caps)
			}
		case "prompts/get":
			sawPrompt = true
			info, _ := r.meta[mcp.MetaKeyClientInfo].(map[string]any)
			if info["name"] != "the-client" {
				t.Fatalf("the client's own clientInfo replaced: %v", info)
			}
		}
	}
	if !sawCall || !sawPrompt {
		t.Fatalf("requests seen: %+v", rec.all())
	}
}

// A name that would break a header line (CR LF and another header in a
// prompt name a client sends) goes as mcp-go's base64 form, never as a
// header of its own.
func TestModernHeadersCannotBeInjected(t *testing.T) {
	rec, url := startRecordingModernServer(t)
	c := dialHTTP(t, url, ClientSide{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	evil := "greet\r\nX-Injected: yes"
	_, _ = c.request(ctx, "prompts/get", map[string]any{"name": evil})
	for _, r := range rec.all() {
		if r.headers.Get("X-Injected") != "" {
			t.Fatalf("a header injected through a prompt name: %v", r.headers)
		}
		if r.method == "prompts/get" {
			if n := r.headers.Get("Mcp-Name"); !strings.HasPrefix(n, "=?base64?") {
				t.Fatalf("Mcp-Name %q, want the base64 form", n)
			}
			return
		}
	}
	t.Fatal("the prompts/get never reached the server")
}

// resources/subscribe, no method on 2026-07-28, goes in the listen
// stream's filter; bounded by maxResourceSubscriptions.
func TestModernResourceSubscriptionsGoInTheFilter(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=true")
	c := dialHTTP(t, "http://"+addr+"/mcp", ClientSide{}, nil)
	if c.modernEra == nil {
		t.Fatal("not on 2026-07-28")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c.init.Capabilities.Resources == nil || !c.init.Capabilities.Resources.Subscribe {
		t.Skip("the server offers no resource subscriptions")
	}
	if _, err := c.request(ctx, "resources/subscribe", map[string]any{"uri": "test://static/resource/1"}); err != nil {
		t.Fatal(err)
	}
	if f := c.listenFilter(); len(f.ResourceSubscriptions) != 1 || f.ResourceSubscriptions[0] != "test://static/resource/1" {
		t.Fatalf("filter after subscribe: %+v", f)
	}
	if _, err := c.request(ctx, "resources/unsubscribe", map[string]any{"uri": "test://static/resource/1"}); err != nil {
		t.Fatal(err)
	}
	if f := c.listenFilter(); len(f.ResourceSubscriptions) != 0 {
		t.Fatalf("filter after unsubscribe: %+v", f)
	}
	for i := 0; i < maxResourceSubscriptions; i++ {
		if _, err := c.request(ctx, "resources/subscribe", map[string]any{"uri": fmt.Sprintf("test://x/%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.request(ctx, "resources/subscribe", map[string]any{"uri": "test://one-too-many"})
	if err == nil || !strings.Contains(err.Error(), "maxResourceSubscriptions") {
		t.Fatalf("past the cap: %v", err)
	}
}

// swappable serves whichever handler it holds now.
type swappable struct {
	mu sync.Mutex
	h  http.Handler
}

func (s *swappable) set(h http.Handler) {
	s.mu.Lock()
	s.h = h
	s.mu.Unlock()
}

func (s *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	h := s.h
	s.mu.Unlock()
	h.ServeHTTP(w, r)
}

func helloServer(name string) *server.MCPServer {
	s := server.NewMCPServer(name, "1.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("hello"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hello from " + name), nil
	})
	return s
}

// A server on 2026-07-28 replaced by one that speaks only the handshake
// (an older build at the same URL, with no server/discover): the health
// check's server/discover is refused with -32601, the router connects
// again and is then on 2025-11-25. Were -32601 read as "alive", as it is
// for a ping, the connection would stay on 2026-07-28, sending every
// request in a revision the server does not speak.
func TestModernServerReplacedByAnOlderOne(t *testing.T) {
	sw := &swappable{}
	sw.set(server.NewStreamableHTTPServer(helloServer("modern"), server.WithStateLess(true)))
	ts := httptest.NewServer(sw)
	t.Cleanup(ts.Close)
	s := newTestService(t)
	def := spec.Server{Name: "web", Transport: spec.HTTP, URL: ts.URL + "/mcp", Enabled: true}
	def.Normalize()
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "web", StateRunning, 20*time.Second)
	if st.ProtocolVersion != modernProtocol || st.SessionID != "" {
		t.Fatalf("status %+v, want 2026-07-28 without a session", st)
	}
	// The older build knows no server/discover (-32601, as
	// server-everything answers it).
	older := server.NewStreamableHTTPServer(helloServer("older"),
		server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125, "2025-06-18"))
	sw.set(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"method":"server/discover"`) {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(body, &m)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		older.ServeHTTP(w, r)
	}))
	testpeers.Eventually(t, 20*time.Second, "a connection on the handshake", func() bool {
		st, _ = s.Status("web")
		return st.State == StateRunning && st.ProtocolVersion == mcp.ProtocolVersion20251125
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := s.Request(ctx, "web", "tools/call", map[string]any{"name": "hello"})
	if err != nil || !strings.Contains(string(raw), "hello from older") {
		t.Fatalf("after the swap: %s, %v", raw, err)
	}
}

// A listen stream that the server ends is opened again, and the lists it
// covers are read again then (a change may have come in the gap): the
// connection hands a list_changed for each to its handler.
func TestModernListenStreamReopenedAndListsReread(t *testing.T) {
	h := server.NewStreamableHTTPServer(helloServer("modern"), server.WithStateLess(true))
	var listens sync.WaitGroup
	listens.Add(2)
	var mu sync.Mutex
	opened := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "subscriptions/listen" {
			mu.Lock()
			opened++
			n := opened
			mu.Unlock()
			if n <= 2 {
				listens.Done()
			}
			if n == 1 {
				// The first stream ends at once, unasked.
				http.Error(w, "gone", http.StatusServiceUnavailable)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	reread := make(chan string, 8)
	c := dialHTTP(t, ts.URL+"/mcp", ClientSide{}, func(n mcp.JSONRPCNotification) {
		reread <- n.Method
	})
	if c.modernEra == nil {
		t.Fatal("not on 2026-07-28")
	}
	done := make(chan struct{})
	go func() { listens.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the listen stream was not opened again after it ended")
	}
	select {
	case m := <-reread:
		if m != string(mcp.MethodNotificationToolsListChanged) {
			t.Fatalf("after the gap: %s", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the tools were not read again after the gap")
	}
}

// withRequestMeta: the revision is always the connection's (a client's
// own protocolVersion, even a forged one, is replaced); the client's
// identity and capabilities are kept when given; params that cannot carry
// _meta are refused rather than sent without it.
func TestWithRequestMeta(t *testing.T) {
	m := &modernState{clientInfo: mcp.Implementation{Name: "router", Version: "1"}, capabilities: mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}}
	decode := func(raw json.RawMessage) map[string]any {
		t.Helper()
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		meta, _ := out["_meta"].(map[string]any)
		return meta
	}
	raw, err := m.withRequestMeta(nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := decode(raw)
	if meta[mcp.MetaKeyProtocolVersion] != modernProtocol || meta[mcp.MetaKeyClientInfo].(map[string]any)["name"] != "router" ||
		meta[mcp.MetaKeyClientCapabilities].(map[string]any)["elicitation"] == nil {
		t.Fatalf("nil params: %s", raw)
	}
	raw, err = m.withRequestMeta(json.RawMessage(`{"name":"x","_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientInfo":{"name":"client"},"io.modelcontextprotocol/clientCapabilities":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	meta = decode(raw)
	if meta[mcp.MetaKeyProtocolVersion] != modernProtocol || meta["progressToken"] != "p" ||
		meta[mcp.MetaKeyClientInfo].(map[string]any)["name"] != "client" || len(meta[mcp.MetaKeyClientCapabilities].(map[string]any)) != 0 {
		t.Fatalf("a client's _meta: %s", raw)
	}
	for _, bad := range []any{json.RawMessage(`[1,2]`), json.RawMessage(`{"_meta":"not an object"}`), "text"} {
		if _, err := m.withRequestMeta(bad); err == nil {
			t.Errorf("params %v accepted", bad)
		}
	}
}

// logging/setLevel, no method on 2026-07-28, becomes the logLevel of the
// requests that follow; a 2026-07-28 client's own logLevel is kept; a
// level that is not one of MCP's is refused.
func TestModernSetLevelGoesInMeta(t *testing.T) {
	rec, url := startRecordingModernServer(t)
	c := dialHTTP(t, url, ClientSide{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.request(ctx, "logging/setLevel", map[string]any{"level": "debug"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.request(ctx, "logging/setLevel", map[string]any{"level": "loud\r\nX: y"}); err == nil {
		t.Fatal("an unknown level accepted")
	}
	if _, err := c.request(ctx, "tools/call", map[string]any{"name": "hello"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.request(ctx, "tools/call", map[string]any{"name": "hello", "_meta": map[string]any{mcp.MetaKeyLogLevel: "error"}}); err != nil {
		t.Fatal(err)
	}
	var levels []any
	for _, r := range rec.all() {
		if r.method == "logging/setLevel" {
			t.Fatal("logging/setLevel sent to a server on 2026-07-28")
		}
		if r.method == "tools/call" {
			levels = append(levels, r.meta[mcp.MetaKeyLogLevel])
		}
	}
	if fmt.Sprint(levels) != "[debug error]" {
		t.Fatalf("logLevel of the calls: %v, want [debug error]", levels)
	}
}

// userNameRoundTrip calls the go-sdk everything-server's
// test_input_required_result_elicitation on c: it must answer
// input_required with its own key "user_name", and the retry with that
// answer and its requestState must come back with the name. where names
// the connection in a failure.
func userNameRoundTrip(t *testing.T, ctx context.Context, c *conn, where string) {
	t.Helper()
	got := callTool(t, c, "test_input_required_result_elicitation", map[string]any{})
	var asked struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err := json.Unmarshal([]byte(got), &asked); err != nil || asked.ResultType != "input_required" || asked.InputRequests["user_name"] == nil {
		t.Fatalf("test_input_required_result_elicitation %s: %s", where, got)
	}
	raw, err := c.request(ctx, "tools/call", map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{},
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}},
		"requestState":   asked.RequestState})
	if err != nil || !strings.Contains(string(raw), "Alice") {
		t.Fatalf("retry with inputResponses %s: %s, %v", where, raw, err)
	}
}
