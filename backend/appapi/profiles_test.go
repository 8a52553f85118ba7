package appapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
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
	snip, err := f.api.ProfileSnippet("work", "claude-code", "http", "")
	if err != nil || !strings.Contains(snip, "/mcp/work") {
		t.Errorf("ProfileSnippet = %s, %v", snip, err)
	}
	var parsed any
	if json.Unmarshal([]byte(snip), &parsed) != nil {
		t.Errorf("the snippet is not JSON: %s", snip)
	}
	if _, err := f.api.ProfileSnippet("nope", "claude-code", "http", ""); err == nil {
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
