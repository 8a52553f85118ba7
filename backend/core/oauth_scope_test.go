package core

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A policy rule whose match.clients names a JWT subject applies to the
// callers presenting that subject's tokens, and to no one else: two JWTs of
// a real authorization server, one per subject, through the endpoint.
func TestPolicyRuleMatchesAJWTSubject(t *testing.T) {
	iss := testpeers.StartOAuthIssuer(t)
	dir := t.TempDir()
	rules := `policies:
  - name: no-echo-for-mallory
    match:
      clients: ["mallory"]
    tools:
      hide: ["one__echo"]
`
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := serve(t, dir, []spec.Server{everythingDef(t, "one")}, false)
	if err := ep.core.Settings.SetMany(context.Background(), map[string]string{
		settings.KeyOAuthIssuers: iss.URL, settings.KeyPublicURL: "http://" + ep.addr,
	}); err != nil {
		t.Fatal(err)
	}
	if st := ep.core.Policy.Status(); !st.Active || st.Rules != 1 || st.Error != nil {
		t.Fatalf("policy status %+v", st)
	}
	mallory := bearerSession(t, ep.url, iss.Token(t, map[string]string{"resource": ep.url, "scope": "mcp:*", "sub": "mallory"}))
	alice := bearerSession(t, ep.url, iss.Token(t, map[string]string{"resource": ep.url, "scope": "mcp:*", "sub": "alice"}))
	call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"one__echo","arguments":{"message":"hi"}}}`
	list := `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`

	e := errorIn(t, mallory(fmt.Sprintf(call, 1)))
	if e.Code != pipeline.CodeDenied || e.Data["reason"] != "denied" || e.Data["policy"] != "no-echo-for-mallory" {
		t.Errorf("mallory calling one__echo: %+v", e)
	}
	// The same call on mcp-go's path (a _meta progress token keeps it off
	// the fast path).
	slow := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"one__echo","arguments":{"message":"hi"},"_meta":{"progressToken":"p"}}}`
	if e := errorIn(t, mallory(slow)); e.Code != pipeline.CodeDenied || e.Data["reason"] != "denied" {
		t.Errorf("mallory calling one__echo (mcp-go path): %+v", e)
	}
	if got := toolNames(t, mallory(fmt.Sprintf(list, 2))); slices.Contains(got, "one__echo") || len(got) == 0 {
		t.Errorf("mallory's tools/list: %v", got)
	}

	if got := string(alice(fmt.Sprintf(call, 1))); !strings.Contains(got, `"result"`) || !strings.Contains(got, "hi") || strings.Contains(got, `"error"`) {
		t.Errorf("alice calling one__echo: %s", got)
	}
	if got := string(alice(slow)); !strings.Contains(got, `"result"`) || strings.Contains(got, `"error"`) {
		t.Errorf("alice calling one__echo (mcp-go path): %s", got)
	}
	if got := toolNames(t, alice(fmt.Sprintf(list, 2))); !slices.Contains(got, "one__echo") {
		t.Errorf("alice's tools/list: %v", got)
	}
}

// rpcResult is the JSON-RPC result of body (an SSE stream's last event);
// the test fails on an error.
func rpcResult(t *testing.T, body []byte) map[string]any {
	t.Helper()
	if i := strings.LastIndex(string(body), "data: "); i >= 0 {
		body = body[i+len("data: "):]
	}
	var resp struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.Error != nil || resp.Result == nil {
		t.Fatalf("not a result: %s", body)
	}
	return resp.Result
}

// mcp:tool:<server>/<tool> scopes: a token reaches only the named tools of
// a server; the server's other tools, prompts and resources read as
// unknown, exactly as those of a server that does not exist; a token whose
// only mcp scopes are malformed tool scopes reaches nothing (403).
func TestJWTToolScopes(t *testing.T) {
	iss := testpeers.StartOAuthIssuer(t)
	gated := everythingDef(t, "g")
	gated.Gate = spec.Gate{Enabled: true, Message: "g is locked"}
	ep := serve(t, t.TempDir(), []spec.Server{everythingDef(t, "one"), everythingDef(t, "two"), gated}, false)
	ctx := context.Background()
	if err := ep.core.Settings.SetMany(ctx, map[string]string{
		settings.KeyOAuthIssuers: iss.URL, settings.KeyPublicURL: "http://" + ep.addr,
	}); err != nil {
		t.Fatal(err)
	}
	cat, err := ep.core.Servers.Catalog("one")
	if err != nil || len(cat.Prompts) == 0 || len(cat.Resources) == 0 || len(cat.Tools) < 2 {
		t.Fatalf("catalog of one: %v %+v", err, cat)
	}
	var other string // a tool of one besides echo
	for _, tl := range cat.Tools {
		if tl.Name != "echo" {
			other = tl.Name
			break
		}
	}
	token := func(scope, sub string) string {
		return iss.Token(t, map[string]string{"resource": ep.url, "scope": scope, "sub": sub})
	}

	// The identity: tools by server, split at the first '/'.
	id, err := ep.core.Auth.Verify(ctx, token("openid mcp:tool:one/echo mcp:tool:two/a/b mcp:tool:one/echo", "dora"))
	if err != nil {
		t.Fatal(err)
	}
	if len(id.Servers) != 0 || !id.Scoped || len(id.Tools) != 2 || !slices.Equal(id.Tools["one"], []string{"echo"}) ||
		!slices.Equal(id.Tools["two"], []string{"a/b"}) || id.Allows("one") || !id.AllowsTool("one", "echo") ||
		id.AllowsTool("one", other) || id.AllowsTool("two", "a") || id.ReachesNothing() {
		t.Errorf("identity %+v", id)
	}
	// mcp:* wins over tool scopes; a server scope reaches all its tools.
	if id, _ := ep.core.Auth.Verify(ctx, token("mcp:tool:one/echo mcp:*", "dora")); id.Scoped || id.Tools != nil || !id.AllowsTool("two", "x") {
		t.Errorf("mcp:* with a tool scope: %+v", id)
	}
	if id, _ := ep.core.Auth.Verify(ctx, token("mcp:tool:one/echo mcp:server:one", "dora")); !id.AllowsTool("one", other) || id.AllowsTool("two", "echo") {
		t.Errorf("mcp:server:one with a tool scope: %+v", id)
	}

	s := bearerSession(t, ep.url, token("mcp:tool:one/echo", "dora"))
	if got := toolNames(t, s(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); !slices.Equal(got, []string{"one__echo"}) {
		t.Errorf("tools/list with mcp:tool:one/echo: %v", got)
	}
	call := func(id int, name string, meta bool) []byte {
		m := ""
		if meta { // a _meta progress token keeps the call off the fast path
			m = fmt.Sprintf(`,"_meta":{"progressToken":"p%d"}`, id)
		}
		return s(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"message":"hi"}%s}}`, id, name, m))
	}
	for i, meta := range []bool{false, true} {
		if got := string(call(10+i, "one__echo", meta)); !strings.Contains(got, "hi") || strings.Contains(got, `"error"`) {
			t.Errorf("one__echo (slow path %v): %s", meta, got)
		}
		// Another tool of the same server, the same tool of another server:
		// each refused as a tool that does not exist.
		missing := errorIn(t, call(20+i, "one__no_such_tool", meta))
		for _, name := range []string{"one__" + other, "two__echo"} {
			e := errorIn(t, call(30+i, name, meta))
			if e.Code != missing.Code || e.Data["reason"] != missing.Data["reason"] || e.Data["reason"] != pipeline.ReasonUnknownTool ||
				e.Message != strings.ReplaceAll(missing.Message, "one__no_such_tool", name) {
				t.Errorf("%s (slow path %v): %+v, want as %+v", name, meta, e, missing)
			}
		}
	}

	// The server's prompts and resources are not reachable with a tool
	// scope: not listed, and read as unknown.
	for _, m := range []struct{ method, key string }{{"prompts/list", "prompts"}, {"resources/list", "resources"}, {"resources/templates/list", "resourceTemplates"}} {
		res := rpcResult(t, s(fmt.Sprintf(`{"jsonrpc":"2.0","id":40,"method":%q}`, m.method)))
		if items, _ := res[m.key].([]any); len(items) != 0 {
			t.Errorf("%s with a tool scope: %v", m.method, items)
		}
	}
	e := errorIn(t, s(fmt.Sprintf(`{"jsonrpc":"2.0","id":41,"method":"prompts/get","params":{"name":"one__%s"}}`, cat.Prompts[0].Name)))
	if e.Data["reason"] != pipeline.ReasonUnknownPrompt {
		t.Errorf("prompts/get with a tool scope: %+v", e)
	}
	e = errorIn(t, s(fmt.Sprintf(`{"jsonrpc":"2.0","id":42,"method":"resources/read","params":{"uri":%q}}`, cat.Resources[0].URI)))
	if e.Data["reason"] != pipeline.ReasonUnknownResource {
		t.Errorf("resources/read with a tool scope: %+v", e)
	}

	// A tool of a gated server: its activate tool comes with the scope (the
	// tool could never be unlocked without it), nothing else of it does.
	gs := bearerSession(t, ep.url, token("mcp:tool:g/echo", "dora"))
	if got := toolNames(t, gs(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); !slices.Equal(got, []string{"g__activate", "g__echo"}) {
		t.Errorf("tools/list with mcp:tool:g/echo: %v", got)
	}
	gcall := func(id int, name string) string {
		return string(gs(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"message":"hi"}}}`, id, name)))
	}
	if got := gcall(2, "g__echo"); !strings.Contains(got, "g is locked") {
		t.Errorf("g__echo before activate: %s", got)
	}
	if got := gcall(3, "g__activate"); !strings.Contains(got, "g activated") {
		t.Errorf("g__activate: %s", got)
	}
	if got := gcall(4, "g__echo"); !strings.Contains(got, "Echo: hi") {
		t.Errorf("g__echo after activate: %s", got)
	}
	if e := errorIn(t, []byte(gcall(5, "g__"+other))); e.Data["reason"] != pipeline.ReasonUnknownTool {
		t.Errorf("g__%s: %+v", other, e)
	}
	// The activate tool alone is not a scope: without a tool of g, no g.
	if got := toolNames(t, s(`{"jsonrpc":"2.0","id":50,"method":"tools/list"}`)); slices.Contains(got, "g__activate") {
		t.Errorf("mcp:tool:one/echo lists %v", got)
	}

	// Tool scopes the router cannot read — no '/', an empty part, the
	// router's own <server>__<tool> name — reach nothing: 403, never an
	// empty list.
	for _, scope := range []string{"mcp:tool:one", "mcp:tool:/echo", "mcp:tool:one/", "mcp:tool:one__echo"} {
		resp, body := post(t, ep.url, initializeBody, map[string]string{"Authorization": "Bearer " + token(scope, "erin")})
		if h := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 403 || !strings.Contains(h, `error="insufficient_scope"`) {
			t.Errorf("scope %q: HTTP %d %q %s", scope, resp.StatusCode, h, body)
		}
	}

	// The public metadata still names mcp:* only.
	mresp, err := http.Get("http://" + ep.addr + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	var md struct {
		ScopesSupported []string `json:"scopes_supported"`
	}
	if err := json.Unmarshal(raw, &md); err != nil || !slices.Equal(md.ScopesSupported, []string{"mcp:*"}) || strings.Contains(string(raw), "mcp:tool") {
		t.Errorf("metadata: %v %s", err, raw)
	}
}

// A JWT's roles claim reaches state_gate as a token's own roles do, through
// the endpoint with a real authorization server's tokens: a JWT with
// roles ["reviewer"] closes a run kept to reviewer, one without roles is
// refused; an "admin" in the claim is not the admin role (a JWT caller is
// a client), so an event kept to admin stays FORBIDDEN.
func TestStateGateRolesFromJWTClaims(t *testing.T) {
	iss := testpeers.StartOAuthIssuer(t)
	dir := t.TempDir()
	procs := stategate.ProcessesDir(dir)
	if err := os.MkdirAll(procs, 0o700); err != nil {
		t.Fatal(err)
	}
	const gateProcess = `id: gate
version: 1
states:
  - name: open
    initial: true
  - name: done
    final: true
events:
  - name: close
    roles: [reviewer]
  - name: force
    roles: [admin]
transitions:
  - {from: open, event: close, to: done}
  - {from: open, event: force, to: done}
`
	if err := os.WriteFile(filepath.Join(procs, "gate.yaml"), []byte(gateProcess), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := serve(t, dir, []spec.Server{stateGateDef()}, false)
	ctx := context.Background()
	if err := ep.core.Settings.SetMany(ctx, map[string]string{
		settings.KeyOAuthIssuers: iss.URL, settings.KeyPublicURL: "http://" + ep.addr,
	}); err != nil {
		t.Fatal(err)
	}
	reviewer := iss.Token(t, map[string]string{"resource": ep.url, "scope": "mcp:*", "sub": "rita", "test_roles": "reviewer admin"})
	plain := iss.Token(t, map[string]string{"resource": ep.url, "scope": "mcp:*", "sub": "paul"})
	if id, err := ep.core.Auth.Verify(ctx, reviewer); err != nil || !slices.Equal(id.Roles, []string{"reviewer"}) || id.IsAdmin() {
		t.Fatalf("the reviewer's JWT verifies as %+v, %v", id, err)
	}
	clients := map[string]*client.Client{}
	for who, tok := range map[string]string{"rita": reviewer, "paul": plain} {
		c, err := mcpClient(t, ep.url, tok)
		if err != nil {
			t.Fatal(err)
		}
		clients[who] = c
	}
	raw, err := callTool(ctx, clients["paul"], "state_gate__create_run", map[string]any{"process_id": "gate"})
	if err != nil {
		t.Fatal(err)
	}
	var run stategate.RunInfo
	if err := json.Unmarshal(raw, &run); err != nil || run.RunID == "" {
		t.Fatalf("create_run: %s", raw)
	}
	emit := func(who, event, key string) stategate.EmitResponse {
		t.Helper()
		raw, err := callTool(ctx, clients[who], "state_gate__emit_event", map[string]any{"run_id": run.RunID, "event_name": event,
			"expected_revision": 0, "idempotency_key": key})
		if err != nil {
			t.Fatal(err)
		}
		var r stategate.EmitResponse
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s: %s", event, raw)
		}
		return r
	}
	if r := emit("paul", "close", "k1"); r.Success || r.Error == nil || r.Error.Code != stategate.CodeForbidden {
		t.Errorf("close by a JWT without roles: %+v", r)
	}
	if r := emit("rita", "force", "k2"); r.Success || r.Error == nil || r.Error.Code != stategate.CodeForbidden {
		t.Errorf("force (roles: [admin]) by a JWT claiming admin: %+v", r)
	}
	if r := emit("rita", "close", "k3"); !r.Success || r.Result == nil || r.Result.Transition.ToState != "done" {
		t.Errorf("close by a JWT with roles [reviewer]: %+v %+v", r.Result, r.Error)
	}
}
