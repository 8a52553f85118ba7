package gateway

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// Ability is a virtual tool (policy.yaml's abilities:, docs/policy.md): it
// is published under Name while Server's Tool is published, and a call to
// it has its arguments checked and mapped by Prepare, then goes through
// the chain as a call of Server's Tool (the caller's scope, gate, policy,
// hooks, send and log all see that upstream tool; Target is Name).
type Ability struct {
	Name, Description string
	InputSchema       json.RawMessage // a JSON Schema of type object
	Permission        string          // read or write (pipeline.Request.Permission)
	Server, Tool      string
	// Prepare checks the caller's arguments and returns the backend's;
	// an error is the caller's fault (INVALID_PARAMS). Detail, if the
	// error has one, goes in data.errors.
	Prepare func(args json.RawMessage) (json.RawMessage, error)
}

// InvalidArguments is the error of a call whose arguments do not fit.
func InvalidArguments(name string, err error) *pipeline.RouteError {
	return &pipeline.RouteError{Server: pipeline.RouterServer, What: err.Error(),
		Reason: pipeline.ReasonInvalidArguments, Code: mcp.INVALID_PARAMS,
		Extra: map[string]any{"tool": name, "errors": err.Error()}, Err: err}
}

// prepare turns r, a call of the ability, into the call of its backend.
func (a Ability) prepare(r *pipeline.Request) error {
	args, err := a.Prepare(r.Args)
	if err != nil {
		return InvalidArguments(a.Name, err)
	}
	r.Args, r.Permission = args, a.Permission
	return nil
}

// publishAbilities adds to the tools being published each ability whose
// backend tool is among them (as the upstream publishes it: enabled, the
// server running or gated) and whose name is free. It returns the
// abilities published and a signature of them.
func (g *Gateway) publishAbilities(snap snapshot, toolNames map[string]upstreamName, tools *[]server.ServerTool, list *[]listed[mcp.Tool]) (map[string]Ability, string) {
	out := map[string]Ability{}
	if g.o.Abilities == nil {
		return out, ""
	}
	published := map[upstreamName]bool{}
	for _, un := range toolNames {
		published[un] = true
	}
	var parts [][]byte
	for _, a := range g.o.Abilities() {
		un := upstreamName{a.Server, a.Tool}
		if !published[un] {
			continue
		}
		if other, taken := toolNames[a.Name]; taken {
			g.log.Warnf("ability %q not published: %s's tool %q has that name", a.Name, other.Server, other.Item)
			continue
		}
		t := mcp.Tool{Name: a.Name, Description: a.Description, RawInputSchema: a.InputSchema}
		toolNames[a.Name] = un
		out[a.Name] = a
		*tools = append(*tools, server.ServerTool{Tool: t, Handler: g.callAbility(a, un)})
		*list = append(*list, listed[mcp.Tool]{pipeline.ListItem{Server: un.Server, Item: un.Item, Name: a.Name, Permission: a.Permission}, t})
		parts = append(parts, []byte(a.Name), []byte(a.Description), a.InputSchema, []byte(a.Permission), []byte(a.Server), []byte(a.Tool))
	}
	if len(parts) == 0 {
		return out, ""
	}
	return out, hashOf(parts...)
}

// callAbility is callTool with the ability's check and mapping first; a
// call refused here reaches no upstream.
func (g *Gateway) callAbility(a Ability, un upstreamName) server.ToolHandlerFunc {
	call := g.callTool(un)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var raw json.RawMessage
		if args := req.Params.RawArguments; len(args) > 0 && string(args) != "null" {
			raw = json.RawMessage(args)
		} else if req.Params.Arguments != nil {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			raw = b
		}
		mapped, err := a.Prepare(raw)
		if err != nil {
			return nil, InvalidArguments(a.Name, err)
		}
		req.Params.RawArguments, req.Params.Arguments = mapped, nil
		return call(withPermission(ctx, a.Permission), req)
	}
}

type permissionKey struct{}

func withPermission(ctx context.Context, p string) context.Context {
	return context.WithValue(ctx, permissionKey{}, p)
}

func permissionOf(ctx context.Context) string {
	p, _ := ctx.Value(permissionKey{}).(string)
	return p
}
