package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

const abilitiesPolicy = `abilities:
  - name: sum
    description: Adds x and y (y is 100 when left out)
    permission: read
    server: calc
    tool: get-sum
    input_schema:
      type: object
      properties:
        x: {type: integer}
        y: {type: integer}
      required: [x]
    arguments:
      a: {from: x}
      b: {from: y, default: 100}
  - name: greet
    permission: read
    server: calc
    tool: echo
    input_schema: {type: object}
    arguments:
      message: {const: fixed words}
  - name: drop_note
    permission: write
    server: notes
    tool: delete_note
    input_schema:
      type: object
      properties:
        title: {type: string, minLength: 1}
      required: [title]
    arguments:
      id: {from: title}
  - name: ghost
    permission: read
    server: calc
    tool: no-such-tool
    input_schema: {type: object}
  - name: calc__echo
    permission: write
    server: notes
    tool: delete_note
    input_schema: {type: object}
    arguments:
      id: {const: everything}
policies:
  - name: writes-need-a-person
    match: {permissions: [write]}
    require: {human_approval: true}
`

// resultText is the text of a tools/call answer's first content item.
func resultText(t *testing.T, body []byte) string {
	t.Helper()
	if i := strings.LastIndex(string(body), "data: "); i >= 0 {
		body = body[i+len("data: "):]
	}
	var resp struct {
		Result *struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.Result == nil || len(resp.Result.Content) == 0 {
		t.Fatalf("not a tool result: %s", body)
	}
	return resp.Result.Content[0].Text
}

func toolNames(t *testing.T, body []byte) []string {
	t.Helper()
	if i := strings.LastIndex(string(body), "data: "); i >= 0 {
		body = body[i+len("data: "):]
	}
	var resp struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("tools/list: %s", body)
	}
	var names []string
	for _, x := range resp.Result.Tools {
		names = append(names, x.Name)
	}
	return names
}

// Abilities through the real endpoint, with real upstreams (server-
// everything as calc, testmcp as notes) and real tokens.
func TestAbilitiesThroughTheEndpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, policy.FileName)
	if err := os.WriteFile(path, []byte(abilitiesPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := serveWith(t, dir, []spec.Server{everythingDef(t, "calc"), testmcp.Server("notes")}, false, Options{})
	if st := ep.core.Policy.Status(); !st.Active || st.Error != nil {
		t.Fatalf("policy status %+v", st)
	}
	ctx := context.Background()
	full, _, err := ep.core.Auth.Create(ctx, "full", nil)
	if err != nil {
		t.Fatal(err)
	}
	notesOnly, _, err := ep.core.Auth.Create(ctx, "notes-only", []string{"notes"})
	if err != nil {
		t.Fatal(err)
	}
	call := tokenSession(t, ep.url, full)
	id := 10
	rpc := func(call func(string) []byte, method, params string) []byte {
		id++
		return call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	}
	callTool := func(call func(string) []byte, name, args string) []byte {
		return rpc(call, "tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, name, args))
	}

	t.Run("listed under their own names while their backend tool exists", func(t *testing.T) {
		var names []string
		testpeers.Eventually(t, 10*time.Second, "the abilities listed", func() bool {
			names = toolNames(t, rpc(call, "tools/list", "{}"))
			return slices.Contains(names, "sum") && slices.Contains(names, "greet") && slices.Contains(names, "drop_note")
		})
		if slices.Contains(names, "ghost") {
			t.Errorf("ghost (its backend tool does not exist) listed: %v", names)
		}
		if !slices.Contains(names, "calc__get-sum") || !slices.Contains(names, "notes__delete_note") {
			t.Errorf("the backend tools are still listed as themselves: %v", names)
		}
		if n := strings.Count(strings.Join(names, " ")+" ", "calc__echo "); n != 1 {
			t.Errorf("calc__echo listed %d times: %v", n, names)
		}
		body := string(rpc(call, "tools/list", "{}"))
		if !strings.Contains(body, `"Adds x and y (y is 100 when left out)"`) || !strings.Contains(body, `"required":["x"]`) {
			t.Errorf("sum's description and input schema: %s", body)
		}
	})
	t.Run("called with the arguments mapped: from, default, const", func(t *testing.T) {
		if got := resultText(t, callTool(call, "sum", `{"x":2,"y":40}`)); !strings.Contains(got, "42") {
			t.Errorf("sum 2+40: %q", got)
		}
		if got := resultText(t, callTool(call, "sum", `{"x":2}`)); !strings.Contains(got, "102") {
			t.Errorf("sum 2 with y's default 100: %q", got)
		}
		// An ability named like an upstream tool loses to it.
		if got := resultText(t, callTool(call, "calc__echo", `{"message":"upstream"}`)); !strings.Contains(got, "Echo: upstream") {
			t.Errorf("calc__echo is the upstream's: %q", got)
		}
		if got := resultText(t, callTool(call, "greet", `{"message":"ignored"}`)); !strings.Contains(got, "fixed words") || strings.Contains(got, "ignored") {
			t.Errorf("greet sends its const: %q", got)
		}
		// mcp-go's path (a progress token keeps the call off the fast path).
		b := rpc(call, "tools/call", `{"name":"sum","arguments":{"x":1},"_meta":{"progressToken":"p1"}}`)
		if got := resultText(t, b); !strings.Contains(got, "101") {
			t.Errorf("sum on mcp-go's path: %q", got)
		}
	})
	t.Run("an invalid input is refused and reaches no upstream", func(t *testing.T) {
		for _, args := range []string{`{"x":"two"}`, `{}`, `{"y":1}`, `{"x":1.5}`} {
			e := errorIn(t, callTool(call, "sum", args))
			if e.Code != -32602 || e.Data["reason"] != "invalid_arguments" || e.Data["tool"] != "sum" ||
				!strings.Contains(e.Message, "invalid arguments for sum") || e.Data["errors"] == nil {
				t.Errorf("%s: %+v", args, e)
			}
		}
		// mcp-go's path refuses it the same way.
		if e := errorIn(t, rpc(call, "tools/call", `{"name":"sum","arguments":{},"_meta":{"progressToken":"p3"}}`)); e.Code != -32602 || e.Data["reason"] != "invalid_arguments" {
			t.Errorf("on mcp-go's path: %+v", e)
		}
		e := errorIn(t, callTool(call, "sum", `{"x":"two"}`))
		if !strings.Contains(e.Message, "/x") || !strings.Contains(e.Message, "integer") {
			t.Errorf("the error says which field and why: %q", e.Message)
		}
	})
	t.Run("the request log names the ability and its backend", func(t *testing.T) {
		if err := ep.core.Requests.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := ep.core.Store.Logs().List(ctx, store.LogFilter{Server: "calc"})
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, r := range rows {
			if r.Method == "tools/call" {
				n[r.Target+" "+r.Status]++
				if (r.Target == "sum") != (r.BackendTool == "get-sum") || (r.Target == "greet") != (r.BackendTool == "echo") {
					t.Errorf("entry %d: target %q, backend tool %q", r.ID, r.Target, r.BackendTool)
				}
				if r.Status == store.StatusError && (!strings.Contains(r.Error, "invalid_arguments") || !strings.Contains(r.Error, "nothing was sent to calc") || r.Response != "") {
					t.Errorf("refused entry %d: %+v", r.ID, r)
				}
			}
		}
		// The 3 valid sum calls went through; the 6 invalid ones are
		// logged as refused by the router.
		if n["sum ok"] != 3 || n["greet ok"] != 1 || n["sum error"] != 6 || n["calc__echo ok"] != 1 {
			t.Errorf("calls of calc logged by target and status: %v", n)
		}
	})
	t.Run("in-process calls (chat panel, UI) map and check the same way", func(t *testing.T) {
		res, err := ep.core.Gateway.CallTool(ctx, "sum", json.RawMessage(`{"x":3}`))
		if err != nil || len(res.Content) == 0 || !strings.Contains(fmt.Sprint(res.Content[0]), "103") {
			t.Errorf("in-process sum: %+v %v", res, err)
		}
		if _, err := ep.core.Gateway.CallTool(ctx, "sum", json.RawMessage(`{"x":"3"}`)); err == nil || !strings.Contains(err.Error(), "invalid arguments for sum") {
			t.Errorf("in-process invalid sum: %v", err)
		}
		if _, err := ep.core.Gateway.CallTool(ctx, "drop_note", json.RawMessage(`{"title":"n"}`)); err == nil || !strings.Contains(err.Error(), "writes-need-a-person") {
			t.Errorf("in-process drop_note: %v", err)
		}
	})
	t.Run("a write ability needs a person (match.permissions)", func(t *testing.T) {
		e := errorIn(t, callTool(call, "drop_note", `{"title":"n1"}`))
		if e.Code != pipeline.CodeApproval || e.Data["reason"] != "approval_unavailable" || e.Data["policy"] != "writes-need-a-person" {
			t.Errorf("drop_note: %+v", e)
		}
		// The rule matches abilities only: the backend tool called as
		// itself is not a write ability.
		if got := resultText(t, callTool(call, "notes__delete_note", `{"id":"n1"}`)); got != "deleted n1" {
			t.Errorf("notes__delete_note: %q", got)
		}
	})
	t.Run("a token scoped without the backend server neither lists nor calls it", func(t *testing.T) {
		sc := tokenSession(t, ep.url, notesOnly)
		names := toolNames(t, rpc(sc, "tools/list", "{}"))
		if slices.Contains(names, "sum") || slices.Contains(names, "greet") || !slices.Contains(names, "drop_note") {
			t.Errorf("notes-only token lists %v", names)
		}
		for _, args := range []string{`{"x":1}`, `{"x":"bad"}`} {
			b := callTool(sc, "sum", args)
			if strings.Contains(string(b), `"result"`) {
				t.Errorf("notes-only token called sum %s: %s", args, b)
			}
		}
		b := rpc(sc, "tools/call", `{"name":"sum","arguments":{"x":1},"_meta":{"progressToken":"p2"}}`)
		if strings.Contains(string(b), `"result"`) {
			t.Errorf("notes-only token called sum on mcp-go's path: %s", b)
		}
	})
	t.Run("servers deny for write abilities hides and refuses them", func(t *testing.T) {
		src := strings.Replace(abilitiesPolicy, "    require: {human_approval: true}\n", "    servers: {deny: [\"*\"]}\n", 1)
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := ep.core.Policy.Reload(); err != nil {
			t.Fatal(err)
		}
		names := toolNames(t, rpc(call, "tools/list", "{}"))
		if slices.Contains(names, "drop_note") || !slices.Contains(names, "notes__delete_note") || !slices.Contains(names, "sum") {
			t.Errorf("with writes denied: %v", names)
		}
		e := errorIn(t, callTool(call, "drop_note", `{"title":"n1"}`))
		if e.Code != pipeline.CodeDenied || e.Data["reason"] != "denied" || e.Data["policy"] != "writes-need-a-person" {
			t.Errorf("drop_note: %+v", e)
		}
	})
	t.Run("a bad abilities section is reported with line:column and the old policy holds", func(t *testing.T) {
		bad := strings.Replace(abilitiesPolicy, "    permission: write\n", "    permission: admin\n", 1)
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		err := ep.core.Policy.Reload()
		st := ep.core.Policy.Status()
		if err == nil || st.Error == nil || !st.Active {
			t.Fatalf("reload %v, status %+v", err, st)
		}
		if p := st.Error.Problems[0]; p.Line != 24 || p.Column != 17 || !strings.Contains(p.Message, `"admin"`) {
			t.Errorf("problem %+v", p)
		}
		// The old policy (writes denied) is in force.
		e := errorIn(t, callTool(call, "drop_note", `{"title":"n1"}`))
		if e.Code != pipeline.CodeDenied {
			t.Errorf("drop_note under the old policy: %+v", e)
		}
		if got := resultText(t, callTool(call, "sum", `{"x":5}`)); !strings.Contains(got, "105") {
			t.Errorf("sum under the old policy: %q", got)
		}
	})
	t.Run("a policy without abilities unlists them", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("policies: []\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := ep.core.Policy.Reload(); err != nil {
			t.Fatal(err)
		}
		testpeers.Eventually(t, 10*time.Second, "the abilities gone", func() bool {
			return !slices.Contains(toolNames(t, rpc(call, "tools/list", "{}")), "sum")
		})
		e := errorIn(t, callTool(call, "sum", `{"x":1}`))
		if e.Code != -32602 || !strings.Contains(e.Message, "not found") {
			t.Errorf("sum after its removal: %+v", e)
		}
	})
}

// An ability refused by the router — arguments that do not fit its
// input_schema, or a backend tool that runs only as a task — is in the
// request log (status error, the ability's name, its backend server and
// tool, the reason, the arguments as the client sent them) and reaches
// no upstream: an HTTP upstream that records every tools/call it gets
// sees only the calls that were sent.
func TestAbilityRefusalsInTheRequestLog(t *testing.T) {
	var mu sync.Mutex
	var upstreamCalls []string
	inner := testmcp.HTTPHandlerWithTaskTool()
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"tools/call"`) {
			mu.Lock()
			upstreamCalls = append(upstreamCalls, string(body))
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	defer remote.Close()
	sent := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), upstreamCalls...)
	}

	dir := t.TempDir()
	const src = `abilities:
  - name: lookup
    permission: read
    server: notes
    tool: show
    input_schema:
      type: object
      properties:
        q: {type: string, minLength: 1}
      required: [q]
  - name: research_it
    permission: read
    server: notes
    tool: research
    input_schema:
      type: object
      properties:
        topic: {type: string}
    arguments:
      topic: {from: topic}
`
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := serveWith(t, dir, []spec.Server{{Name: "notes", URL: remote.URL, Enabled: true}}, true, Options{})
	ctx := context.Background()
	call := httpSession(t, ep.url)
	id := 10
	rpc := func(method, params string) []byte {
		id++
		return call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	}

	var names []string
	testpeers.Eventually(t, 10*time.Second, "lookup listed", func() bool {
		names = toolNames(t, rpc("tools/list", "{}"))
		return slices.Contains(names, "lookup")
	})
	// The task-only backend tool is listed as itself (a client that runs
	// tasks may call it); the ability over it is not.
	if slices.Contains(names, "research_it") || !slices.Contains(names, "notes__research") {
		t.Errorf("tools: %v", names)
	}

	t.Run("invalid arguments: refused, logged, not sent", func(t *testing.T) {
		for _, params := range []string{
			`{"name":"lookup","arguments":{"q":""}}`,
			`{"name":"lookup","arguments":{"q":7},"_meta":{"progressToken":"p1"}}`, // mcp-go's path
			`{"name":"lookup"}`,
		} {
			e := errorIn(t, rpc("tools/call", params))
			if e.Code != -32602 || e.Data["reason"] != "invalid_arguments" || e.Data["tool"] != "lookup" {
				t.Errorf("%s: %+v", params, e)
			}
		}
		if _, err := ep.core.Gateway.CallTool(ctx, "lookup", json.RawMessage(`{"q":["in-process"]}`)); err == nil || !strings.Contains(err.Error(), "invalid arguments for lookup") {
			t.Errorf("in-process: %v", err)
		}
		if got := sent(); len(got) != 0 {
			t.Fatalf("the upstream got %d calls: %v", len(got), got)
		}
		if err := ep.core.Requests.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := ep.core.Store.Logs().List(ctx, store.LogFilter{Method: "tools/call"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 4 {
			t.Fatalf("%d entries, want 4: %+v", len(rows), rows)
		}
		for _, r := range rows {
			if r.Status != store.StatusError || r.Target != "lookup" || r.Server != "notes" || r.BackendTool != "show" ||
				!strings.Contains(r.Error, "invalid arguments for lookup") ||
				!strings.Contains(r.Error, "(invalid_arguments: refused by the router; nothing was sent to notes)") || r.Response != "" {
				t.Errorf("entry %+v", r)
			}
		}
		// Newest first: the in-process call, then the endpoint's; each
		// with the arguments as the client sent them.
		for i, want := range []string{`"arguments":{"q":["in-process"]}`, `"name":"lookup"}`, `"arguments":{"q":7}`, `"arguments":{"q":""}`} {
			if !strings.Contains(rows[i].Request, want) {
				t.Errorf("entry %d request %s, want %s in it", i, rows[i].Request, want)
			}
		}
	})
	t.Run("a valid call is sent, mapped, and logged with its backend tool", func(t *testing.T) {
		b := rpc("tools/call", `{"name":"lookup","arguments":{"q":"x"}}`)
		if got := resultText(t, b); !strings.Contains(got, `"args"`) {
			t.Errorf("lookup: %q", got)
		}
		if got := sent(); len(got) != 1 || !strings.Contains(got[0], `"name":"show"`) || strings.Contains(got[0], `"q"`) {
			t.Errorf("the upstream got %v", got) // no arguments mapping: none sent
		}
		if err := ep.core.Requests.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := ep.core.Store.Logs().List(ctx, store.LogFilter{Method: "tools/call", Status: store.StatusOK})
		if err != nil || len(rows) != 1 || rows[0].Target != "lookup" || rows[0].Server != "notes" || rows[0].BackendTool != "show" {
			t.Errorf("ok entries %+v, %v", rows, err)
		}
	})
	t.Run("an ability over a task-only tool is refused with the reason, not sent", func(t *testing.T) {
		before := len(sent())
		for _, params := range []string{
			`{"name":"research_it","arguments":{"topic":"t"}}`,
			`{"name":"research_it","arguments":{"topic":"t"},"task":{"ttl":60000}}`,
		} {
			e := errorIn(t, rpc("tools/call", params))
			if e.Code != -32601 || e.Data["reason"] != "task_required" || e.Data["tool"] != "research_it" ||
				!strings.Contains(e.Message, "notes/research runs only as a task") {
				t.Errorf("%s: %+v", params, e)
			}
		}
		if _, err := ep.core.Gateway.CallTool(ctx, "research_it", json.RawMessage(`{"topic":"t"}`)); err == nil || !strings.Contains(err.Error(), "runs only as a task") {
			t.Errorf("in-process: %v", err)
		}
		if got := sent(); len(got) != before {
			t.Errorf("the upstream got %v", got[before:])
		}
		if err := ep.core.Requests.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := ep.core.Store.Logs().List(ctx, store.LogFilter{Method: "tools/call", Limit: 3})
		if err != nil || len(rows) != 3 {
			t.Fatalf("%+v, %v", rows, err)
		}
		for _, r := range rows {
			if r.Status != store.StatusError || r.Target != "research_it" || r.Server != "notes" || r.BackendTool != "research" ||
				!strings.Contains(r.Error, "(task_required: refused by the router; nothing was sent to notes)") {
				t.Errorf("entry %+v", r)
			}
		}
	})
}
