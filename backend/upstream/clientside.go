package upstream

import (
	"context"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// ClientSide answers the requests an upstream server sends to its client:
// the router forwards them to the AI client whose call caused them. Any nil
// field leaves that capability undeclared.
type ClientSide struct {
	Sampling    func(ctx context.Context, server string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
	Elicitation func(ctx context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)
	Roots       func(ctx context.Context, server string, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error)
}

type samplingFunc func(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)

func (f samplingFunc) CreateMessage(ctx context.Context, r mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return f(ctx, r)
}

type elicitationFunc func(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error)

func (f elicitationFunc) Elicit(ctx context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return f(ctx, r)
}

type rootsFunc func(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error)

func (f rootsFunc) ListRoots(ctx context.Context, r mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return f(ctx, r)
}

// clientOptions declares to server the capabilities cs can answer.
func (cs ClientSide) clientOptions(server string) []client.ClientOption {
	var opts []client.ClientOption
	if cs.Sampling != nil {
		opts = append(opts, client.WithSamplingHandler(samplingFunc(func(ctx context.Context, r mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return cs.Sampling(ctx, server, r)
		})))
	}
	if cs.Elicitation != nil {
		opts = append(opts, client.WithElicitationHandler(elicitationFunc(func(ctx context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			return cs.Elicitation(ctx, server, r)
		})))
	}
	if cs.Roots != nil {
		opts = append(opts, client.WithRootsHandler(rootsFunc(func(ctx context.Context, r mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			return cs.Roots(ctx, server, r)
		})))
	}
	return opts
}
