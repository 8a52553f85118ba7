package appapi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The Profiles page's methods: create, list, update, remove, and a snippet
// that points at the profile's endpoint; what they refuse. Before them the
// page had nothing to call.
func TestProfileMethods(t *testing.T) {
	f := newFixture(t, spec.Server{Name: "fs", Command: "echo"}, spec.Server{Name: "git", Command: "echo"})
	p, err := f.api.CreateProfile(ProfileView{Name: "work", Mode: "search", Servers: []string{"fs", "git"},
		Tools: map[string][]string{"git": {"commit"}, "fs": {}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != "/mcp/work" || len(p.Tools) != 1 {
		t.Errorf("created %+v", p)
	}
	if _, err := f.api.CreateProfile(ProfileView{Name: "work", Mode: "all"}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second work: %v", err)
	}
	for _, bad := range []ProfileView{{Name: "x", Mode: "all", Servers: []string{"nope"}}, {Name: "default", Mode: "all"},
		{Name: "x", Mode: "sometimes"}, {Name: "../x", Mode: "all"}} {
		if _, err := f.api.CreateProfile(bad); err == nil {
			t.Errorf("CreateProfile(%+v) passed", bad)
		}
	}
	p.Mode, p.Servers, p.Tools = "gated", []string{"fs"}, nil
	if _, err := f.api.UpdateProfile(p); err != nil {
		t.Fatal(err)
	}
	list, err := f.api.ListProfiles()
	if err != nil || len(list) != 1 || list[0].Mode != "gated" || len(list[0].Servers) != 1 || list[0].Tools == nil {
		t.Fatalf("ListProfiles = %+v, %v", list, err)
	}
	snip, err := f.api.ProfileSnippet("work", "claude-code", "http", "", nil)
	if err != nil || !strings.Contains(snip, "/mcp/work") || !strings.Contains(snip, `"mcp-router-work"`) {
		t.Errorf("ProfileSnippet = %s, %v", snip, err)
	}
	var parsed any
	if json.Unmarshal([]byte(snip), &parsed) != nil {
		t.Errorf("the snippet is not JSON: %s", snip)
	}
	if _, err := f.api.ProfileSnippet("nope", "claude-code", "http", "", nil); err == nil {
		t.Errorf("a snippet for no profile")
	}
	if _, err := f.api.CreateToken("laptop", nil); err != nil {
		t.Fatal(err)
	}
	tv, err := f.api.UpdateTokenProfile("laptop", "work")
	if err != nil || tv.Profile != "work" {
		t.Fatalf("UpdateTokenProfile = %+v, %v", tv, err)
	}
	if toks, _ := f.api.ListTokens(); len(toks) != 1 || toks[0].Profile != "work" {
		t.Errorf("ListTokens after binding: %+v", toks)
	}
	if _, err := f.api.UpdateTokenProfile("laptop", "nope"); err == nil {
		t.Errorf("bound to a profile that does not exist")
	}
	if tv, err := f.api.UpdateTokenProfile("laptop", ""); err != nil || tv.Profile != "" {
		t.Errorf("unbinding: %+v, %v", tv, err)
	}
	if err := f.api.RemoveProfile("work"); err != nil {
		t.Fatal(err)
	}
	if list, _ := f.api.ListProfiles(); len(list) != 0 {
		t.Errorf("after remove: %+v", list)
	}
}

// The Tools page lists what a client of plain /mcp is offered: never the
// router's search tools nor the activate tools only a gated profile sees.
// (The UI's end-to-end test caught the page listing everything__activate
// after the gate was turned off, before ListTools left these out.)
func TestListToolsLeavesOutProfileOnlyTools(t *testing.T) {
	f := newFixture(t, everything(t, "everything"))
	f.waitState(t, "everything", "running")
	testpeers.Eventually(t, 10*time.Second, "the echo tool", func() bool {
		tools, _ := f.api.ListTools()
		return slices.ContainsFunc(tools, func(x AggregatedTool) bool { return x.Name == "everything__echo" })
	})
	if !f.c.Gateway.ProfileOnly("everything__activate") || !f.c.Gateway.ProfileOnly("search_tools") {
		t.Fatalf("the gateway does not publish the profile-only tools this test is about")
	}
	tools, err := f.api.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tools {
		if x.Name == "everything__activate" || x.Name == "search_tools" || x.Name == "call_tool" || x.Name == "add_tools" {
			t.Errorf("ListTools has %s", x.Name)
		}
	}
}
