package gateway

// Workarounds for what mcp-go (v1.2.1) does not let the router do through
// its API, kept in one place, each with the upstream change that would
// retire it.

import (
	"context"
	"errors"
	"reflect"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// shapeErrors gives mcp-go's answers to failed requests the router's error
// format. mcp-go (v1.2.1) reports any handler error as -32603 without data,
// and an unknown tool in its own words; its OnError hook receives the very
// request error it then encodes, so the hook sets the code, message and
// data there. The shape of that unexported struct is checked (see
// setRequestError); the endpoint tests over HTTP and stdio fail if it ever
// changes.
func (g *Gateway) shapeErrors(h *server.Hooks) {
	h.AddOnError(func(ctx context.Context, _ any, _ mcp.MCPMethod, message any, err error) {
		var re *pipeline.RouteError
		// The cause keeps the pipeline log step's mark, which logHooks reads.
		cause := errors.Unwrap(err)
		switch {
		case errors.As(err, &re):
		case errors.Is(err, server.ErrToolNotFound):
			req, ok := message.(*mcp.CallToolRequest)
			if !ok {
				return
			}
			re = pipeline.UnknownTool(req.Params.Name)
			// A held tool says so, to a caller allowed to call it; any
			// other reads as unknown, as a tool outside its scope does.
			if un, held := g.withheldTool(req.Params.Name); held && g.o.CallerFrom(ctx).MayCall(un.Server, un.Item) {
				re = pipeline.ToolHeld(req.Params.Name, un.Server, un.Item)
			}
			cause = re
		case errors.Is(err, server.ErrPromptNotFound):
			req, ok := message.(*mcp.GetPromptRequest)
			if !ok {
				return
			}
			re = pipeline.UnknownPrompt(req.Params.Name)
			cause = re
		case errors.Is(err, server.ErrResourceNotFound):
			req, ok := message.(*mcp.ReadResourceRequest)
			if !ok {
				return
			}
			re = pipeline.UnknownResource(req.Params.URI, clientOf(ctx, nil).Modern)
			cause = re
		default:
			return
		}
		if cause == nil {
			cause = re
		}
		if !setRequestError(err, re.Code, cause, re.Data()) {
			g.log.Debugf("cannot shape the JSON-RPC error %v: mcp-go's request error changed", err)
		}
	})
}

var (
	errorType = reflect.TypeFor[error]()
	anyType   = reflect.TypeFor[any]()
)

// setRequestError sets code, err and data of mcp-go's *server.requestError
// (unexported), which mcp-go turns into the JSON-RPC error it sends. It
// reports false, changing nothing, when err is not that struct as known.
func setRequestError(err error, code int, cause error, data any) bool {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	s := v.Elem()
	t := s.Type()
	if t.Kind() != reflect.Struct || t.Name() != "requestError" || t.PkgPath() != "github.com/mark3labs/mcp-go/server" {
		return false
	}
	fc, fe, fd := s.FieldByName("code"), s.FieldByName("err"), s.FieldByName("data")
	if !fc.IsValid() || fc.Kind() != reflect.Int || !fe.IsValid() || fe.Type() != errorType || !fd.IsValid() || fd.Type() != anyType {
		return false
	}
	settable := func(f reflect.Value) reflect.Value {
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	}
	settable(fc).SetInt(int64(code))
	settable(fe).Set(reflect.ValueOf(&cause).Elem())
	settable(fd).Set(reflect.ValueOf(&data).Elem())
	return true
}
