package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func quietLogger() *logrus.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

// router is a real router served over HTTP on a loopback port.
type router struct {
	c    *core.Core
	addr string
	url  string
	stop func()
}

type routerOptions struct {
	addr   string // default 127.0.0.1:0
	auth   bool   // require a token
	noPeer bool   // no upstream server
}

// startRouter opens the router in dir (adding server-everything the first
// time), waits until its tools are published and serves it.
func startRouter(t *testing.T, dir string, ro routerOptions) *router {
	t.Helper()
	c, err := core.Open(dir, core.Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !ro.noPeer {
		rows, err := c.Store.Servers().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			s := spec.Server{Name: "everything", Command: testpeers.Everything(t), Args: []string{"stdio"}, Enabled: true}
			s.Normalize()
			if _, err := c.Store.Servers().Create(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.Run(ctx, 0); err != nil {
		c.Close()
		t.Fatal(err)
	}
	if !ro.noPeer {
		testpeers.Eventually(t, 30*time.Second, "everything's tools in the gateway", func() bool {
			c.Gateway.Rebuild()
			_, _, ok := c.Gateway.ToolRoute("everything__echo")
			return ok
		})
	}
	addr := ro.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	serveCtx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- c.Serve(serveCtx, core.ServeOptions{Addr: addr, NoAuth: !ro.auth, Ready: func(a string) { ready <- a }})
	}()
	r := &router{c: c}
	select {
	case r.addr = <-ready:
	case err := <-served:
		cancel()
		c.Close()
		t.Fatalf("serve: %v", err)
	}
	r.url = "http://" + r.addr + "/mcp"
	r.stop = sync.OnceFunc(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		c.Close()
	})
	t.Cleanup(r.stop)
	return r
}

// client drives a bridge through pipes, like an AI client would.
type client struct {
	t     *testing.T
	in    *io.PipeWriter
	done  chan error
	log   *testpeers.SyncBuffer
	mu    sync.Mutex
	lines []map[string]json.RawMessage
	raw   []string
	more  chan struct{} // pinged when a line arrives
}

func startBridge(t *testing.T, o Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, done: make(chan error, 1), log: &testpeers.SyncBuffer{}, more: make(chan struct{}, 1)}
	if o.Logger == nil {
		l := logrus.New()
		l.SetOutput(c.log)
		l.SetLevel(logrus.DebugLevel)
		o.Logger = l
	}
	if o.BackoffBase == 0 {
		o.BackoffBase = 50 * time.Millisecond
		o.BackoffMax = 300 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := Run(ctx, inR, outW, o)
		outW.Close()
		c.done <- err
	}()
	go func() {
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				var m map[string]json.RawMessage
				if jerr := json.Unmarshal([]byte(line), &m); jerr != nil || !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
					m = map[string]json.RawMessage{"bad-line": json.RawMessage(fmt.Sprintf("%q", line))}
				}
				c.mu.Lock()
				c.lines = append(c.lines, m)
				c.raw = append(c.raw, line)
				c.mu.Unlock()
				select {
				case c.more <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Errorf("the bridge did not end after stdin closed")
		}
		cancel()
		outR.Close()
		if t.Failed() {
			t.Logf("bridge log:\n%s", c.log.String())
		}
	})
	return c
}

func (c *client) send(msg string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, msg+"\n"); err != nil {
		c.t.Fatalf("writing to the bridge: %v", err)
	}
}

// waitFor returns the index and the first line (from index from on) for
// which match holds.
func (c *client) waitFor(what string, timeout time.Duration, match func(m map[string]json.RawMessage) bool) (int, map[string]json.RawMessage) {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		for i, m := range c.lines {
			if _, bad := m["bad-line"]; bad {
				c.mu.Unlock()
				c.t.Fatalf("the bridge wrote a line that is not one JSON message: %s", m["bad-line"])
			}
			if match(m) {
				c.mu.Unlock()
				return i, m
			}
		}
		c.mu.Unlock()
		select {
		case <-c.more:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			c.mu.Lock()
			seen := strings.Join(c.raw, "")
			c.mu.Unlock()
			c.t.Fatalf("timed out waiting for %s; the bridge wrote:\n%s\nlog:\n%s", what, seen, c.log.String())
		}
	}
}

// response waits for the response with id (a JSON literal such as 3 or "a").
func (c *client) response(id string, timeout time.Duration) (int, map[string]json.RawMessage) {
	c.t.Helper()
	return c.waitFor("the response to "+id, timeout, func(m map[string]json.RawMessage) bool {
		_, isReq := m["method"]
		return !isReq && string(m["id"]) == id
	})
}

// result waits for a successful response and returns its result.
func (c *client) result(id string, timeout time.Duration) json.RawMessage {
	c.t.Helper()
	_, m := c.response(id, timeout)
	if e, ok := m["error"]; ok {
		c.t.Fatalf("request %s failed: %s", id, e)
	}
	return m["result"]
}

func (c *client) count(match func(m map[string]json.RawMessage) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.lines {
		if match(m) {
			n++
		}
	}
	return n
}

func method(name string) func(m map[string]json.RawMessage) bool {
	return func(m map[string]json.RawMessage) bool { return string(m["method"]) == `"`+name+`"` }
}

// stdinEOF closes stdin and returns what Run returned.
func (c *client) stdinEOF() error {
	c.t.Helper()
	c.in.Close()
	select {
	case err := <-c.done:
		c.done <- err // for the cleanup
		return err
	case <-time.After(15 * time.Second):
		c.t.Fatal("Run did not return after stdin closed")
		return nil
	}
}

func initialize(id int, caps string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":%s,"clientInfo":{"name":"bridge-test","version":"1"}}}`, id, caps)
}

// handshake initializes and returns the initialize result.
func (c *client) handshake(caps string) json.RawMessage {
	c.t.Helper()
	c.send(initialize(0, caps))
	res := c.result("0", 30*time.Second)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res
}

func callEcho(id int, message string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":%q}}}`, id, message)
}

func toolText(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatalf("tool result %s: %v", result, err)
	}
	var sb strings.Builder
	for _, c := range r.Content {
		sb.WriteString(c.Text)
	}
	if r.IsError {
		t.Fatalf("tool failed: %s", sb.String())
	}
	return sb.String()
}

func TestInitializeListAndCallEcho(t *testing.T) {
	r := startRouter(t, t.TempDir(), routerOptions{})
	c := startBridge(t, Options{URL: r.url})

	init := c.handshake(`{}`)
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &ir); err != nil || ir.ProtocolVersion != "2025-11-25" || ir.ServerInfo.Name == "" || ir.Capabilities["tools"] == nil {
		t.Fatalf("initialize result %s (%v)", init, err)
	}

	c.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	var tl struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(c.result(`"list"`, 10*time.Second), &tl); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range tl.Tools {
		if tool.Name == "everything__echo" {
			found = len(tool.InputSchema) > 0
		}
	}
	if !found {
		t.Fatalf("tools/list has no everything__echo with a schema: %+v", tl.Tools)
	}

	c.send(callEcho(2, "hello through the bridge"))
	if got := toolText(t, c.result("2", 10*time.Second)); !strings.Contains(got, "hello through the bridge") {
		t.Errorf("echo said %q", got)
	}
	if err := c.stdinEOF(); err != nil {
		t.Errorf("Run after stdin EOF: %v", err)
	}
}

func TestProgressArrivesBeforeTheResponseAndPingIsNotBlocked(t *testing.T) {
	r := startRouter(t, t.TempDir(), routerOptions{})
	c := startBridge(t, Options{URL: r.url})
	c.handshake(`{}`)

	c.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"everything__trigger-long-running-operation","arguments":{"duration":1,"steps":3},"_meta":{"progressToken":"tok-42"}}}`)
	// A ping sent while the long call runs is answered first.
	time.Sleep(100 * time.Millisecond)
	c.send(`{"jsonrpc":"2.0","id":11,"method":"ping"}`)

	pingAt, _ := c.response("11", 10*time.Second)
	callAt, m := c.response("10", 20*time.Second)
	if _, failed := m["error"]; failed {
		t.Fatalf("long call failed: %s", m["error"])
	}
	if pingAt > callAt {
		t.Errorf("the ping was answered after the long call (lines %d and %d): requests are not concurrent", pingAt, callAt)
	}
	c.mu.Lock()
	var tokens []string
	var last int
	for i, l := range c.lines[:callAt] {
		if string(l["method"]) != `"notifications/progress"` {
			continue
		}
		var p struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			Progress      float64         `json:"progress"`
		}
		if err := json.Unmarshal(l["params"], &p); err != nil {
			t.Errorf("progress params %s: %v", l["params"], err)
		}
		tokens = append(tokens, string(p.ProgressToken))
		last = i
	}
	after := 0
	for _, l := range c.lines[callAt:] {
		if string(l["method"]) == `"notifications/progress"` {
			after++
		}
	}
	c.mu.Unlock()
	if len(tokens) != 3 || last > callAt || after != 0 {
		t.Fatalf("want 3 progress notifications before the response, got tokens %v (%d after it)", tokens, after)
	}
	for _, tok := range tokens {
		if tok != `"tok-42"` {
			t.Errorf("progress carried token %s, want the client's \"tok-42\"", tok)
		}
	}
}

func TestSamplingRequestGoesToTheClientAndBack(t *testing.T) {
	r := startRouter(t, t.TempDir(), routerOptions{})
	c := startBridge(t, Options{URL: r.url})
	c.handshake(`{"sampling":{}}`)

	c.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"everything__trigger-sampling-request","arguments":{"prompt":"hi","maxTokens":5}}}`)
	_, req := c.waitFor("a sampling/createMessage request", 20*time.Second, method("sampling/createMessage"))
	var id string
	if err := json.Unmarshal(req["id"], &id); err != nil || !strings.HasPrefix(id, serverIDPrefix) {
		t.Fatalf("the router's request reached the client with id %s, want a string starting %q", req["id"], serverIDPrefix)
	}
	var params struct {
		MaxTokens int `json:"maxTokens"`
		Messages  []struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
		SystemPrompt string `json:"systemPrompt"`
	}
	if err := json.Unmarshal(req["params"], &params); err != nil || params.MaxTokens != 5 || len(params.Messages) != 1 ||
		!strings.Contains(params.Messages[0].Content.Text, "hi") || params.SystemPrompt == "" {
		t.Fatalf("sampling params %s (%v)", req["params"], err)
	}
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":"from test"},"model":"m"}}`, req["id"]))
	if got := toolText(t, c.result("20", 20*time.Second)); !strings.Contains(got, "from test") {
		t.Errorf("the tool result does not carry the client's sampling answer: %q", got)
	}
}

func TestReconnectsAfterARouterRestart(t *testing.T) {
	dir := t.TempDir()
	r1 := startRouter(t, dir, routerOptions{})
	c := startBridge(t, Options{URL: r1.url})
	c.handshake(`{}`)
	c.send(callEcho(1, "before"))
	if got := toolText(t, c.result("1", 10*time.Second)); !strings.Contains(got, "before") {
		t.Fatalf("echo said %q", got)
	}

	// This call is in flight when the router goes down (the router's
	// shutdown cuts it after its 3 s grace): the bridge retries it once on
	// the new session.
	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"everything__trigger-long-running-operation","arguments":{"duration":4,"steps":2}}}`)
	time.Sleep(300 * time.Millisecond)
	r1.stop()
	// This call goes out while the router is down: it waits for the new
	// session.
	c.send(callEcho(2, "after restart"))
	time.Sleep(300 * time.Millisecond)
	r2 := startRouter(t, dir, routerOptions{addr: r1.addr})
	if r2.addr != r1.addr {
		t.Fatalf("the new router listens on %s, not %s", r2.addr, r1.addr)
	}
	if got := toolText(t, c.result("2", 30*time.Second)); !strings.Contains(got, "after restart") {
		t.Errorf("echo said %q", got)
	}
	if got := toolText(t, c.result("4", 30*time.Second)); !strings.Contains(got, "Long running operation completed") {
		t.Errorf("the retried long call said %q", got)
	}
	c.waitFor("notifications/tools/list_changed", 10*time.Second, method("notifications/tools/list_changed"))

	// The bridge is on a new, initialized session: more calls just work.
	c.send(callEcho(3, "again"))
	if got := toolText(t, c.result("3", 10*time.Second)); !strings.Contains(got, "again") {
		t.Errorf("echo said %q", got)
	}
	// The bridge's own initialize was not shown to the client.
	if n := c.count(func(m map[string]json.RawMessage) bool { return string(m["id"]) == "0" }); n != 1 {
		t.Errorf("the client saw %d responses with id 0, want its one initialize response", n)
	}
	if n := c.count(func(m map[string]json.RawMessage) bool { return strings.Contains(string(m["id"]), serverIDPrefix) }); n != 0 {
		t.Errorf("the client saw %d responses to the bridge's own requests", n)
	}
	if !strings.Contains(c.log.String(), "request 4 failed") {
		t.Errorf("the long call was not cut by the restart and retried:\n%s", c.log.String())
	}
	if !strings.Contains(c.log.String(), "reconnected") {
		t.Errorf("no reconnect in the log:\n%s", c.log.String())
	}
	if err := c.stdinEOF(); err != nil {
		t.Errorf("Run: %v", err)
	}
}

func TestWrongTokenIsExplainedAndNotRetried(t *testing.T) {
	r := startRouter(t, t.TempDir(), routerOptions{auth: true, noPeer: true})
	secret, _, err := r.c.Auth.Create(context.Background(), "desktop", nil)
	if err != nil {
		t.Fatal(err)
	}

	bad := startBridge(t, Options{URL: r.url, Token: "mcpr_" + strings.Repeat("x", 40)})
	bad.send(initialize(1, `{}`))
	_, m := bad.response("1", 10*time.Second)
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(m["error"], &e); err != nil {
		t.Fatalf("want an error response, got %v", m)
	}
	if !strings.Contains(e.Message, "401") || !strings.Contains(e.Message, "MCPR_TOKEN") || !strings.HasPrefix(e.Message, "mcp-router connect: the router rejected the token") {
		t.Errorf("error message %q", e.Message)
	}
	if strings.Contains(bad.log.String(), "retrying") {
		t.Errorf("a 401 was retried:\n%s", bad.log.String())
	}
	err = bad.stdinEOF()
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("Run after a 401 returned %v, want an error", err)
	}

	none := startBridge(t, Options{URL: r.url})
	none.send(initialize(1, `{}`))
	if _, m := none.response("1", 10*time.Second); !strings.Contains(string(m["error"]), "MCPR_TOKEN") {
		t.Errorf("without a token: %v", m)
	}

	good := startBridge(t, Options{URL: r.url, Token: secret})
	good.handshake(`{}`)
	good.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	good.result("2", 10*time.Second)
	if err := good.stdinEOF(); err != nil {
		t.Errorf("Run with a good token: %v", err)
	}
}

func TestMalformedLinesGetParseErrors(t *testing.T) {
	r := startRouter(t, t.TempDir(), routerOptions{noPeer: true})
	c := startBridge(t, Options{URL: r.url})
	c.handshake(`{}`)

	c.send(`{"jsonrpc":"2.0","id":5,"method":`)
	_, m := c.waitFor("a parse error", 5*time.Second, func(m map[string]json.RawMessage) bool { return string(m["id"]) == "null" })
	var e struct {
		Code int `json:"code"`
	}
	if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != -32700 {
		t.Fatalf("want a -32700 parse error with id null, got %v", m)
	}
	c.send(``) // blank lines are ignored
	c.send(`[1,2]`)
	c.waitFor("an invalid request error", 5*time.Second, func(m map[string]json.RawMessage) bool {
		return string(m["id"]) == "null" && strings.Contains(string(m["error"]), "-32600")
	})
	c.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	if res := c.result("6", 10*time.Second); string(res) != "{}" {
		t.Errorf("ping result %s", res)
	}
	if err := c.stdinEOF(); err != nil {
		t.Errorf("Run after stdin EOF: %v", err)
	}
}

func TestUnreachableRouterAnswersWithAnError(t *testing.T) {
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", testpeers.FreePort(t))
	c := startBridge(t, Options{URL: url, ReconnectTimeout: 700 * time.Millisecond})
	c.send(initialize(1, `{}`))
	_, m := c.response("1", 10*time.Second)
	want := "mcp-router connect: router at " + url + " unreachable: "
	if !strings.Contains(string(m["error"]), want) {
		t.Errorf("want an error containing %q, got %v", want, m)
	}
	if err := c.stdinEOF(); err != nil {
		t.Errorf("Run: %v", err)
	}
}

func TestStdinEOFWaitsForRequestsInFlight(t *testing.T) {
	r := startRouter(t, t.TempDir(), routerOptions{noPeer: true})
	inR, inW := io.Pipe()
	var out testpeers.SyncBuffer
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), inR, &out, Options{URL: r.url, Logger: quietLogger()}) }()
	// A client piping a script: everything at once, then EOF.
	io.WriteString(inW, initialize(0, `{}`)+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return after stdin EOF")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	ids := map[string]bool{}
	for _, l := range lines {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if m.Error != nil {
			t.Errorf("error response: %s", l)
		}
		ids[string(m.ID)] = true
	}
	if !ids["0"] || !ids["1"] || !ids["2"] {
		t.Errorf("want responses to 0, 1 and 2, got:\n%s", out.String())
	}
}

func TestContextCancelEndsRun(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, inR, io.Discard, Options{Logger: quietLogger()}) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}
