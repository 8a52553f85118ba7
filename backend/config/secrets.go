package config

import (
	"context"
	"fmt"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// markSecrets makes each env or header entry whose value is its own
// placeholder (spec.SecretPlaceholder: what `servers export` writes for a
// secret) a secret entry, whose value an import asks for. A placeholder
// that names another entry is refused: which value it stands for is not
// clear.
func markSecrets(s *spec.Server) error {
	for _, kind := range []spec.SecretKind{spec.KindEnv, spec.KindHeader} {
		for k, v := range s.Entries(kind) {
			if !spec.LooksLikePlaceholder(v) {
				continue
			}
			if !spec.IsSecretPlaceholder(k, v) {
				return fmt.Errorf("%s %s: %s is not this entry's placeholder (%s): write the value, or %s to be asked for it",
					kind, k, v, spec.SecretPlaceholder(k), spec.SecretPlaceholder(k))
			}
			if kind == spec.KindHeader {
				s.SecretHeaders = append(s.SecretHeaders, k)
			} else {
				s.SecretEnv = append(s.SecretEnv, k)
			}
		}
	}
	return nil
}

// ImportOptions tune ImportServersWith.
type ImportOptions struct {
	// Refuse names why a definition must be skipped (nil: none).
	Refuse Refuse
	// Secrets keeps the values of the imported servers' secret entries;
	// nil: they are stored as names only, without values.
	Secrets *secrets.ServerValues
	// AllowMissingSecrets imports a server whose secret entries have no
	// value yet (the placeholders of an export): the report lists them in
	// NeedsSecrets and the server waits, errored, until they are set (the
	// UI asks for them). Without it such an import fails with a
	// *secrets.NoValueError naming each, and adds nothing.
	AllowMissingSecrets bool
}

// ImportServersWith is ImportServers whose secret values go to o.Secrets.
func ImportServersWith(ctx context.Context, repo ServerCreator, servers []spec.Server, o ImportOptions) (ImportReport, error) {
	if o.Secrets == nil {
		return importServers(ctx, repo, servers, o.Refuse, func(defs []spec.Server) ([]spec.SecretRef, error) {
			return nil, repo.CreateMany(ctx, defs)
		})
	}
	return importServers(ctx, repo, servers, o.Refuse, func(defs []spec.Server) ([]spec.SecretRef, error) {
		changes := make([]secrets.Change, len(defs))
		for i, d := range defs {
			changes[i] = secrets.Change{In: d}
		}
		_, missing, err := o.Secrets.SaveAll(changes, secrets.SaveOptions{AllowMissing: o.AllowMissingSecrets},
			func(sealed []spec.Server) error { return repo.CreateMany(ctx, sealed) })
		return missing, err
	})
}
