package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/store"
)

// Hooks is what the gateway needs of the hook engine.
type Hooks interface {
	Active() bool
	Pre(ctx context.Context, c *hook.Call) *hook.Block
	Post(ctx context.Context, c *hook.Call) *hook.Block
}

// listRequests are answered by the gateway itself, from the aggregated
// catalog. Their pre hooks run before mcp-go dispatches them (the only place
// a list request can still be refused), their post hooks on the result.
var listRequests = map[string]string{
	string(mcp.MethodToolsList):              "ListTools",
	string(mcp.MethodPromptsList):            "ListPrompts",
	string(mcp.MethodResourcesList):          "ListResources",
	string(mcp.MethodResourcesTemplatesList): "ListResourceTemplates",
}

// pendingLists carries a list request's hook call from its pre to its post
// hooks, so `shared` survives.
type pendingLists struct{ m sync.Map } // requestKey → *hook.Call

func (g *Gateway) hooksOn() bool { return g.o.Hooks != nil && g.o.Hooks.Active() }

func (g *Gateway) newHookCall(ctx context.Context, requestType, method, serverName, toolName string, params map[string]any) *hook.Call {
	c := &hook.Call{RequestType: requestType, Method: method, ServerName: serverName, ToolName: toolName,
		Params: params, Shared: map[string]any{}}
	if params != nil {
		c.Arguments = params["arguments"]
	}
	c.Client.TokenName = g.o.CallerFrom(ctx).Name
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.Client.SessionID = s.SessionID()
	}
	return c
}

// preList runs the pre hooks of a list request before mcp-go dispatches it.
func (g *Gateway) preList(ctx context.Context, id any, message any) error {
	if !g.hooksOn() {
		return nil
	}
	raw, ok := message.(json.RawMessage)
	if !ok {
		return nil
	}
	// This runs for every request while any hook is enabled: read the
	// method alone, and the params only of the list requests.
	var head struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return nil
	}
	requestType, isList := listRequests[head.Method]
	if !isList {
		return nil
	}
	var req struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if json.Unmarshal(raw, &req) != nil {
		return nil
	}
	c := g.newHookCall(ctx, requestType, req.Method, "", "", req.Params)
	if b := g.o.Hooks.Pre(ctx, c); b != nil {
		// Refused before dispatch: mcp-go's log hooks never see it.
		if g.o.RequestLog != nil {
			g.o.RequestLog.Log(store.RequestLog{Time: time.Now(), Client: c.Client.TokenName, Method: req.Method,
				Status: store.StatusBlocked, Error: b.Error(), Request: string(raw)})
		}
		return b
	}
	g.lists.m.Store(requestKey(ctx, id), c)
	return nil
}

// postList runs the post hooks of a list request on its result, in place.
// result is a pointer to the mcp-go result struct.
func (g *Gateway) postList(ctx context.Context, id any, result any) {
	v, ok := g.lists.m.LoadAndDelete(requestKey(ctx, id))
	if !ok {
		return
	}
	c := v.(*hook.Call)
	raw, err := json.Marshal(result)
	if err != nil {
		return
	}
	c.Response = json.RawMessage(raw)
	if b := g.o.Hooks.Post(ctx, c); b != nil {
		// The result can no longer become an error here: empty it, and the
		// block is in the hook's log.
		g.log.Warnf("%s: %v (list emptied)", c.Method, b)
		emptyList(result)
		return
	}
	if c.Changed&hook.ChangedResponse == 0 {
		return
	}
	changed, err := json.Marshal(c.Response)
	if err == nil {
		err = replaceList(result, changed)
	}
	if err != nil {
		g.log.Warnf("%s: a hook's response does not fit the result: %v", c.Method, err)
	}
}

// replaceList decodes a hook's version of a list result into fresh values
// (decoding over the old ones would mix typed and raw tool schemas), keeping
// tool schemas byte for byte.
func replaceList(result any, changed []byte) error {
	switch r := result.(type) {
	case *mcp.ListToolsResult:
		var list struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor mcp.Cursor        `json:"nextCursor"`
		}
		if err := json.Unmarshal(changed, &list); err != nil {
			return err
		}
		tools := make([]mcp.Tool, 0, len(list.Tools))
		for _, raw := range list.Tools {
			var named struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &named); err != nil {
				return err
			}
			t, err := convertTool(raw, named.Name)
			if err != nil {
				return err
			}
			tools = append(tools, t)
		}
		r.Tools, r.NextCursor = tools, list.NextCursor
		return nil
	case *mcp.ListPromptsResult:
		var fresh mcp.ListPromptsResult
		if err := json.Unmarshal(changed, &fresh); err != nil {
			return err
		}
		*r = fresh
	case *mcp.ListResourcesResult:
		var fresh mcp.ListResourcesResult
		if err := json.Unmarshal(changed, &fresh); err != nil {
			return err
		}
		*r = fresh
	case *mcp.ListResourceTemplatesResult:
		var fresh mcp.ListResourceTemplatesResult
		if err := json.Unmarshal(changed, &fresh); err != nil {
			return err
		}
		*r = fresh
	}
	return nil
}

func emptyList(result any) {
	switch r := result.(type) {
	case *mcp.ListToolsResult:
		r.Tools = []mcp.Tool{}
	case *mcp.ListPromptsResult:
		r.Prompts = []mcp.Prompt{}
	case *mcp.ListResourcesResult:
		r.Resources = []mcp.Resource{}
	case *mcp.ListResourceTemplatesResult:
		r.ResourceTemplates = []mcp.ResourceTemplate{}
	}
}

// registerHookPoints wires the list hooks into mcp-go.
func (g *Gateway) registerHookPoints(h *server.Hooks) {
	h.AddOnRequestInitialization(g.preList)
	// A list request that fails after its pre hooks ran never reaches
	// postList: forget its call so the map cannot grow.
	h.AddOnError(func(ctx context.Context, id any, _ mcp.MCPMethod, _ any, _ error) {
		g.lists.m.Delete(requestKey(ctx, id))
	})
	h.AddAfterListTools(func(ctx context.Context, id any, _ *mcp.ListToolsRequest, r *mcp.ListToolsResult) {
		g.postList(ctx, id, r)
	})
	h.AddAfterListPrompts(func(ctx context.Context, id any, _ *mcp.ListPromptsRequest, r *mcp.ListPromptsResult) {
		g.postList(ctx, id, r)
	})
	h.AddAfterListResources(func(ctx context.Context, id any, _ *mcp.ListResourcesRequest, r *mcp.ListResourcesResult) {
		g.postList(ctx, id, r)
	})
	h.AddAfterListResourceTemplates(func(ctx context.Context, id any, _ *mcp.ListResourceTemplatesRequest, r *mcp.ListResourceTemplatesResult) {
		g.postList(ctx, id, r)
	})
}

// forward runs one routed request through the hooks and sends it to the
// call's upstream server: pre hooks may change its params or refuse it,
// upstreamParams turns the client-facing params into the upstream's, post
// hooks may change the result or turn it into an error. Without active
// hooks it is just the upstream request.
func (g *Gateway) forward(ctx context.Context, c *hook.Call, params map[string]any, upstreamParams func(map[string]any) map[string]any) ([]byte, error) {
	// Taken before the hooks run: where the request goes is the router's
	// decision, whatever a script does to the context.
	server, method := c.ServerName, c.Method
	send := func(p map[string]any) ([]byte, error) { return g.ups.Request(ctx, server, method, p) }
	if !g.hooksOn() {
		return send(upstreamParams(params))
	}
	if b := g.o.Hooks.Pre(ctx, c); b != nil {
		return nil, b
	}
	if c.Changed&(hook.ChangedParams|hook.ChangedArguments) != 0 {
		params = c.Params
		if c.Changed&hook.ChangedArguments != 0 {
			params["arguments"] = c.Arguments
		}
	}
	start := time.Now()
	raw, err := send(upstreamParams(params))
	c.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		c.Error = &hook.CallError{Code: mcp.INTERNAL_ERROR, Message: err.Error()}
	} else {
		c.Response = json.RawMessage(raw)
	}
	if b := g.o.Hooks.Post(ctx, c); b != nil {
		return nil, b
	}
	if c.Changed&hook.ChangedResponse != 0 && c.Response != nil {
		changed, merr := json.Marshal(c.Response)
		if merr != nil {
			return nil, errors.New("a post hook produced a response that is not JSON")
		}
		return changed, nil
	}
	if c.Changed&hook.ChangedError != 0 && c.Error != nil && err == nil {
		return nil, errors.New(c.Error.Message)
	}
	return raw, err
}
