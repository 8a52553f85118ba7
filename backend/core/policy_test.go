package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// testClock is the policy's rate-limit clock, moved by the test.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// The seed's example policy, copied as it is into the data dir, through
// the real HTTP endpoint: server-everything as "gnosis" and a test server
// as "sophia" (both in its allow list), another as "stranger" (not).
func TestSeedPolicyThroughTheEndpoint(t *testing.T) {
	dir := t.TempDir()
	seed, err := os.ReadFile(filepath.Join("..", "policy", "testdata", "seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, policy.FileName)
	if err := os.WriteFile(path, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	clock := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	ep := serveWith(t, dir, []spec.Server{everythingDef(t, "gnosis"), testmcp.Server("sophia"), testmcp.Server("stranger")}, true,
		Options{PolicyClock: clock.now})
	if st := ep.core.Policy.Status(); !st.Active || st.Rules != 3 || st.Error != nil {
		t.Fatalf("policy status %+v", st)
	}
	call := httpSession(t, ep.url)
	id := 100
	callTool := func(name, args string) []byte {
		id++
		return call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args))
	}
	// The same call on mcp-go's path (a _meta progress token keeps it off
	// the fast path).
	callSlow := func(name string) []byte {
		id++
		return call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{"progressToken":"p%d"}}}`, id, name, id))
	}
	ok := func(body []byte) bool {
		return strings.Contains(string(body), `"result"`) && !strings.Contains(string(body), `"error"`)
	}

	t.Run("servers not in allow are hidden", func(t *testing.T) {
		tools := listTools(t, policyClient(t, ep.url))
		if !slices.Contains(tools, "gnosis__echo") || !slices.Contains(tools, "sophia__show") || !slices.Contains(tools, "sophia__delete_note") {
			t.Errorf("allowed tools missing from %v", tools)
		}
		for _, n := range tools {
			if strings.HasPrefix(n, "stranger__") {
				t.Errorf("%s listed", n)
			}
		}
	})
	t.Run("and refused on both paths", func(t *testing.T) {
		for _, body := range [][]byte{callTool("stranger__show", "{}"), callSlow("stranger__show")} {
			e := errorIn(t, body)
			if e.Code != pipeline.CodeDenied || e.Data["reason"] != "denied" || e.Data["server"] != "stranger" || e.Data["policy"] != "allowed-servers" ||
				!strings.HasPrefix(e.Message, "stranger: denied by policy \"allowed-servers\"") {
				t.Errorf("error %+v", e)
			}
		}
	})
	t.Run("delete_* needs a person, and none can be asked", func(t *testing.T) {
		e := errorIn(t, callTool("sophia__delete_note", `{"id":"n1"}`))
		if e.Code != pipeline.CodeApproval || e.Data["reason"] != "approval_unavailable" || e.Data["policy"] != "destructive-operations-guard" {
			t.Errorf("error %+v", e)
		}
	})
	t.Run("the 61st call in a minute is refused with retryAfterMs", func(t *testing.T) {
		for i := range 60 {
			if b := callTool("gnosis__echo", `{"message":"hi"}`); !ok(b) {
				t.Fatalf("call %d: %s", i+1, b)
			}
		}
		for _, body := range [][]byte{callTool("gnosis__echo", `{"message":"hi"}`), callSlow("gnosis__echo")} {
			e := errorIn(t, body)
			ms, _ := e.Data["retryAfterMs"].(float64)
			if e.Code != pipeline.CodeRateLimited || e.Data["reason"] != "rate_limited" || e.Data["policy"] != "rate-limit" || ms < 900 || ms > 1000 {
				t.Errorf("61st call: %+v", e)
			}
		}
		// The limit is per client and tool: another tool still passes.
		if b := callTool("sophia__show", "{}"); !ok(b) {
			t.Errorf("another tool: %s", b)
		}
		clock.add(time.Duration(1000) * time.Millisecond)
		if b := callTool("gnosis__echo", `{"message":"hi"}`); !ok(b) {
			t.Errorf("a second later: %s", b)
		}
		errorIn(t, callTool("gnosis__echo", `{"message":"hi"}`))
	})
	t.Run("refusals are in the request log as blocked", func(t *testing.T) {
		if err := ep.core.Requests.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		rows, err := ep.core.Store.Logs().List(context.Background(), store.LogFilter{Status: store.StatusBlocked})
		if err != nil {
			t.Fatal(err)
		}
		blocked := map[string]int{}
		for _, r := range rows {
			if r.Status == store.StatusBlocked {
				blocked[r.Target]++
			}
		}
		if blocked["stranger__show"] != 2 || blocked["sophia__delete_note"] != 1 || blocked["gnosis__echo"] != 3 {
			t.Errorf("blocked entries %v", blocked)
		}
	})
	t.Run("the audit rule recorded the delete_note attempt", func(t *testing.T) {
		var rows []store.AuditRow
		if err := ep.core.Store.Audit().Each(context.Background(), func(r store.AuditRow) error { rows = append(rows, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Target != "sophia__delete_note" || rows[0].Status != "blocked" || rows[0].Arguments != `{"id":"n1"}` ||
			rows[0].Policies != "destructive-operations-guard" || !strings.Contains(rows[0].Error, "approval") || rows[0].Client != "anonymous" {
			t.Errorf("audit rows %+v", rows)
		}
	})
	t.Run("a broken edit is reported with line:column and the old policy holds", func(t *testing.T) {
		bad := strings.Replace(string(seed), `deny: ["*"]`, `deny: ["*"`, 1)
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		var st policy.Status
		testpeers.Eventually(t, 5*time.Second, "the bad file to be seen", func() bool {
			st = ep.core.Policy.Status()
			return st.Error != nil
		})
		if p := st.Error.Problems[0]; p.Line != 19 || p.Column != 13 || !st.Active || st.Rules != 3 {
			t.Errorf("status %+v problem %+v", st, p)
		}
		if e := errorIn(t, callTool("stranger__show", "{}")); e.Data["reason"] != "denied" {
			t.Errorf("old policy not in force: %+v", e)
		}
	})
	t.Run("a good edit applies to the next request", func(t *testing.T) {
		listener := policyClient(t, ep.url)
		var mu sync.Mutex
		var notes []string
		listener.OnNotification(func(n mcp.JSONRPCNotification) {
			mu.Lock()
			notes = append(notes, n.Method)
			mu.Unlock()
		})
		next := "policies:\n  - name: no-notes-deleted\n    match: {tools: [\"sophia__delete_*\"]}\n    tools: {hide: [\"*\"]}\n"
		if err := os.WriteFile(path, []byte(next), 0o600); err != nil {
			t.Fatal(err)
		}
		testpeers.Eventually(t, 5*time.Second, "the new policy", func() bool {
			st := ep.core.Policy.Status()
			return st.Error == nil && st.Rules == 1
		})
		if b := callTool("stranger__show", "{}"); !ok(b) {
			t.Errorf("stranger after the edit: %s", b)
		}
		if e := errorIn(t, callTool("sophia__delete_note", "{}")); e.Data["reason"] != "denied" || e.Data["policy"] != "no-notes-deleted" {
			t.Errorf("delete_note after the edit: %+v", e)
		}
		testpeers.Eventually(t, 5*time.Second, "tools/list_changed to a connected client", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.Contains(notes, "notifications/tools/list_changed")
		})
		tools := listTools(t, listener)
		if slices.Contains(tools, "sophia__delete_note") || !slices.Contains(tools, "stranger__show") {
			t.Errorf("tools after the edit: %v", tools)
		}
	})
	t.Run("removing the file removes the policy", func(t *testing.T) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		testpeers.Eventually(t, 5*time.Second, "no policy", func() bool { return !ep.core.Policy.Status().Active })
		if b := callTool("sophia__delete_note", `{"id":"x"}`); !strings.Contains(string(b), "deleted x") {
			t.Errorf("delete_note without a policy: %s", b)
		}
	})
}

func policyClient(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := mcpClient(t, url, "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An audited call through the endpoint: its arguments and result in the
// audit trail, the chain intact, and an edited row found.
func TestAuditThroughTheEndpoint(t *testing.T) {
	dir := t.TempDir()
	src := "policies:\n  - name: audit-echo\n    match: {tools: [\"*__echo\"]}\n    require: {log_level: audit}\n"
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := serve(t, dir, []spec.Server{everythingDef(t, "everything")}, true)
	c := policyClient(t, ep.url)
	for _, msg := range []string{"one", "two"} {
		if _, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "everything__echo", Arguments: map[string]any{"message": msg}}}); err != nil {
			t.Fatal(err)
		}
	}
	// Not audited: another tool.
	if _, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "everything__get-sum", Arguments: map[string]any{"a": 1, "b": 2}}}); err != nil {
		t.Logf("get-sum: %v", err)
	}
	var rows []store.AuditRow
	if err := ep.core.Store.Audit().Each(context.Background(), func(r store.AuditRow) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].Arguments != `{"message":"two"}` || !strings.Contains(rows[1].Result, "Echo: two") || rows[1].Status != "ok" ||
		rows[1].PrevHash != rows[0].Hash {
		t.Fatalf("audit rows %+v", rows)
	}
	rep, err := ep.core.Store.Audit().Verify(context.Background())
	if err != nil || !rep.OK() || rep.Rows != 2 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	// Through the store the table refuses an edit; dropping its trigger
	// first (as someone with sqlite3 could), the edit is found.
	if err := ep.core.Store.DB().Exec(`UPDATE policy_audit SET arguments = '{"message":"forged"}' WHERE id = 1`).Error; err == nil {
		t.Fatal("an audit row was updated")
	}
	if err := ep.core.Store.DB().Exec(`DROP TRIGGER policy_audit_no_update`).Error; err != nil {
		t.Fatal(err)
	}
	if err := ep.core.Store.DB().Exec(`UPDATE policy_audit SET arguments = '{"message":"forged"}' WHERE id = 1`).Error; err != nil {
		t.Fatal(err)
	}
	rep, err = ep.core.Store.Audit().Verify(context.Background())
	if err != nil || rep.OK() || !strings.Contains(strings.Join(rep.Problems, ";"), "row 1: its content does not match its hash") {
		t.Errorf("verify after the edit: %+v %v", rep, err)
	}
}

// A denied server's prompts and resources leave every list and are
// refused by name, through the endpoint (server-everything has both).
func TestDeniedServerPromptsAndResources(t *testing.T) {
	dir := t.TempDir()
	src := "policies:\n  - name: no-everything\n    servers: {deny: [everything]}\n"
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := serve(t, dir, []spec.Server{everythingDef(t, "everything"), testmcp.Server("other")}, true)
	c := policyClient(t, ep.url)
	ctx := context.Background()
	// What the upstream offers, read from the router's catalog.
	cat, err := ep.core.Servers.Catalog("everything")
	if err != nil || len(cat.Prompts) == 0 || len(cat.Resources) == 0 {
		t.Fatalf("server-everything's catalog: %d prompts, %d resources, %v", len(cat.Prompts), len(cat.Resources), err)
	}
	prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		if strings.HasPrefix(p.Name, "everything") {
			t.Errorf("prompt %s listed", p.Name)
		}
	}
	resources, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resources.Resources) != 0 {
		t.Errorf("%d resources listed, e.g. %s", len(resources.Resources), resources.Resources[0].URI)
	}
	if tools := listTools(t, c); !slices.Contains(tools, "other__show") || slices.ContainsFunc(tools, func(n string) bool { return strings.HasPrefix(n, "everything__") }) {
		t.Errorf("tools %v", tools)
	}
	call := httpSession(t, ep.url)
	e := errorIn(t, call(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"everything__%s"}}`, cat.Prompts[0].Name)))
	if e.Code != pipeline.CodeDenied || e.Data["reason"] != "denied" || e.Data["server"] != "everything" {
		t.Errorf("prompts/get: %+v", e)
	}
	e = errorIn(t, call(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":%q}}`, cat.Resources[0].URI)))
	if e.Code != pipeline.CodeDenied || e.Data["reason"] != "denied" {
		t.Errorf("resources/read: %+v", e)
	}
}

// elicitor answers the router's elicitation requests with action.
type elicitor struct {
	mu     sync.Mutex
	action mcp.ElicitationResponseAction
	asked  []string
	hold   chan struct{} // set: the person never answers until it closes
}

func (e *elicitor) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	e.mu.Lock()
	e.asked = append(e.asked, req.Params.Message)
	hold, action := e.hold, e.action
	e.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
		}
		return nil, errors.New("no answer")
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action}}, nil
}

// Human approval through the endpoint: a client that declared elicitation
// is asked, and its accept runs the call, its decline refuses it; a client
// that did not declare it gets approval_unavailable.
func TestApprovalByElicitation(t *testing.T) {
	dir := t.TempDir()
	src := "policies:\n  - name: guard\n    match: {tools: [\"delete_*\"]}\n    require: {human_approval: true, log_level: audit}\n"
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := serve(t, dir, []spec.Server{testmcp.Server("notes")}, true)
	el := &elicitor{action: mcp.ElicitationResponseActionAccept}
	// No GET stream: the question must come on the call's own stream.
	tr, err := transport.NewStreamableHTTP(ep.url)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithElicitationHandler(el))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.ProtocolVersion20251125,
		ClientInfo: mcp.Implementation{Name: "t", Version: "1"}, Capabilities: mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}}}); err != nil {
		t.Fatal(err)
	}
	del := func(c *client.Client, id string, meta bool) (*mcp.CallToolResult, error) {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "notes__delete_note", Arguments: map[string]any{"id": id}}}
		if meta { // mcp-go's path rather than the fast path
			req.Params.Meta = &mcp.Meta{ProgressToken: "p-" + id}
		}
		return c.CallTool(cctx, req)
	}
	for _, meta := range []bool{false, true} {
		res, err := del(c, fmt.Sprint("a", meta), meta)
		if err != nil || len(res.Content) == 0 || res.Content[0].(mcp.TextContent).Text != fmt.Sprint("deleted a", meta) {
			t.Fatalf("accepted (meta %v): %+v %v", meta, res, err)
		}
	}
	el.mu.Lock()
	if len(el.asked) != 2 || !strings.Contains(el.asked[0], `policy "guard"`) || !strings.Contains(el.asked[0], `{"id":"afalse"}`) {
		t.Errorf("asked %q", el.asked)
	}
	// The question says how long the client has (the default 60 s, less
	// what the call took to get there).
	for _, q := range el.asked {
		var left int
		i := strings.LastIndex(q, "within ")
		if _, err := fmt.Sscanf(q[max(i, 0):], "within %d s", &left); i < 0 || err != nil || left > 60 || left < 0 {
			t.Errorf("time left in %q: %d %v", q, left, err)
		}
	}
	el.action = mcp.ElicitationResponseActionDecline
	el.mu.Unlock()
	for _, meta := range []bool{false, true} {
		if _, err := del(c, "b", meta); err == nil || !strings.Contains(err.Error(), "denied by the client (elicitation)") {
			t.Errorf("declined (meta %v): %v", meta, err)
		}
	}
	// Over raw HTTP the refusal has the unified shape.
	plain := httpSession(t, ep.url)
	e := errorIn(t, plain(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"notes__delete_note","arguments":{}}}`))
	if e.Code != pipeline.CodeApproval || e.Data["reason"] != "approval_unavailable" {
		t.Errorf("a client without elicitation: %+v", e)
	}
	// Every decision is in the audit trail.
	var rows []store.AuditRow
	ep.core.Store.Audit().Each(ctx, func(r store.AuditRow) error { rows = append(rows, r); return nil })
	var statuses []string
	for _, r := range rows {
		statuses = append(statuses, r.Status)
	}
	if fmt.Sprint(statuses) != "[ok ok blocked blocked blocked]" || !strings.Contains(rows[2].Error, "denied by the client") {
		t.Errorf("audit %v %+v", statuses, rows)
	}
	// Nobody answers: refused when the rule's timeout ends.
	if err := ep.core.Policy.Save([]byte(strings.Replace(src, "log_level: audit", "approval_timeout_seconds: 1", 1))); err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	defer close(hold)
	el.mu.Lock()
	el.hold = hold
	el.mu.Unlock()
	_, err = del(c, "c", false)
	if err == nil || !strings.Contains(err.Error(), `policy "guard": nobody approved 'notes__delete_note' within 1s`) {
		t.Errorf("timeout: %v", err)
	}
}

// initializeAs opens a session with token and returns its initialize
// result's instructions.
func initializeAs(t *testing.T, url, token string) string {
	t.Helper()
	code, _, body := postAs(t, url, token, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if i := strings.LastIndex(string(body), "data: "); i >= 0 {
		body = body[i+len("data: "):]
	}
	var resp struct {
		Result *mcp.InitializeResult `json:"result"`
	}
	if err := json.Unmarshal(body, &resp); code != 200 || err != nil || resp.Result == nil {
		t.Fatalf("initialize as %s: HTTP %d %s (%v)", token[:12], code, body, err)
	}
	return resp.Result.Instructions
}

// A server the policy denies to a client says nothing to it at initialize:
// neither its own instructions (state_gate has some) nor a gate message,
// while another client still gets both, and each initialize is in the
// request log once.
func TestDeniedServerGivesNoInstructions(t *testing.T) {
	dir := t.TempDir()
	src := "policies:\n  - name: alice-without\n    match: {clients: [alice]}\n    servers: {deny: [state_gate, gated]}\n"
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	const gateMark = "GATE-MARK: call gated__activate first"
	gated := testmcp.Server("gated")
	gated.Gate = spec.Gate{Enabled: true, Message: gateMark}
	ep := serve(t, dir, []spec.Server{stateGateDef(), gated}, false)
	ctx := context.Background()
	alice, _, err := ep.core.Auth.Create(ctx, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	bob, _, err := ep.core.Auth.Create(ctx, "bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 10*time.Second, "state_gate running", func() bool {
		st, err := ep.core.Servers.Status(stategate.ServerName)
		return err == nil && st.Instructions != ""
	})
	st, _ := ep.core.Servers.Status(stategate.ServerName)
	ownMark := strings.SplitN(strings.TrimSpace(st.Instructions), "\n", 2)[0]

	forBob := initializeAs(t, ep.url, bob)
	for _, want := range []string{"## state_gate", ownMark, "## gated", gateMark} {
		if !strings.Contains(forBob, want) {
			t.Errorf("bob's instructions lack %q: %q", want, forBob)
		}
	}
	forAlice := initializeAs(t, ep.url, alice)
	for _, unwanted := range []string{"state_gate", ownMark, "gated", gateMark} {
		if strings.Contains(forAlice, unwanted) {
			t.Errorf("alice's instructions hold %q of a server denied to her: %q", unwanted, forAlice)
		}
	}

	if err := ep.core.Requests.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := ep.core.Store.Logs().List(ctx, store.LogFilter{})
	if err != nil {
		t.Fatal(err)
	}
	inits := map[string]int{}
	for _, r := range rows {
		if r.Method == "initialize" {
			inits[r.Client]++
			if r.Client == "alice" && strings.Contains(r.Response, gateMark) || r.Client == "bob" && !strings.Contains(r.Response, gateMark) {
				t.Errorf("the log's initialize of %s answered %s", r.Client, r.Response)
			}
		}
	}
	if inits["alice"] != 1 || inits["bob"] != 1 {
		t.Errorf("initialize entries in the request log: %v", inits)
	}
}
