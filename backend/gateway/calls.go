package gateway

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/upstream"
)

// inflight is one call being served by an upstream.
type inflight struct {
	server      string
	session     server.ClientSession // nil for a sessionless (stateless) client
	clientToken any                  // the client's own progress token, or nil
	routerToken string
	touch       func() // restarts the upstream timeout
}

// callRegistry knows which client each upstream call belongs to. Upstream
// connections are shared by all clients, so progress tokens are rewritten
// to router-unique ones on the way up and back on the way down, and a
// request an upstream sends us (sampling, elicitation, roots) goes to the
// client whose call is in flight there.
type callRegistry struct {
	mu          sync.Mutex
	seq         uint64
	byToken     map[string]*inflight
	byServer    map[string][]*inflight
	lastSession map[string]server.ClientSession // per upstream, for requests outside a call
}

func newCallRegistry() *callRegistry {
	return &callRegistry{byToken: map[string]*inflight{}, byServer: map[string][]*inflight{},
		lastSession: map[string]server.ClientSession{}}
}

func (r *callRegistry) begin(upstreamName string, session server.ClientSession, clientToken any, touch func()) *inflight {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	f := &inflight{server: upstreamName, session: session, clientToken: clientToken, touch: touch}
	if clientToken != nil {
		f.routerToken = "mcpr-" + strconv.FormatUint(r.seq, 10)
		r.byToken[f.routerToken] = f
	}
	r.byServer[upstreamName] = append(r.byServer[upstreamName], f)
	if session != nil {
		r.lastSession[upstreamName] = session
	}
	return f
}

func (r *callRegistry) end(f *inflight) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byToken, f.routerToken)
	list := r.byServer[f.server]
	for i, x := range list {
		if x == f {
			r.byServer[f.server] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(r.byServer[f.server]) == 0 {
		delete(r.byServer, f.server)
	}
}

func (r *callRegistry) byProgressToken(token string) *inflight {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byToken[token]
}

// sessionFor picks the client to ask on behalf of an upstream: the one
// whose call there is oldest in flight, else the last one that called it.
func (r *callRegistry) sessionFor(upstreamName string) server.ClientSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.byServer[upstreamName] {
		if f.session != nil {
			return f.session
		}
	}
	return r.lastSession[upstreamName]
}

// Notify receives an upstream's notifications (wire it to
// upstream.Options.OnNotification). Progress goes back to the client that
// asked for it, under that client's own token.
func (g *Gateway) Notify(upstreamName string, n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
	case string(mcp.MethodNotificationResourceUpdated):
		g.resourceUpdated(n)
		return
	case string(mcp.MethodNotificationMessage):
		g.logMessage(upstreamName, n)
		return
	default:
		return
	}
	params := n.Params.AdditionalFields
	token := fmt.Sprint(params["progressToken"])
	f := g.call.byProgressToken(token)
	if f == nil || f.session == nil {
		return
	}
	f.touch()
	out := make(map[string]any, len(params))
	for k, v := range params {
		out[k] = v
	}
	out["progressToken"] = f.clientToken
	if err := g.srv.SendNotificationToSpecificClient(f.session.SessionID(), n.Method, out); err != nil {
		g.log.WithField("server", upstreamName).Debugf("progress not delivered: %v", err)
	}
}

// ClientSide answers upstream requests by asking the right client (wire it
// to upstream.Options.ClientSide).
func (g *Gateway) ClientSide() upstream.ClientSide {
	sessionCtx := func(ctx context.Context, upstreamName, what string) (context.Context, error) {
		s := g.call.sessionFor(upstreamName)
		if s == nil {
			return nil, fmt.Errorf("%s: no connected client to ask for %s", upstreamName, what)
		}
		if !declares(s, what) {
			return nil, fmt.Errorf("%s: the client did not declare the %s capability", upstreamName, what)
		}
		return g.srv.WithContext(ctx, s), nil
	}
	return upstream.ClientSide{
		Sampling: func(ctx context.Context, name string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			ctx, err := sessionCtx(ctx, name, "sampling")
			if err != nil {
				return nil, err
			}
			return g.srv.RequestSampling(ctx, req)
		},
		Elicitation: func(ctx context.Context, name string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			ctx, err := sessionCtx(ctx, name, "elicitation")
			if err != nil {
				return nil, err
			}
			return g.srv.RequestElicitation(ctx, req)
		},
		Roots: func(ctx context.Context, name string, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			ctx, err := sessionCtx(ctx, name, "roots")
			if err != nil {
				return nil, err
			}
			return g.srv.RequestRoots(ctx, req)
		},
	}
}

// declares reports whether the client of session announced capability what
// in its initialize request; asking a client for something it did not
// offer only earns an error, late.
func declares(session server.ClientSession, what string) bool {
	withInfo, ok := session.(server.SessionWithClientInfo)
	if !ok {
		return false
	}
	caps := withInfo.GetClientCapabilities()
	switch what {
	case "sampling":
		return caps.Sampling != nil
	case "elicitation":
		return caps.Elicitation != nil
	case "roots":
		return caps.Roots != nil
	}
	return false
}
