package core

import (
	"context"
	"time"

	"github.com/mcp-router/mcp-router/backend/catalog"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// ToolChangeMethod is the request log's method of a recorded tool change.
const ToolChangeMethod = catalog.RecordMethod

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
	e, a := catalog.Records(ch)
	c.Requests.Log(e)
	if _, err := c.Store.Audit().Append(context.Background(), a, time.Time{}); err != nil {
		c.Log.WithField("server", ch.Server).Warnf("audit of the change of tool %q: %v", ch.Tool, err)
	}
}

// persistedLists is a server's lists as the persisted catalog keeps them,
// false when its tools list was never fetched: a stopped lazy server is
// listed from them (gateway.Options.Persisted).
func (c *Core) persistedLists(server string) (upstream.Catalog, bool) {
	l, err := c.Catalog.Lists(context.Background(), server)
	if err != nil {
		c.Log.WithField("server", server).Warnf("persisted catalog: %v", err)
		return upstream.Catalog{}, false
	}
	if _, fetched := l.SeenAt[catalog.ListTools]; !fetched {
		return upstream.Catalog{}, false
	}
	cat := upstream.Catalog{Resources: l.Resources, ResourceTemplates: l.ResourceTemplates, Prompts: l.Prompts}
	for _, t := range l.Tools {
		cat.Tools = append(cat.Tools, t.Tool)
	}
	return cat, true
}

// hasPersistedLists: whether a lazy server can stay stopped at launch. A
// stale list (past its ttlMs; catalog/stale.go) does not start it: ttlMs 0,
// "stale at once", is what every go-sdk server sends unasked, and starting
// on it would make those servers eager. It is refreshed at the server's
// next start instead.
func (c *Core) hasPersistedLists(server string) bool {
	_, ok := c.persistedLists(server)
	return ok
}
