package core

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
)

func sortedTools(t *testing.T, names []string) []string {
	t.Helper()
	out := slices.Clone(names)
	slices.Sort(out)
	return out
}

// A gated profile (seed 000 across the profile): its client sees each
// server's activate tool, with an overview of the tools behind it, until it
// activates that server; its calls before then get the lock message. The
// activate tools are the gated profile's only: plain /mcp neither lists nor
// answers them. Before the gated mode, a profile could not take it.
func TestGatedProfile(t *testing.T) {
	dir := t.TempDir()
	ep := serve(t, dir, []spec.Server{testmcp.Server("one"), testmcp.Server("two"), testmcp.Server("three")}, true)
	ctx := context.Background()
	if _, err := ep.core.Profiles.Create(ctx, store.Profile{Name: "pg", Mode: profile.ModeGated, Servers: []string{"one", "two"},
		Tools: map[string][]string{"two": {"show"}}}); err != nil {
		t.Fatal(err)
	}
	c, err := mcpClient(t, ep.url+"/pg", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := sortedTools(t, listTools(t, c)); !slices.Equal(got, []string{"one__activate", "two__activate"}) {
		t.Fatalf("tools/list before activating: %v", got)
	}
	res, err := c.ListTools(ctx, mcpListTools())
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "one__activate" && !strings.Contains(tool.Description, "digest") {
			t.Errorf("the overview of one: %q", tool.Description)
		}
	}
	if res, err := callText(t, c, "one__show", nil); err != nil || !res.IsError || !strings.Contains(textOf(res), "one__activate") {
		t.Errorf("a call before activating: %v %+v", err, res)
	}
	if res, err := callText(t, c, "one__activate", nil); err != nil || res.IsError || !strings.Contains(textOf(res), "one activated") {
		t.Fatalf("one__activate: %v %+v", err, res)
	}
	want := append(testmcpTools("one"), "one__activate", "two__activate")
	slices.Sort(want)
	if got := sortedTools(t, listTools(t, c)); !slices.Equal(got, want) {
		t.Errorf("tools/list after activating one: %v, want %v", got, want)
	}
	if res, err := callText(t, c, "one__show", nil); err != nil || res.IsError {
		t.Errorf("a call after activating: %v %+v", err, res)
	}
	// The selection still holds once two is unlocked.
	if _, err := callText(t, c, "two__activate", nil); err != nil {
		t.Fatal(err)
	}
	if got := listTools(t, c); !slices.Contains(got, "two__show") || slices.Contains(got, "two__digest") {
		t.Errorf("two's tools after activating: %v", got)
	}
	other, err := mcpClient(t, ep.url+"/pg", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := sortedTools(t, listTools(t, other)); !slices.Equal(got, []string{"one__activate", "two__activate"}) {
		t.Errorf("another client of the profile: %v", got)
	}
	plain, err := mcpClient(t, ep.url, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range listTools(t, plain) {
		if strings.HasSuffix(n, "__activate") {
			t.Errorf("/mcp lists %s", n)
		}
	}
	if _, err := callText(t, plain, "one__activate", nil); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("one__activate at /mcp: %v", err)
	}
	if res, err := callText(t, plain, "one__show", nil); err != nil || res.IsError {
		t.Errorf("one__show at /mcp (never locked there): %v %+v", err, res)
	}
}

func mcpListTools() mcp.ListToolsRequest { return mcp.ListToolsRequest{} }
