package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/tracing"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/cputime"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// rawHTTP is a streamable HTTP session driven with plain POSTs, so tests
// see the exact bytes the router writes. It declares no client
// capabilities, so its plain tools/call requests may take the fast path.
type rawHTTP struct {
	url, sid string
	t        testing.TB
	header   http.Header // sent with every request (the caller's credential)
}

func newRawHTTP(t testing.TB, url string) *rawHTTP {
	t.Helper()
	return newRawHTTPAs(t, url, nil)
}

// newRawHTTPAs initializes a session sending header with every request.
func newRawHTTPAs(t testing.TB, url string, header http.Header) *rawHTTP {
	t.Helper()
	s := &rawHTTP{url: url, t: t, header: header}
	_, hdr, body := s.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.sid = hdr.Get(server.HeaderKeySessionID)
	if s.sid == "" {
		t.Fatalf("no session id; initialize answered %s", body)
	}
	if status, _, body := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", status, body)
	}
	return s
}

func (s *rawHTTP) post(body string) (int, http.Header, []byte) {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	maps.Copy(req.Header, s.header)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set(server.HeaderKeySessionID, s.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func (s *rawHTTP) call(id int, tool, args string) []byte {
	s.t.Helper()
	status, hdr, body := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
	if status == http.StatusOK && hdr.Get("Content-Type") == "text/event-stream" {
		// mcp-go delivered notifications queued for the session first:
		// the answer is the last event (after its id line: the router's
		// streams are resumable).
		events := bytes.Split(bytes.TrimSpace(body), []byte("\n\n"))
		if _, data, ok := bytes.Cut(events[len(events)-1], []byte("data: ")); ok {
			return append(data, '\n')
		}
	}
	if status != http.StatusOK || hdr.Get("Content-Type") != "application/json" {
		s.t.Fatalf("tools/call %s: HTTP %d %s: %s", tool, status, hdr.Get("Content-Type"), body)
	}
	return body
}

type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

func errorOf(t *testing.T, body []byte) rpcError {
	t.Helper()
	var resp struct {
		Error *rpcError `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.Error == nil {
		t.Fatalf("not a JSON-RPC error: %s (%v)", body, err)
	}
	return *resp.Error
}

func brokenDef() spec.Server {
	def := spec.Server{Name: "broken", Command: os.Args[0], Env: map[string]string{"MCPR_FAKE_MODE": "broken"},
		Enabled: true, TimeoutSeconds: 1, PrefixMode: spec.PrefixAlways}
	def.Normalize()
	return def
}

// errorCases are the failures of issue 3: each with the error it must give.
var errorCases = []struct {
	tool     string
	viaFast  bool // the call reaches an upstream, so the fast path serves it
	code     int
	message  string // exact, or a prefix when it ends with "…"
	reason   string
	upstream any
}{
	{"broken__nope", false, -32602, "mcp-router: tool 'broken__nope' not found", pipeline.ReasonUnknownTool, nil},
	{"broken__fail", true, -32050, "broken: upstream error -32050: the tool <failed> & said so", pipeline.ReasonUpstreamError, map[string]any{"detail": float64(7)}},
	{"broken__malformed", true, pipeline.CodeBadResponse, "broken: malformed tools/call result: …", pipeline.ReasonBadResponse, nil},
	{"broken__hang", true, pipeline.CodeTimeout, "broken: timed out: no answer within 1s", pipeline.ReasonTimeout, nil},
	{"broken__crash", true, pipeline.CodeServerDown, "broken: tools/call: process exit status 3", pipeline.ReasonServerDown, nil},
}

func waitRunning(t *testing.T, r *rig, name string) {
	t.Helper()
	testpeers.Eventually(t, 10*time.Second, name+" running", func() bool {
		st, err := r.ups.Status(name)
		return err == nil && st.State == upstream.StateRunning
	})
	r.waitPublished(t, name)
}

// waitRestarted waits until the server came back after its n-th restart.
func waitRestarted(t *testing.T, r *rig, name string, n int) {
	t.Helper()
	testpeers.Eventually(t, 10*time.Second, name+" restarted", func() bool {
		st, err := r.ups.Status(name)
		return err == nil && st.Restarts >= n && st.State == upstream.StateRunning
	})
	r.waitPublished(t, name)
}

func checkError(t *testing.T, path string, got rpcError, tool string, code int, message, reason string, upstream any) {
	t.Helper()
	msgOK := got.Message == message
	if p, ok := strings.CutSuffix(message, "…"); ok {
		msgOK = strings.HasPrefix(got.Message, p)
	}
	server := strings.SplitN(message, ":", 2)[0]
	want := map[string]any{"server": server, "reason": reason}
	if upstream != nil {
		want["upstream"] = upstream
	}
	if got.Code != code || !msgOK || !reflect.DeepEqual(got.Data, want) {
		t.Errorf("%s, %s: got %d %q data %v; want %d %q data %v", path, tool, got.Code, got.Message, got.Data, code, message, want)
	}
}

// Every routing and upstream failure has one format, on the fast path and
// on mcp-go's path byte for byte, and the request log records it.
func TestErrorsHaveOneFormatOverHTTP(t *testing.T) {
	r := newRig(t, []spec.Server{brokenDef()}, rigOptions{})
	s := newRawHTTP(t, r.url)
	for i, c := range errorCases {
		var bodies [2][]byte
		for p, fast := range []bool{true, false} {
			r.gw.SetFastPath(fast)
			waitRunning(t, r, "broken") // the crash case restarts it
			before := r.gw.fast.served.Load()
			bodies[p] = s.call(10*i+p, c.tool, `{}`)
			if served := r.gw.fast.served.Load() - before; served != map[bool]uint64{true: 1, false: 0}[fast && c.viaFast] {
				t.Errorf("%s (fast path %v): the fast path served %d calls", c.tool, fast, served)
			}
			checkError(t, map[bool]string{true: "fast path", false: "mcp-go path"}[fast], errorOf(t, bodies[p]), c.tool, c.code, c.message, c.reason, c.upstream)
			if c.reason == pipeline.ReasonServerDown {
				waitRestarted(t, r, "broken", p+1)
			}
		}
		fast := bytes.Replace(bodies[0], []byte(fmt.Sprintf(`"id":%d,`, 10*i)), []byte(fmt.Sprintf(`"id":%d,`, 10*i+1)), 1)
		if !bytes.Equal(fast, bodies[1]) {
			t.Errorf("%s: the paths differ:\nfast   %s\nmcp-go %s", c.tool, bodies[0], bodies[1])
		}
		msg := errorOf(t, bodies[1]).Message
		testpeers.Eventually(t, 2*time.Second, c.tool+" logged twice with its error", func() bool {
			r.log.mu.Lock()
			defer r.log.mu.Unlock()
			n := 0
			for _, e := range r.log.entries {
				if e.Target == c.tool && e.Status == store.StatusError && e.Error == msg {
					n++
				}
			}
			return n == 2
		})
	}
}

// The same errors over stdio (`mcp-router stdio` serves the gateway's
// mcp-go server with mcp-go's stdio transport, as here).
func TestErrorsHaveOneFormatOverStdio(t *testing.T) {
	r := newRig(t, []spec.Server{brokenDef()}, rigOptions{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = server.NewStdioServer(r.gw.Server()).Listen(ctx, inR, outW) }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	read := func() []byte {
		if !lines.Scan() {
			t.Fatalf("stdio ended: %v", lines.Err())
		}
		return lines.Bytes()
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range errorCases {
		waitRunning(t, r, "broken")
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, i+1, c.tool))
		checkError(t, "stdio", errorOf(t, read()), c.tool, c.code, c.message, c.reason, c.upstream)
		if c.reason == pipeline.ReasonServerDown {
			waitRestarted(t, r, "broken", 1)
		}
	}
}

// The fast path answers with the upstream's own result bytes, which mean
// the same as mcp-go's re-encoded answer; the log records the call alike.
func TestFastPathMatchesTheMcpGoPath(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	// A client that declared nothing, and one that declared sampling and
	// roots as real clients do: both take the fast path.
	sessions := []*rawHTTP{newRawHTTP(t, r.url), initRaw(t, r.url, `{"sampling":{},"roots":{"listChanged":true}}`)}
	calls := []struct{ tool, args string }{
		{"echo", `{"message":"fast <&> path ✓"}`},
		{"get-sum", `{"a":2,"b":40}`},
		{"get-tiny-image", `{}`},
		{"get-structured-content", `{"location":"New York"}`},
		// Pretty-printed arguments: the stdio upstream gets them on one line.
		{"get-sum", "{\n  \"a\" : 1,\n\t\"b\": 41\n}"},
	}
	for n := range len(sessions) * len(calls) {
		s, i, c := sessions[n/len(calls)], n%len(calls), calls[n%len(calls)]
		r.gw.SetFastPath(true)
		before := r.gw.fast.served.Load()
		fast := s.call(100+i, "everything__"+c.tool, c.args)
		if r.gw.fast.served.Load() != before+1 {
			t.Fatalf("%s did not take the fast path", c.tool)
		}
		r.gw.SetFastPath(false)
		slow := s.call(100+i, "everything__"+c.tool, c.args)
		if r.gw.fast.served.Load() != before+1 {
			t.Fatalf("%s took the fast path while it was off", c.tool)
		}
		// Byte for byte: the envelope around what the upstream answers.
		var args map[string]any
		_ = json.Unmarshal([]byte(c.args), &args)
		raw, err := r.ups.Request(context.Background(), "everything", "tools/call", map[string]any{"name": c.tool, "arguments": args})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`+"\n", 100+i, raw); string(fast) != want {
			t.Errorf("%s: fast path\n%s\nwant the upstream's result as is\n%s", c.tool, fast, want)
		}
		var a, b any
		if json.Unmarshal(fast, &a) != nil || json.Unmarshal(slow, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: the paths disagree:\nfast   %s\nmcp-go %s", c.tool, fast, slow)
		}
	}
	// The echo calls are logged the same way on both paths, for both clients.
	testpeers.Eventually(t, 2*time.Second, "the echo calls in the log", func() bool {
		r.log.mu.Lock()
		defer r.log.mu.Unlock()
		var got []store.RequestLog
		for _, e := range r.log.entries {
			if e.Target == "everything__echo" {
				got = append(got, e)
			}
		}
		if len(got) != 2*len(sessions) {
			return false
		}
		for _, e := range got {
			if e.Server != "everything" || e.Method != "tools/call" || e.Status != store.StatusOK ||
				!strings.Contains(e.Response, "fast <&> path ✓") && !strings.Contains(e.Response, `fast \u003c\u0026\u003e path ✓`) ||
				!strings.Contains(e.Request, `"name":"everything__echo"`) || !strings.Contains(e.Request, `"message":"fast`) {
				t.Errorf("log entry %+v", e)
			}
		}
		return true
	})
}

// A token scoped to other servers is refused on the fast path exactly as a
// tool that does not exist: the fast path runs the pipeline, whose identity
// step refuses it; mcp-go answers the unknown tool.
func TestFastPathRefusesOutOfScopeCalls(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "one", spec.PrefixAlways), everything(t, "two", spec.PrefixAlways)},
		rigOptions{callerFrom: func(context.Context) Caller {
			return Caller{Name: "scoped", Allows: func(s string) bool { return s == "one" }}
		}})
	s := newRawHTTP(t, r.url)
	before := r.gw.fast.served.Load()
	other := errorOf(t, s.call(1, "two__echo", `{"message":"x"}`))
	missing := errorOf(t, s.call(2, "nosuch__echo", `{"message":"x"}`))
	if r.gw.fast.served.Load() != before+1 {
		t.Error("the out-of-scope call did not go through the fast path's pipeline")
	}
	checkError(t, "fast path", other, "two__echo", -32602, "mcp-router: tool 'two__echo' not found", pipeline.ReasonUnknownTool, nil)
	if strings.Replace(other.Message, "two__echo", "X", 1) != strings.Replace(missing.Message, "nosuch__echo", "X", 1) || other.Code != missing.Code {
		t.Errorf("out of scope %+v differs from unknown %+v", other, missing)
	}
	if body := s.call(3, "one__echo", `{"message":"in scope"}`); !bytes.Contains(body, []byte("in scope")) || r.gw.fast.served.Load() != before+2 {
		t.Errorf("in-scope call on the fast path: %s", body)
	}
}

// A client's notifications/cancelled stops a fast-path call upstream.
func TestFastPathCallIsCancelledByTheClient(t *testing.T) {
	def := spec.Server{Name: "blocker", Command: os.Args[0], Env: map[string]string{"MCPR_FAKE_MODE": "blocker"}, Enabled: true}
	def.Normalize()
	r := newRig(t, []spec.Server{def}, rigOptions{})
	s := newRawHTTP(t, r.url)
	console := func() string {
		lines, _ := r.ups.Console("blocker")
		return strings.Join(lines, "\n")
	}
	answered := make(chan []byte, 1)
	go func() {
		_, _, body := s.post(`{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"blocker__block"}}`)
		answered <- body
	}()
	testpeers.Eventually(t, 10*time.Second, "the tool started", func() bool { return strings.Contains(console(), "block: started") })
	if r.gw.fast.served.Load() != 1 {
		t.Fatal("the call is not on the fast path")
	}
	if status, _, body := s.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call-1","reason":"test"}}`); status != http.StatusAccepted {
		t.Fatalf("cancelled: %d %s", status, body)
	}
	testpeers.Eventually(t, 5*time.Second, "the upstream told of the cancellation", func() bool {
		return strings.Contains(console(), "block: cancelled by the client")
	})
	select {
	case body := <-answered:
		if e := errorOf(t, body); e.Data["reason"] != pipeline.ReasonCancelled {
			t.Errorf("cancelled call answered %s", body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call's POST never ended")
	}
}

// Calls that need mcp-go do not take the fast path: a progress token and a
// batch.
func TestFastPathFallsBackForSpecialCalls(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	s := newRawHTTP(t, r.url)
	before := r.gw.fast.served.Load()
	_, hdr, body := s.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"everything__trigger-long-running-operation","arguments":{"duration":1,"steps":2},"_meta":{"progressToken":"p"}}}`)
	if !strings.HasPrefix(hdr.Get("Content-Type"), "text/event-stream") || !bytes.Contains(body, []byte(`"progressToken":"p"`)) {
		t.Errorf("progress call: %s %s", hdr.Get("Content-Type"), body)
	}
	_, _, body = s.post(`[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"b"}}}]`)
	_ = body // mcp-go's answer to a batch, whatever it is
	if n := r.gw.fast.served.Load() - before; n != 0 {
		t.Errorf("the fast path served %d special calls", n)
	}
}

// initRaw opens a raw session whose client declared capabilities.
func initRaw(t *testing.T, url, capabilities string) *rawHTTP {
	t.Helper()
	s := &rawHTTP{url: url, t: t}
	_, hdr, body := s.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + capabilities + `,"clientInfo":{"name":"raw","version":"1"}}}`)
	s.sid = hdr.Get(server.HeaderKeySessionID)
	if s.sid == "" {
		t.Fatalf("no session id; initialize answered %s", body)
	}
	s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// httpEcho is an in-process streamable HTTP upstream with an echo tool.
func httpEcho(t *testing.T, name string) spec.Server {
	t.Helper()
	up := server.NewMCPServer(name, "1", server.WithToolCapabilities(false))
	up.AddTool(mcp.NewTool("echo", mcp.WithString("message")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("message", "")), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(up))
	t.Cleanup(srv.Close)
	def := spec.Server{Name: name, Transport: spec.HTTP, URL: srv.URL + "/mcp", Enabled: true, PrefixMode: spec.PrefixAlways}
	def.Normalize()
	return def
}

// Clients take the fast path to any upstream whatever they declared: what
// an upstream asks them during a call goes on the call's own response on
// either path (callstream.go; TestGoSDKClientWithoutGETStreamGetsServerRequestsOnTheCall).
func TestFastPathForClientsWithCapabilities(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways), httpEcho(t, "web")}, rigOptions{})
	for _, c := range []struct {
		capabilities string
		stdioFast    bool
		httpFast     bool
	}{
		{`{}`, true, true},
		{`{"sampling":{}}`, true, true},
		{`{"roots":{"listChanged":true}}`, true, true},
		{`{"sampling":{},"roots":{"listChanged":true}}`, true, true},
		{`{"elicitation":{}}`, true, true},
		{`{"sampling":{},"elicitation":{"form":{}},"roots":{}}`, true, true},
	} {
		s := initRaw(t, r.url, c.capabilities)
		for _, p := range []struct {
			tool string
			fast bool
		}{{"everything__echo", c.stdioFast}, {"web__echo", c.httpFast}} {
			before := r.gw.fast.served.Load()
			if body := s.call(1, p.tool, `{"message":"caps"}`); !bytes.Contains(body, []byte(`caps`)) || bytes.Contains(body, []byte(`"error"`)) {
				t.Errorf("%s, %s: %s", c.capabilities, p.tool, body)
			}
			want := uint64(0)
			if p.fast {
				want = 1
			}
			if n := r.gw.fast.served.Load() - before; n != want {
				t.Errorf("client declaring %s, %s: the fast path served %d calls, want %d", c.capabilities, p.tool, n, want)
			}
		}
	}
}

// A tool that must run as a task is left to mcp-go, which refuses a plain
// call to it.
func TestFastPathLeavesTaskOnlyToolsToMcpGo(t *testing.T) {
	r := newRig(t, []spec.Server{brokenDef()}, rigOptions{})
	s := newRawHTTP(t, r.url)
	before := r.gw.fast.served.Load()
	if e := errorOf(t, s.call(1, "broken__tasky", `{}`)); e.Code != -32601 || !strings.Contains(e.Message, "task") {
		t.Errorf("plain call of a task-only tool: %+v", e)
	}
	if body := s.call(2, "broken__echo", `{"message":"plain"}`); !bytes.Contains(body, []byte("plain")) {
		t.Errorf("echo: %s", body)
	}
	if n := r.gw.fast.served.Load() - before; n != 1 {
		t.Errorf("the fast path served %d calls, want only the echo", n)
	}
}

// FuzzFastPath throws arbitrary bodies at /mcp on a live session whose
// upstream answers, errs and hangs: whichever path takes them, the router
// must not crash, must not answer 5xx, and must answer JSON as JSON.
func FuzzFastPath(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"broken__echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"broken__fail","arguments":null}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"broken__malformed"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"broken__echo","arguments":[1,2]}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"broken__echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"\u003c","method":"tools/call","params":{"name":"broken__echo","arguments":{},"_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"broken__echo"}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}`,
		``, `null`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	r := newRig(f, []spec.Server{brokenDef()}, rigOptions{})
	s := newRawHTTP(f, r.url)
	hc := &http.Client{Timeout: 3 * time.Second}
	f.Fuzz(func(t *testing.T, body []byte) {
		if bytes.Contains(body, []byte("hang")) || bytes.Contains(body, []byte("crash")) {
			t.Skip("a call that hangs or kills the upstream is tested on its own")
		}
		req, _ := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(server.HeaderKeySessionID, s.sid)
		resp, err := hc.Do(req)
		if err != nil {
			// Some requests open a stream that lasts until the client
			// leaves (a 2026-07-28 subscriptions/listen): this one leaves
			// after 3 s.
			return
		}
		defer resp.Body.Close()
		answer, err := io.ReadAll(resp.Body)
		if err != nil {
			return
		}
		if resp.StatusCode >= 500 {
			t.Fatalf("HTTP %d for %q: %s", resp.StatusCode, body, answer)
		}
		if resp.StatusCode == http.StatusOK && len(answer) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			var msg any
			if err := json.Unmarshal(answer, &msg); err != nil {
				t.Fatalf("answer is not JSON: %q", answer)
			}
		}
	})
}

// BenchmarkFastPathEcho is a fast-path call to a stdio upstream (the test
// binary's echo) over HTTP, client included; for -cpuprofile/-memprofile
// of the router's side (the bench in bench/ measures it as a process).
func BenchmarkFastPathEcho(b *testing.B) {
	def := brokenDef()
	r := newRig(b, []spec.Server{def}, rigOptions{})
	benchFastEcho(b, r, "broken__echo")
}

// benchFastEcho calls tool (an echo) b.N times over one raw session and
// fails unless every call took the fast path.
func benchFastEcho(b *testing.B, r *rig, tool string) {
	s := newRawHTTP(b, r.url)
	before := r.gw.fast.served.Load()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		if body := s.call(i, tool, `{"message":"bench"}`); !bytes.Contains(body, []byte("bench")) {
			b.Fatalf("echo: %s", body)
		}
	}
	b.StopTimer()
	// The client's and the router's CPU (not the upstream's, another
	// process): wall time mostly measures the round trip.
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
	if r.gw.fast.served.Load()-before != uint64(b.N) {
		b.Fatal("not every call took the fast path")
	}
}

// BenchmarkFastPathEchoHTTP is the same to an in-process streamable HTTP
// upstream: what the upstream side (mcp-go's client) costs per call.
func BenchmarkFastPathEchoHTTP(b *testing.B) { benchFastEchoHTTP(b, nil) }

// BenchmarkFastPathEchoHTTPTraced is the same with traces on, every call
// sampled, exported over OTLP/HTTP to a receiver that drops them: what
// tracing costs per call (docs/metrics.md, "Traces").
func BenchmarkFastPathEchoHTTPTraced(b *testing.B) {
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	b.Cleanup(sink.Close)
	tr, err := tracing.Open(context.Background(), tracing.Config{Endpoint: sink.URL, SampleRatio: 1,
		Getenv: func(string) string { return "" }})
	if err != nil || tr == nil {
		b.Fatal(tr, err)
	}
	b.Cleanup(func() { _ = tr.Close() })
	benchFastEchoHTTP(b, tr)
}

func benchFastEchoHTTP(b *testing.B, tr *tracing.Tracer) {
	up := server.NewMCPServer("web", "1", server.WithToolCapabilities(false))
	up.AddTool(mcp.NewTool("echo", mcp.WithString("message")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("message", "")), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(up))
	b.Cleanup(srv.Close)
	def := spec.Server{Name: "web", Transport: spec.HTTP, URL: srv.URL + "/mcp", Enabled: true, PrefixMode: spec.PrefixAlways}
	def.Normalize()
	r := newRig(b, []spec.Server{def}, rigOptions{tracer: tr})
	benchFastEcho(b, r, "web__echo")
}
