package appapi

import (
	"context"
	"time"
)

// ToolChange is a tool an upstream changed after it was first seen, waiting
// for a person (docs/tools.md#changed-tools).
type ToolChange struct {
	Server    string `json:"server"`
	Tool      string `json:"tool"` // the upstream's own name
	OldHash   string `json:"oldHash"`
	NewHash   string `json:"newHash"` // what AcceptToolChange takes
	Old       string `json:"old"`     // the accepted definition (indented JSON)
	New       string `json:"new"`     // the changed one
	Diff      string `json:"diff"`    // unified diff, old to new
	ChangedAt string `json:"changedAt"`
	Held      bool   `json:"held"` // withheld from clients until accepted (toolChanges: hold)
}

// ListToolChanges returns the tool changes waiting for a person.
func (a *API) ListToolChanges() ([]ToolChange, error) {
	changes, err := a.core.Catalog.Changes(context.Background())
	if err != nil {
		return nil, err
	}
	out := make([]ToolChange, 0, len(changes))
	for _, ch := range changes {
		out = append(out, ToolChange{Server: ch.Server, Tool: ch.Tool, OldHash: ch.OldHash, NewHash: ch.NewHash,
			Old: ch.Old, New: ch.New, Diff: ch.Diff, ChangedAt: ch.ChangedAt.UTC().Format(time.RFC3339), Held: ch.Held})
	}
	return out, nil
}

// AcceptToolChange accepts the changed definition of server's tool that the
// person saw (newHash): it becomes the pinned one and a held tool is
// served again. A definition that changed again since is refused.
func (a *API) AcceptToolChange(server, tool, newHash string) error {
	_, err := a.core.Catalog.Accept(context.Background(), server, tool, newHash, UIClient)
	return err
}
