package cli

import (
	"context"
	"fmt"

	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// serverRow is a stored server as `servers list --json` and `servers show
// --json` print it: the definition, and what its start resolves to.
type serverRow struct {
	store.Server
	// ResolvedStart is eager or lazy: an auto start resolved from the
	// server's gate and the profiles (spec.Server.ResolvedStart).
	ResolvedStart spec.StartMode `json:"resolvedStart"`
}

// resolveStarts sets each row's SearchOnly from the stored profiles, so
// that its start resolves as a router running now would resolve it.
func resolveStarts(ctx context.Context, st *store.Store, rows []store.Server) error {
	profiles, err := st.Profiles().List(ctx)
	if err != nil {
		return fmt.Errorf("read the profiles (they resolve an auto start): %w", err)
	}
	defs := make([]spec.Server, len(rows))
	for i, r := range rows {
		defs[i] = r.Server
	}
	profile.MarkSearchOnly(defs, profiles)
	for i := range rows {
		rows[i].SearchOnly = defs[i].SearchOnly
	}
	return nil
}

func serverRows(rows []store.Server) []serverRow {
	out := make([]serverRow, len(rows))
	for i, r := range rows {
		out[i] = serverRow{Server: r, ResolvedStart: r.ResolvedStart()}
	}
	return out
}

// startColumn is the START column of `servers list`: eager or lazy, with
// "(auto)" when the definition leaves it to the router.
func startColumn(s spec.Server) string {
	if s.StartAutoReason() != "" {
		return string(s.ResolvedStart()) + " (auto)"
	}
	return string(s.ResolvedStart())
}

// startLine is the Start line of `servers show`.
func startLine(s spec.Server) string {
	what := string(s.ResolvedStart())
	if s.IsLazy() {
		what += " (starts on use, stops after the lazyIdleSeconds setting"
	} else {
		what += " (with the router"
	}
	if reason := s.StartAutoReason(); reason != "" {
		what += "; " + reason
	}
	return what + ")"
}

// startFlagHelp is --start's help, for add and update.
const startFlagHelp = "when the server starts: auto (the default: lazy if the server is gated or only in search profiles, " +
	"else eager), eager (with the router) or lazy (on its first call, listed meanwhile from the persisted catalog; " +
	"stopped after the lazyIdleSeconds setting without calls)"
