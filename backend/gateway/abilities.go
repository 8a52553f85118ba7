package gateway

import (
	"encoding/json"
	"fmt"
	"strconv"

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

	// taskOnly: the backend tool declares execution.taskSupport
	// "required" (set when published).
	taskOnly bool
}

// InvalidArguments is the error of a call whose arguments do not fit.
func InvalidArguments(name string, err error) *pipeline.RouteError {
	return &pipeline.RouteError{Server: pipeline.RouterServer, What: err.Error(),
		Reason: pipeline.ReasonInvalidArguments, Code: mcp.INVALID_PARAMS,
		Extra: map[string]any{"tool": name, "errors": err.Error()}, Err: err}
}

// TaskRequired is the error of a call of an ability whose backend tool
// can only run as a task: abilities are called synchronously (the router
// passes tasks on only for a tool's own name, taskfront.go).
func TaskRequired(name, server, tool string) *pipeline.RouteError {
	return &pipeline.RouteError{Server: pipeline.RouterServer,
		What:   fmt.Sprintf("ability '%s' cannot be called: its backend tool %s/%s runs only as a task (execution.taskSupport \"required\"), and abilities are called synchronously", name, server, tool),
		Reason: pipeline.ReasonTaskRequired, Code: mcp.METHOD_NOT_FOUND,
		Extra: map[string]any{"tool": name}}
}

// attach makes r, a call of Server's Tool, a call of the ability: its
// permission, and the check and mapping of the caller's arguments, which
// the chain runs after the identity step (pipeline.Request.Prepare), so
// the request log records a refusal too.
func (a Ability) attach(r *pipeline.Request) {
	r.Permission = a.Permission
	r.Prepare = func(r *pipeline.Request) error {
		if a.taskOnly {
			return TaskRequired(a.Name, a.Server, a.Tool)
		}
		args, err := a.Prepare(r.Args)
		if err != nil {
			return InvalidArguments(a.Name, err)
		}
		r.Args = args
		return nil
	}
}

// publishAbilities adds to the tools being published each ability whose
// backend tool is among them (as the upstream publishes it: enabled, the
// server running or gated) and whose name is free. It returns the
// abilities published and a signature of them.
//
// An ability whose backend tool runs only as a task (taskOnly, by the
// router's name of the tool) is not listed, but is known: a call of it is
// refused with TaskRequired rather than "not found".
func (g *Gateway) publishAbilities(snap snapshot, toolNames map[string]upstreamName, taskOnly map[string]bool, tools *[]server.ServerTool, list *[]listed[mcp.Tool]) (map[string]Ability, string) {
	out := map[string]Ability{}
	if g.o.Abilities == nil {
		return out, ""
	}
	published := map[upstreamName]bool{}
	tasks := map[upstreamName]bool{}
	for final, un := range toolNames {
		published[un] = true
		if taskOnly[final] {
			tasks[un] = true
		}
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
		a.taskOnly = tasks[un]
		t := mcp.Tool{Name: a.Name, Description: a.Description, RawInputSchema: a.InputSchema}
		toolNames[a.Name] = un
		out[a.Name] = a
		*tools = append(*tools, server.ServerTool{Tool: t, Handler: g.callAbility(a, un)})
		if a.taskOnly {
			g.log.Warnf("ability %q not listed: %s's tool %q runs only as a task (execution.taskSupport \"required\"), and abilities are called synchronously", a.Name, a.Server, a.Tool)
		} else {
			*list = append(*list, listed[mcp.Tool]{pipeline.ListItem{Server: un.Server, Item: un.Item, Name: a.Name, Permission: a.Permission}, t})
		}
		parts = append(parts, []byte(a.Name), []byte(a.Description), a.InputSchema, []byte(a.Permission), []byte(a.Server), []byte(a.Tool), []byte(strconv.FormatBool(a.taskOnly)))
	}
	if len(parts) == 0 {
		return out, ""
	}
	return out, hashOf(parts...)
}

// callAbility is callTool for a call of the ability: the chain checks
// and maps its arguments (attach); a call refused there reaches no
// upstream.
func (g *Gateway) callAbility(a Ability, un upstreamName) server.ToolHandlerFunc {
	return g.callToolAs(un, &a)
}
