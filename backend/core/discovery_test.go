package core

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/discovery"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
)

func getDoc(t *testing.T, url string, into any) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if into != nil && resp.StatusCode == 200 {
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(into); err != nil {
			t.Fatalf("%s: %v: %s", url, err, b)
		}
	}
	if strings.Contains(string(b), "echo") {
		t.Errorf("%s names a tool: %s", url, b)
	}
	return resp
}

// The router's discovery documents, without a token while auth is on, and
// nothing else without one.
func TestDiscoveryDocumentsServed(t *testing.T) {
	ep := serve(t, t.TempDir(), []spec.Server{everythingDef(t, "one")}, false)
	base := "http://" + ep.addr

	var wk, wkJSON discovery.WellKnownMCP
	for path, into := range map[string]*discovery.WellKnownMCP{"/.well-known/mcp": &wk, "/.well-known/mcp.json": &wkJSON} {
		resp := getDoc(t, base+path, into)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("%s: HTTP %d %v", path, resp.StatusCode, resp.Header)
		}
		if err := into.Validate(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	if wk.Endpoint != ep.url || wk.Authentication == nil || wk.Authentication.Type != "bearer" || wk.MCPVersion == "" ||
		wk.Capabilities["tools"].Endpoint != "/mcp" || wk.Name != CardName {
		t.Errorf("/.well-known/mcp: %+v", wk)
	}
	if wkJSON.Endpoint != wk.Endpoint || wkJSON.MCPVersion != wk.MCPVersion {
		t.Errorf("mcp.json differs from mcp: %+v", wkJSON)
	}

	var card discovery.ServerCard
	resp := getDoc(t, ep.url+"/server-card", &card)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != discovery.ServerCardType {
		t.Fatalf("server card: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if err := card.Validate(); err != nil {
		t.Error(err)
	}
	if len(card.Remotes) != 2 || card.Remotes[0].URL != ep.url || card.Remotes[0].Type != "streamable-http" ||
		card.Remotes[1].URL != base+"/sse" || len(card.Remotes[0].SupportedProtocolVersions) == 0 {
		t.Errorf("card %+v", card)
	}
	var cat discovery.Catalog
	resp = getDoc(t, base+"/.well-known/ai-catalog.json", &cat)
	if resp.StatusCode != 200 || len(cat.Entries) != 1 || cat.Entries[0].URL != ep.url+"/server-card" || cat.Entries[0].Type != discovery.ServerCardType {
		t.Errorf("catalog: HTTP %d %+v", resp.StatusCode, cat)
	}

	// Only these documents go without a token.
	for _, p := range []string{"/mcp", "/sse", "/.well-known/other", "/mcp/server-card/x", "/.well-known/mcp/x"} {
		resp := getDoc(t, base+p, nil)
		if resp.StatusCode == 200 {
			t.Errorf("GET %s without a token: HTTP 200", p)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/.well-known/mcp", strings.NewReader("{}"))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /.well-known/mcp: %v %v", resp, err)
	}
	// A foreign Host is refused as on /mcp (DNS rebinding).
	req, _ = http.NewRequest(http.MethodGet, base+"/.well-known/mcp", nil)
	req.Host = "evil.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: %v %v", resp, err)
	}

	// publicURL and issuers change what the documents say at once.
	ctx := context.Background()
	if err := ep.core.Settings.SetMany(ctx, map[string]string{
		settings.KeyPublicURL: "https://router.example", settings.KeyOAuthIssuers: "https://auth.example",
	}); err != nil {
		t.Fatal(err)
	}
	wk = discovery.WellKnownMCP{}
	getDoc(t, base+"/.well-known/mcp", &wk)
	if wk.Endpoint != "https://router.example/mcp" || wk.Authentication.Type != "oauth2" ||
		wk.Authentication.ResourceMetadata != "https://router.example/.well-known/oauth-protected-resource/mcp" ||
		len(wk.Authentication.AuthorizationServers) != 1 {
		t.Errorf("with publicURL and issuers: %+v %+v", wk, wk.Authentication)
	}
	if err := ep.core.Settings.Set(ctx, settings.KeyAuth, "off"); err != nil {
		t.Fatal(err)
	}
	wk = discovery.WellKnownMCP{}
	getDoc(t, base+"/.well-known/mcp", &wk)
	if wk.Authentication.Type != "none" {
		t.Errorf("auth off: %+v", wk.Authentication)
	}
}

// Probing the router itself from its bare address: the catalog leads to
// the card, the card to /mcp, which answers 401 pointing at its metadata.
func TestDiscoverTheRouterItself(t *testing.T) {
	ep := serve(t, t.TempDir(), []spec.Server{everythingDef(t, "one")}, false)
	base := "http://" + ep.addr
	ctx := context.Background()
	if err := ep.core.Settings.SetMany(ctx, map[string]string{settings.KeyPublicURL: base, settings.KeyOAuthIssuers: "https://auth.example"}); err != nil {
		t.Fatal(err)
	}
	f, err := (&discovery.Prober{}).Discover(ctx, base)
	if err != nil {
		t.Fatalf("%v %+v", err, f.Steps)
	}
	if f.Endpoint != ep.url || f.Transport != "streamable-http" || !f.NeedsAuth || f.Name != CardName ||
		len(f.AuthorizationServers) != 1 || f.AuthorizationServers[0] != "https://auth.example" ||
		f.ResourceMetadata != base+"/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("found %+v", f)
	}
	if len(f.Steps) == 0 || f.Steps[0].What != "ai-catalog" || !f.Steps[0].OK || !f.Steps[1].OK || f.Steps[1].URL != ep.url+"/server-card" {
		t.Errorf("steps %+v", f.Steps)
	}

	// With auth off it answers initialize as an MCP server.
	open := serve(t, t.TempDir(), nil, true)
	f, err = (&discovery.Prober{}).Discover(ctx, "http://"+open.addr)
	if err != nil || f.Endpoint != open.url || f.NeedsAuth {
		t.Fatalf("%v %+v", err, f)
	}
	last := f.Steps[len(f.Steps)-1]
	if !strings.Contains(last.Result, "MCP server mcp-router") {
		t.Errorf("last step %+v", last)
	}
}
