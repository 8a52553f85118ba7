package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
	// result, or the transport failed in another way). Not -32003: go-sdk
	// clients take -32003 and -32004 (their jsonrpc2's client and server
	// closing) for their own connection closing, whatever the message.
	CodeBadResponse = -32012
	// CodeLocked: the server is behind an activate gate this client has not
	// passed (or must pass again after the upstream reconnected).
	CodeLocked = -32013
	// CodeDenied: the policy refuses the request (policy.yaml).
	CodeDenied = -32005
	// CodeRateLimited: a rate limit of the policy is spent; data.retryAfterMs
	// says when the next call may pass.
	CodeRateLimited = -32006
	// CodeApproval: the policy wants a person to approve the call, and none
	// can be asked.
	CodeApproval = -32007
	// CodeApprovalDenied: the person asked refused the call.
	CodeApprovalDenied = -32008
	// CodeApprovalTimeout: nobody answered within the rule's timeout.
	CodeApprovalTimeout = -32009
	// CodeSessionLimit: a new HTTP session is refused at a session cap
	// (backend/gateway/sessions.go); data.setting names the setting that
	// raises it, data.limit its value.
	CodeSessionLimit = -32010
)

// Reasons, the data.reason member of a routing or upstream error.
const (
	ReasonUnknownTool = "unknown_tool" // -32602: no tool by that name for this caller
	// ReasonToolHeld: -32602, the tool changed upstream and is withheld
	// until a person accepts the new definition (toolChanges: hold).
	ReasonToolHeld = "tool_held"
	// ReasonInvalidArguments: -32602, an ability's arguments do not fit
	// its input_schema (data.errors says how).
	ReasonInvalidArguments = "invalid_arguments"
	ReasonServerDown       = "server_down"    // CodeServerDown
	ReasonTimeout          = "timeout"        // CodeTimeout
	ReasonUpstreamError    = "upstream_error" // the server answered with a JSON-RPC error: its own code
	// ReasonUpstreamProtocol: CodeBadResponse, the server refused the
	// protocol revision of the router's connection to it (its -32022).
	ReasonUpstreamProtocol = "upstream_protocol"
	ReasonBadResponse      = "bad_response" // CodeBadResponse
	ReasonCancelled        = "cancelled"    // -32603: the call was cancelled before its answer
	ReasonLocked           = "locked"       // CodeLocked: activate the server first
	// -32602: no prompt by that name for this caller
	ReasonUnknownPrompt = "unknown_prompt"
	// -32002 (-32602 on the 2026-07-28 revision, as MCP asks): no resource
	// by that URI for this caller
	ReasonUnknownResource = "unknown_resource"
	// The policy's refusals (backend/policy, docs/policy.md); data.policy
	// names the rule.
	ReasonDenied              = "denied"               // CodeDenied
	ReasonRateLimited         = "rate_limited"         // CodeRateLimited, with data.retryAfterMs
	ReasonApprovalUnavailable = "approval_unavailable" // CodeApproval
	ReasonApprovalDenied      = "approval_denied"      // CodeApprovalDenied
	ReasonApprovalTimeout     = "approval_timeout"     // CodeApprovalTimeout
	ReasonSessionLimit        = "session_limit"        // CodeSessionLimit, with data.setting and data.limit

	// ReasonTaskRequired: -32601, an ability whose backend tool runs only
	// as a task (execution.taskSupport "required"); abilities are called
	// synchronously, so it is not listed and a call is refused.
	ReasonTaskRequired = "task_required"

	// Multi-round-trip requests of a 2026-07-28 client (gateway/mrtr.go):
	// ReasonRequestState, -32602: a requestState the router did not sign
	// (tampered) or signed for another request, caller or a call no longer
	// held; ReasonHeldLimit, -32603: too many calls held for retries;
	// ReasonMissingCapability, -32021 with data.requiredCapabilities: the
	// upstream asks for what the client did not declare.
	ReasonRequestState      = "request_state"
	ReasonHeldLimit         = "held_call_limit"
	ReasonMissingCapability = "missing_capability"
)

// RouterRefusal reports whether reason is a refusal of the router's own
// that comes before anything is sent to the request's server (an
// ability's invalid arguments, or a backend tool it cannot call).
func RouterRefusal(reason string) bool {
	return reason == ReasonInvalidArguments || reason == ReasonTaskRequired
}

// PolicyRefusal reports whether reason is one of the policy's refusals
// (the request log records them as blocked).
func PolicyRefusal(reason string) bool {
	switch reason {
	case ReasonDenied, ReasonRateLimited, ReasonApprovalUnavailable, ReasonApprovalDenied, ReasonApprovalTimeout:
		return true
	}
	return false
}

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
	// Extra adds members to data (a policy refusal's policy and
	// retryAfterMs); it never replaces server or reason.
	Extra map[string]any
	Err   error
}

func (e *RouteError) Error() string { return e.Server + ": " + e.What }
func (e *RouteError) Unwrap() error { return e.Err }

// Data is the data member of the JSON-RPC error.
func (e *RouteError) Data() map[string]any {
	d := make(map[string]any, 2+len(e.Extra))
	for k, v := range e.Extra {
		d[k] = v
	}
	d["server"], d["reason"] = e.Server, e.Reason
	if e.UpstreamData != nil {
		d["upstream"] = e.UpstreamData
	}
	return d
}

// Upstream words an upstream failure for the client.
func Upstream(server string, err error) *RouteError {
	e := &RouteError{Server: server, What: err.Error(), Reason: ReasonBadResponse, Code: CodeBadResponse, Err: err}
	var rpc *upstream.RPCError
	switch {
	case errors.Is(err, upstream.ErrUnknownServer):
		e.What, e.Reason, e.Code = "no such server", ReasonServerDown, CodeServerDown
	case errors.Is(err, upstream.ErrNotRunning), errors.Is(err, upstream.ErrConnectionLost):
		e.Reason, e.Code = ReasonServerDown, CodeServerDown
	case errors.Is(err, upstream.ErrTimeout):
		e.Reason, e.Code = ReasonTimeout, CodeTimeout
	case errors.As(err, &rpc) && rpc.Code == mcp.UNSUPPORTED_PROTOCOL_VERSION:
		// The server refused the revision the router's connection speaks,
		// not the client's: the router speaks the client's (mcp-go refuses
		// an unsupported one with its own -32022 and the spec's
		// requested/supported data). Passed on as -32022, the client would
		// read "your revision is not supported" with the upstream's data.
		e.What = fmt.Sprintf("upstream error %d: %s", rpc.Code, rpc.Message)
		e.Reason, e.Code, e.UpstreamData = ReasonUpstreamProtocol, CodeBadResponse, rpc.Data
	case errors.As(err, &rpc):
		e.What = fmt.Sprintf("upstream error %d: %s", rpc.Code, rpc.Message)
		e.Reason, e.Code, e.UpstreamData = ReasonUpstreamError, rpc.Code, rpc.Data
		if rpc.Code == mcp.MISSING_REQUIRED_CLIENT_CAPABILITY {
			// The client's own declared capabilities fell short (they reach
			// the upstream in _meta): the spec puts what is missing at
			// error.data.requiredCapabilities, where a client looks.
			if v, ok := dataMember(rpc.Data, "requiredCapabilities"); ok {
				e.Extra = map[string]any{"requiredCapabilities": v}
			}
		}
		if rpc.Code == mcp.RESOURCE_NOT_FOUND || rpc.Code == mcp.INVALID_PARAMS {
			// A resource the server does not have: the spec (SEP-2164)
			// puts its URI at error.data.uri, in both revisions.
			if v, ok := dataMember(rpc.Data, "uri"); ok {
				e.Extra = map[string]any{"uri": v}
			}
		}
	case errors.Is(err, context.Canceled):
		e.What, e.Reason, e.Code = "cancelled", ReasonCancelled, mcp.INTERNAL_ERROR
	}
	return e
}

// dataMember is one member of an upstream error's data object (decoded
// JSON, or raw bytes); false when data is not an object or lacks it.
func dataMember(data any, key string) (any, bool) {
	switch d := data.(type) {
	case map[string]any:
		v, ok := d[key]
		return v, ok
	case json.RawMessage:
		var m map[string]any
		if json.Unmarshal(d, &m) != nil {
			return nil, false
		}
		v, ok := m[key]
		return v, ok
	}
	return nil, false
}

// Locked refuses a prompt or resource request to a gated server the
// client has not activated; message is the gate's text. (A locked tool call
// is a tool error instead, so the model reads the message.)
func Locked(server, message string) *RouteError {
	return &RouteError{Server: server, What: message, Reason: ReasonLocked, Code: CodeLocked}
}

// ErrMalformed marks a BadResponse: the server answered, with something
// that is not a valid result (as opposed to a transport failure).
var ErrMalformed = errors.New("malformed result")

// BadResponse is an upstream answer that is not a valid result of method.
func BadResponse(server, method string, err error) *RouteError {
	return &RouteError{Server: server, What: fmt.Sprintf("malformed %s result: %v", method, err),
		Reason: ReasonBadResponse, Code: CodeBadResponse, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
}

// UnknownTool is the error of a call to a tool the caller cannot reach: it
// does not exist, or the caller's token does not allow its server (the two
// must read the same).
func UnknownTool(name string) *RouteError {
	return &RouteError{Server: RouterServer, What: fmt.Sprintf("tool '%s' not found", name),
		Reason: ReasonUnknownTool, Code: mcp.INVALID_PARAMS, Err: server.ErrToolNotFound}
}

// ToolHeld refuses a call of a tool withheld because its server changed
// its definition and nobody has accepted the change yet.
func ToolHeld(name, server, item string) *RouteError {
	return &RouteError{Server: server, Reason: ReasonToolHeld, Code: mcp.INVALID_PARAMS,
		What: fmt.Sprintf("tool '%s' is held: the server changed its definition since it was accepted; "+
			"a person must review and accept the change (Tools page, or: mcp-router tools accept %s %s)", name, server, item),
		Extra: map[string]any{"tool": name}}
}

// UnknownPrompt is UnknownTool's twin for prompts/get and completions.
func UnknownPrompt(name string) *RouteError {
	return &RouteError{Server: RouterServer, What: fmt.Sprintf("prompt '%s' not found", name),
		Reason: ReasonUnknownPrompt, Code: mcp.INVALID_PARAMS, Err: server.ErrPromptNotFound}
}

// UnknownResource is UnknownTool's twin for the resource methods; modern
// says the request is of the 2026-07-28 revision, whose code differs. The
// URI is also in error.data.uri, where the spec (SEP-2164) has a client
// look for it, in both revisions.
func UnknownResource(uri string, modern bool) *RouteError {
	code := mcp.RESOURCE_NOT_FOUND
	if modern {
		code = mcp.INVALID_PARAMS
	}
	return &RouteError{Server: RouterServer, What: fmt.Sprintf("resource '%s' not found", uri),
		Reason: ReasonUnknownResource, Code: code, Err: server.ErrResourceNotFound,
		Extra: map[string]any{"uri": uri}}
}

// JSONRPCError is the error response of a failed request with id.
func (e *RouteError) JSONRPCError(id mcp.RequestId) mcp.JSONRPCError {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: id,
		Error: mcp.NewJSONRPCErrorDetails(e.Code, e.Error(), e.Data())}
}
