package catalog

import (
	"encoding/json"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/store"
)

// RecordMethod is the request log's method of a tool change (and of its
// accept): the router's own tools/list of the upstream showed it.
const RecordMethod = "tools/list"

// Records are the request log entry and the audit row of a change or an
// accept; the router and the CLI write both.
func Records(ch Change) (store.RequestLog, store.AuditRow) {
	what := "changed"
	switch {
	case ch.Accepted:
		what = "accepted"
	case ch.Held:
		what = "held"
	}
	detail, _ := json.Marshal(map[string]any{"toolChange": what, "tool": ch.Tool, "oldHash": ch.OldHash, "newHash": ch.NewHash,
		"acceptedBy": ch.AcceptedBy, "diff": ch.Diff})
	client := pipeline.RouterServer
	if ch.Accepted {
		client = ch.AcceptedBy
	}
	e := store.RequestLog{Client: client, Server: ch.Server, Method: RecordMethod, Target: ch.Tool,
		Status: store.StatusOK, Response: string(detail)}
	if what == "held" {
		e.Status = store.StatusBlocked
		e.Error = "the tool's definition changed upstream; it is held until a person accepts it (toolChanges: hold)"
	}
	args, _ := json.Marshal(map[string]string{"oldHash": ch.OldHash, "newHash": ch.NewHash})
	a := store.AuditRow{Client: client, Server: ch.Server, Tool: ch.Tool, Target: ch.Tool, Policies: "toolChanges",
		Arguments: string(args), Status: "tool_" + what, Result: ch.Diff}
	return e, a
}
