package appapi

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/mcp-router/mcp-router/backend/upstream"
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

// CatalogTool is a tool of a server that is not running, as the persisted
// catalog last saw it (docs/tools.md#the-persisted-catalog).
type CatalogTool struct {
	Server      string `json:"server"`
	State       string `json:"state"` // the server's state now: stopped, error, starting, …
	Tool        string `json:"tool"`  // the upstream's own name
	Description string `json:"description"`
	InputSchema any    `json:"inputSchema"` // JSON Schema object, as the upstream sent it
	SeenAt      string `json:"seenAt"`      // when its server last listed it
	Changed     bool   `json:"changed"`     // a change waits for a person
}

// StoppedServerTools returns the tools of the configured servers that are
// not running, from the persisted catalog, sorted by server and tool: what
// they offered when they last ran.
func (a *API) StoppedServerTools() ([]CatalogTool, error) {
	out := []CatalogTool{}
	ctx := context.Background()
	for _, st := range a.core.Servers.Statuses() {
		if st.State == upstream.StateRunning {
			continue
		}
		tools, err := a.core.Catalog.Tools(ctx, st.Name)
		if err != nil {
			return nil, err
		}
		for _, t := range tools {
			var parts struct {
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			_ = json.Unmarshal(t.Raw, &parts)
			var schema any = parts.InputSchema
			if len(parts.InputSchema) == 0 || string(parts.InputSchema) == "null" {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			out = append(out, CatalogTool{Server: st.Name, State: string(st.State), Tool: t.Name, Description: t.Description,
				InputSchema: schema, SeenAt: t.SeenAt.UTC().Format(time.RFC3339), Changed: t.Changed})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].Tool < out[j].Tool
	})
	return out, nil
}
