package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The forwarding pipeline end to end: every request the router forwards,
// from a client whose token does not reach the server and from one that has
// not passed the server's activate gate, over real HTTP to a real
// subprocess that writes down every request it reads. Neither reaches it;
// the same requests from a client that may reach it do.

type callerKey struct{}

// headerCaller is the test's token check: the X-Caller header names the
// caller, "scoped" may use the server "other" only.
func headerCaller(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, r.Header.Get("X-Caller"))))
	})
}

func callerFromHeader(ctx context.Context) Caller {
	name, _ := ctx.Value(callerKey{}).(string)
	if name == "scoped" {
		return Caller{Name: name, Allows: func(s string) bool { return s == "other" }}
	}
	return Caller{Name: name}
}

func recorder(name string, gated bool) spec.Server {
	s := spec.Server{Name: name, Command: os.Args[0], Enabled: true,
		Env: map[string]string{"MCPR_FAKE_MODE": "recorder", "MCPR_REC_SCHEME": name}}
	s.Gate.Enabled = gated
	s.Normalize()
	return s
}

// forwardedMethods sends every forwarded request to server's items and
// reports, per method, whether the client was refused.
func forwardedMethods(t *testing.T, c *client.Client, server string) map[string]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	refused := map[string]bool{}
	note := func(what string, err error) {
		refused[what] = err != nil
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: server + "__echo", Arguments: map[string]any{}}})
	note("tools/call", err)
	if err == nil && res.IsError {
		refused["tools/call"] = true // the gate's refusal is a tool error
	}
	// With a progress token the call takes mcp-go's path, not the fast path.
	res, err = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: server + "__echo",
		Meta: &mcp.Meta{ProgressToken: "p1"}}})
	note("tools/call (mcp-go's path)", err)
	if err == nil && res.IsError {
		refused["tools/call (mcp-go's path)"] = true
	}
	_, err = c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: server + "__greet"}})
	note("prompts/get", err)
	_, err = c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: server + "://doc"}})
	note("resources/read", err)
	_, err = c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: server + "://items/7"}})
	note("resources/read (template)", err)
	note("resources/subscribe", c.Subscribe(ctx, mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: server + "://doc"}}))
	note("resources/unsubscribe", c.Unsubscribe(ctx, mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: server + "://doc"}}))
	_, err = c.Complete(ctx, mcp.CompleteRequest{Params: mcp.CompleteParams{
		Ref: mcp.PromptReference{Type: "ref/prompt", Name: server + "__greet"}, Argument: mcp.CompleteArgument{Name: "name", Value: "a"}}})
	note("completion/complete (prompt)", err)
	_, err = c.Complete(ctx, mcp.CompleteRequest{Params: mcp.CompleteParams{
		Ref: mcp.ResourceReference{Type: "ref/resource", URI: server + "://items/{id}"}, Argument: mcp.CompleteArgument{Name: "id", Value: "1"}}})
	note("completion/complete (resource)", err)
	// logging/setLevel goes to every server the client may reach; the
	// client itself is answered either way.
	if err := c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelWarning}}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	return refused
}

// received is what the recorder read, one method per request.
func received(t *testing.T, r *rig, server string) []string {
	t.Helper()
	lines, err := r.ups.Console(server)
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, l := range lines {
		if m, ok := strings.CutPrefix(l, "recv "); ok {
			methods = append(methods, m)
		}
	}
	return methods
}

// forwarded are the methods in list that the router forwards.
func forwarded(list []string) []string {
	var out []string
	for _, m := range list {
		if slices.Contains(pipeline.Forwarded, m) {
			out = append(out, m)
		}
	}
	return out
}

func TestEveryForwardedMethodPassesScopeAndGate(t *testing.T) {
	r := newRig(t, []spec.Server{recorder("rec", true), recorder("other", false)},
		rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	r.waitTool(t, "rec__echo") // refused by the gate, not as unknown
	before := len(received(t, r, "rec"))

	scoped := connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": "scoped"}})
	locked := connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": "locked"}})
	for who, c := range map[string]*client.Client{"a token scoped to another server": scoped, "a client the gate has locked": locked} {
		for method, wasRefused := range forwardedMethods(t, c, "rec") {
			if !wasRefused {
				t.Errorf("%s: %s was not refused", who, method)
			}
		}
	}

	// A client that may reach rec activates it (the gate pings it) and
	// calls it: once that call arrived, everything before it has too.
	allowed := connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": "allowed"}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if res, err := allowed.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "rec__activate"}}); err != nil || res.IsError {
		t.Fatalf("activate: %v %+v", err, res)
	}
	testpeers.Eventually(t, 10*time.Second, "rec's ping from the activation", func() bool {
		return slices.Contains(received(t, r, "rec")[before:], "ping")
	})
	got := received(t, r, "rec")[before:]
	if leaked := forwarded(got[:slices.Index(got, "ping")]); len(leaked) > 0 {
		t.Fatalf("refused requests reached the upstream: %v", leaked)
	}

	// The same requests from the activated client do reach it, so the
	// check above could fail.
	mark := len(received(t, r, "rec"))
	for method, wasRefused := range forwardedMethods(t, allowed, "rec") {
		if wasRefused {
			t.Errorf("allowed client: %s was refused", method)
		}
	}
	want := []string{"tools/call", "prompts/get", "resources/read", "resources/subscribe", "resources/unsubscribe",
		"completion/complete", "logging/setLevel"}
	testpeers.Eventually(t, 10*time.Second, "every forwarded method at rec", func() bool {
		got := forwarded(received(t, r, "rec")[mark:])
		for _, m := range want {
			if !slices.Contains(got, m) {
				return false
			}
		}
		return true
	})
	// And the scoped token reaches the server it is scoped to.
	mark = len(received(t, r, "other"))
	for method, wasRefused := range forwardedMethods(t, scoped, "other") {
		if wasRefused {
			t.Errorf("scoped client on its own server: %s was refused", method)
		}
	}
	testpeers.Eventually(t, 10*time.Second, "every forwarded method at other", func() bool {
		return len(forwarded(received(t, r, "other")[mark:])) >= len(want)
	})
}

// Lists pass the same chain: a scoped token sees nothing of the servers it
// may not use, and a gate that hides its tools hides them until activation.
func TestListsPassScopeAndGate(t *testing.T) {
	rec := recorder("rec", true)
	rec.Gate.HideTools = true
	r := newRig(t, []spec.Server{rec, recorder("other", false)}, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	r.waitTool(t, "rec__echo") // published, so hiding it is the gate's doing
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lists := func(c *client.Client) (tools, prompts, resources, templates []string) {
		tl, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tl.Tools {
			tools = append(tools, x.Name)
		}
		pl, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range pl.Prompts {
			prompts = append(prompts, x.Name)
		}
		rl, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range rl.Resources {
			resources = append(resources, x.URI)
		}
		tml, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tml.ResourceTemplates {
			templates = append(templates, x.URITemplate.Raw())
		}
		return
	}
	tools, prompts, resources, templates := lists(connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": "scoped"}}))
	for _, l := range [][]string{tools, prompts, resources, templates} {
		for _, name := range l {
			if strings.HasPrefix(name, "rec") {
				t.Errorf("the scoped token sees %s", name)
			}
		}
	}
	if !slices.Contains(tools, "other__echo") || !slices.Contains(resources, "other://doc") || !slices.Contains(templates, "other://items/{id}") {
		t.Errorf("the scoped token misses its own server: %v %v %v", tools, resources, templates)
	}
	c := connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": "someone"}})
	tools, _, _, _ = lists(c)
	if slices.Contains(tools, "rec__echo") || !slices.Contains(tools, "rec__activate") {
		t.Fatalf("before activation: %v", tools)
	}
	if res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "rec__activate"}}); err != nil || res.IsError {
		t.Fatalf("activate: %v %+v", err, res)
	}
	tools, _, _, _ = lists(c)
	if !slices.Contains(tools, "rec__echo") {
		t.Fatalf("after activation: %v", tools)
	}
}

// countingHooks counts the requests that reached the hooks step.
type countingHooks struct{ pre atomic.Int64 }

func (h *countingHooks) Active() bool { return true }
func (h *countingHooks) Pre(context.Context, *hook.Call) *hook.Block {
	h.pre.Add(1)
	return nil
}
func (h *countingHooks) Post(context.Context, *hook.Call) *hook.Block { return nil }

// The gateway's chain is in the pipeline's order: what identity or the
// gate refuses never reaches the hooks, on either path.
func TestRefusedRequestsNeverReachTheHooks(t *testing.T) {
	hooks := &countingHooks{}
	r := newRig(t, []spec.Server{recorder("rec", true), recorder("other", false)},
		rigOptions{auth: headerCaller, callerFrom: callerFromHeader, hooks: hooks})
	r.waitTool(t, "rec__echo")
	for _, who := range []string{"scoped", "locked"} {
		forwardedMethods(t, connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": who}}), "rec")
	}
	if n := hooks.pre.Load(); n != 0 {
		t.Fatalf("%d refused requests reached the hooks", n)
	}
	forwardedMethods(t, connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": "scoped"}}), "other")
	if hooks.pre.Load() == 0 {
		t.Fatal("allowed requests did not reach the hooks either: the check above cannot fail")
	}
}

// An answer mcp-go never asked for (it refused the request after the chain
// ran, without a hook) does not stay in memory.
func TestUntakenListAnswersAreDropped(t *testing.T) {
	var p pendingLists
	p.store(requestKey{id: "old"}, pipeline.Result{})
	p.mu.Lock()
	e := p.m[requestKey{id: "old"}]
	e.at = e.at.Add(-2 * pendingListTTL)
	p.m[requestKey{id: "old"}] = e
	p.mu.Unlock()
	for i := 0; i < 255; i++ {
		p.store(requestKey{id: fmt.Sprint(i)}, pipeline.Result{})
	}
	if _, ok := p.take(requestKey{id: "old"}); ok {
		t.Fatal("a stale answer was kept")
	}
	if _, ok := p.take(requestKey{id: "254"}); !ok {
		t.Fatal("a fresh answer was dropped")
	}
}

// In-process callers (the chat panel) go through the same chain as clients:
// their caller's scope applies, the gate applies, and the log names them.
func TestInProcessCallsPassThePipeline(t *testing.T) {
	r := newRig(t, []spec.Server{recorder("rec", true), recorder("other", false)}, rigOptions{})
	r.waitTool(t, "rec__echo") // a gated server's activate tool is published before it runs
	ctx := pipeline.WithCaller(context.Background(), Caller{Name: "chat", Allows: func(s string) bool { return s == "other" }})
	tools, err := r.gw.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "other__echo") || slices.Contains(names, "rec__echo") || slices.Contains(names, "rec__activate") {
		t.Fatalf("chat's tools: %v", names)
	}
	if _, err := r.gw.CallTool(ctx, "rec__echo", nil); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("a tool out of chat's scope: %v", err)
	}
	res, err := r.gw.CallTool(ctx, "other__echo", json.RawMessage(`{"x":1}`))
	if err != nil || res.IsError {
		t.Fatalf("other__echo: %v %+v", err, res)
	}
	if e, ok := r.log.find("tools/call", "other__echo"); !ok || e.Client != "chat" || !strings.Contains(e.Request, `"x":1`) {
		t.Fatalf("log entry %+v", e)
	}
	// Unscoped, the gate still holds chat to activation.
	open := pipeline.WithCaller(context.Background(), Caller{Name: "chat"})
	res, err = r.gw.CallTool(open, "rec__echo", nil)
	if err != nil || !res.IsError {
		t.Fatalf("a gated tool before activation: %v %+v", err, res)
	}
	if res, err := r.gw.CallTool(open, "rec__activate", nil); err != nil || res.IsError {
		t.Fatalf("activate: %v %+v", err, res)
	}
	if res, err := r.gw.CallTool(open, "rec__echo", nil); err != nil || res.IsError {
		t.Fatalf("after activation: %v %+v", err, res)
	}
}

// waitTool waits until the gateway publishes the named tool.
func (r *rig) waitTool(t testing.TB, name string) {
	t.Helper()
	testpeers.Eventually(t, 30*time.Second, name+" in the gateway", func() bool {
		_, _, ok := r.gw.ToolRoute(name)
		return ok
	})
}
