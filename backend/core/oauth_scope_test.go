package core

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// bearerSession initializes a streamable HTTP session with token and
// returns a caller that posts a JSON-RPC body in it.
func bearerSession(t *testing.T, url, token string) func(body string) []byte {
	t.Helper()
	do := func(sid, body string) (http.Header, []byte) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("HTTP %d: %s", resp.StatusCode, b)
		}
		return resp.Header, b
	}
	hdr, _ := do("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := hdr.Get("Mcp-Session-Id")
	do(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return func(body string) []byte {
		_, b := do(sid, body)
		return b
	}
}

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
