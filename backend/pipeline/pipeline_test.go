package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/store"
)

// recorder is a step that notes when it acts, before and after the rest of
// the chain, and can refuse.
type recorder struct {
	name   string
	trace  *[]string
	refuse bool
}

func (s recorder) Serve(ctx context.Context, r *Request, next Handler) (Result, error) {
	*s.trace = append(*s.trace, s.name)
	if s.refuse {
		return Result{}, errors.New(s.name + " refused")
	}
	res, err := next(ctx, r)
	*s.trace = append(*s.trace, "/"+s.name)
	return res, err
}

type memLog struct {
	mu      sync.Mutex
	entries []store.RequestLog
}

func (m *memLog) Log(e store.RequestLog) {
	m.mu.Lock()
	m.entries = append(m.entries, e)
	m.mu.Unlock()
}

// logStep records "log" when the log step writes its entry.
type logStep struct {
	Log
	trace *[]string
}

func (s logStep) Serve(ctx context.Context, r *Request, next Handler) (Result, error) {
	res, err := s.Log.Serve(ctx, r, next)
	*s.trace = append(*s.trace, "log")
	return res, err
}

func TestTheChainActsInItsOrder(t *testing.T) {
	var trace []string
	sink := &memLog{}
	send := func(context.Context, *Request) (Result, error) {
		trace = append(trace, "send")
		return Result{Raw: json.RawMessage(`{"content":[]}`)}, nil
	}
	c := New(Steps{
		Identity:  recorder{name: "identity", trace: &trace},
		Discovery: recorder{name: "discovery", trace: &trace},
		Gate:      recorder{name: "gate", trace: &trace},
		Policy:    recorder{name: "policy", trace: &trace},
		Hooks:     recorder{name: "hooks", trace: &trace},
		Log:       logStep{Log{Sink: sink}, &trace},
	}, send)
	if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "s", Target: "s__t"}); err != nil {
		t.Fatal(err)
	}
	var acted []string
	for _, s := range trace {
		if !strings.HasPrefix(s, "/") {
			acted = append(acted, s)
		}
	}
	if !reflect.DeepEqual(acted, Order) {
		t.Fatalf("the steps acted in the order %v, want %v", acted, Order)
	}
	want := []string{"identity", "discovery", "gate", "policy", "hooks", "send", "/hooks", "/policy", "/gate", "/discovery", "/identity", "log"}
	if !reflect.DeepEqual(trace, want) {
		t.Fatalf("trace %v, want %v", trace, want)
	}
	if len(sink.entries) != 1 {
		t.Fatalf("%d log entries, want 1", len(sink.entries))
	}
}

// A step that refuses ends the request there: no later step and no send
// runs, and the log still records it.
func TestARefusalStopsTheChainAndIsLogged(t *testing.T) {
	for i, name := range []string{"identity", "gate", "policy", "hooks"} {
		t.Run(name, func(t *testing.T) {
			var trace []string
			sink := &memLog{}
			steps := make([]recorder, 4)
			for j, n := range []string{"identity", "gate", "policy", "hooks"} {
				steps[j] = recorder{name: n, trace: &trace, refuse: j == i}
			}
			c := New(Steps{Identity: steps[0], Gate: steps[1], Policy: steps[2], Hooks: steps[3], Log: Log{Sink: sink}},
				func(context.Context, *Request) (Result, error) {
					trace = append(trace, "send")
					return Result{}, nil
				})
			_, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "s", Target: "s__t"})
			if err == nil || !strings.Contains(err.Error(), name+" refused") {
				t.Fatalf("error %v, want %s's refusal", err, name)
			}
			if !Logged(err) {
				t.Fatal("the refusal is not marked as logged")
			}
			for _, later := range append([]string{"identity", "gate", "policy", "hooks"}[i+1:], "send") {
				for _, s := range trace {
					if s == later {
						t.Fatalf("trace %v: %s ran after %s refused", trace, later, name)
					}
				}
			}
			if len(sink.entries) != 1 || sink.entries[0].Status != store.StatusError {
				t.Fatalf("log entries %+v, want one error", sink.entries)
			}
		})
	}
}

func TestIdentityKeepsTheCallerToItsScope(t *testing.T) {
	scoped := func(context.Context) Caller {
		return Caller{Name: "scoped", Allows: func(s string) bool { return s == "mine" }}
	}
	sent := 0
	c := New(Steps{Identity: Identity{CallerFrom: scoped}}, func(_ context.Context, r *Request) (Result, error) {
		sent++
		return Result{Raw: json.RawMessage(`{}`)}, nil
	})
	cases := []struct {
		method, target string
		params         map[string]any
		reason         string
	}{
		{MethodToolsCall, "other__echo", nil, ReasonUnknownTool},
		{MethodPromptsGet, "other__p", nil, ReasonUnknownPrompt},
		{MethodResourcesRead, "demo://x", nil, ReasonUnknownResource},
		{MethodSubscribe, "demo://x", nil, ReasonUnknownResource},
		{MethodUnsubscribe, "demo://x", nil, ReasonUnknownResource},
		{MethodComplete, "other__p", map[string]any{"ref": map[string]any{"type": "ref/prompt"}}, ReasonUnknownPrompt},
		{MethodComplete, "demo://{x}", map[string]any{"ref": map[string]any{"type": "ref/resource"}}, ReasonUnknownResource},
	}
	for _, tc := range cases {
		_, err := c.Serve(context.Background(), &Request{Method: tc.method, Server: "other", Target: tc.target, Params: tc.params})
		var re *RouteError
		if !errors.As(err, &re) || re.Reason != tc.reason || re.Server != RouterServer {
			t.Errorf("%s %s: error %v, want reason %s", tc.method, tc.target, err, tc.reason)
		}
	}
	if sent != 0 {
		t.Fatalf("send ran %d times for requests out of scope", sent)
	}
	if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "mine", Target: "mine__echo"}); err != nil || sent != 1 {
		t.Fatalf("a request in scope: err %v, sent %d", err, sent)
	}
	// A fan-out request keeps only the candidates in scope.
	r := &Request{Method: MethodToolsList, List: &List{Items: []ListItem{{Server: "mine", Name: "a"}, {Server: "other", Name: "b"}, {Server: "mine", Name: "c"}}}}
	if _, err := c.Serve(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if got := r.List.Items; len(got) != 2 || got[0].Name != "a" || got[1].Name != "c" {
		t.Fatalf("candidates %+v, want a and c", got)
	}
}

// A single-tool scope (AllowsTool) reaches that tool of a server only: not
// a prompt or resource that happens to share its name, not the server's
// other tools, not logging/setLevel.
func TestIdentityKeepsASingleToolScopeToItsTool(t *testing.T) {
	oneTool := func(context.Context) Caller {
		return Caller{Name: "oauth:dora", Allows: func(string) bool { return false },
			AllowsTool: func(s, item string) bool { return s == "srv" && item == "echo" }}
	}
	sent := 0
	c := New(Steps{Identity: Identity{CallerFrom: oneTool}}, func(_ context.Context, r *Request) (Result, error) {
		sent++
		return Result{Raw: json.RawMessage(`{}`)}, nil
	})
	for _, tc := range []struct{ method, item string }{
		{MethodToolsCall, "other"}, {MethodPromptsGet, "echo"}, {MethodResourcesRead, "echo"}, {MethodSubscribe, "echo"},
		{MethodComplete, "echo"},
	} {
		if _, err := c.Serve(context.Background(), &Request{Method: tc.method, Server: "srv", Item: tc.item, Target: "srv__" + tc.item}); err == nil {
			t.Errorf("%s %s passed with a scope of srv/echo", tc.method, tc.item)
		}
	}
	if sent != 0 {
		t.Fatalf("send ran %d times for requests out of scope", sent)
	}
	if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "srv", Item: "echo", Target: "srv__echo"}); err != nil || sent != 1 {
		t.Fatalf("the scoped tool: err %v, sent %d", err, sent)
	}
	lists := map[string][]string{MethodToolsList: {"echo"}, MethodPromptsList: nil, MethodResourcesList: nil, MethodSetLevel: nil}
	for method, want := range lists {
		r := &Request{Method: method, List: &List{Items: []ListItem{{Server: "srv", Item: "echo", Name: "echo"},
			{Server: "srv", Item: "other", Name: "other"}, {Server: "srv", Name: ""}, {Server: "x", Item: "echo", Name: "x-echo"}}}}
		if _, err := c.Serve(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range r.List.Items {
			got = append(got, it.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s kept %v, want %v", method, got, want)
		}
	}
}

// The rest of the chain (and an upstream reached in-process) finds the
// caller in its context; a value a client could send cannot stand in.
func TestIdentityPutsTheCallerInTheContext(t *testing.T) {
	who := func(context.Context) Caller {
		return Caller{Name: "alice", Subject: "sub-1", Roles: []string{"reviewer"}}
	}
	var seen Caller
	var ok bool
	c := New(Steps{Identity: Identity{CallerFrom: who}}, func(ctx context.Context, r *Request) (Result, error) {
		seen, ok = CallerOf(ctx)
		return Result{Raw: json.RawMessage(`{}`)}, nil
	})
	if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "s", Target: "s__t"}); err != nil {
		t.Fatal(err)
	}
	if !ok || seen.Name != "alice" || seen.Subject != "sub-1" || len(seen.Roles) != 1 || seen.Roles[0] != "reviewer" {
		t.Fatalf("send saw caller %+v (found %v)", seen, ok)
	}
	if _, found := CallerOf(context.Background()); found {
		t.Fatal("a bare context has a caller")
	}
}

func TestPolicyStepAsksThePolicyInForce(t *testing.T) {
	var current Step
	refuse := StepFunc(func(context.Context, *Request, Handler) (Result, error) {
		return Result{}, errors.New("denied by policy")
	})
	c := New(Steps{Policy: PolicyStep{Current: func() Step { return current }}},
		func(context.Context, *Request) (Result, error) { return Result{Raw: json.RawMessage(`{}`)}, nil })
	if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall}); err != nil {
		t.Fatalf("no policy: %v", err)
	}
	current = refuse
	if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall}); err == nil {
		t.Fatal("the policy put in force did not apply to the next request")
	}
}

// fakeHooks is a hook engine whose scripts are Go functions.
type fakeHooks struct {
	pre, post func(*hook.Call) *hook.Block
}

func (f fakeHooks) Active() bool { return true }
func (f fakeHooks) Pre(_ context.Context, c *hook.Call) *hook.Block {
	if f.pre == nil {
		return nil
	}
	return f.pre(c)
}
func (f fakeHooks) Post(_ context.Context, c *hook.Call) *hook.Block {
	if f.post == nil {
		return nil
	}
	return f.post(c)
}

func TestHooksChangeWhatIsSentAndWhatComesBack(t *testing.T) {
	var got *Request
	send := func(_ context.Context, r *Request) (Result, error) {
		copy := *r
		got = &copy
		return Result{Raw: json.RawMessage(`{"content":[{"type":"text","text":"upstream"}]}`)}, nil
	}
	engine := fakeHooks{
		pre: func(c *hook.Call) *hook.Block {
			if c.ToolName != "echo" || c.Params["name"] != "srv__echo" || c.ServerName != "srv" {
				return &hook.Block{Hook: "check", Message: "the hook saw the wrong names"}
			}
			c.Arguments = map[string]any{"message": "rewritten"}
			c.Changed |= hook.ChangedArguments
			return nil
		},
		post: func(c *hook.Call) *hook.Block {
			c.Response = map[string]any{"content": []any{map[string]any{"type": "text", "text": "from the hook"}}}
			c.Changed |= hook.ChangedResponse
			return nil
		},
	}
	sink := &memLog{}
	c := New(Steps{Hooks: Hooks{Engine: engine}, Log: Log{Sink: sink}}, send)
	res, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "srv", Item: "echo", Target: "srv__echo",
		Args: json.RawMessage(`{"message":"original"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Args) != `{"message":"rewritten"}` || got.Item != "echo" || got.Server != "srv" {
		t.Fatalf("sent %+v", got)
	}
	if !strings.Contains(string(res.Raw), "from the hook") {
		t.Fatalf("result %s", res.Raw)
	}
	// The log shows the request as the client sent it, the result as the
	// client got it.
	e := sink.entries[0]
	if !strings.Contains(e.Request, `"original"`) || !strings.Contains(e.Response, "from the hook") {
		t.Fatalf("log entry %+v", e)
	}
}

func TestAHookBlockIsLoggedAsBlocked(t *testing.T) {
	sent := false
	engine := fakeHooks{pre: func(*hook.Call) *hook.Block { return &hook.Block{Hook: "no", Message: "not today"} }}
	sink := &memLog{}
	c := New(Steps{Hooks: Hooks{Engine: engine}, Log: Log{Sink: sink}}, func(context.Context, *Request) (Result, error) {
		sent = true
		return Result{}, nil
	})
	_, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "s", Target: "s__t"})
	var b *hook.Block
	if !errors.As(err, &b) || sent {
		t.Fatalf("err %v, sent %v", err, sent)
	}
	if sink.entries[0].Status != store.StatusBlocked {
		t.Fatalf("status %q, want blocked", sink.entries[0].Status)
	}
}

func TestTheLogRecordsToolErrorsAndRefusals(t *testing.T) {
	sink := &memLog{}
	results := []Result{
		{Raw: json.RawMessage(`{"content":[{"type":"text","text":"bad input"}],"isError":true}`)},
		{Raw: json.RawMessage(`{"content":[{"type":"text","text":"locked"}],"isError":true}`), Refusal: "locked"},
	}
	i := 0
	c := New(Steps{Log: Log{Sink: sink}}, func(context.Context, *Request) (Result, error) {
		i++
		return results[i-1], nil
	})
	for range results {
		if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "s", Target: "s__t", Args: json.RawMessage(`{"a":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if e := sink.entries[0]; e.Status != store.StatusError || e.Error != "bad input" {
		t.Errorf("tool error logged as %+v", e)
	}
	if e := sink.entries[1]; e.Status != store.StatusBlocked || e.Error != "locked" {
		t.Errorf("refusal logged as %+v", e)
	}
	if e := sink.entries[0]; e.Request != `{"method":"tools/call","params":{"name":"s__t","arguments":{"a":1}}}` {
		t.Errorf("request text %s", e.Request)
	}
}

// An ability's Prepare runs between identity and gate: a refusal there
// reaches neither the gate, the policy, the hooks nor send, and the log
// records it with the arguments as the client sent them, the backend
// tool, and that nothing was sent; a mapping it makes is what the later
// steps and send see.
func TestPrepareRunsAfterIdentityAndIsLogged(t *testing.T) {
	var trace []string
	sink := &memLog{}
	var sentArgs string
	send := func(_ context.Context, r *Request) (Result, error) {
		trace = append(trace, "send")
		sentArgs = string(r.Args)
		return Result{Raw: json.RawMessage(`{"content":[]}`)}, nil
	}
	c := New(Steps{
		Identity: Identity{},
		Gate:     recorder{name: "gate", trace: &trace},
		Policy:   recorder{name: "policy", trace: &trace},
		Hooks:    recorder{name: "hooks", trace: &trace},
		Log:      Log{Sink: sink},
	}, send)
	refused := &RouteError{Server: RouterServer, What: "invalid arguments for sum: no", Reason: ReasonInvalidArguments, Code: -32602}
	prepared := 0
	r := &Request{Method: MethodToolsCall, Server: "calc", Item: "get-sum", Target: "sum", Permission: "read",
		Args: json.RawMessage(`{"x":"two"}`), Prepare: func(*Request) error { prepared++; return refused }}
	_, err := c.Serve(context.Background(), r)
	if !errors.Is(err, refused) || !Logged(err) || prepared != 1 || len(trace) != 0 {
		t.Fatalf("err %v, prepared %d, trace %v", err, prepared, trace)
	}
	e := sink.entries[0]
	if e.Status != store.StatusError || e.Server != "calc" || e.Target != "sum" || e.BackendTool != "get-sum" ||
		e.Error != "mcp-router: invalid arguments for sum: no (invalid_arguments: refused by the router; nothing was sent to calc)" ||
		!strings.Contains(e.Request, `"arguments":{"x":"two"}`) {
		t.Errorf("entry %+v", e)
	}

	// A caller outside the server's scope is refused by identity first:
	// Prepare never runs (the ability reads as unknown).
	scoped := WithCaller(context.Background(), Caller{Name: "c", Allows: func(string) bool { return false }})
	r.Prepare = func(*Request) error { prepared++; return nil }
	if _, err := c.Serve(scoped, r); err == nil || prepared != 1 || !strings.Contains(err.Error(), "tool 'sum' not found") {
		t.Errorf("scoped: %v, prepared %d", err, prepared)
	}

	// A mapping: later steps and send see the backend's arguments, the
	// log the client's.
	r = &Request{Method: MethodToolsCall, Server: "calc", Item: "get-sum", Target: "sum", Permission: "read",
		Args: json.RawMessage(`{"x":2}`), Prepare: func(r *Request) error { r.Args = json.RawMessage(`{"a":2,"b":100}`); return nil }}
	if _, err := c.Serve(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if sentArgs != `{"a":2,"b":100}` || !reflect.DeepEqual(trace, []string{"gate", "policy", "hooks", "send", "/hooks", "/policy", "/gate"}) {
		t.Errorf("sent %s, trace %v", sentArgs, trace)
	}
	if e := sink.entries[2]; e.Status != store.StatusOK || e.BackendTool != "get-sum" || !strings.Contains(e.Request, `"arguments":{"x":2}`) {
		t.Errorf("entry %+v", e)
	}
	// A call of an upstream tool as itself has no backend tool.
	if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "calc", Item: "get-sum", Target: "calc__get-sum"}); err != nil {
		t.Fatal(err)
	}
	if e := sink.entries[3]; e.BackendTool != "" {
		t.Errorf("plain call logged backend tool %q", e.BackendTool)
	}
}
