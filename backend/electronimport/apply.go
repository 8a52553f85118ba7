package electronimport

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// Apply writes the plan: its servers (their secret values into sec, the
// keychain or the secrets file) and its profiles, in one transaction — all
// or nothing. A name taken since the plan was made fails the whole write.
func Apply(ctx context.Context, st *store.Store, sec *secrets.ServerValues, p Plan) error {
	if p.Empty() {
		return nil
	}
	write := func(defs []spec.Server) error { return st.CreateServersAndProfiles(ctx, defs, p.profiles) }
	if sec == nil {
		for _, d := range p.defs {
			if len(d.SecretEnv)+len(d.SecretHeaders) > 0 {
				return errors.New("import: no secret store to keep the servers' credentials in")
			}
		}
		if err := write(p.defs); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		return nil
	}
	changes := make([]secrets.Change, len(p.defs))
	for i, d := range p.defs {
		changes[i] = secrets.Change{In: d}
	}
	if _, _, err := sec.SaveAll(changes, secrets.SaveOptions{}, write); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}
