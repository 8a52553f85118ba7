package settings

import (
	"context"
	"sort"
	"strconv"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// The persisted catalog's caps (docs/limits.md, "Catalog") and what a
// changed tool definition does (docs/tools.md).
const (
	KeyCatalogMaxItems = "catalogMaxItems" // items of one list of one server the catalog keeps
	KeyCatalogMaxKB    = "catalogMaxKB"    // bytes of one server's lists together, in kilobytes
	KeyToolChanges     = "toolChanges"     // notify or hold
)

// Defaults of the catalog settings.
const (
	DefaultCatalogMaxItems = 2000
	DefaultCatalogMaxKB    = 8192
)

func init() {
	defs = append(defs,
		Def{Key: KeyCatalogMaxItems, Default: strconv.Itoa(DefaultCatalogMaxItems), Allowed: "a whole number from 1 to 100000",
			Help: "items of one list (tools, resources, templates, prompts) of one server the catalog keeps", check: intRange(1, 100000)},
		Def{Key: KeyCatalogMaxKB, Default: strconv.Itoa(DefaultCatalogMaxKB), Allowed: "a whole number of kilobytes from 16 to 1048576",
			Help: "bytes of one server's lists together the catalog keeps", check: intRange(16, 1048576)},
		Def{Key: KeyToolChanges, Default: string(spec.ToolChangesNotify), Allowed: "notify or hold",
			Help:  "a tool an upstream changed after it was first seen: served and recorded (notify), or withheld until accepted (hold); a server's own toolChanges wins",
			check: oneOf(string(spec.ToolChangesNotify), string(spec.ToolChangesHold))},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// CatalogMaxItems caps one list of one server in the catalog.
func (s *Settings) CatalogMaxItems(ctx context.Context) int {
	return s.validInt(ctx, KeyCatalogMaxItems)
}

// CatalogMaxBytes caps one server's lists in the catalog.
func (s *Settings) CatalogMaxBytes(ctx context.Context) int64 {
	return int64(s.validInt(ctx, KeyCatalogMaxKB)) << 10
}

// ToolChanges is the global tool change mode.
func (s *Settings) ToolChanges(ctx context.Context) spec.ToolChangeMode {
	return spec.ToolChangeMode(s.valid(ctx, KeyToolChanges))
}
