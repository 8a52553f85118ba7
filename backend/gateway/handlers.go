package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// forwardMeta copies the client's _meta for the upstream, swapping the
// progress token for the router-unique one.
func forwardMeta(meta *mcp.Meta, f *inflight) map[string]any {
	if meta == nil {
		return nil
	}
	out := make(map[string]any, len(meta.AdditionalFields)+1)
	for k, v := range meta.AdditionalFields {
		out[k] = v
	}
	if f.routerToken != "" {
		out["progressToken"] = f.routerToken
	}
	return out
}

func progressToken(meta *mcp.Meta) any {
	if meta == nil || meta.ProgressToken == nil {
		return nil
	}
	return meta.ProgressToken
}

// begin registers a call for progress and client-side routing, and gives
// the upstream request a timeout that progress resets.
// Without a progress token nothing can reset the timer: a plain deadline.
func (g *Gateway) begin(ctx context.Context, upstreamName string, meta *mcp.Meta) (context.Context, *inflight, func()) {
	token := progressToken(meta)
	var touch func()
	if token != nil {
		ctx, touch = upstream.WithActivity(ctx)
	}
	f := g.call.begin(upstreamName, server.ClientSessionFromContext(ctx), token, touch)
	return ctx, f, func() { g.call.end(f) }
}

// namedParams builds the upstream params of a tools/call or prompts/get:
// the upstream's own name, the (possibly hook-edited) arguments, and the
// client's _meta with the router's progress token.
func namedParams(item string, meta *mcp.Meta, f *inflight) func(map[string]any) map[string]any {
	return func(p map[string]any) map[string]any {
		up := map[string]any{"name": item}
		if a, ok := p["arguments"]; ok && a != nil {
			up["arguments"] = a
		}
		if m := forwardMeta(meta, f); m != nil {
			up["_meta"] = m
		}
		return up
	}
}

func (g *Gateway) callTool(un upstreamName) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if message, blocked := g.gateBlocks(g.gateKey(ctx), un.Server); blocked {
			return g.refuse(message), nil
		}
		ctx, f, done := g.begin(ctx, un.Server, req.Params.Meta)
		defer done()
		params := map[string]any{"name": req.Params.Name}
		// A client that sends "arguments": null means none; the field is
		// optional, and some servers reject null where they accept absence.
		if args := req.Params.RawArguments; len(args) > 0 && string(args) != "null" {
			params["arguments"] = json.RawMessage(args)
		} else if req.Params.Arguments != nil {
			params["arguments"] = req.Params.Arguments
		}
		hc := g.newHookCall(ctx, "CallTool", string(mcp.MethodToolsCall), un.Server, un.Item, params)
		raw, err := g.forward(ctx, hc, params, namedParams(un.Item, req.Params.Meta, f))
		if err != nil {
			if message, lost := g.gateLost(un.Server, err); lost {
				return mcp.NewToolResultError(message), nil
			}
			return nil, g.failure(un.Server, err)
		}
		msg := json.RawMessage(raw)
		res, err := mcp.ParseCallToolResult(&msg)
		if err != nil {
			return nil, badResponse(un.Server, "tools/call", err)
		}
		return res, nil
	}
}

// failure words an error for the client: a hook's block as it is, anything
// else as a routing error naming the server.
func (g *Gateway) failure(server string, err error) error {
	var b *hook.Block
	if errors.As(err, &b) {
		return b
	}
	return routeError(server, err)
}

func (g *Gateway) getPrompt(un upstreamName) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if !g.o.CallerFrom(ctx).allows(un.Server) {
			return nil, fmt.Errorf("prompt '%s' not found", req.Params.Name)
		}
		if message, blocked := g.gateBlocks(g.gateKey(ctx), un.Server); blocked {
			return nil, locked(un.Server, message)
		}
		ctx, f, done := g.begin(ctx, un.Server, req.Params.Meta)
		defer done()
		params := map[string]any{"name": req.Params.Name}
		if req.Params.Arguments != nil {
			params["arguments"] = req.Params.Arguments
		}
		hc := g.newHookCall(ctx, "GetPrompt", string(mcp.MethodPromptsGet), un.Server, un.Item, params)
		raw, err := g.forward(ctx, hc, params, namedParams(un.Item, req.Params.Meta, f))
		if err != nil {
			return nil, g.failure(un.Server, err)
		}
		msg := json.RawMessage(raw)
		res, err := mcp.ParseGetPromptResult(&msg)
		if err != nil {
			return nil, badResponse(un.Server, "prompts/get", err)
		}
		return res, nil
	}
}

func (g *Gateway) readResource(upstreamName string) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		if !g.o.CallerFrom(ctx).allows(upstreamName) {
			return nil, fmt.Errorf("resource %s not found", req.Params.URI)
		}
		if message, blocked := g.gateBlocks(g.gateKey(ctx), upstreamName); blocked {
			return nil, locked(upstreamName, message)
		}
		ctx, f, done := g.begin(ctx, upstreamName, req.Params.Meta)
		defer done()
		params := map[string]any{"uri": req.Params.URI}
		hc := g.newHookCall(ctx, "ReadResource", string(mcp.MethodResourcesRead), upstreamName, "", params)
		raw, err := g.forward(ctx, hc, params, func(p map[string]any) map[string]any {
			up := map[string]any{"uri": p["uri"]}
			if meta := forwardMeta(req.Params.Meta, f); meta != nil {
				up["_meta"] = meta
			}
			return up
		})
		if err != nil {
			return nil, g.failure(upstreamName, err)
		}
		msg := json.RawMessage(raw)
		res, err := mcp.ParseReadResourceResult(&msg)
		if err != nil {
			return nil, badResponse(upstreamName, "resources/read", err)
		}
		return res.Contents, nil
	}
}
