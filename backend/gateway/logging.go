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

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/store"
)

// requestKey identifies a request in flight: ids are only unique per session.
func requestKey(ctx context.Context, id any) string {
	sid := ""
	if s := server.ClientSessionFromContext(ctx); s != nil {
		sid = s.SessionID()
	}
	return fmt.Sprintf("%s\x00%v", sid, id)
}

// logHooks records every request in the request log through mcp-go's hooks,
// which see each request once whether it succeeds or fails, including the
// ones that never reach a handler (an unknown tool).
func (g *Gateway) logHooks(h *server.Hooks) {
	var starts sync.Map // requestKey → time.Time
	h.AddBeforeAny(func(ctx context.Context, id any, _ mcp.MCPMethod, _ any) {
		if g.o.RequestLog != nil {
			starts.Store(requestKey(ctx, id), time.Now())
		}
	})
	finish := func(ctx context.Context, id any, method mcp.MCPMethod, message, result any, err error) {
		if g.o.RequestLog == nil {
			return
		}
		start, ok := starts.LoadAndDelete(requestKey(ctx, id))
		if !ok {
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
			var re *RouteError
			var b *hook.Block
			switch {
			case errors.As(err, &b):
				e.Status, e.Error = store.StatusBlocked, b.Error()
			case errors.As(err, &re):
				e.Error = re.Error()
				if re.Reason != ReasonUnknownTool {
					e.Server = re.Server
				}
			}
		} else {
			e.Response = marshalForLog(result)
			if r, ok := result.(*mcp.CallToolResult); ok && r.IsError {
				e.Status, e.Error = store.StatusError, firstText(r)
				if g.wasRefused(r) {
					e.Status = store.StatusBlocked
				}
			}
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

// describe names the upstream server and the tool, prompt or URI a request
// is about, as the client named them.
func (g *Gateway) describe(method mcp.MCPMethod, message any) (server, target string) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	switch m := message.(type) {
	case *mcp.CallToolRequest:
		return g.tools[m.Params.Name].Server, m.Params.Name
	case *mcp.GetPromptRequest:
		return g.prompts[m.Params.Name].Server, m.Params.Name
	case *mcp.ReadResourceRequest:
		return g.resources[m.Params.URI], m.Params.URI
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

func firstText(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if t, ok := c.(mcp.TextContent); ok {
			return t.Text
		}
	}
	return "tool reported an error"
}
