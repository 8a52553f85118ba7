package gateway

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// mcp-go's handlers of the routed requests: each turns mcp-go's typed
// request into a pipeline request and the chain's answer into mcp-go's
// typed result. They check nothing themselves; the chain does.

// clientOf describes the client of a request: its session and, for the
// 2026-07-28 revision, the identity it declares in _meta. mcp-go records
// the revision in the context only once it dispatches, so a request seen
// before that (a list) is read from its own _meta.
func clientOf(ctx context.Context, meta *mcp.Meta) pipeline.Client {
	c := pipeline.Client{Session: server.ClientSessionFromContext(ctx)}
	var info *mcp.Implementation
	if pi := server.RequestProtocolInfoFromContext(ctx); pi != nil {
		c.Modern, info = pi.Modern, pi.ClientInfo
	} else if meta != nil && mcp.IsModernProtocol(meta.ProtocolVersion()) {
		c.Modern, info = true, meta.ClientInfo()
	}
	if c.Modern && info != nil {
		c.Name, c.Version = info.Name, info.Version
	}
	return c
}

func (g *Gateway) callTool(un upstreamName) server.ToolHandlerFunc { return g.callToolAs(un, nil) }

// callToolAs calls un's tool; with ab, as a call of that ability.
func (g *Gateway) callToolAs(un upstreamName, ab *Ability) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := &pipeline.Request{Method: pipeline.MethodToolsCall, Client: clientOf(ctx, req.Params.Meta),
			Server: un.Server, Item: un.Item, Target: req.Params.Name, Meta: req.Params.Meta,
			Decode: decodeCallTool}
		if ab != nil {
			ab.attach(r)
		}
		// A client that sends "arguments": null means none; the field is
		// optional, and some servers reject null where they accept absence.
		if args := req.Params.RawArguments; len(args) > 0 && string(args) != "null" {
			r.Args = json.RawMessage(args)
		} else if req.Params.Arguments != nil {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			r.Args = b
		}
		res, ask, err := g.serveRouted(ctx, r, req.Params.MultiRoundTripParams)
		if err != nil {
			return nil, err
		}
		if ask != nil {
			return &mcp.CallToolResult{Result: mcp.Result{ResultType: mcp.ResultTypeInputRequired},
				MultiRoundTripResult: *ask}, nil
		}
		t, err := typed[*mcp.CallToolResult](r, res)
		if err != nil || !r.Client.Modern || !asksInput(t.ResultType, t.InputRequests) {
			return t, err
		}
		relayed := *t
		relayed.ResultType, relayed.Content = mcp.ResultTypeInputRequired, nil
		relayed.RequestState = g.relayState(ctx, r, t.RequestState)
		return &relayed, nil
	}
}

// serveRouted sends a routed tools/call or prompts/get through the chain;
// a 2026-07-28 client's may instead get the input_required result its
// upstream's questions become (mrtr.go).
func (g *Gateway) serveRouted(ctx context.Context, r *pipeline.Request, mp mcp.MultiRoundTripParams) (pipeline.Result, *mcp.MultiRoundTripResult, error) {
	if !r.Client.Modern {
		sent := *r
		res, err := g.chain.Serve(ctx, r)
		if err == nil {
			res, err = g.bridgeInput(ctx, sent, r.Client.Session, res)
		}
		return res, nil, err
	}
	return g.serveModern(ctx, r, mp, func(ctx context.Context) (pipeline.Result, error) { return g.chain.Serve(ctx, r) })
}

// asksInput reports whether an upstream's result asks for input itself:
// input_required, or (a 2025-11-25 server answering after its own bridging
// round) inputRequests without a resultType.
func asksInput(t mcp.ResultType, reqs mcp.InputRequests) bool {
	return t == mcp.ResultTypeInputRequired || (t == "" && len(reqs) > 0)
}

func decodeCallTool(raw json.RawMessage) (any, error) {
	return mcp.ParseCallToolResult(&raw)
}

func (g *Gateway) getPrompt(un upstreamName) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		r := &pipeline.Request{Method: pipeline.MethodPromptsGet, Client: clientOf(ctx, req.Params.Meta),
			Server: un.Server, Item: un.Item, Target: req.Params.Name, Meta: req.Params.Meta,
			Decode: func(raw json.RawMessage) (any, error) { return mcp.ParseGetPromptResult(&raw) }}
		if req.Params.Arguments != nil {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			r.Args = b
		}
		res, ask, err := g.serveRouted(ctx, r, req.Params.MultiRoundTripParams)
		if err != nil {
			return nil, err
		}
		if ask != nil {
			return &mcp.GetPromptResult{Result: mcp.Result{ResultType: mcp.ResultTypeInputRequired},
				MultiRoundTripResult: *ask}, nil
		}
		t, err := typed[*mcp.GetPromptResult](r, res)
		if err != nil || !r.Client.Modern || !asksInput(t.ResultType, t.InputRequests) {
			return t, err
		}
		relayed := *t
		relayed.ResultType, relayed.Messages = mcp.ResultTypeInputRequired, nil
		relayed.RequestState = g.relayState(ctx, r, t.RequestState)
		return &relayed, nil
	}
}

func (g *Gateway) readResource(upstreamName string) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		r := &pipeline.Request{Method: pipeline.MethodResourcesRead, Client: clientOf(ctx, req.Params.Meta),
			Server: upstreamName, Item: req.Params.URI, Target: req.Params.URI, Meta: req.Params.Meta,
			Params: map[string]any{"uri": req.Params.URI},
			Decode: func(raw json.RawMessage) (any, error) { return mcp.ParseReadResourceResult(&raw) }}
		res, err := g.chain.Serve(ctx, r)
		if err != nil {
			return nil, err
		}
		read, err := typed[*mcp.ReadResourceResult](r, res)
		if err != nil {
			return nil, err
		}
		return read.Contents, nil
	}
}

// typed is the chain's answer as the value mcp-go sends: the decoded
// result, or the bytes decoded now when a step answered with bytes only.
func typed[T any](r *pipeline.Request, res pipeline.Result) (T, error) {
	if v, ok := res.Value.(T); ok {
		return v, nil
	}
	var zero T
	raw, err := res.JSON()
	if err != nil {
		return zero, pipeline.BadResponse(r.Server, r.Method, err)
	}
	v, err := r.Decode(raw)
	if err != nil {
		return zero, pipeline.BadResponse(r.Server, r.Method, err)
	}
	t, ok := v.(T)
	if !ok {
		return zero, pipeline.BadResponse(r.Server, r.Method, errNotAnObject)
	}
	return t, nil
}
