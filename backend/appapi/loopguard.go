package appapi

import (
	"github.com/mcp-router/mcp-router/backend/loopguard"
)

// loopGuard describes this router for loopguard.Check: the settings' and the
// bound listen address, the data dir and the binary its stdio snippets run.
// AddServer, UpdateServer and the imports refuse what points at it.
func (a *API) loopGuard() loopguard.Self {
	exe, err := a.opts.Executable()
	if err != nil {
		exe = "" // loopguard falls back to os.Executable
	}
	return a.core.LoopGuard(bg(), exe)
}
