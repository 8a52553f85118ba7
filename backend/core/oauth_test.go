package core

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// oauthRouter is a router with two servers that accepts JWTs of issuer,
// its publicURL set to its own address (so its resource is ep.url).
func oauthRouter(t *testing.T, issuer string) *endpoint {
	t.Helper()
	ep := serve(t, t.TempDir(), []spec.Server{everythingDef(t, "one"), everythingDef(t, "two")}, false)
	ctx := context.Background()
	if err := ep.core.Settings.SetMany(ctx, map[string]string{
		settings.KeyOAuthIssuers: issuer,
		settings.KeyPublicURL:    "http://" + ep.addr,
	}); err != nil {
		t.Fatal(err)
	}
	return ep
}

func TestJWTAccessTokensFromARealAuthorizationServer(t *testing.T) {
	iss := testpeers.StartOAuthIssuer(t)
	other := testpeers.StartOAuthIssuer(t)
	ep := oauthRouter(t, iss.URL)
	ctx := context.Background()
	metadataURL := "http://" + ep.addr + "/.well-known/oauth-protected-resource/mcp"

	// The protected-resource metadata, at both places, without a token;
	// public, so it never names a server (scopes: mcp:* only).
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get("http://" + ep.addr + p)
		if err != nil {
			t.Fatal(err)
		}
		var md struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			ScopesSupported      []string `json:"scopes_supported"`
			BearerMethods        []string `json:"bearer_methods_supported"`
		}
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: HTTP %d %v", p, resp.StatusCode, err)
		}
		if md.Resource != ep.url || !slices.Equal(md.AuthorizationServers, []string{iss.URL}) ||
			!slices.Equal(md.ScopesSupported, []string{"mcp:*"}) ||
			!slices.Equal(md.BearerMethods, []string{"header"}) {
			t.Errorf("%s: %+v", p, md)
		}
	}

	// No token: 401 pointing at the metadata, no error code (RFC 6750).
	resp, body := post(t, ep.url, initializeBody, nil)
	want := `Bearer realm="mcp-router", resource_metadata="` + metadataURL + `"`
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: HTTP %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}

	good := iss.Token(t, map[string]string{"resource": ep.url, "scope": "openid mcp:*", "sub": "alice"})
	forgedParts := strings.Split(good, ".")
	sig := []byte(forgedParts[2])
	if sig[5] == 'A' {
		sig[5] = 'B'
	} else {
		sig[5] = 'A'
	}
	tampered := forgedParts[0] + "." + forgedParts[1] + "." + string(sig)
	// The payload changed to claim more, with the original signature.
	payload, _ := base64.RawURLEncoding.DecodeString(forgedParts[1])
	payload = []byte(strings.Replace(string(payload), `"alice"`, `"admin"`, 1))
	rewritten := forgedParts[0] + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + forgedParts[2]
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + forgedParts[1] + "."

	refused := map[string]struct{ token, msg string }{
		"expired":         {iss.Token(t, map[string]string{"resource": ep.url, "scope": "mcp:*", "test_exp_in": "-120"}), "JWT expired"},
		"wrong audience":  {iss.Token(t, map[string]string{"resource": "http://other.example/mcp", "scope": "mcp:*"}), "JWT audience is not this router"},
		"no audience":     {iss.Token(t, map[string]string{"scope": "mcp:*"}), "JWT audience is not this router"},
		"wrong issuer":    {other.Token(t, map[string]string{"resource": ep.url, "scope": "mcp:*"}), "is not accepted"},
		"forged issuer":   {other.Token(t, map[string]string{"resource": ep.url, "scope": "mcp:*", "test_iss": iss.URL}), "signature does not verify"},
		"tampered sig":    {tampered, "signature does not verify"},
		"tampered claims": {rewritten, "signature does not verify"},
		"alg none":        {none, "signature does not verify"},
	}
	for name, c := range refused {
		resp, body := post(t, ep.url, initializeBody, map[string]string{"Authorization": "Bearer " + c.token})
		h := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != 401 || !strings.Contains(h, `resource_metadata="`+metadataURL+`"`) || !strings.Contains(h, `error="invalid_token"`) {
			t.Errorf("%s: HTTP %d %q", name, resp.StatusCode, h)
		}
		if !strings.Contains(body, c.msg) {
			t.Errorf("%s: body %s, want %q", name, body, c.msg)
		}
	}

	// A valid token calls a tool, as oauth:<sub>.
	cl, err := mcpClient(t, ep.url, good)
	if err != nil {
		t.Fatal(err)
	}
	tools := strings.Join(listTools(t, cl), ",")
	if !strings.Contains(tools, "one__echo") || !strings.Contains(tools, "two__echo") {
		t.Errorf("mcp:* sees %s", tools)
	}
	res, err := cl.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "one__echo", Arguments: map[string]any{"message": "hi"}}})
	if err != nil || res.IsError || !strings.Contains(mcp.GetTextFromContent(res.Content[0]), "hi") {
		t.Fatalf("call with a JWT: %v %+v", err, res)
	}

	// mcp:server:one reaches one only; two's tools read as unknown.
	one := iss.Token(t, map[string]string{"resource": ep.url, "scope": "mcp:server:one", "sub": "bob"})
	c1, err := mcpClient(t, ep.url, one)
	if err != nil {
		t.Fatal(err)
	}
	seen := strings.Join(listTools(t, c1), ",")
	if !strings.Contains(seen, "one__echo") || strings.Contains(seen, "two__") {
		t.Errorf("mcp:server:one sees %s", seen)
	}
	if _, err := c1.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "two__echo", Arguments: map[string]any{"message": "x"}}}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("mcp:server:one calling two__echo: %v", err)
	}

	// A valid token with no mcp scope: 403 insufficient_scope, never an empty list.
	noScope := iss.Token(t, map[string]string{"resource": ep.url, "scope": "openid profile"})
	for _, b := range [][]byte{initializeBody, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)} {
		resp, body = post(t, ep.url, b, map[string]string{"Authorization": "Bearer " + noScope})
		h := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != 403 || !strings.Contains(h, `error="insufficient_scope"`) || !strings.Contains(h, `scope="mcp:*"`) ||
			!strings.Contains(h, `resource_metadata="`+metadataURL+`"`) || strings.Contains(body, "tools") {
			t.Errorf("no mcp scope: HTTP %d %q %s", resp.StatusCode, h, body)
		}
	}

	// A JWT caller is a client: the admin surface refuses it.
	admin := ep.core.Auth.RequireAdmin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the admin handler ran for a JWT caller")
	}))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/ui/api/servers", nil)
	req.Header.Set("Authorization", "Bearer "+good)
	admin.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), `access token of alice (oauth:alice) reaches the MCP endpoint only`) {
		t.Errorf("admin surface with a JWT: %d %s", rec.Code, rec.Body.String())
	}

	// Issuers removed from the settings: the same JWT is refused at once.
	if err := ep.core.Settings.Set(ctx, settings.KeyOAuthIssuers, ""); err != nil {
		t.Fatal(err)
	}
	resp, _ = post(t, ep.url, initializeBody, map[string]string{"Authorization": "Bearer " + good})
	if resp.StatusCode != 401 || strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata") {
		t.Errorf("JWT with no issuers configured: HTTP %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// The identity a JWT gives: oauth:<sub>, a client, its scopes mapped to
// servers, and a caller name that no mcpr_ token can have.
func TestJWTIdentity(t *testing.T) {
	iss := testpeers.StartOAuthIssuer(t)
	ep := oauthRouter(t, iss.URL)
	ctx := context.Background()
	tok := iss.Token(t, map[string]string{"resource": ep.url, "scope": "mcp:server:one mcp:server:two mcp:server:one", "sub": "carol"})
	id, err := ep.core.Auth.Verify(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if id.TokenName != "oauth:carol" || id.Subject != "carol" || id.Issuer != iss.URL || id.IsAdmin() ||
		!slices.Equal(id.Servers, []string{"one", "two"}) || !id.Allows("two") || id.Allows("three") {
		t.Errorf("identity %+v", id)
	}
	if err := auth.ValidName(id.TokenName); err == nil {
		t.Error("oauth:<sub> is a valid token name: a JWT could pass for a token")
	}
	caller := callerFrom(auth.WithIdentity(ctx, id))
	if caller.Name != "oauth:carol" || caller.Subject != "carol" || caller.MayUse("three") || !caller.MayUse("one") {
		t.Errorf("caller %+v", caller)
	}
	noScope, err := ep.core.Auth.Verify(ctx, iss.Token(t, map[string]string{"resource": ep.url, "scope": "email"}))
	if err != nil {
		t.Fatal(err)
	}
	if noScope.Allows("one") || callerFrom(auth.WithIdentity(ctx, noScope)).MayUse("one") {
		t.Errorf("a JWT with no mcp scope reaches a server: %+v", noScope)
	}
}

// The check of issue 19: a TypeScript SDK client with its OAuth support
// meets the router's 401, finds the metadata and the authorization server
// from it, logs in (authorization code + PKCE, consent scripted) and calls
// a tool.
func TestTSSDKClientLogsInFromThe401(t *testing.T) {
	iss := testpeers.StartOAuthIssuer(t)
	ep := oauthRouter(t, iss.URL)
	root := testpeers.RepoRoot(t)
	node := filepath.Join(root, "test", "peers", "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		node = "node"
	}
	cmd := exec.Command(node, filepath.Join(root, "test", "peers", "oauth-client.mjs"), ep.url, "one__echo")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oauth-client.mjs: %v %s", err, out)
	}
	var res struct {
		Redirected bool     `json:"redirected"`
		Tools      []string `json:"tools"`
		Result     struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("TS SDK client: %s", out)
	if res.Error != "" || !res.Redirected || !slices.Contains(res.Tools, "one__echo") ||
		len(res.Result.Content) == 0 || !strings.Contains(res.Result.Content[0].Text, "via oauth") {
		t.Fatalf("TS SDK client: %s", out)
	}
}
