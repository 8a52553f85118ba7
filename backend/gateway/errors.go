package gateway

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/upstream"
)

// The JSON-RPC errors of routing and upstream failures (DESIGN.md, "Errors";
// docs/endpoint.md lists them for users). Every one is
//
//	{"code": …, "message": "<server>: <what happened>", "data": {"server": …, "reason": …}}
//
// on every transport and on the fast path as on mcp-go's.
const (
	// CodeServerDown: the server is not running, or its connection ended
	// while the call waited for an answer.
	CodeServerDown = -32001
	// CodeTimeout: no answer (nor progress) within the server's timeout.
	CodeTimeout = -32002
	// CodeBadResponse: the server's answer could not be used (not a valid
	// result, or the transport failed in another way).
	CodeBadResponse = -32003
	// CodeLocked: the server is behind an activate gate this client has not
	// passed (or must pass again after the upstream reconnected).
	CodeLocked = -32004
)

// Reasons, the data.reason member of a routing or upstream error.
const (
	ReasonUnknownTool   = "unknown_tool"   // -32602: no tool by that name for this caller
	ReasonServerDown    = "server_down"    // CodeServerDown
	ReasonTimeout       = "timeout"        // CodeTimeout
	ReasonUpstreamError = "upstream_error" // the server answered with a JSON-RPC error: its own code
	ReasonBadResponse   = "bad_response"   // CodeBadResponse
	ReasonCancelled     = "cancelled"      // -32603: the call was cancelled before its answer
	ReasonLocked        = "locked"         // CodeLocked: activate the server first
)

// RouterServer names the router itself in errors no upstream is behind
// (an unknown tool).
const RouterServer = "mcp-router"

// RouteError is a routing or upstream failure, reported to the client as a
// JSON-RPC error: Code, the message "<Server>: <What>", and data
// {"server": Server, "reason": Reason}, plus "upstream" (the server's own
// error data) when it sent any.
type RouteError struct {
	Server string
	What   string // what happened, for people
	Reason string // for programs: one of the Reason constants
	Code   int
	// UpstreamData is the data member of the server's own JSON-RPC error.
	UpstreamData any
	Err          error
}

func (e *RouteError) Error() string { return e.Server + ": " + e.What }
func (e *RouteError) Unwrap() error { return e.Err }

// Data is the data member of the JSON-RPC error.
func (e *RouteError) Data() map[string]any {
	d := map[string]any{"server": e.Server, "reason": e.Reason}
	if e.UpstreamData != nil {
		d["upstream"] = e.UpstreamData
	}
	return d
}

// routeError words an upstream failure for the client.
func routeError(server string, err error) *RouteError {
	e := &RouteError{Server: server, What: err.Error(), Reason: ReasonBadResponse, Code: CodeBadResponse, Err: err}
	var rpc *upstream.RPCError
	switch {
	case errors.Is(err, upstream.ErrUnknownServer):
		e.What, e.Reason, e.Code = "no such server", ReasonServerDown, CodeServerDown
	case errors.Is(err, upstream.ErrNotRunning), errors.Is(err, upstream.ErrConnectionLost):
		e.Reason, e.Code = ReasonServerDown, CodeServerDown
	case errors.Is(err, upstream.ErrTimeout):
		e.Reason, e.Code = ReasonTimeout, CodeTimeout
	case errors.As(err, &rpc):
		e.What = fmt.Sprintf("upstream error %d: %s", rpc.Code, rpc.Message)
		e.Reason, e.Code, e.UpstreamData = ReasonUpstreamError, rpc.Code, rpc.Data
	case errors.Is(err, context.Canceled):
		e.What, e.Reason, e.Code = "cancelled", ReasonCancelled, mcp.INTERNAL_ERROR
	}
	return e
}

// locked refuses a prompt or resource request to a gated server the
// client has not activated; message is the gate's text. (A locked tool call
// is a tool error instead, so the model reads the message.)
func locked(server, message string) *RouteError {
	return &RouteError{Server: server, What: message, Reason: ReasonLocked, Code: CodeLocked}
}

// badResponse is an upstream answer that is not a valid result of method.
func badResponse(server, method string, err error) *RouteError {
	return &RouteError{Server: server, What: fmt.Sprintf("malformed %s result: %v", method, err),
		Reason: ReasonBadResponse, Code: CodeBadResponse, Err: err}
}

// unknownTool is the error of a call to a tool the caller cannot reach: it
// does not exist, or the caller's token does not allow its server (the two
// must read the same).
func unknownTool(name string) *RouteError {
	return &RouteError{Server: RouterServer, What: fmt.Sprintf("tool '%s' not found", name),
		Reason: ReasonUnknownTool, Code: mcp.INVALID_PARAMS, Err: server.ErrToolNotFound}
}

// jsonrpcError is the error response of a failed request with id.
func (e *RouteError) jsonrpcError(id mcp.RequestId) mcp.JSONRPCError {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: id,
		Error: mcp.NewJSONRPCErrorDetails(e.Code, e.Error(), e.Data())}
}

// shapeErrors gives mcp-go's answers to failed requests the router's error
// format. mcp-go (v1.2.1) reports any handler error as -32603 without data,
// and an unknown tool in its own words; its OnError hook receives the very
// request error it then encodes, so the hook sets the code, message and
// data there. The shape of that unexported struct is checked (see
// setRequestError); the endpoint tests over HTTP and stdio fail if it ever
// changes.
func (g *Gateway) shapeErrors(h *server.Hooks) {
	h.AddOnError(func(_ context.Context, _ any, _ mcp.MCPMethod, message any, err error) {
		var re *RouteError
		switch {
		case errors.As(err, &re):
		case errors.Is(err, server.ErrToolNotFound):
			req, ok := message.(*mcp.CallToolRequest)
			if !ok {
				return
			}
			re = unknownTool(req.Params.Name)
		default:
			return
		}
		if !setRequestError(err, re.Code, re, re.Data()) {
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
