package discovery

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The example document of seed 002 parses into WellKnownMCP, field for field.
func TestSeedExampleParses(t *testing.T) {
	raw, err := os.ReadFile("testdata/seed-002-wellknown.json")
	if err != nil {
		t.Fatal(err)
	}
	var d WellKnownMCP
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("seed example: %v", err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.MCPVersion != "2024-11-05" || d.Capabilities["tools"].Endpoint != "/mcp/tools" ||
		d.Capabilities["resources"].Endpoint != "/mcp/resources" || d.Authentication == nil ||
		d.Authentication.Type != "oauth2" || d.Authentication.AuthorizationURL != "https://example.com/oauth/authorize" {
		t.Errorf("parsed %+v", d)
	}
}

func testDescription() Description {
	return Description{BaseURL: "https://router.example", Name: "io.github.mcp-router/mcp-router", Title: "MCP Router",
		Version: "1.2.3", Summary: "One endpoint.", Protocol: "2026-07-28", Versions: []string{"2025-11-25", "2026-07-28"},
		Auth: "oauth2", Issuers: []string{"https://auth.example"}, ResourceMetadata: "https://router.example/.well-known/oauth-protected-resource/mcp"}
}

func TestDocumentsOfADescription(t *testing.T) {
	d := testDescription()
	wk := d.WellKnown()
	if err := wk.Validate(); err != nil {
		t.Fatal(err)
	}
	if wk.Endpoint != "https://router.example/mcp" || wk.Authentication.ResourceMetadata != d.ResourceMetadata ||
		wk.Authentication.AuthorizationURL != "https://auth.example" || len(wk.Transports) != 2 {
		t.Errorf("well-known %+v", wk)
	}
	card := d.Card()
	if err := card.Validate(); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(card)
	for _, forbidden := range []string{`"tools"`, `"prompts"`, `"resources"`} {
		if strings.Contains(string(b), forbidden) {
			t.Errorf("card lists %s: %s", forbidden, b)
		}
	}
	cat := d.Catalog()
	if len(cat.Entries) != 1 || cat.Entries[0].Type != ServerCardType || cat.Entries[0].URL != "https://router.example/mcp/server-card" ||
		cat.Entries[0].Identifier != "urn:air:router.example:mcp:mcp-router" {
		t.Errorf("catalog %+v", cat)
	}
	// Auth off says so, with no metadata to follow.
	d.Auth = "none"
	if a := d.WellKnown().Authentication; a.Type != "none" || a.ResourceMetadata != "" || len(a.AuthorizationServers) != 0 {
		t.Errorf("auth none: %+v", a)
	}
}

func TestCardValidateRefusesBadCards(t *testing.T) {
	good := testDescription().Card()
	cases := map[string]func(*ServerCard){
		"no schema":        func(c *ServerCard) { c.Schema = "" },
		"name with no /":   func(c *ServerCard) { c.Name = "router" },
		"no description":   func(c *ServerCard) { c.Description = "" },
		"long description": func(c *ServerCard) { c.Description = strings.Repeat("x", 101) },
		"bad remote type":  func(c *ServerCard) { c.Remotes[0].Type = "websocket" },
		"remote no url":    func(c *ServerCard) { c.Remotes[1].URL = "" },
	}
	for name, mutate := range cases {
		c := good
		c.Remotes = append([]Remote(nil), good.Remotes...)
		mutate(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := (WellKnownMCP{Capabilities: map[string]Capability{}}).Validate(); err == nil {
		t.Error("well-known with no mcpVersion accepted")
	}
	if err := (WellKnownMCP{MCPVersion: "x"}).Validate(); err == nil {
		t.Error("well-known with no capabilities accepted")
	}
}
