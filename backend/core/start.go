package core

import (
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// ResolveStart returns a stored definition with SearchOnly set from the
// profiles as loaded, so its IsLazy and ResolvedStart say what the router
// does with it (an auto start resolved; spec.StartAuto).
func (c *Core) ResolveStart(def spec.Server) spec.Server {
	defs := []spec.Server{def}
	profile.MarkSearchOnly(defs, c.Profiles.Loaded())
	return defs[0]
}
