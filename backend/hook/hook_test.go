package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/store"
)

type fixture struct {
	t   *testing.T
	svc *Service
	log *bytes.Buffer
	mu  *sync.Mutex
}

type lockedBuf struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedBuf) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func newFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "hooks.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	buf, mu := &bytes.Buffer{}, &sync.Mutex{}
	lg := logrus.New()
	lg.SetOutput(lockedBuf{mu, buf})
	lg.SetLevel(logrus.DebugLevel)
	o.Logger = lg
	return &fixture{t: t, svc: New(st.Hooks(), o), log: buf, mu: mu}
}

func (f *fixture) logText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log.String()
}

// add stores an enabled hook and reloads.
func (f *fixture) add(name, typ string, order int, script string, opts ...func(*store.Hook)) {
	f.t.Helper()
	h := store.Hook{Name: name, HookType: typ, ExecutionOrder: order, Script: script, Enabled: true}
	for _, o := range opts {
		o(&h)
	}
	if _, err := f.svc.Create(context.Background(), h); err != nil {
		f.t.Fatal(err)
	}
	if err := f.svc.Reload(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

func failClosed(h *store.Hook) { h.FailClosed = true }

func callTool(args map[string]any) *Call {
	return &Call{RequestType: "CallTool", Method: "tools/call", ServerName: "everything", ToolName: "echo",
		Arguments: args, Params: map[string]any{"name": "everything__echo", "arguments": args},
		Client: Client{TokenName: "laptop", SessionID: "s1"}}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBlockOnWord(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("no-secrets", "pre", 0, `
if (context.requestType !== 'CallTool') return;
if (String(context.arguments.message).includes('password'))
  return { continue: false, error: { message: 'no passwords please' } };`)
	ctx := context.Background()

	if b := f.svc.Pre(ctx, callTool(map[string]any{"message": "hello"})); b != nil {
		t.Fatalf("harmless call blocked: %v", b)
	}
	b := f.svc.Pre(ctx, callTool(map[string]any{"message": "my password is x"}))
	if b == nil {
		t.Fatal("call with the word was not blocked")
	}
	if b.Error() != `blocked by hook "no-secrets": no passwords please` {
		t.Errorf("block error = %q", b.Error())
	}
	// Another request type is not affected.
	if b := f.svc.Pre(ctx, &Call{RequestType: "ListTools", Method: "tools/list"}); b != nil {
		t.Errorf("tools/list blocked: %v", b)
	}
}

func TestRewriteArgument(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("upper", "pre", 0, `context.arguments.message = context.arguments.message.toUpperCase();`)
	c := callTool(map[string]any{"message": "hi", "n": 1.0})
	orig := c.Arguments.(map[string]any)
	if b := f.svc.Pre(context.Background(), c); b != nil {
		t.Fatal(b)
	}
	if got := jsonOf(t, c.Arguments); got != `{"message":"HI","n":1}` {
		t.Errorf("arguments = %s", got)
	}
	if got := jsonOf(t, c.Params); got != `{"arguments":{"message":"HI","n":1},"name":"everything__echo"}` {
		t.Errorf("params = %s", got)
	}
	if c.Changed&ChangedArguments == 0 || c.Changed&ChangedParams == 0 {
		t.Errorf("changed = %b", c.Changed)
	}
	if orig["message"] != "hi" {
		t.Errorf("the caller's map was mutated: %v", orig)
	}

	// Replacing through request.params works too; replacing context.arguments wins over it.
	f2 := newFixture(t, Options{})
	f2.add("params", "pre", 0, `context.request.params.arguments = {message: 'from params'};`)
	c = callTool(map[string]any{"message": "hi"})
	f2.svc.Pre(context.Background(), c)
	if got := jsonOf(t, c.Arguments); got != `{"message":"from params"}` {
		t.Errorf("arguments via params = %s", got)
	}
	if got := jsonOf(t, c.Params["arguments"]); got != `{"message":"from params"}` {
		t.Errorf("params.arguments = %s", got)
	}
}

func TestUntouchedCallKeepsItsValues(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("look", "both", 0, `if (context.toolName === 'nope') return {continue: false};`)
	c := callTool(map[string]any{"message": "hi"})
	c.Response = json.RawMessage(`{"content":[]}`)
	args := c.Arguments
	f.svc.Pre(context.Background(), c)
	f.svc.Post(context.Background(), c)
	if c.Changed != 0 {
		t.Errorf("changed = %b for a hook that only read scalars", c.Changed)
	}
	if _, ok := c.Response.(json.RawMessage); !ok {
		t.Errorf("response type changed to %T", c.Response)
	}
	if c.Arguments.(map[string]any)["message"] != args.(map[string]any)["message"] {
		t.Error("arguments changed")
	}
}

func TestRedactToolResult(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("redact", "post", 0, `
if (context.requestType !== 'CallTool' || !context.response) return;
for (const item of context.response.content) {
  if (item.type === 'text') item.text = item.text.replace(/\d{4}-\d{4}-\d{4}-\d{4}/g, '****');
}`)
	c := callTool(map[string]any{"message": "x"})
	c.Response = json.RawMessage(`{"content":[{"type":"text","text":"card 1234-5678-9012-3456 ok"},{"type":"image","data":"AA=="}],"isError":false}`)
	if b := f.svc.Post(context.Background(), c); b != nil {
		t.Fatal(b)
	}
	want := `{"content":[{"text":"card **** ok","type":"text"},{"data":"AA==","type":"image"}],"isError":false}`
	if got := jsonOf(t, c.Response); got != want {
		t.Errorf("response = %s\nwant       %s", got, want)
	}
	if c.Changed&ChangedResponse == 0 {
		t.Error("ChangedResponse not set")
	}
}

func TestRemoveToolFromList(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("hide", "post", 0, `
if (context.requestType === 'ListTools')
  context.response.tools = context.response.tools.filter(t => !t.name.endsWith('__delete_all'));`)
	c := &Call{RequestType: "ListTools", Method: "tools/list", Response: map[string]any{
		"tools": []any{
			map[string]any{"name": "fs__read", "inputSchema": map[string]any{"type": "object"}},
			map[string]any{"name": "fs__delete_all"},
		}}}
	f.svc.Post(context.Background(), c)
	if got := jsonOf(t, c.Response); got != `{"tools":[{"inputSchema":{"type":"object"},"name":"fs__read"}]}` {
		t.Errorf("response = %s", got)
	}
}

func TestSharedFromPreToPost(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("timer", "both", 0, `
if (context.phase === 'pre') { context.shared.seen = context.arguments.message; context.shared.n = 1; return; }
context.response.content.push({type: 'text', text: 'pre saw ' + context.shared.seen + ' ' + context.shared.n});`)
	f.add("reader", "post", 1, `context.response.content.push({type: 'text', text: 'reader saw ' + context.shared.seen});`)
	c := callTool(map[string]any{"message": "hello"})
	f.svc.Pre(context.Background(), c)
	if got := jsonOf(t, c.Shared); got != `{"n":1,"seen":"hello"}` {
		t.Errorf("shared after pre = %s", got)
	}
	c.Response = map[string]any{"content": []any{}}
	f.svc.Post(context.Background(), c)
	want := `{"content":[{"text":"pre saw hello 1","type":"text"},{"text":"reader saw hello","type":"text"}]}`
	if got := jsonOf(t, c.Response); got != want {
		t.Errorf("response = %s", got)
	}
}

func TestExecutionOrder(t *testing.T) {
	f := newFixture(t, Options{})
	// Created out of order; ties broken by name.
	f.add("c-third", "pre", 10, `context.arguments.trail += 'c';`)
	f.add("b-second", "pre", 5, `context.arguments.trail += 'b';`)
	f.add("a-first", "pre", -1, `context.arguments.trail += 'a';`)
	f.add("a-tie", "pre", 5, `context.arguments.trail += 'T';`)
	c := callTool(map[string]any{"trail": ""})
	f.svc.Pre(context.Background(), c)
	if got := c.Arguments.(map[string]any)["trail"]; got != "aTbc" {
		t.Errorf("trail = %v, want aTbc", got)
	}
	// A block stops the chain: later hooks do not run.
	f.add("blocker", "pre", 6, `return {continue: false, error: {message: 'stop', code: -32001}};`)
	c = callTool(map[string]any{"trail": ""})
	b := f.svc.Pre(context.Background(), c)
	if b == nil || b.Hook != "blocker" || b.Code != -32001 {
		t.Fatalf("block = %+v", b)
	}
	if got := c.Arguments.(map[string]any)["trail"]; got != "aTb" {
		t.Errorf("trail = %v, want aTb", got)
	}
}

func TestDisabledHookHasNoEffect(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("blocker", "pre", 0, `return {continue: false, error: {message: 'no'}};`, func(h *store.Hook) { h.Enabled = false })
	if f.svc.Active() {
		t.Error("Active with only a disabled hook")
	}
	if b := f.svc.Pre(context.Background(), callTool(nil)); b != nil {
		t.Errorf("disabled hook blocked: %v", b)
	}
	if err := f.svc.SetEnabled(context.Background(), "blocker", true); err != nil {
		t.Fatal(err)
	}
	f.svc.Reload(context.Background())
	if !f.svc.Active() || f.svc.Pre(context.Background(), callTool(nil)) == nil {
		t.Error("enabled hook did not block")
	}
	f.svc.SetEnabled(context.Background(), "blocker", false)
	f.svc.Reload(context.Background())
	if b := f.svc.Pre(context.Background(), callTool(nil)); b != nil {
		t.Errorf("re-disabled hook blocked: %v", b)
	}
}

func TestPostBlockReplacesResponse(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("deny-errors", "post", 0, `
if (context.error) return {continue: false, error: {message: 'upstream failed: ' + context.error.message}};
if (context.duration > 1000) console.warn('slow', context.duration);`)
	c := callTool(nil)
	c.Error = &CallError{Code: -32000, Message: "everything: connection lost"}
	b := f.svc.Post(context.Background(), c)
	if b == nil || b.Message != "upstream failed: everything: connection lost" || b.Phase != "post" {
		t.Fatalf("block = %+v", b)
	}
	c = callTool(nil)
	c.Response, c.DurationMs = map[string]any{}, 1500
	if b := f.svc.Post(context.Background(), c); b != nil {
		t.Fatal(b)
	}
	logs := f.svc.Logs("deny-errors")
	if len(logs) != 1 || logs[0].Level != "warn" || logs[0].Message != "slow 1500" {
		t.Errorf("logs = %+v", logs)
	}
}

func TestPostCanRecoverFromError(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("fallback", "post", 0, `if (context.error) { context.error = null; context.response = {content: [{type: 'text', text: 'cached'}]}; }`)
	c := callTool(nil)
	c.Error = &CallError{Message: "down"}
	f.svc.Post(context.Background(), c)
	if c.Error != nil || jsonOf(t, c.Response) != `{"content":[{"text":"cached","type":"text"}]}` || c.Changed&ChangedError == 0 {
		t.Errorf("error=%v response=%s", c.Error, jsonOf(t, c.Response))
	}
}

func TestContextFields(t *testing.T) {
	f := newFixture(t, Options{
		ValidateToken: func(tok string) bool { return tok == "good" },
		ServerInfo: func(name string) (ServerInfo, bool) {
			if name != "everything" {
				return ServerInfo{}, false
			}
			return ServerInfo{Name: name, Transport: "stdio", Status: "running", Tools: []string{"echo", "add"}}, true
		},
	})
	f.add("dump", "both", 0, `
context.shared[context.phase] = {
  requestType: context.requestType, method: context.method, serverName: context.serverName,
  toolName: context.toolName, clientName: context.request.params.name, client: context.client,
  hasResponse: 'response' in context, duration: context.duration,
  good: validateToken('good'), bad: validateToken('bad'), none: validateToken(),
  info: getServerInfo('everything'), missing: getServerInfo('nope'),
  keys: Object.keys(context).sort().join(','),
  json: Object.keys(JSON.parse(JSON.stringify(context))).sort().join(','),
};
console.log(context);`)
	c := callTool(map[string]any{"message": "x"})
	f.svc.Pre(context.Background(), c)
	c.Response, c.DurationMs = map[string]any{}, 12.5
	f.svc.Post(context.Background(), c)
	got := jsonOf(t, c.Shared)
	for _, want := range []string{
		`"pre":{"bad":false,"client":{"sessionId":"s1","tokenName":"laptop"},"clientName":"everything__echo","good":true,"hasResponse":false,` +
			`"info":{"name":"everything","status":"running","tools":["echo","add"],"transport":"stdio"},` +
			`"json":"arguments,client,method,phase,request,requestType,serverName,shared,toolName",` +
			`"keys":"method,phase,requestType,serverName,toolName","method":"tools/call","missing":null,"none":false,` +
			`"requestType":"CallTool","serverName":"everything","toolName":"echo"}`,
		`"duration":12.5`,
		`"json":"arguments,client,duration,error,method,phase,request,requestType,response,serverName,shared,toolName"`,
		`"hasResponse":true`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("shared lacks %s\n%s", want, got)
		}
	}
	if logs := f.svc.Logs("dump"); len(logs) != 2 || !strings.Contains(logs[0].Message, `"arguments":{"message":"x"}`) || !strings.Contains(logs[1].Message, `"duration":12.5`) {
		t.Errorf("console.log(context) = %+v", logs)
	}
}

func TestReturnContextAndAsync(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("ret-ctx", "pre", 0, `return {continue: true, context: {arguments: {replaced: true}}};`)
	f.add("async", "pre", 1, `return (async () => { context.arguments.async = 1; return {continue: true}; })();`)
	c := callTool(map[string]any{"x": 1.0})
	if b := f.svc.Pre(context.Background(), c); b != nil {
		t.Fatal(b)
	}
	if got := jsonOf(t, c.Arguments); got != `{"async":1,"replaced":true}` {
		t.Errorf("arguments = %s", got)
	}
}

func TestConsoleLogsRingAndSubscribe(t *testing.T) {
	f := newFixture(t, Options{})
	var mu sync.Mutex
	var live []string
	unsub := f.svc.Subscribe(func(h string, l LogLine) {
		mu.Lock()
		live = append(live, h+":"+l.Level+":"+l.Message)
		mu.Unlock()
	})
	f.add("chatty", "pre", 0, `console.log('tool', context.toolName, {n: 1}); console.error('bad', [1, 2]); console.info(undefined, null, 3);`)
	f.svc.Pre(context.Background(), callTool(nil))
	unsub()
	f.svc.Pre(context.Background(), callTool(nil))
	mu.Lock()
	gotLive := strings.Join(live, "|")
	mu.Unlock()
	if gotLive != `chatty:log:tool echo {"n":1}|chatty:error:bad [1,2]|chatty:info:undefined null 3` {
		t.Errorf("live = %s", gotLive)
	}
	if n := len(f.svc.Logs("chatty")); n != 6 {
		t.Errorf("ring has %d lines, want 6", n)
	}
	if !strings.Contains(f.logText(), `hook=chatty`) || !strings.Contains(f.logText(), `console.error: bad [1,2]`) {
		t.Errorf("app log:\n%s", f.logText())
	}
	// The ring keeps the last 500 lines.
	for i := 0; i < 200; i++ {
		f.svc.Pre(context.Background(), callTool(nil))
	}
	if n := len(f.svc.Logs("chatty")); n != 500 {
		t.Errorf("ring has %d lines, want 500", n)
	}
}

func TestSyntaxErrorRejectedWithPosition(t *testing.T) {
	f := newFixture(t, Options{})
	for _, tc := range []struct{ script, want string }{
		{"let x = 1;\nif (x > {\n  return;\n}", "line 3, column 9: Unexpected token ;"},
		{"return {", "line 1, column 9: unexpected end of script"},
		{"}); (function(){", "one function body"},
		{"let context = 1;", "line 1, column"},
	} {
		_, err := f.svc.Create(context.Background(), store.Hook{Name: "bad", HookType: "pre", Script: tc.script})
		var se *ScriptError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%q: err = %v", tc.script, err)
		}
	}
	err := Validate("var a = 1;\nvar b = ;")
	var se *ScriptError
	if !errors.As(err, &se) || se.Line != 2 || se.Column != 9 {
		t.Errorf("position = %+v (%v)", se, err)
	}
	err = Validate("var b = ;")
	if !errors.As(err, &se) || se.Line != 1 || se.Column != 9 {
		t.Errorf("line-1 position = %+v (%v)", se, err)
	}
	if _, err := f.svc.Create(context.Background(), store.Hook{Name: "big", HookType: "pre", Script: strings.Repeat(" ", MaxScriptBytes+1)}); err == nil || !strings.Contains(err.Error(), "1 MB") {
		t.Errorf("oversized script: %v", err)
	}
	if hooks, _ := f.svc.List(context.Background()); len(hooks) != 0 {
		t.Errorf("bad hooks were stored: %+v", hooks)
	}
}

func TestThrownErrorIsLoggedAndChainContinues(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("thrower", "pre", 0, "\n  throw new Error('kaboom');")
	f.add("after", "pre", 1, `context.arguments.after = true;`)
	c := callTool(map[string]any{})
	if b := f.svc.Pre(context.Background(), c); b != nil {
		t.Fatalf("fail-open hook blocked: %v", b)
	}
	if c.Arguments.(map[string]any)["after"] != true {
		t.Error("the chain did not continue")
	}
	logs := f.svc.Logs("thrower")
	if len(logs) != 1 || logs[0].Level != "error" || !strings.Contains(logs[0].Message, "Error: kaboom (line 2, column") {
		t.Errorf("logs = %+v", logs)
	}
	if !strings.Contains(f.logText(), "kaboom") {
		t.Error("not in the app log")
	}

	g := newFixture(t, Options{})
	g.add("strict", "pre", 0, `throw new Error('kaboom');`, failClosed)
	g.add("after", "pre", 1, `context.arguments.after = true;`)
	c = callTool(map[string]any{})
	b := g.svc.Pre(context.Background(), c)
	if b == nil || !strings.Contains(b.Error(), `blocked by hook "strict": hook failed: Error: kaboom`) {
		t.Errorf("fail-closed: %v", b)
	}
	if c.Arguments.(map[string]any)["after"] != nil {
		t.Error("the chain went on after a fail-closed block")
	}
}

func TestGarbageReturnValues(t *testing.T) {
	for _, ret := range []string{`42`, `'yes'`, `false`, `[1,2]`, `{foo: 1}`, `{continue: 'no'}`, `function(){}`, `Symbol('x')`, `{continue: false, error: 'str'}`} {
		f := newFixture(t, Options{})
		f.add("garbage", "pre", 0, `context.arguments.ran = true; return `+ret+`;`)
		c := callTool(map[string]any{})
		b := f.svc.Pre(context.Background(), c)
		if ret == `{continue: false, error: 'str'}` {
			if b == nil || b.Message != "request blocked" {
				t.Errorf("%s: block = %v", ret, b)
			}
			continue
		}
		if b != nil {
			t.Errorf("%s: blocked: %v", ret, b)
		}
		if c.Arguments.(map[string]any)["ran"] != true {
			t.Errorf("%s: changes were lost", ret)
		}
		logs := f.svc.Logs("garbage")
		if len(logs) != 1 || logs[0].Level != "warn" || !logs[0].Router {
			t.Errorf("%s: logs = %+v", ret, logs)
		}
	}
	// Garbage in context fields is ignored with a warning.
	f := newFixture(t, Options{})
	f.add("bad-fields", "post", 0, `context.shared = 5; const a = {}; a.self = a; context.response = a;`)
	c := callTool(nil)
	c.Response = "orig"
	f.svc.Post(context.Background(), c)
	if c.Response != "orig" || c.Shared != nil {
		t.Errorf("response=%v shared=%v", c.Response, c.Shared)
	}
	if logs := f.svc.Logs("bad-fields"); len(logs) != 2 {
		t.Errorf("logs = %+v", logs)
	}
}

// hostile runs one hostile script as a fail-open hook followed by a normal
// one, and checks the call completes, the next hook ran, and the cause was
// logged; it returns the elapsed time.
func hostile(t *testing.T, o Options, script, wantLog string) time.Duration {
	t.Helper()
	f := newFixture(t, o)
	f.add("evil", "pre", 0, script)
	f.add("after", "pre", 1, `context.arguments.after = true;`)
	c := callTool(map[string]any{})
	start := time.Now()
	if b := f.svc.Pre(context.Background(), c); b != nil {
		t.Errorf("blocked: %v", b)
	}
	d := time.Since(start)
	if c.Arguments.(map[string]any)["after"] != true {
		t.Error("the next hook did not run")
	}
	logs := f.svc.Logs("evil")
	if len(logs) == 0 || logs[len(logs)-1].Level != "error" || !strings.Contains(logs[len(logs)-1].Message, wantLog) {
		t.Errorf("logs = %+v, want %q", logs, wantLog)
	} else if testing.Verbose() {
		t.Logf("%.60s → %s (%v)", script, logs[len(logs)-1].Message, d.Round(time.Millisecond))
	}
	return d
}

// stoppedWithin bounds how long a contained script may take: unbounded
// without the interrupt, so any finite bound proves it; generous because
// each run also builds fresh sandbox runtimes, which is slow under -race on
// a loaded 2-core machine (10 s was once exceeded there, by a 2 s limit,
// under -race with other test binaries running). The unbounded runs it
// tells apart take minutes or never end.
const stoppedWithin = 30 * time.Second

func TestInfiniteLoopTimesOut(t *testing.T) {
	d := hostile(t, Options{Timeout: 200 * time.Millisecond}, `while (true) {}`, "timed out")
	if d > stoppedWithin {
		t.Errorf("took %v", d)
	}
	hostile(t, Options{Timeout: 200 * time.Millisecond}, `try { while (true) {} } catch (e) {} finally { for(;;){} }`, "timed out")
	d = hostile(t, Options{Timeout: 200 * time.Millisecond}, `sleep(60000);`, "timed out")
	if d > stoppedWithin {
		t.Errorf("sleep took %v", d)
	}
}

func TestCanceledRequestStopsHook(t *testing.T) {
	f := newFixture(t, Options{Timeout: 10 * time.Second})
	f.add("spin", "pre", 0, `while (true) {}`)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	f.svc.Pre(ctx, callTool(nil))
	if d := time.Since(start); d > stoppedWithin {
		t.Errorf("took %v after cancel", d)
	}
	if logs := f.svc.Logs("spin"); len(logs) == 0 || !strings.Contains(logs[0].Message, "request canceled") {
		t.Errorf("logs = %+v", logs)
	}
}

func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestRunawayAllocationIsStopped(t *testing.T) {
	const limit = 64 << 20
	for _, script := range []string{
		`const a = []; while (true) a.push({x: 'y'.repeat(100)});`,
		`let s = 'x'; while (true) s += s;`,
		`const m = new Map(); let i = 0; while (true) m.set(i++, [i, i, i]);`,
	} {
		runtime.GC()
		before := heapInUse()
		var peak uint64
		done, exited := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(exited)
			for {
				select {
				case <-done:
					return
				case <-time.After(time.Millisecond):
					if h := heapInUse(); h > peak {
						peak = h
					}
				}
			}
		}()
		// The budget counts what the script holds, not its garbage: under
		// -race on a loaded machine, holding 64 MB of small objects takes
		// longer than 20 s.
		hostile(t, Options{Timeout: 90 * time.Second, MaxMemory: limit}, script, "used too much memory")
		close(done)
		<-exited
		if peak > before+8*limit {
			t.Errorf("%s: heap peaked at %d MB (from %d MB)", script, peak>>20, before>>20)
		}
		t.Logf("%s: heap %d MB -> peak %d MB", script, before>>20, peak>>20)
	}
}

func TestBuiltinAmplifiersAreBounded(t *testing.T) {
	for _, script := range []string{
		`'x'.repeat(2 ** 30);`,
		`'x'.padStart(2 ** 30);`,
		`new Array(1e9).fill(0);`,
		`Array(1e9).join('x');`,
		`Array.from({length: 1e9});`,
		`Array(1e9).map(x => x);`,
		`[...Array(1e9)];`,
		`Array.apply(null, Array(1e9));`,
		`Array(3e7).sort();`,
		`Array(3e7).indexOf(1);`,
		`JSON.stringify({a: Array(1e9)});`,
		`new Set(Array(1e9));`,
		`const b = 'y'.repeat(1e6); Array(1000).fill(b).join('');`,
		`const a = []; a.length = 1e9; a.reverse();`,
		`Array.prototype.fill.call({length: 1e9}, 0);`,
		`'x'.repeat(1e6).replaceAll('', 'y'.repeat(1000));`,
		`'x'.repeat(3e7).split('');`,
		`[Array(1e6), Array(1e6)].flat();`,
		`new Uint8Array(3e8);`,
	} {
		start := time.Now()
		hostile(t, Options{Timeout: 2 * time.Second}, script, "")
		if d := time.Since(start); d > stoppedWithin {
			t.Errorf("%s took %v", script, d)
		}
	}
}

func TestDeepRecursion(t *testing.T) {
	hostile(t, Options{}, `function f(n) { return f(n + 1) + 1; } f(0);`, "call stack exceeded")
	hostile(t, Options{}, `const f = () => { try { f(); } catch (e) { f(); } }; f();`, "call stack exceeded")
	// Deep data: JSON.stringify and the router's own export are bounded too.
	hostile(t, Options{}, `let o = {}; for (let i = 0; i < 1e5; i++) o = {o}; JSON.stringify(o);`, "call stack exceeded")
	f := newFixture(t, Options{})
	f.add("deep", "post", 0, `let o = {}; for (let i = 0; i < 1e5; i++) o = {o}; context.response = o;`)
	c := callTool(nil)
	f.svc.Post(context.Background(), c)
	if c.Response != nil {
		t.Error("deep response accepted")
	}
	if logs := f.svc.Logs("deep"); len(logs) != 1 || !strings.Contains(logs[0].Message, "nested more than") {
		t.Errorf("logs = %+v", logs)
	}
}

func TestNoHostObjects(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("probe", "pre", 0, `
const r = {};
const tryIt = (k, fn) => { try { const v = fn(); r[k] = v === undefined ? 'undefined' : (v === null ? 'null' : typeof v); } catch (e) { r[k] = 'threw ' + e.name; } };
tryIt('process', () => this.constructor.constructor('return process')());
tryIt('require', () => require('fs'));
tryIt('fnRequire', () => Function('return require')());
tryIt('evalProcess', () => eval('process'));
tryIt('globalRequire', () => globalThis.require);
tryIt('module', () => Function('return module')());
tryIt('goObject', () => Object.getPrototypeOf(context.client).constructor === Object ? 'plain' : 'other');
tryIt('consoleProto', () => Object.getPrototypeOf(console) === Object.prototype ? undefined : 'odd');
tryIt('sleepCtor', () => sleep.constructor('return this')().process);
tryIt('uint8', () => globalThis.Uint8Array);
tryIt('fetch', () => fetch);
tryIt('XMLHttpRequest', () => XMLHttpRequest);
r.globals = Object.getOwnPropertyNames(globalThis).filter(k => !/^[A-Z]/.test(k) || ['Reflect','Proxy','Promise','Symbol','Map','Set','WeakMap','WeakSet','JSON','Math','Date','RegExp','Error','Object','Array','String','Number','Boolean','Function','BigInt','Infinity','NaN'].indexOf(k) < 0).sort().join(',');
context.arguments.r = r;`)
	c := callTool(map[string]any{})
	f.svc.Pre(context.Background(), c)
	got := jsonOf(t, c.Arguments)
	for _, want := range []string{`"process":"threw ReferenceError"`, `"require":"threw ReferenceError"`, `"fnRequire":"threw ReferenceError"`,
		`"evalProcess":"threw ReferenceError"`, `"globalRequire":"undefined"`, `"module":"threw ReferenceError"`, `"goObject":"string"`,
		`"consoleProto":"undefined"`, `"sleepCtor":"undefined"`, `"uint8":"undefined"`, `"fetch":"threw ReferenceError"`, `"XMLHttpRequest":"threw ReferenceError"`} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %s:\n%s", want, got)
		}
	}
	t.Logf("globals beyond the standard builtins: %s", c.Arguments.(map[string]any)["r"].(map[string]any)["globals"])
}

func TestPrototypePollutionIsContained(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("polluter", "pre", 0, `
Object.prototype.polluted = 'yes';
Array.prototype.push = function () { return 'hijacked'; };
String.prototype.includes = () => true;
JSON.parse = () => ({});
globalThis.leak = 1;
try { Object.defineProperty(Object.prototype, 'evil', {get() { return 'yes'; }}); } catch (e) {}
try { Object.setPrototypeOf(Object.prototype, {evil2: 'yes'}); } catch (e) {}
context.arguments.__proto__.viaArgs = 'yes';
context.shared.own = ({}).polluted === undefined ? 'clean' : 'dirty';`)
	f.add("victim", "pre", 1, `
const a = [];
a.push(1);
context.shared.victim = [({}).polluted, ({}).evil, ({}).evil2, ({}).viaArgs, a.length, 'abc'.includes('z'), typeof globalThis.leak, typeof JSON.parse('{"q":1}').q].join('|');`)
	for i := 0; i < 3; i++ { // also: the polluter's own later runs see a clean runtime
		c := callTool(map[string]any{})
		if b := f.svc.Pre(context.Background(), c); b != nil {
			t.Fatal(b)
		}
		if got := c.Shared["victim"]; got != "||||1|false|undefined|number" {
			t.Errorf("run %d: victim saw %q", i, got)
		}
		if got := c.Shared["own"]; got != "clean" {
			t.Errorf("run %d: polluter saw its own pollution: %v", i, got)
		}
	}
}

func TestReloadKeepsRuntimesAndPicksUpChanges(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("h", "pre", 0, `context.arguments.v = 1;`)
	f.svc.Pre(context.Background(), callTool(map[string]any{}))
	before := f.svc.set.Load().byName["h"]
	f.svc.Reload(context.Background())
	after := f.svc.set.Load().byName["h"]
	if after.prog != before.prog || len(after.pool.ch) == 0 {
		t.Error("reload without changes recompiled or dropped the pool")
	}
	h, _ := f.svc.Get(context.Background(), "h")
	h.Script = `context.arguments.v = 2;`
	if _, err := f.svc.Update(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	f.svc.Reload(context.Background())
	c := callTool(map[string]any{})
	f.svc.Pre(context.Background(), c)
	if c.Arguments.(map[string]any)["v"] != 2.0 {
		t.Errorf("v = %v after update", c.Arguments.(map[string]any)["v"])
	}
	f.svc.Delete(context.Background(), "h")
	f.svc.Reload(context.Background())
	if f.svc.Active() || len(f.svc.Logs("h")) != 0 {
		t.Error("deleted hook still active")
	}
}

func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t, Options{PoolSize: 2})
	f.add("count", "both", 0, `if (context.phase === 'pre') context.shared.n = context.arguments.n; else context.response.n = context.shared.n;`)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				c := callTool(map[string]any{"n": float64(i*100 + j)})
				f.svc.Pre(context.Background(), c)
				c.Response = map[string]any{}
				f.svc.Post(context.Background(), c)
				if got := c.Response.(map[string]any)["n"]; got != float64(i*100+j) {
					t.Errorf("crossed calls: got %v want %d", got, i*100+j)
					return
				}
			}
		}(i)
	}
	wg.Wait()
}

func TestBrokenStoredHook(t *testing.T) {
	f := newFixture(t, Options{})
	// Written around the service (an older version, the sqlite3 shell).
	f.svc.repo.Create(context.Background(), store.Hook{Name: "open", HookType: "pre", Script: "if (", Enabled: true})
	f.svc.repo.Create(context.Background(), store.Hook{Name: "closed", HookType: "pre", Script: "if (", Enabled: true, FailClosed: true, ExecutionOrder: 1})
	if err := f.svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := f.svc.Pre(context.Background(), callTool(nil))
	if b == nil || b.Hook != "closed" || !strings.Contains(b.Message, "syntax error") {
		t.Errorf("block = %v", b)
	}
	if logs := f.svc.Logs("open"); len(logs) == 0 || !strings.Contains(logs[0].Message, "does not compile") {
		t.Errorf("logs = %+v", logs)
	}
}

func TestTestRun(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("t", "both", 0, `console.log('phase', context.phase); if (context.arguments.bad) return {continue: false, error: {message: 'bad'}}; context.arguments.seen = true;`,
		func(h *store.Hook) { h.Enabled = false })
	res, err := f.svc.Test(context.Background(), "t", *callTool(map[string]any{"bad": false}), PhasePre)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Continue || res.Context["arguments"].(map[string]any)["seen"] != true || len(res.Logs) != 1 || res.Logs[0].Message != "phase pre" {
		t.Errorf("res = %+v", res)
	}
	res, _ = f.svc.Test(context.Background(), "t", *callTool(map[string]any{"bad": true}), PhasePost)
	if res.Continue || res.Block == nil || res.Block.Message != "bad" {
		t.Errorf("res = %+v", res)
	}
	if len(f.svc.Logs("t")) != 0 {
		t.Error("a dry run wrote to the hook log")
	}
	if _, err := f.svc.Test(context.Background(), "ghost", Call{}, PhasePre); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ghost: %v", err)
	}
}

func TestCallFromContext(t *testing.T) {
	var m map[string]any
	json.Unmarshal([]byte(`{"method":"tools/call","serverName":"everything","toolName":"echo","request":{"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"hi"}}},"client":{"tokenName":"t"}}`), &m)
	c, err := CallFromContext(m)
	if err != nil {
		t.Fatal(err)
	}
	if c.RequestType != "CallTool" || jsonOf(t, c.Arguments) != `{"message":"hi"}` || c.Client.TokenName != "t" || c.Params["name"] != "everything__echo" {
		t.Errorf("call = %+v", c)
	}
	if _, err := CallFromContext(map[string]any{"toolname": "x"}); err == nil {
		t.Error("unknown key accepted")
	}
}

func hookRow(name, script string) store.Hook {
	return store.Hook{Name: name, HookType: "both", Script: script, Enabled: true}
}
