package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/tracing"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

type memLog struct {
	mu      sync.Mutex
	entries []store.RequestLog
}

func (m *memLog) Log(e store.RequestLog) {
	m.mu.Lock()
	m.entries = append(m.entries, e)
	m.mu.Unlock()
}

func (m *memLog) find(method, target string) (store.RequestLog, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.entries {
		if e.Method == method && e.Target == target {
			return e, true
		}
	}
	return store.RequestLog{}, false
}

// rig is a gateway over real upstreams, served over real HTTP.
type rig struct {
	ups *upstream.Service
	gw  *Gateway
	url string
	srv *httptest.Server
	log *memLog
}

type rigOptions struct {
	callerFrom  func(context.Context) Caller
	backoffBase time.Duration // first retry delay after a loss; default 50 ms
	// allClientSide declares elicitation and roots to the upstreams too,
	// not only sampling (upstreams then offer the tools that use them).
	allClientSide bool
	sessions      SessionLimits // zero fields: the gateway's defaults
	// auth wraps the HTTP endpoint, as the router's token check does.
	auth  func(http.Handler) http.Handler
	hooks pipeline.HookEngine
	// logger is the gateway's; nil: logrus's standard logger.
	logger logrus.FieldLogger
	// heldTools is Options.HeldTools.
	heldTools func(server string) map[string]bool
	// policy and asksClient are the gateway's Options.Policy and
	// Options.AsksClient; nil: none.
	policy     func() pipeline.Step
	asksClient func(c Caller, server, item, target string) bool
	tasks      TaskLimits // zero fields: the gateway's defaults
	// listPageSize is Options.ListPageSize (0: the default).
	listPageSize int
	// tracer is Options.Tracer (nil: traces off).
	tracer *tracing.Tracer
	// gateUnlocks is Options.GateUnlocks (nil: in process).
	gateUnlocks gate.SharedUnlocks
	// cluster is Options.Cluster; the rig publishes its address.
	cluster *cluster.Cluster
	// forwardHeaders is Options.ForwardHeaders.
	forwardHeaders func(context.Context) http.Header
	// builtins is upstream.Options.Builtins: in-process upstreams.
	builtins map[string]*server.MCPServer
}

func newRig(t testing.TB, defs []spec.Server, ro rigOptions) *rig {
	t.Helper()
	r := &rig{log: &memLog{}}
	var gw *Gateway
	backoffBase, backoffMax := 50*time.Millisecond, time.Duration(0) // 0: the default cap
	if ro.backoffBase > 0 {
		backoffBase, backoffMax = ro.backoffBase, ro.backoffBase
	}
	cs := upstream.ClientSide{
		Sampling: func(ctx context.Context, s string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return gw.ClientSide().Sampling(ctx, s, req)
		},
	}
	if ro.allClientSide {
		cs.Elicitation = func(ctx context.Context, s string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			return gw.ClientSide().Elicitation(ctx, s, req)
		}
		cs.Roots = func(ctx context.Context, s string, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			return gw.ClientSide().Roots(ctx, s, req)
		}
	}
	r.ups = upstream.New(upstream.Options{
		PingInterval:       time.Hour,
		BackoffBase:        backoffBase,
		BackoffMax:         backoffMax,
		OnNotificationFrom: func(s string, from upstream.Origin, n mcp.JSONRPCNotification) { gw.NotifyFrom(s, from, n) },
		ClientSide:         cs,
		Builtins:           ro.builtins,
	})
	gw = New(r.ups, Options{RequestLog: r.log, CallerFrom: ro.callerFrom, Debounce: 10 * time.Millisecond,
		Sessions: func() SessionLimits { return ro.sessions }, Hooks: ro.hooks, Logger: ro.logger,
		Policy: ro.policy, AsksClient: ro.asksClient, Tasks: func() TaskLimits { return ro.tasks }, HeldTools: ro.heldTools,
		ListPageSize: ro.listPageSize, Tracer: ro.tracer, GateUnlocks: ro.gateUnlocks,
		Cluster: ro.cluster, ForwardHeaders: ro.forwardHeaders})
	r.gw = gw
	gw.Start()
	t.Cleanup(func() { gw.Close(); r.ups.Close() })
	if err := r.ups.Sync(defs); err != nil {
		t.Fatal(err)
	}
	for _, d := range defs {
		if d.Enabled {
			r.waitPublished(t, d.Name)
		}
	}
	srv := httptest.NewServer(gw.HTTPHandler(ro.auth))
	t.Cleanup(srv.Close)
	r.srv = srv
	r.url = srv.URL + PathMCP
	if ro.cluster != nil {
		ro.cluster.Start()
		ro.cluster.SetListenAddr(srv.Listener.Addr().String())
		t.Cleanup(ro.cluster.Close)
	}
	return r
}

// waitPublished waits until the gateway offers tools of the named server,
// and mcp-go has them too: a rebuild sets g.tools first and then hands the
// lists to mcp-go, which tells every session that they changed. A session
// opened in between gets those list_changed notifications queued, which
// sends its first call down mcp-go's path (fastPathEligible); rebuild holds
// rebuildMu throughout, so seeing the tools under it means it is done.
func (r *rig) waitPublished(t testing.TB, server string) {
	t.Helper()
	testpeers.Eventually(t, 30*time.Second, server+"'s tools in the gateway", func() bool {
		r.gw.rebuildMu.Lock()
		defer r.gw.rebuildMu.Unlock()
		r.gw.mu.RLock()
		defer r.gw.mu.RUnlock()
		for _, un := range r.gw.tools {
			if un.Server == server {
				return true
			}
		}
		return false
	})
}

// waitNothingQueued waits until no notification is queued for any client
// session: the sessions' GET streams have taken them.
func (r *rig) waitNothingQueued(t testing.TB) {
	t.Helper()
	testpeers.Eventually(t, 10*time.Second, "the queued notifications taken by the GET streams", func() bool {
		empty := true
		r.gw.fast.sessions.m.Range(func(_, v any) bool {
			empty = len(v.(server.ClientSession).NotificationChannel()) == 0
			return empty
		})
		return empty
	})
}

func everything(t *testing.T, name string, mode spec.PrefixMode) spec.Server {
	s := spec.Server{Name: name, Command: testpeers.Everything(t), Args: []string{"stdio"}, Enabled: true, PrefixMode: mode}
	s.Normalize()
	return s
}

type clientOptions struct {
	sampling    client.SamplingHandler
	roots       client.RootsHandler
	elicitation client.ElicitationHandler
	onNote      func(mcp.JSONRPCNotification)
	headers     map[string]string
	noGET       bool // hold no standalone GET stream
}

func connect(t *testing.T, url string, co clientOptions) *client.Client {
	t.Helper()
	topts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(co.headers)}
	if !co.noGET {
		topts = append(topts, transport.WithContinuousListening())
	}
	tr, err := transport.NewStreamableHTTP(url, topts...)
	if err != nil {
		t.Fatal(err)
	}
	opts := []client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125)}
	if co.sampling != nil {
		opts = append(opts, client.WithSamplingHandler(co.sampling))
	}
	if co.roots != nil {
		opts = append(opts, client.WithRootsHandler(co.roots))
	}
	if co.elicitation != nil {
		opts = append(opts, client.WithElicitationHandler(co.elicitation))
	}
	c := client.NewClient(tr, opts...)
	if co.onNote != nil {
		c.OnNotification(co.onNote)
	}
	// The listening stream lives on Start's context: never a short-lived one.
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "test", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	return names
}

func call(c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
}

func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestAggregatesAndRoutesEverything(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	c := connect(t, r.url, clientOptions{})
	names := toolNames(t, c)
	if !contains(names, "everything__echo") || !contains(names, "everything__get-sum") {
		t.Fatalf("tools = %v", names)
	}
	res, err := call(c, "everything__echo", map[string]any{"message": "through the router"})
	if err != nil || !strings.Contains(text(res), "through the router") {
		t.Fatalf("echo: %v %v", res, err)
	}
	res, err = call(c, "everything__get-sum", map[string]any{"a": 2, "b": 3})
	if err != nil || !strings.Contains(text(res), "5") {
		t.Fatalf("get-sum: %+v %v", res, err)
	}
	// Image content and structuredContent pass through.
	res, err = call(c, "everything__get-tiny-image", nil)
	if err != nil {
		t.Fatal(err)
	}
	var sawImage bool
	for _, part := range res.Content {
		if img, ok := part.(mcp.ImageContent); ok && img.MIMEType == "image/png" && img.Data != "" {
			sawImage = true
		}
	}
	if !sawImage {
		t.Errorf("no image content in %+v", res.Content)
	}
	res, err = call(c, "everything__get-structured-content", map[string]any{"location": "New York"})
	if err != nil || res.StructuredContent == nil && len(res.RawStructuredContent) == 0 {
		t.Errorf("structured content lost: %+v %v", res, err)
	}
	// Resources and prompts.
	rl, err := c.ListResources(context.Background(), mcp.ListResourcesRequest{})
	if err != nil || len(rl.Resources) == 0 {
		t.Fatalf("resources: %v %v", rl, err)
	}
	rr, err := c.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: rl.Resources[0].URI}})
	if err != nil || len(rr.Contents) == 0 {
		t.Errorf("read %s: %v %v", rl.Resources[0].URI, rr, err)
	}
	pl, err := c.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
	if err != nil || len(pl.Prompts) == 0 || !strings.HasPrefix(pl.Prompts[0].Name, "everything__") {
		t.Fatalf("prompts: %+v %v", pl, err)
	}
	// The request log saw the call, with the upstream server.
	testpeers.Eventually(t, 2*time.Second, "the echo call in the log", func() bool {
		e, ok := r.log.find("tools/call", "everything__echo")
		return ok && e.Server == "everything" && e.Status == store.StatusOK
	})
}

func TestSchemasAreForwardedVerbatim(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	cat, _ := r.ups.Catalog("everything")
	var upstreamEcho json.RawMessage
	for _, tool := range cat.Tools {
		if tool.Name == "echo" {
			var fields map[string]json.RawMessage
			_ = json.Unmarshal(tool.Raw, &fields)
			upstreamEcho = fields["inputSchema"]
		}
	}
	c := connect(t, r.url, clientOptions{})
	// Read the wire JSON: mcp-go's typed client would itself drop keywords.
	resp, err := c.GetTransport().SendRequest(context.Background(), transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId("raw-1"), Method: "tools/list"})
	if err != nil || resp.Error != nil {
		t.Fatalf("raw tools/list: %v %+v", err, resp)
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(resp.Result, &list); err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name == "everything__echo" {
			var a, b any
			_ = json.Unmarshal(tool.InputSchema, &a)
			_ = json.Unmarshal(upstreamEcho, &b)
			if fmt.Sprint(a) != fmt.Sprint(b) || !strings.Contains(string(tool.InputSchema), `"$schema"`) {
				t.Errorf("schema changed:\nupstream %s\nrouter   %s", upstreamEcho, tool.InputSchema)
			}
			return
		}
	}
	t.Fatal("everything__echo not listed")
}

func TestCollidingNamesAreRenamedNotLost(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "one", spec.PrefixNever), everything(t, "two", spec.PrefixNever)}, rigOptions{})
	c := connect(t, r.url, clientOptions{})
	names := toolNames(t, c)
	if !contains(names, "echo") || !contains(names, "two__echo") {
		t.Fatalf("tools = %v", names)
	}
	if s, tool, _ := r.gw.ToolRoute("two__echo"); s != "two" || tool != "echo" {
		t.Errorf("two__echo routes to %s/%s", s, tool)
	}
	found := false
	for _, col := range r.gw.Collisions() {
		if col.Kind == "tool" && col.Name == "echo" && col.Winner == "one" && col.Loser == "two" {
			found = true
		}
	}
	if !found {
		t.Errorf("collision not reported: %+v", r.gw.Collisions())
	}
	if res, err := call(c, "two__echo", map[string]any{"message": "x"}); err != nil || !strings.Contains(text(res), "x") {
		t.Errorf("renamed tool call: %v %v", res, err)
	}
}

// Two servers offering the same resource URI and the same URI template:
// the first (by name) serves each, and both collisions are recorded, the
// template's as the resource's.
func TestCollidingResourcesAndTemplatesAreRecorded(t *testing.T) {
	a, b := recorder("a", false), recorder("b", false)
	a.Env["MCPR_REC_SCHEME"], b.Env["MCPR_REC_SCHEME"] = "shared", "shared"
	r := newRig(t, []spec.Server{a, b}, rigOptions{})
	want := map[string]Collision{
		"resource": {Kind: "resource", Name: "shared://doc", Winner: "a", Loser: "b", Item: "shared://doc"},
		"template": {Kind: "template", Name: "shared://items/{id}", Winner: "a", Loser: "b", Item: "shared://items/{id}"},
	}
	for _, col := range r.gw.Collisions() {
		if w, ok := want[col.Kind]; ok && col == w {
			delete(want, col.Kind)
		}
	}
	if len(want) != 0 {
		t.Errorf("collisions not recorded: %+v; got %+v", want, r.gw.Collisions())
	}
	c := connect(t, r.url, clientOptions{})
	ctx := context.Background()
	templates, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(templates.ResourceTemplates) != 1 {
		t.Fatalf("templates %+v, %v", templates, err)
	}
	if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "shared://items/7"}}); err != nil {
		t.Fatal(err)
	}
	// The recorder notes each request on its stderr, which the console
	// reads apart from the answer on stdout: a's note may come just after
	// the answer (a read routed to b instead never reaches a, and this
	// fails).
	testpeers.Eventually(t, 10*time.Second, "a's console noting the template's read", func() bool {
		return slices.Contains(received(t, r, "a"), "resources/read")
	})
	if slices.Contains(received(t, r, "b"), "resources/read") {
		t.Errorf("the template's read went to %v / %v, want a only", received(t, r, "a"), received(t, r, "b"))
	}
}

func TestScopedCallerSeesAndCallsOnlyItsServers(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "one", spec.PrefixAlways), everything(t, "two", spec.PrefixAlways)},
		rigOptions{callerFrom: func(context.Context) Caller {
			return Caller{Name: "scoped", Allows: func(s string) bool { return s == "one" }}
		}})
	c := connect(t, r.url, clientOptions{})
	for _, n := range toolNames(t, c) {
		if strings.HasPrefix(n, "two__") {
			t.Fatalf("scoped caller sees %s", n)
		}
	}
	_, errOther := call(c, "two__echo", map[string]any{"message": "x"})
	_, errMissing := call(c, "nosuch__tool", nil)
	if errOther == nil || errMissing == nil {
		t.Fatalf("out-of-scope call: %v; unknown tool: %v", errOther, errMissing)
	}
	if strings.Replace(errOther.Error(), "two__echo", "X", 1) != strings.Replace(errMissing.Error(), "nosuch__tool", "X", 1) {
		t.Errorf("out-of-scope is distinguishable from unknown:\n%v\n%v", errOther, errMissing)
	}
	if _, err := call(c, "one__echo", map[string]any{"message": "x"}); err != nil {
		t.Errorf("in-scope call failed: %v", err)
	}
}

func TestListChangedWhenAServerArrives(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "one", spec.PrefixAlways)}, rigOptions{})
	changed := make(chan struct{}, 8)
	c := connect(t, r.url, clientOptions{onNote: func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			changed <- struct{}{}
		}
	}})
	toolNames(t, c)
	_ = r.ups.Sync([]spec.Server{everything(t, "one", spec.PrefixAlways), everything(t, "two", spec.PrefixAlways)})
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no tools/list_changed after a server was added")
	}
	r.waitPublished(t, "two")
	if !contains(toolNames(t, c), "two__echo") {
		t.Fatal("two__echo not listed after the server was added")
	}
}

func TestProgressIsForwardedToTheCaller(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	var mu sync.Mutex
	var tokens []any
	c := connect(t, r.url, clientOptions{onNote: func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			mu.Lock()
			tokens = append(tokens, n.Params.AdditionalFields["progressToken"])
			mu.Unlock()
		}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "everything__trigger-long-running-operation",
		Arguments: map[string]any{"duration": 1, "steps": 3}, Meta: &mcp.Meta{ProgressToken: "my-token"}}}
	if _, err := c.CallTool(ctx, req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tokens) == 0 {
		t.Fatal("no progress notification reached the client")
	}
	for _, tok := range tokens {
		if tok != "my-token" {
			t.Errorf("progress token %v, want the client's own", tok)
		}
	}
}

type fakeLLM struct{ calls int }

func (f *fakeLLM) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	f.calls++
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.TextContent{Type: "text", Text: "sampled by the test client"}},
		Model:           "test-model", StopReason: "endTurn",
	}, nil
}

func TestSamplingRoundTripsToTheCallingClient(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	llm := &fakeLLM{}
	c := connect(t, r.url, clientOptions{sampling: llm})
	names := toolNames(t, c)
	tool := ""
	for _, n := range names {
		if strings.Contains(n, "sampling") && !strings.Contains(n, "async") {
			tool = n
		}
	}
	if tool == "" {
		t.Fatalf("server-everything offered no sampling tool: %v", names)
	}
	// On mcp-go's path, then on the fast path (a client that declared
	// sampling takes it): the upstream's request reaches this client both
	// times.
	for i, fast := range []bool{false, true} {
		r.gw.SetFastPath(fast)
		before := r.gw.fast.served.Load()
		res, err := call(c, tool, map[string]any{"prompt": "hello", "maxTokens": 10})
		if err != nil {
			t.Fatal(err)
		}
		if llm.calls != i+1 || !strings.Contains(text(res), "sampled by the test client") {
			t.Errorf("fast path %v: sampling: %d calls, result %q", fast, llm.calls, text(res))
		}
		if served := r.gw.fast.served.Load() - before; fast && served != 1 || !fast && served != 0 {
			t.Errorf("fast path %v: the fast path served %d calls", fast, served)
		}
	}
}

type fakeRoots struct{ calls atomic.Int32 }

func (f *fakeRoots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	f.calls.Add(1)
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work/fast-path-root", Name: "the test root"}}}, nil
}

type fakeElicitor struct{ calls atomic.Int32 }

func (f *fakeElicitor) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	f.calls.Add(1)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "Elicited Name", "check": true}}}, nil
}

// A client that declared sampling, roots and elicitation (as Claude Code
// and VS Code do) gets the requests an upstream sends during its call, on
// mcp-go's path and on the fast path alike; for a stdio upstream all three
// take the fast path. Each path gets its own router and upstream, so that
// server-everything, which asks for the roots once per connection, asks
// each time.
func TestServerRequestsReachTheCallingClient(t *testing.T) {
	for _, fast := range []bool{false, true} {
		t.Run(fmt.Sprintf("fast=%v", fast), func(t *testing.T) {
			r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{allClientSide: true})
			r.gw.SetFastPath(fast)
			llm, roots, elicitor := &fakeLLM{}, &fakeRoots{}, &fakeElicitor{}
			c := connect(t, r.url, clientOptions{sampling: llm, roots: roots, elicitation: elicitor})
			served := 0
			callFast := func(tool string, args map[string]any) (*mcp.CallToolResult, error) {
				// server-everything logs as it goes ("Roots updated", and a
				// message every 5 s); one still queued for the session sends
				// the call down mcp-go's path (fastPathEligible), so each call
				// waits for the GET stream to have taken them.
				r.waitNothingQueued(t)
				before := r.gw.fast.served.Load()
				res, err := call(c, tool, args)
				if r.gw.fast.served.Load() > before {
					served++
				} else if fast {
					t.Errorf("%s took mcp-go's path", tool)
				}
				return res, err
			}
			res, err := callFast("everything__get-roots-list", map[string]any{})
			if err != nil || !strings.Contains(text(res), "file:///work/fast-path-root") || roots.calls.Load() == 0 {
				t.Errorf("roots: %d requests, result %v %v", roots.calls.Load(), err, res)
			}
			res, err = callFast("everything__trigger-elicitation-request", map[string]any{})
			if err != nil || !strings.Contains(text(res), "Elicited Name") || elicitor.calls.Load() != 1 {
				t.Errorf("elicitation: %d requests, result %v %v", elicitor.calls.Load(), err, res)
			}
			res, err = callFast("everything__trigger-sampling-request", map[string]any{"prompt": "hello", "maxTokens": 10})
			if err != nil || !strings.Contains(text(res), "sampled by the test client") || llm.calls != 1 {
				t.Errorf("sampling: %d requests, result %v %v", llm.calls, err, res)
			}
			want := 0
			if fast {
				want = 3
			}
			if served != want {
				t.Errorf("the fast path served %d of the calls, want %d", served, want)
			}
		})
	}
}

func TestUpstreamKilledMidCallGivesAnErrorNotAHang(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	c := connect(t, r.url, clientOptions{})
	st, _ := r.ups.Status("everything")
	errs := make(chan error, 1)
	go func() {
		_, err := call(c, "everything__trigger-long-running-operation", map[string]any{"duration": 10, "steps": 2})
		errs <- err
	}()
	time.Sleep(500 * time.Millisecond)
	_ = testpeers.KillProcess(st.PID)
	select {
	case err := <-errs:
		if err == nil || !strings.Contains(err.Error(), "everything: ") {
			t.Errorf("error = %v, want one naming the server", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call hung after its upstream died")
	}
}

func TestDownServerIsAnErrorNamingIt(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	handler := r.gw.callTool(upstreamName{"gone", "echo"})
	_, err := handler(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "gone__echo"}})
	if err == nil || err.Error() != "gone: no such server" {
		t.Errorf("error = %v", err)
	}
}

func TestTimeoutIsResetByProgress(t *testing.T) {
	def := everything(t, "slow", spec.PrefixAlways)
	def.TimeoutSeconds = 1
	r := newRig(t, []spec.Server{def}, rigOptions{})
	c := connect(t, r.url, clientOptions{})
	args := map[string]any{"duration": 3, "steps": 6} // progress every 0.5 s, 3 s in all
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	_, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "slow__trigger-long-running-operation", Arguments: args}})
	if err == nil || !strings.Contains(err.Error(), "slow: timed out") {
		t.Errorf("without progress: error = %v, want a timeout naming the server", err)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "slow__trigger-long-running-operation", Arguments: args,
		Meta: &mcp.Meta{ProgressToken: "p1"}}})
	if err != nil {
		t.Fatalf("with progress the 1 s timeout should keep being reset: %v", err)
	}
	if !strings.Contains(text(res), "ompleted") {
		t.Errorf("result = %q", text(res))
	}
}

// Progress goes on the call's own response stream, ahead of the answer,
// even while the session holds a GET stream: mcp-go (v1.2.1) reads one
// notification channel per session from both, so progress sent through it
// could leave on the GET stream and reach the client after the answer
// (a flaky bridge test showed it: TestProgressArrivesBeforeTheResponse...).
func TestProgressGoesOnTheCallsStreamNotTheGETStream(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	s := newRawHTTP(t, r.url)

	// The session's GET stream, read in the background.
	get, _ := http.NewRequest(http.MethodGet, r.url, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set(server.HeaderKeySessionID, s.sid)
	get.Header.Set("MCP-Protocol-Version", "2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	get = get.WithContext(ctx)
	resp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var mu sync.Mutex
	var onGET []string
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				mu.Lock()
				onGET = append(onGET, data)
				mu.Unlock()
			}
		}
	}()
	time.Sleep(100 * time.Millisecond) // the GET stream waits on the session's channel first

	for round := range 3 {
		status, hdr, body := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"everything__trigger-long-running-operation","arguments":{"duration":0.3,"steps":3},"_meta":{"progressToken":"tok-%d"}}}`, 10+round, round))
		if status != http.StatusOK || hdr.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("round %d: HTTP %d %s: %s", round, status, hdr.Get("Content-Type"), body)
		}
		var progress, answerAt int
		for i, ev := range bytes.Split(bytes.TrimSpace(body), []byte("\n\n")) {
			_, data, _ := bytes.Cut(ev, []byte("data: "))
			switch {
			case bytes.Contains(data, []byte(`"notifications/progress"`)):
				if answerAt > 0 {
					t.Fatalf("round %d: progress after the answer: %s", round, body)
				}
				if !bytes.Contains(data, []byte(fmt.Sprintf(`"progressToken":"tok-%d"`, round))) {
					t.Fatalf("round %d: progress under another token: %s", round, data)
				}
				progress++
			case bytes.Contains(data, []byte(fmt.Sprintf(`"id":%d`, 10+round))):
				answerAt = i
			}
		}
		if progress != 3 || answerAt == 0 {
			t.Fatalf("round %d: %d progress notifications on the call's stream before the answer (at event %d), want 3: %s", round, progress, answerAt, body)
		}
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, data := range onGET {
		if strings.Contains(data, "notifications/progress") {
			t.Fatalf("progress went on the GET stream: %s", data)
		}
	}
}
