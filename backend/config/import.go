package config

import (
	"context"
	"fmt"
	"sort"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// ServerCreator is the part of store.ServerRepo an import needs; an
// interface so callers can pass a fake or a wrapped repository.
type ServerCreator interface {
	List(ctx context.Context) ([]store.Server, error)
	CreateMany(ctx context.Context, servers []spec.Server) error
}

// Why an import skips an entry.
const (
	SkipReasonExists    = "a server with this name already exists"
	SkipReasonDuplicate = "the import lists this name more than once"
)

// Skipped is an entry an import left alone, and why.
type Skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// ImportReport says what an import did, for the CLI and UI to show.
type ImportReport struct {
	Added   []string  `json:"added"`
	Skipped []Skipped `json:"skipped"`
	// NeedsSecrets are the secret entries of added servers that have no
	// value yet (ImportOptions.AllowMissingSecrets): the UI asks for them.
	NeedsSecrets []spec.SecretRef `json:"needsSecrets,omitempty"`
}

// Refuse says why an import must skip a definition that is valid in itself
// (it points at this router: loopguard.Self.Reason), or "" to import it.
type Refuse func(spec.Server) string

// ImportServers adds the servers whose names are free and skips the rest:
// an import never overwrites what the user already set up, and never adds
// a server refuse names a reason for (nil refuses nothing) — the others in
// the file are imported, the refused one is reported with its reason. The
// additions are written all or nothing; on error the report is empty.
func ImportServers(ctx context.Context, repo ServerCreator, servers []spec.Server, refuse Refuse) (ImportReport, error) {
	return ImportServersWith(ctx, repo, servers, ImportOptions{Refuse: refuse})
}

// importServers is ImportServers with create, which stores the servers to
// add (all or none) and returns their secret entries left without a value.
func importServers(ctx context.Context, repo ServerCreator, servers []spec.Server, refuse Refuse,
	create func([]spec.Server) ([]spec.SecretRef, error)) (ImportReport, error) {
	existing, err := repo.List(ctx)
	if err != nil {
		return ImportReport{}, fmt.Errorf("import: %w", err)
	}
	taken := make(map[string]bool, len(existing))
	for _, s := range existing {
		taken[s.Name] = true
	}
	var rep ImportReport
	var add []spec.Server
	batch := make(map[string]bool, len(servers))
	for _, s := range servers {
		s.Normalize() // names compare as they will be stored
		if refuse != nil {
			if why := refuse(s); why != "" {
				rep.Skipped = append(rep.Skipped, Skipped{Name: s.Name, Reason: why})
				continue
			}
		}
		switch {
		case taken[s.Name]:
			rep.Skipped = append(rep.Skipped, Skipped{Name: s.Name, Reason: SkipReasonExists})
			continue
		case batch[s.Name]:
			rep.Skipped = append(rep.Skipped, Skipped{Name: s.Name, Reason: SkipReasonDuplicate})
			continue
		}
		batch[s.Name] = true
		add = append(add, s)
		rep.Added = append(rep.Added, s.Name)
	}
	if len(add) > 0 {
		missing, err := create(add)
		if err != nil {
			return ImportReport{}, fmt.Errorf("import: %w", err)
		}
		rep.NeedsSecrets = missing
	}
	sort.Strings(rep.Added)
	sort.Slice(rep.Skipped, func(i, j int) bool { return rep.Skipped[i].Name < rep.Skipped[j].Name })
	return rep, nil
}
