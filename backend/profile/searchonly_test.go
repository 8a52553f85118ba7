package profile

import (
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// A server is search-only when some profile has it and every profile that
// has it is a search profile; one also in an all or gated profile, or in
// none, is not.
func TestSearchOnly(t *testing.T) {
	profiles := []store.Profile{
		{Name: "s1", Mode: ModeSearch, Servers: []string{"a", "b", "c"}},
		{Name: "s2", Mode: ModeSearch, Servers: []string{"a"}},
		{Name: "all", Mode: ModeAll, Servers: []string{"b"}},
		{Name: "g", Mode: ModeGated, Servers: []string{"c", "d"}},
	}
	defs := []spec.Server{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e", SearchOnly: true}}
	MarkSearchOnly(defs, profiles)
	want := map[string]bool{"a": true}
	for _, d := range defs {
		if d.SearchOnly != want[d.Name] {
			t.Errorf("%s: SearchOnly %v, want %v", d.Name, d.SearchOnly, want[d.Name])
		}
	}
}
