package gateway

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/upstream"
)

// announceInstance puts the router's instance id (Options.Instance) in the
// _meta of every initialize and server/discover result, under
// upstream.InstanceMetaKey. A router that reaches itself again — through a
// proxy, a forwarded port or a wrapper script — finds its own id in its
// upstream's initialize result and refuses that server (package upstream);
// docs/endpoint.md describes it.
func (g *Gateway) announceInstance(hooks *server.Hooks) {
	id := g.o.Instance
	if id == "" {
		return
	}
	hooks.AddAfterInitialize(func(_ context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		res.Meta = withInstance(res.Meta, id)
	})
	hooks.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		res.Meta = withInstance(res.Meta, id)
	})
}

func withInstance(m *mcp.Meta, id string) *mcp.Meta {
	if m == nil {
		m = &mcp.Meta{}
	}
	if m.AdditionalFields == nil {
		m.AdditionalFields = map[string]any{}
	}
	m.AdditionalFields[upstream.InstanceMetaKey] = id
	return m
}
