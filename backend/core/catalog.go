package core

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcp-router/mcp-router/backend/catalog"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// ToolChangeMethod is the request log's method of a recorded tool change
// (and of its accept): the router's own tools/list of the upstream showed
// it.
const ToolChangeMethod = "tools/list"

// openCatalog builds the persisted catalog (backend/catalog). The gateway
// and the upstream service are built after it and reached through c.
func (c *Core) openCatalog() {
	c.Catalog = catalog.New(context.Background(), catalog.Options{
		Store: c.Store.Catalog(),
		Limits: func() catalog.Limits {
			ctx := context.Background()
			return catalog.Limits{MaxItems: c.Settings.CatalogMaxItems(ctx), MaxBytes: c.Settings.CatalogMaxBytes(ctx)}
		},
		Mode:     c.toolChangeMode,
		Logger:   c.Log,
		OnChange: c.recordToolChange,
		Held: func() {
			if c.Gateway != nil {
				c.Gateway.Refresh()
			}
		},
	})
}

// toolChangeMode is a server's own toolChanges, else the setting.
func (c *Core) toolChangeMode(server string) spec.ToolChangeMode {
	if c.Servers != nil {
		if def, err := c.Servers.Definition(server); err == nil && def.ToolChanges != "" {
			return def.ToolChanges
		}
	}
	return c.Settings.ToolChanges(context.Background())
}

// recordToolChange writes a tool change, or its accept, to the request log
// and the audit trail.
func (c *Core) recordToolChange(ch catalog.Change) {
	what := "changed"
	switch {
	case ch.Accepted:
		what = "accepted"
	case ch.Held:
		what = "held"
	}
	detail, _ := json.Marshal(map[string]any{"toolChange": what, "tool": ch.Tool, "oldHash": ch.OldHash, "newHash": ch.NewHash,
		"acceptedBy": ch.AcceptedBy, "diff": ch.Diff})
	e := store.RequestLog{Client: pipeline.RouterServer, Server: ch.Server, Method: ToolChangeMethod, Target: ch.Tool,
		Status: store.StatusOK, Response: string(detail)}
	if what == "held" {
		e.Status = store.StatusBlocked
		e.Error = "the tool's definition changed upstream; it is held until a person accepts it (toolChanges: hold)"
	}
	c.Requests.Log(e)
	args, _ := json.Marshal(map[string]string{"oldHash": ch.OldHash, "newHash": ch.NewHash})
	client := pipeline.RouterServer
	if ch.Accepted {
		client = ch.AcceptedBy
	}
	if _, err := c.Store.Audit().Append(context.Background(), store.AuditRow{Client: client, Server: ch.Server, Tool: ch.Tool,
		Target: ch.Tool, Policies: "toolChanges", Arguments: string(args), Status: "tool_" + what, Result: ch.Diff}, time.Time{}); err != nil {
		c.Log.WithField("server", ch.Server).Warnf("audit of the change of tool %q: %v", ch.Tool, err)
	}
}
