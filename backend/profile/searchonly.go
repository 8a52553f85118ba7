package profile

import (
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// SearchOnly returns the servers that some profile has and that every
// profile having them serves in search mode: an auto start
// (spec.StartAuto) makes them lazy, since no client of theirs lists their
// tools before it searches. The default profile (plain /mcp) does not
// count: a lazy server serves it too, from the persisted catalog.
func SearchOnly(profiles []store.Profile) map[string]bool {
	out := map[string]bool{}
	other := map[string]bool{}
	for _, p := range profiles {
		for _, s := range p.Servers {
			if p.Mode == ModeSearch {
				out[s] = true
			} else {
				other[s] = true
			}
		}
	}
	for s := range other {
		delete(out, s)
	}
	return out
}

// MarkSearchOnly sets each definition's SearchOnly from profiles.
func MarkSearchOnly(defs []spec.Server, profiles []store.Profile) {
	only := SearchOnly(profiles)
	for i := range defs {
		defs[i].SearchOnly = only[defs[i].Name]
	}
}

// Loaded returns the profiles as last loaded (Reload), in no order.
func (s *Service) Loaded() []store.Profile {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]store.Profile, 0, len(s.byName))
	for _, p := range s.byName {
		out = append(out, p.Profile)
	}
	return out
}
