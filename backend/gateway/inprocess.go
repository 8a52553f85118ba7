package gateway

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// The in-process front end of the pipeline, for callers inside the router
// (the chat panel): the same chain as a client's requests — scope, gate,
// policy, hooks, the request log — with the caller named by ctx
// (pipeline.WithCaller), so everything the user set up applies to them too.

// ListTools is the tools/list a client with ctx's caller gets (first page
// of the catalog included: every tool, up to the page size, in name order,
// then the rest).
func (g *Gateway) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	var all []mcp.Tool
	cursor := ""
	for {
		r := &pipeline.Request{Method: pipeline.MethodToolsList,
			List:   &pipeline.List{Items: g.listCandidates(pipeline.MethodToolsList)},
			Decode: func(b json.RawMessage) (any, error) { return decodeList(pipeline.MethodToolsList, b) }}
		if cursor != "" {
			r.Params = map[string]any{"cursor": cursor}
		}
		res, err := g.chain.Serve(ctx, r)
		if err != nil {
			return nil, err
		}
		page, err := typed[*mcp.ListToolsResult](r, res)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" {
			return all, nil
		}
		cursor = string(page.NextCursor)
	}
}

// CallTool calls a tool by its client-facing name for ctx's caller. A tool
// that does not exist gets the same error as over the endpoint.
func (g *Gateway) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	g.awaitName(ctx, func() bool { return g.hasTool(name) })
	g.mu.RLock()
	un, ok := g.tools[name]
	ab, isAbility := g.abilities[name]
	g.mu.RUnlock()
	if !ok {
		return nil, pipeline.UnknownTool(name)
	}
	r := &pipeline.Request{Method: pipeline.MethodToolsCall, Server: un.Server, Item: un.Item, Target: name,
		Args: args, Decode: decodeCallTool}
	if isAbility {
		ab.attach(r)
	}
	res, err := g.chain.Serve(ctx, r)
	if err != nil {
		return nil, pipeline.Unlogged(err)
	}
	return typed[*mcp.CallToolResult](r, res)
}
