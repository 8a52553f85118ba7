// Package pipeline is the router's forwarding pipeline: the one chain of
// steps that every request forwarded to an upstream — tools/call,
// prompts/get, resources/read, resources/subscribe and unsubscribe,
// completion/complete, logging/setLevel — every list the router answers,
// and the instructions of an initialize result, passes, in this order:
//
//	identity and scope → discovery → gate → policy → hooks → send → log
//
// (with a request's own Prepare, an ability's argument check and mapping,
// between discovery and gate)
//
// The chain is built once (New) from its steps; each transport's front end
// (mcp-go's handlers, the HTTP fast path, the in-process callers) builds a
// Request and calls Serve. A new control is a step, never a check inside one
// front end.
//
// A request has one of two shapes. A routed request names one upstream
// (Server, Item): each step checks it and calls the next or refuses. A
// fan-out request — a list; logging/setLevel, which goes to every server
// the caller may use; initialize, whose instructions join those of the
// servers the caller may use — carries candidates (List) that each step
// narrows before the next; send then answers from what is left.
package pipeline

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/tracing"
)

// Methods that pass the chain.
const (
	MethodToolsCall     = string(mcp.MethodToolsCall)
	MethodPromptsGet    = string(mcp.MethodPromptsGet)
	MethodResourcesRead = string(mcp.MethodResourcesRead)
	MethodSubscribe     = string(mcp.MethodResourcesSubscribe)
	MethodUnsubscribe   = string(mcp.MethodResourcesUnsubscribe)
	MethodComplete      = string(mcp.MethodCompletionComplete)
	MethodSetLevel      = string(mcp.MethodSetLogLevel)
	MethodToolsList     = string(mcp.MethodToolsList)
	MethodPromptsList   = string(mcp.MethodPromptsList)
	MethodResourcesList = string(mcp.MethodResourcesList)
	MethodTemplatesList = string(mcp.MethodResourcesTemplatesList)
	// MethodInitialize: the chain decides whose instructions (or gate
	// messages) an initialize result carries; nothing is sent upstream.
	MethodInitialize = string(mcp.MethodInitialize)
)

// Forwarded lists the methods the router forwards to an upstream.
var Forwarded = []string{MethodToolsCall, MethodPromptsGet, MethodResourcesRead, MethodSubscribe,
	MethodUnsubscribe, MethodComplete, MethodSetLevel}

// Lists lists the list methods the router answers from its catalog.
var Lists = []string{MethodToolsList, MethodPromptsList, MethodResourcesList, MethodTemplatesList}

// Passes reports whether requests of method go through the chain.
func Passes(method string) bool {
	switch method {
	case MethodToolsCall, MethodPromptsGet, MethodResourcesRead, MethodSubscribe, MethodUnsubscribe,
		MethodComplete, MethodSetLevel, MethodToolsList, MethodPromptsList, MethodResourcesList, MethodTemplatesList,
		MethodInitialize:
		return true
	}
	return false
}

// Caller is who sent a request: a token's name and the servers it may use.
type Caller struct {
	Name   string
	Allows func(server string) bool // nil: every server
	// AllowsTool reaches single tools (item: the upstream's own name) of
	// servers Allows refuses; nil: none. A JWT's mcp:tool:<server>/<tool>
	// scopes (docs/auth.md).
	AllowsTool func(server, item string) bool
	// Subject is the subject of a JWT the caller presented ("" for none);
	// Roles are the roles the caller's credential carries. A built-in
	// server (state_gate) matches them against what a process allows.
	Subject string
	Roles   []string
	// Profile is the profile the request came through ("" — the default,
	// everything the token reaches). InProfile, set with a profile, keeps
	// its tools (item: the upstream's own name) to the profile's selection;
	// Allows already keeps its servers to the profile's.
	Profile   string
	InProfile func(server, item string) bool
	// Discovery is the profile's discovery mode ("" or "all": every tool
	// listed; "search": the router's own tools, RouterTools); the
	// discovery step acts on it.
	Discovery string
}

// RouterTools is the server of the router's own tools (a search profile's
// search_tools, call_tool, add_tools): no upstream can have this name
// (spec.ValidName), and the identity step leaves them to the discovery
// step, which answers them.
const RouterTools = "(router)"

// CallerOf returns the caller the identity step put in ctx (WithCaller):
// the rest of the chain, and an upstream reached in-process (a built-in
// server such as state_gate), know who called; nothing from the client can
// set it.
func CallerOf(ctx context.Context) (Caller, bool) {
	if c, ok := ctx.Value(callerKey{}).(*Caller); ok {
		return *c, true
	}
	return Caller{}, false
}

// MayUse reports whether the caller's scope includes server.
func (c Caller) MayUse(server string) bool { return c.Allows == nil || c.Allows(server) }

// MayCall reports whether the caller's scope includes the tool item (the
// upstream's own name) of server: the whole server, or that one tool.
func (c Caller) MayCall(server, item string) bool {
	if c.InProfile != nil && !c.InProfile(server, item) {
		return false
	}
	return c.MayUse(server) || c.AllowsTool != nil && c.AllowsTool(server, item)
}

// Client is the connection a request came on.
type Client struct {
	Session server.ClientSession // nil for a sessionless (2026-07-28) client
	// Modern: the request is of the stateless 2026-07-28 revision, which
	// names its client in each request's _meta (Name, Version).
	Modern        bool
	Name, Version string
}

// SessionID is the client's session id, "" without one.
func (c Client) SessionID() string {
	if c.Session == nil {
		return ""
	}
	return c.Session.SessionID()
}

// Request is one request on its way through the chain.
type Request struct {
	Method string
	// Caller is set by the identity step from the request's context.
	Caller Caller
	Client Client
	// Routed requests: the upstream server, the upstream's own name of the
	// tool or prompt (the URI for resource methods), and the name the
	// client used, for errors and the log.
	Server, Item, Target string
	// Permission is set when Target is an ability (a virtual tool of
	// policy.yaml routed to Server's Item): its permission, read or write.
	Permission string
	// Instance is set by send when a per-client server's instance served
	// the request ("#3 (pid 4242)"), for the log.
	Instance string
	// Prepare, if set, runs after the identity step and before the gate:
	// an ability's check of the caller's arguments against its input
	// schema and their mapping to the backend tool's (it replaces Args).
	// An error refuses the request before the gate, the policy or the
	// hooks see it (nothing is sent); the log step records it, with the
	// arguments as the client sent them.
	Prepare func(r *Request) error
	// Args are the arguments of a tools/call or prompts/get as the client
	// sent them (nil: none).
	Args json.RawMessage
	// Params are the method's other params (uri, ref, argument, context,
	// level, cursor); never name, arguments or _meta.
	Params map[string]any
	Meta   *mcp.Meta // the client's _meta, nil if none
	// InputResponses and RequestState are a multi-round-trip retry's
	// answers and the upstream's own state (from its input_required
	// result), passed on with a tools/call or prompts/get; empty: none.
	InputResponses json.RawMessage
	RequestState   string
	// Task is a task-augmented tools/call's task params ({"ttl": …}),
	// passed on so that the upstream runs the call as a task; nil: none.
	Task json.RawMessage
	// List holds a fan-out request's candidates; nil for a routed request.
	List *List
	// Decode, if set, turns the upstream's result into the value the front
	// end answers with; send calls it, so a result that does not decode is
	// an error the log sees. The fast path leaves it nil: it answers bytes.
	Decode func(json.RawMessage) (any, error)
	// Received is when the request arrived.
	Received time.Time
}

// IsAbility reports whether the request calls an ability (Target is its
// name; Server and Item are its backend tool).
func (r *Request) IsAbility() bool { return r.Permission != "" }

// Result is what a request got.
type Result struct {
	Raw   json.RawMessage // the result object as JSON (nil if only Value is set)
	Value any             // the decoded result, when the front end wants one
	// Refusal is set when a step refused a tools/call with a tool error (the
	// gate's message reaches the model as a result, not a JSON-RPC error);
	// the log records the call as blocked.
	Refusal string
}

// JSON is the result as JSON, encoding Value if there are no bytes yet.
func (r *Result) JSON() (json.RawMessage, error) {
	if r.Raw == nil && r.Value != nil {
		b, err := json.Marshal(r.Value)
		if err != nil {
			return nil, err
		}
		r.Raw = b
	}
	return r.Raw, nil
}

// Handler serves a request: the rest of the chain, as a step sees it.
type Handler func(ctx context.Context, r *Request) (Result, error)

// Step is one link of the chain.
type Step interface {
	// Serve does the step's part and calls next to go on, or refuses.
	Serve(ctx context.Context, r *Request, next Handler) (Result, error)
}

// StepFunc adapts a function to Step.
type StepFunc func(ctx context.Context, r *Request, next Handler) (Result, error)

// Serve calls f.
func (f StepFunc) Serve(ctx context.Context, r *Request, next Handler) (Result, error) {
	return f(ctx, r, next)
}

// Steps are the chain's links by role; a nil step is skipped.
type Steps struct {
	Identity Step // who is asking, and may they use the server
	// Discovery: how the caller's profile offers its tools (all, or the
	// router's search tools; backend/gateway/discovery.go).
	Discovery Step
	Gate      Step // the activate gate
	Policy    Step // the user's policy
	Hooks     Step // the user's JavaScript hooks
	Log       Step // the request log; it sees everything the others did
	// Tracer, if set, traces each request through the chain (trace.go);
	// nil: no spans, and the chain is exactly the steps.
	Tracer *tracing.Tracer
}

// Order names the chain's steps in the order they act on a request.
var Order = []string{"identity", "discovery", "gate", "policy", "hooks", "send", "log"}

// Chain is the built pipeline.
type Chain struct {
	serve Handler
}

// New builds the chain from its steps and send, the upstream request.
// The log step is outermost, so it records what the client gets whichever
// step answered; the others run in Order, with a request's own Prepare
// between discovery and gate. What steps asked to run just before the
// request goes upstream (WithAdmit) runs after the last step.
func New(s Steps, send Handler) *Chain {
	if s.Tracer != nil {
		return &Chain{serve: traced(s.Tracer, s, send)}
	}
	h := admitted(send)
	for _, st := range []Step{s.Hooks, s.Policy, s.Gate, prepare, s.Discovery, s.Identity, s.Log} {
		if st == nil {
			continue
		}
		h = link(st, h)
	}
	return &Chain{serve: h}
}

func link(s Step, next Handler) Handler {
	return func(ctx context.Context, r *Request) (Result, error) { return s.Serve(ctx, r, next) }
}

// Serve runs r through the chain.
func (c *Chain) Serve(ctx context.Context, r *Request) (Result, error) {
	if r.Received.IsZero() {
		r.Received = time.Now()
	}
	return c.serve(ctx, r)
}

// prepare runs a request's Prepare (an ability's check and mapping).
var prepare = StepFunc(func(ctx context.Context, r *Request, next Handler) (Result, error) {
	if r.Prepare != nil {
		if err := r.Prepare(r); err != nil {
			return Result{}, err
		}
	}
	return next(ctx, r)
})
