package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/store"
)

// logHooks record, through mcp-go's hooks, the requests the router answers
// without the pipeline — ping, a call of an unknown tool, a malformed
// request, an initialize mcp-go refused — so the request log holds every
// request once (a successful initialize passes the chain: instructions.go). What
// passes the pipeline is recorded by its log step: a success of such a
// method, or an error marked by that step, is left alone here.
func (g *Gateway) logHooks(h *server.Hooks) {
	var starts sync.Map // requestKey → time.Time
	h.AddBeforeAny(func(ctx context.Context, id any, _ mcp.MCPMethod, _ any) {
		if g.o.RequestLog != nil {
			starts.Store(keyOf(ctx, id), time.Now())
		}
	})
	finish := func(ctx context.Context, id any, method mcp.MCPMethod, message, result any, err error) {
		if g.o.RequestLog == nil {
			return
		}
		start, ok := starts.LoadAndDelete(keyOf(ctx, id))
		if !ok {
			return
		}
		if pipeline.Passes(string(method)) && (err == nil || pipeline.Logged(err)) {
			return
		}
		e := store.RequestLog{
			Time:       start.(time.Time),
			Client:     g.o.CallerFrom(ctx).Name,
			Method:     string(method),
			DurationMs: float64(time.Since(start.(time.Time)).Microseconds()) / 1000,
			Status:     store.StatusOK,
			Request:    marshalForLog(message),
		}
		e.Server, e.Target = g.describe(method, message)
		if err != nil {
			e.Status, e.Error = store.StatusError, err.Error()
			var re *pipeline.RouteError
			if errors.As(err, &re) {
				e.Error = re.Error()
			}
		} else {
			e.Response = marshalForLog(result)
		}
		g.o.RequestLog.Log(e)
	}
	h.AddOnSuccess(func(ctx context.Context, id any, method mcp.MCPMethod, message, result any) {
		finish(ctx, id, method, message, result, nil)
	})
	h.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, message any, err error) {
		finish(ctx, id, method, message, nil, err)
	})
}

// describe names the target of a request the pipeline did not see, as the
// client named it (an unknown tool's server is the router's, not a guess).
func (g *Gateway) describe(method mcp.MCPMethod, message any) (server, target string) {
	switch m := message.(type) {
	case *mcp.CallToolRequest:
		return "", m.Params.Name
	case *mcp.GetPromptRequest:
		return "", m.Params.Name
	case *mcp.ReadResourceRequest:
		return "", m.Params.URI
	}
	return "", ""
}

func marshalForLog(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("(unencodable: %v)", err)
	}
	return string(b)
}
