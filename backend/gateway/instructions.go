package gateway

import (
	"context"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// The instructions of an initialize result are a fan-out of the chain, as
// the lists are: the candidates are the servers, which identity (the
// token's scope), the gate and the policy (servers: allow and deny) narrow,
// and send joins the instructions of the servers left. So a server a
// client may not use never speaks to it, whichever step keeps it away.

// frontInstructions runs the chain for every initialize mcp-go answers
// and puts the instructions it decided in the result.
func (g *Gateway) frontInstructions(h *server.Hooks) {
	h.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
		g.answerInitialize(ctx, req, res)
	})
}

// initResultKey carries the initialize result being answered to send.
type initResultKey struct{}

func (g *Gateway) answerInitialize(ctx context.Context, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
	var items []pipeline.ListItem
	for _, st := range g.ups.Statuses() {
		items = append(items, pipeline.ListItem{Server: st.Name})
	}
	r := &pipeline.Request{Method: pipeline.MethodInitialize, Client: clientOf(ctx, nil),
		Params: map[string]any{"protocolVersion": req.Params.ProtocolVersion, "capabilities": req.Params.Capabilities,
			"clientInfo": req.Params.ClientInfo},
		List: &pipeline.List{Items: items}}
	if _, err := g.chain.Serve(context.WithValue(ctx, initResultKey{}, res), r); err != nil {
		// No step refuses an initialize; if one ever does, the client
		// gets no instructions rather than someone else's.
		res.Instructions = ""
		g.log.Warnf("initialize: the instructions were not decided: %v", pipeline.Unlogged(err))
	}
}

// sendInstructions is the end of an initialize's chain: the result with
// the instructions of the servers left in the candidates.
func (g *Gateway) sendInstructions(ctx context.Context, r *pipeline.Request) pipeline.Result {
	kept := make(map[string]bool, len(r.List.Items))
	for _, it := range r.List.Items {
		kept[it.Server] = true
	}
	text := g.instructions(kept)
	if res, ok := ctx.Value(initResultKey{}).(*mcp.InitializeResult); ok {
		res.Instructions = text
		return pipeline.Result{Value: res}
	}
	return pipeline.Result{Value: map[string]string{"instructions": text}}
}

// instructions joins the running servers' own instructions, each labelled
// with its server, for the servers in kept. A gated server contributes
// its gate message instead: its own instructions come with activation.
func (g *Gateway) instructions(kept map[string]bool) string {
	var parts []string
	for _, st := range g.ups.Statuses() {
		if !kept[st.Name] {
			continue
		}
		if s, ok := g.gate.Gated(st.Name); ok {
			parts = append(parts, "## "+st.Name+"\n\n"+s.Message(st.Name))
			continue
		}
		if st.State != upstream.StateRunning || st.Instructions == "" {
			continue
		}
		parts = append(parts, "## "+st.Name+"\n\n"+strings.TrimSpace(st.Instructions))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return ""
	}
	return "MCP Router serves several servers; tools are named <server>" + g.o.Separator() + "<tool>.\n\n" +
		strings.Join(parts, "\n\n")
}
