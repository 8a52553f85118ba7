package core

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcp-router/mcp-router/backend/approval"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// otlpReceiver is an OTLP/HTTP trace receiver: it decodes what the
// router's exporter posts to /v1/traces with the OTLP protobuf types and
// keeps the spans, and the raw bodies (to search for what must not be
// there).
type otlpReceiver struct {
	url   string
	mu    sync.Mutex
	spans []*tracepb.Span
	raw   [][]byte
}

func startOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rc := &otlpReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("the exporter posted %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			t.Errorf("the exporter's body is not an OTLP ExportTraceServiceRequest: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.raw = append(rc.raw, b)
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				rc.spans = append(rc.spans, ss.GetSpans()...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	rc.url = srv.URL
	return rc
}

// trace returns the spans of one trace id (hex).
func (rc *otlpReceiver) trace(traceID string) []*tracepb.Span {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range rc.spans {
		if hex.EncodeToString(s.GetTraceId()) == traceID {
			out = append(out, s)
		}
	}
	return out
}

func (rc *otlpReceiver) all() ([]*tracepb.Span, [][]byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]*tracepb.Span(nil), rc.spans...), append([][]byte(nil), rc.raw...)
}

func spanNamed(spans []*tracepb.Span, name string) *tracepb.Span {
	for _, s := range spans {
		if s.GetName() == name {
			return s
		}
	}
	return nil
}

func attrOf(s *tracepb.Span, key string) string {
	for _, a := range s.GetAttributes() {
		if a.GetKey() == key {
			v := a.GetValue()
			if sv := v.GetStringValue(); sv != "" {
				return sv
			}
			return v.String()
		}
	}
	return ""
}

// seen is what the upstream received: each request's traceparent header
// and the traceparent and tracestate of its params._meta.
type seen struct {
	header, meta, metaState string
	method                  string
}

// recordingUpstream puts a reverse proxy that records what reaches the
// upstream in front of the go-sdk everything-server over HTTP.
func recordingUpstream(t *testing.T, name string) (spec.Server, func() []seen) {
	t.Helper()
	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=false")
	target, _ := url.Parse("http://" + addr)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var m struct {
				Method string `json:"method"`
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			_ = json.Unmarshal(b, &m)
			s := seen{header: r.Header.Get("traceparent"), method: m.Method}
			s.meta, _ = m.Params.Meta["traceparent"].(string)
			s.metaState, _ = m.Params.Meta["tracestate"].(string)
			mu.Lock()
			got = append(got, s)
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	sp := spec.Server{Name: name, Transport: spec.HTTP, URL: srv.URL + "/mcp", Enabled: true, PrefixMode: spec.PrefixAlways}
	sp.Normalize()
	return sp, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), got...)
	}
}

// tracedRouter starts a router whose otelEndpoint setting names rc, set
// before the start as a user would (the setting is read at start).
func tracedRouter(t *testing.T, rc *otlpReceiver, defs []spec.Server) *endpoint {
	t.Helper()
	return tracedRouterIn(t, t.TempDir(), rc, defs)
}

func tracedRouterIn(t *testing.T, dir string, rc *otlpReceiver, defs []spec.Server) *endpoint {
	t.Helper()
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Settings.Set(context.Background(), settings.KeyOTelEndpoint, rc.url); err != nil {
		t.Fatal(err)
	}
	if c.Tracer != nil {
		t.Fatal("a tracer before any endpoint was configured")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	ep := serve(t, dir, defs, true)
	if ep.core.Tracer == nil {
		t.Fatal("no tracer with otelEndpoint set")
	}
	return ep
}

// modernCall posts a 2026-07-28 tools/call with extra _meta and headers.
func modernCall(t *testing.T, url, tool string, args, meta map[string]any, header map[string]string) string {
	t.Helper()
	m := map[string]any{
		mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "modern-client", "version": "1"},
		mcp.MetaKeyClientCapabilities: map[string]any{},
	}
	for k, v := range meta {
		m[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args, "_meta": m}})
	h := map[string]string{mcp.HeaderProtocolVersion: mcp.ProtocolVersion20260728, mcp.HeaderMethod: "tools/call", mcp.HeaderName: tool}
	for k, v := range header {
		h[k] = v
	}
	resp, out := post(t, url, body, h)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("tools/call %s: HTTP %d %s", tool, resp.StatusCode, out)
	}
	return out
}

func waitForTool(t *testing.T, ep *endpoint, tool string) {
	t.Helper()
	testpeers.Eventually(t, 20*time.Second, "tool "+tool, func() bool {
		_, _, ok := ep.core.Gateway.ToolRoute(tool)
		return ok
	})
}

func flushed(t *testing.T, ep *endpoint, rc *otlpReceiver, traceID string, names ...string) []*tracepb.Span {
	t.Helper()
	var spans []*tracepb.Span
	testpeers.Eventually(t, 10*time.Second, "the spans "+strings.Join(names, ", "), func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = ep.core.Tracer.Flush(ctx)
		spans = rc.trace(traceID)
		for _, n := range names {
			if spanNamed(spans, n) == nil {
				return false
			}
		}
		return true
	})
	return spans
}

// A 2026-07-28 call with a W3C traceparent in params._meta, through a real
// router to the go-sdk everything-server over HTTP: the router's spans,
// exported over OTLP/HTTP and decoded with the OTLP protobuf types,
// continue the client's trace (the request's span is the child of the
// client's span), each step and the upstream request have spans under it,
// and the upstream got the same trace id, with the router's upstream span
// as parent, in its _meta and in its traceparent header. The call's
// arguments (a secret) appear nowhere in what was exported. Before this
// change nothing was exported, and the upstream got the client's own
// traceparent (not the router's span) in _meta and no header.
func TestTracesContinueTheClientsTraceToTheUpstream(t *testing.T) {
	rc := startOTLPReceiver(t)
	up, upstreamSaw := recordingUpstream(t, "goev")
	ep := tracedRouter(t, rc, []spec.Server{up})
	tool := "goev__test_simple_text"
	waitForTool(t, ep, tool)

	const traceID, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	const secret = "sk-live-SECRET-0123456789"
	out := modernCall(t, ep.url, tool, map[string]any{"password": secret},
		map[string]any{"traceparent": "00-" + traceID + "-" + clientSpan + "-01", "tracestate": "vendor=abc"}, nil)
	if !strings.Contains(out, `"result"`) {
		t.Fatalf("the call: %s", out)
	}
	spans := flushed(t, ep, rc, traceID, pipeline.SpanPrefix+"tools/call", pipeline.SpanUpstream,
		pipeline.SpanStepPrefix+"identity", pipeline.SpanStepPrefix+"policy", pipeline.SpanStepPrefix+"hooks")
	req := spanNamed(spans, pipeline.SpanPrefix+"tools/call")
	if got := hex.EncodeToString(req.GetParentSpanId()); got != clientSpan {
		t.Errorf("the request's span has parent %q, want the client's span %s", got, clientSpan)
	}
	if req.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("the request's span is of kind %v", req.GetKind())
	}
	for k, want := range map[string]string{pipeline.AttrMethod: "tools/call", pipeline.AttrTool: tool,
		pipeline.AttrServer: "goev", pipeline.AttrStatus: "ok"} {
		if got := attrOf(req, k); got != want {
			t.Errorf("the request's span: %s = %q, want %q", k, got, want)
		}
	}
	upSpan := spanNamed(spans, pipeline.SpanUpstream)
	for _, s := range spans {
		if s != req && !bytes.Equal(s.GetParentSpanId(), req.GetSpanId()) {
			t.Errorf("span %s is not a child of the request's span", s.GetName())
		}
	}
	if upSpan.GetKind() != tracepb.Span_SPAN_KIND_CLIENT || attrOf(upSpan, pipeline.AttrTransport) != "http" || attrOf(upSpan, pipeline.AttrServer) != "goev" {
		t.Errorf("the upstream span: kind %v, attributes %v", upSpan.GetKind(), upSpan.GetAttributes())
	}
	want := "00-" + traceID + "-" + hex.EncodeToString(upSpan.GetSpanId()) + "-01"
	var call *seen
	for _, s := range upstreamSaw() {
		if s.method == "tools/call" {
			call = &s
		}
	}
	if call == nil {
		t.Fatal("the upstream got no tools/call")
	}
	if call.meta != want || call.header != want {
		t.Errorf("the upstream got traceparent %q in _meta and %q as header, want %q", call.meta, call.header, want)
	}
	if call.metaState != "vendor=abc" {
		t.Errorf("the upstream got tracestate %q", call.metaState)
	}
	all, raw := rc.all()
	for _, b := range raw {
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("password")) {
			t.Fatalf("the exported spans carry the call's arguments")
		}
	}
	for _, s := range all {
		for _, a := range s.GetAttributes() {
			if strings.Contains(a.GetValue().String(), secret) {
				t.Errorf("span %s attribute %s carries the secret", s.GetName(), a.GetKey())
			}
		}
	}
}

// A 2025-11-25 client's traceparent HTTP header is continued the same way
// (the header of its POST; its _meta has none).
func TestTracesContinueTheHTTPHeader(t *testing.T) {
	rc := startOTLPReceiver(t)
	up, upstreamSaw := recordingUpstream(t, "goev")
	ep := tracedRouter(t, rc, []spec.Server{up})
	tool := "goev__test_simple_text"
	waitForTool(t, ep, tool)
	const traceID, clientSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	tr, err := transport.NewStreamableHTTP(ep.url, transport.WithHTTPHeaders(map[string]string{
		"traceparent": "00-" + traceID + "-" + clientSpan + "-01"}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	spans := flushed(t, ep, rc, traceID, pipeline.SpanPrefix+"tools/call", pipeline.SpanUpstream,
		pipeline.SpanPrefix+"tools/list", pipeline.SpanListMerge)
	list := spanNamed(spans, pipeline.SpanPrefix+"tools/list")
	merged := false
	for _, s := range spans {
		merged = merged || s.GetName() == pipeline.SpanListMerge && bytes.Equal(s.GetParentSpanId(), list.GetSpanId())
	}
	if !merged || hex.EncodeToString(list.GetParentSpanId()) != clientSpan {
		t.Errorf("no list merge under the list's span (%v), or the list's span not under the client's", merged)
	}
	upSpan := spanNamed(spans, pipeline.SpanUpstream)
	want := "00-" + traceID + "-" + hex.EncodeToString(upSpan.GetSpanId()) + "-01"
	found := false
	for _, s := range upstreamSaw() {
		if s.method == "tools/call" {
			found = true
			if s.header != want || s.meta != want {
				t.Errorf("the upstream got %q (header) and %q (_meta), want %q", s.header, s.meta, want)
			}
		}
	}
	if !found {
		t.Fatal("the upstream got no tools/call")
	}
}

// Attack: a client's hostile trace context — a huge traceparent, malformed
// ones, a huge tracestate — is ignored: the router's span starts a trace
// of its own, and the upstream gets the router's traceparent, never the
// client's bytes.
func TestTracesIgnoreAHostileTraceContext(t *testing.T) {
	rc := startOTLPReceiver(t)
	up, upstreamSaw := recordingUpstream(t, "goev")
	ep := tracedRouter(t, rc, []spec.Server{up})
	tool := "goev__test_simple_text"
	waitForTool(t, ep, tool)
	const tid = "4bf92f3577b34da6a3ce929d0e0e4736"
	huge := "01-" + tid + "-00f067aa0ba902b7-01-" + strings.Repeat("x", 200<<10)
	hostile := []map[string]any{
		{"traceparent": huge},
		{"traceparent": "00-" + tid + "-00f067aa0ba902b7-01", "tracestate": "a=" + strings.Repeat("b", 100<<10)},
		{"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"},
		{"traceparent": "00-" + tid + "-0000000000000000-01"},
		{"traceparent": "ff-" + tid + "-00f067aa0ba902b7-01"},
		{"traceparent": "00-" + strings.ToUpper(tid) + "-00f067aa0ba902b7-01"},
		{"traceparent": "00-" + tid + "-00f067aa0ba902b7-01\r\nX-Evil: 1"},
		{"traceparent": map[string]any{"nested": tid}},
	}
	for i, meta := range hostile {
		before := len(upstreamSaw())
		modernCall(t, ep.url, tool, nil, meta, nil)
		var call *seen
		for _, s := range upstreamSaw()[before:] {
			if s.method == "tools/call" {
				call = &s
			}
		}
		if call == nil {
			t.Fatalf("case %d: the upstream got no tools/call", i)
		}
		wantState := ""
		if i == 1 {
			// The traceparent is fine; only the tracestate is dropped.
			if !strings.Contains(call.meta, tid) {
				t.Errorf("case %d: a valid traceparent beside a huge tracestate was not continued: %q", i, call.meta)
			}
		} else if strings.Contains(call.meta, tid) || strings.Contains(call.header, tid) || strings.Contains(call.meta, "0000000000000000-") {
			t.Errorf("case %d: the hostile trace context went on: %q / %q", i, call.meta, call.header)
		}
		if call.metaState != wantState {
			t.Errorf("case %d: the upstream got tracestate of %d bytes", i, len(call.metaState))
		}
		if len(call.meta) != 55 || call.header != call.meta {
			t.Errorf("case %d: the upstream got traceparent %q / %q, want the router's own", i, call.meta, call.header)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = ep.core.Tracer.Flush(ctx)
	_, raw := rc.all()
	for _, b := range raw {
		if bytes.Contains(b, []byte("xxxxxxxxxx")) || bytes.Contains(b, []byte("bbbbbbbbbb")) {
			t.Fatal("the exported spans carry the hostile trace context")
		}
	}
}

// Without an endpoint there is no tracer, and the chain is built without
// spans; a client's valid traceparent still reaches the upstream (checked
// and rewritten), a malformed one does not.
func TestNoTracerWithoutEndpoint(t *testing.T) {
	up, upstreamSaw := recordingUpstream(t, "goev")
	ep := serve(t, t.TempDir(), []spec.Server{up}, true)
	if ep.core.Tracer != nil {
		t.Fatal("a tracer without any endpoint")
	}
	tool := "goev__test_simple_text"
	waitForTool(t, ep, tool)
	valid := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, tc := range []struct{ sent, want string }{
		{valid, valid},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" + strings.Repeat("-x", 1000), ""},
		{"junk", ""},
	} {
		before := len(upstreamSaw())
		modernCall(t, ep.url, tool, nil, map[string]any{"traceparent": tc.sent}, nil)
		for _, s := range upstreamSaw()[before:] {
			if s.method == "tools/call" && (s.meta != tc.want || s.header != "") {
				t.Errorf("sent %.60q: the upstream got %q in _meta and %q as header, want %q", tc.sent, s.meta, s.header, tc.want)
			}
		}
	}
}

// A call that waits for a person's approval: the wait has its own span,
// a child of the policy step's span, naming the rule and the answer.
func TestTracesShowTheApprovalWait(t *testing.T) {
	rc := startOTLPReceiver(t)
	dir := t.TempDir()
	src := "policies:\n  - name: guard\n    match: {tools: [\"delete_*\"]}\n    require: {human_approval: true, approval_timeout_seconds: 30}\n"
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := tracedRouterIn(t, dir, rc, []spec.Server{testmcp.Server("notes")})
	ui := attachUI(t, ep.core.Approvals)
	c := approvalClient(t, ep.url, nil, mcp.ClientCapabilities{})
	const traceID = "5bf92f3577b34da6a3ce929d0e0e4736"
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "notes__delete_note", Arguments: map[string]any{"id": "a1"},
		Meta: &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}}}}
	got := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), req)
		got <- err
	}()
	p := ui.next(t, 1)[0]
	time.Sleep(50 * time.Millisecond)
	if err := ep.core.Approvals.Decide(p.ID, approval.Approve); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	spans := flushed(t, ep, rc, traceID, pipeline.SpanApprovalWait, pipeline.SpanStepPrefix+"policy", pipeline.SpanUpstream)
	wait, pol := spanNamed(spans, pipeline.SpanApprovalWait), spanNamed(spans, pipeline.SpanStepPrefix+"policy")
	if !bytes.Equal(wait.GetParentSpanId(), pol.GetSpanId()) {
		t.Error("the approval wait is not a child of the policy step")
	}
	if attrOf(wait, pipeline.AttrPolicyRule) != "guard" || attrOf(wait, pipeline.AttrApproved) != "bool_value:true" {
		t.Errorf("approval span attributes %v", wait.GetAttributes())
	}
	if d := time.Duration(wait.GetEndTimeUnixNano() - wait.GetStartTimeUnixNano()); d < 50*time.Millisecond {
		t.Errorf("the approval span lasted %v", d)
	}
	if up := spanNamed(spans, pipeline.SpanUpstream); up.GetStartTimeUnixNano() < pol.GetEndTimeUnixNano() {
		t.Error("the policy span runs past the upstream call's start")
	}
}

// A legacy SSE upstream gets the router's traceparent too: in _meta and as
// the header of the POST that carries the call.
func TestTracesReachASSEUpstream(t *testing.T) {
	rc := startOTLPReceiver(t)
	up := server.NewMCPServer("sseup", "1", server.WithToolCapabilities(false))
	up.AddTool(mcp.NewTool("echo", mcp.WithString("message")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("message", "")), nil
	})
	var mu sync.Mutex
	var got []seen
	var sse *server.SSEServer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var m struct {
				Method string `json:"method"`
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			_ = json.Unmarshal(b, &m)
			s := seen{header: r.Header.Get("traceparent"), method: m.Method}
			s.meta, _ = m.Params.Meta["traceparent"].(string)
			mu.Lock()
			got = append(got, s)
			mu.Unlock()
		}
		sse.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	sse = server.NewSSEServer(up, server.WithBaseURL(srv.URL))
	def := spec.Server{Name: "sseup", Transport: spec.SSE, URL: srv.URL + "/sse", Enabled: true, PrefixMode: spec.PrefixAlways}
	def.Normalize()
	ep := tracedRouter(t, rc, []spec.Server{def})
	waitForTool(t, ep, "sseup__echo")
	const traceID = "6bf92f3577b34da6a3ce929d0e0e4736"
	modernCall(t, ep.url, "sseup__echo", map[string]any{"message": "hi"},
		map[string]any{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}, nil)
	spans := flushed(t, ep, rc, traceID, pipeline.SpanUpstream)
	upSpan := spanNamed(spans, pipeline.SpanUpstream)
	if attrOf(upSpan, pipeline.AttrTransport) != "sse" {
		t.Errorf("transport %q", attrOf(upSpan, pipeline.AttrTransport))
	}
	want := "00-" + traceID + "-" + hex.EncodeToString(upSpan.GetSpanId()) + "-01"
	mu.Lock()
	defer mu.Unlock()
	calls := 0
	for _, s := range got {
		if s.method == "tools/call" {
			calls++
			if s.header != want || s.meta != want {
				t.Errorf("the SSE upstream got %q (header) and %q (_meta), want %q", s.header, s.meta, want)
			}
		}
	}
	if calls != 1 {
		t.Errorf("%d tools/call reached the SSE upstream", calls)
	}
}
