package profile

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// What a config file or the CLI could hand the profile checks that its
// owner did not mean: each is refused with store.ErrInvalid and a message
// that says why.
func TestCheckRefuses(t *testing.T) {
	servers := []string{"a", "b"}
	many := make([]string, MaxTools+1)
	for i := range many {
		many[i] = "t"
	}
	for name, tc := range map[string]struct {
		p    store.Profile
		want string
	}{
		"empty name":        {store.Profile{Mode: ModeAll}, "bad profile name"},
		"path in the name":  {store.Profile{Name: "../x", Mode: ModeAll}, "bad profile name"},
		"slash in the name": {store.Profile{Name: "a/b", Mode: ModeAll}, "bad profile name"},
		"reserved name":     {store.Profile{Name: "Default", Mode: ModeAll}, "reserved"},
		"the server card":   {store.Profile{Name: "server-card", Mode: ModeAll}, "reserved"},
		"unknown mode":      {store.Profile{Name: "p", Mode: "every"}, "mode"},
		"unknown server":    {store.Profile{Name: "p", Mode: ModeAll, Servers: []string{"zz"}}, `no server "zz"`},
		"server twice":      {store.Profile{Name: "p", Mode: ModeAll, Servers: []string{"a", "a"}}, "twice"},
		"tools of a server it lacks": {store.Profile{Name: "p", Mode: ModeAll, Servers: []string{"a"},
			Tools: map[string][]string{"b": {"x"}}}, "not one of its servers"},
		"empty tool name": {store.Profile{Name: "p", Mode: ModeAll, Servers: []string{"a"}, Tools: map[string][]string{"a": {""}}}, "1-256"},
		"too many tools":  {store.Profile{Name: "p", Mode: ModeAll, Servers: []string{"a"}, Tools: map[string][]string{"a": many}}, "cap"},
		"long description": {store.Profile{Name: "p", Mode: ModeAll, Description: strings.Repeat("x", MaxDescriptionLen+1)},
			"MaxDescriptionLen"},
	} {
		err := Check(tc.p, servers)
		if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid saying %q", name, err, tc.want)
		}
	}
	if err := Check(store.Profile{Name: "ok-1", Mode: ModeSearch, Servers: servers, Tools: map[string][]string{"a": {"x"}}}, servers); err != nil {
		t.Errorf("a good profile: %v", err)
	}
}

func TestHasTool(t *testing.T) {
	p := compile(store.Profile{Name: "p", Servers: []string{"a", "b"}, Tools: map[string][]string{"a": {"x"}, "b": {}}})
	for _, tc := range []struct {
		server, tool string
		want         bool
	}{{"a", "x", true}, {"a", "y", false}, {"b", "anything", true}, {"c", "x", false}} {
		if got := p.HasTool(tc.server, tc.tool); got != tc.want {
			t.Errorf("HasTool(%s, %s) = %v", tc.server, tc.tool, got)
		}
	}
}

// ReloadChanged reports a change once, whoever made it: this process
// (Create) or another (the store written directly).
func TestReloadChangedReportsEachChangeOnce(t *testing.T) {
	st, err := store.Open(t.TempDir() + "/db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Servers().Create(context.Background(), spec.Server{Name: "a", Command: "echo"}); err != nil {
		t.Fatal(err)
	}
	s := New(st)
	ctx := context.Background()
	if changed, err := s.ReloadChanged(ctx); err != nil || !changed {
		t.Fatalf("first load: %v %v", changed, err)
	}
	if changed, _ := s.ReloadChanged(ctx); changed {
		t.Errorf("nothing changed, yet reported")
	}
	if _, err := s.Create(ctx, store.Profile{Name: "p", Servers: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Lookup("p"); !ok {
		t.Errorf("Create did not apply at once")
	}
	if changed, _ := s.ReloadChanged(ctx); !changed {
		t.Errorf("a profile created in this process was not reported")
	}
	if _, err := st.Profiles().Update(ctx, store.Profile{Name: "p", Mode: ModeSearch, Servers: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if changed, _ := s.ReloadChanged(ctx); !changed {
		t.Errorf("a profile written by another process was not reported")
	}
	if changed, _ := s.ReloadChanged(ctx); changed {
		t.Errorf("reported twice")
	}
}
