package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Per-client servers (docs/perclient.md). Every call carries its client
// (upstream.WithClient): a per-client server serves it on that client's own
// instance, and what that instance asks goes to that client only
// (instanceTarget). A session's end stops its instances; its
// notifications/roots/list_changed reaches them.

// PerClientUpstreams is what the gateway needs of the upstream service for
// per-client servers; an Upstreams without it runs none.
type PerClientUpstreams interface {
	IsPerClient(server string) bool
	EndClient(key string)
	ClientRootsChanged(key string)
	SuggestPerClient(server, what string, clients int)
}

var _ PerClientUpstreams = (*upstream.Service)(nil)

// withClient marks a call's context with its client, for a per-client
// server. A call made inside the router (the chat panel) is a client of
// its own, named by its caller.
func (g *Gateway) withClient(ctx context.Context, upstreamName string, key string, c pipeline.Client, caller pipeline.Caller) context.Context {
	// Only a per-client server needs it: the hot path of every other
	// request builds nothing.
	if pc, ok := g.ups.(PerClientUpstreams); !ok || !pc.IsPerClient(upstreamName) {
		return ctx
	}
	if key == "" {
		key = "router\x00" + caller.Name
	}
	cl := upstream.Client{Key: key, Name: c.Name, Token: caller.Name}
	if s, ok := c.Session.(server.SessionWithClientInfo); ok {
		if cl.Name == "" {
			cl.Name = s.GetClientInfo().Name
		}
		caps := s.GetClientCapabilities()
		cl.Sampling, cl.Elicitation, cl.Roots = caps.Sampling != nil, caps.Elicitation != nil, caps.Roots != nil
	}
	cl.Label = clientLabel(cl.Name, caller.Name, key)
	if cl.Roots {
		cl.ListRoots = func(ctx context.Context) ([]string, error) {
			res, err := g.ClientSide().Roots(ctx, upstreamName, mcp.ListRootsRequest{})
			if err != nil {
				return nil, err
			}
			uris := make([]string, 0, len(res.Roots))
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return uris, nil
		}
	}
	return upstream.WithClient(ctx, cl)
}

// clientLabel names a client on the Servers page: what it calls itself,
// its token, and a short hash of its key (never the session id itself,
// which would let whoever reads the page take over the session).
func clientLabel(name, caller, key string) string {
	sum := sha256.Sum256([]byte(key))
	id := hex.EncodeToString(sum[:3])
	switch {
	case name != "" && caller != "":
		return fmt.Sprintf("%s (%s) %s", name, caller, id)
	case name != "":
		return name + " " + id
	case caller != "":
		return fmt.Sprintf("(%s) %s", caller, id)
	}
	return id
}

// instanceTarget is the client and call to ask for a request a per-client
// instance sent: its own client only, on that client's call if one is in
// flight there (the call's own stream), else on its session. A stateless
// client with no call in flight cannot be asked, and the request is refused.
func (g *Gateway) instanceTarget(ctx context.Context, upstreamName, what string, ic upstream.InstanceClient) (server.ClientSession, *inflight, error) {
	if f := inflightFrom(ctx); f != nil && f.server == upstreamName && f.client == ic.Key && f.session != nil {
		return f.session, f, nil
	}
	if f := g.call.callOfClient(upstreamName, ic.Key); f != nil {
		return f.session, f, nil
	}
	if s := g.call.sessionOf(ic.Key); s != nil {
		return s, nil, nil
	}
	g.log.WithField("server", upstreamName).WithField("instance", ic.Instance).
		Warnf("%s request of per-client instance #%d refused: its client has no call in flight and no session to ask", what, ic.Instance)
	return nil, nil, fmt.Errorf("%s: the router refused the %s request of per-client instance #%d: its client has no call in flight there and no session to be asked on", upstreamName, what, ic.Instance)
}

// callOfClient is a call in flight on upstreamName of the client key, one
// not parked for its retry if there is one.
func (r *callRegistry) callOfClient(upstreamName, key string) *inflight {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parked *inflight
	for _, f := range r.byServer[upstreamName] {
		if f.client != key || f.session == nil {
			continue
		}
		if f.held == nil || !f.held.parked() {
			return f
		}
		if parked == nil {
			parked = f
		}
	}
	return parked
}

func (r *callRegistry) sessionOf(key string) server.ClientSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[key]
}

func (r *callRegistry) forgetSession(sessionID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sessions, sessionKey(sessionID))
}

// sessionKey is askerKey's key of a session client.
func sessionKey(id string) string { return "session\x00" + id }

// endSession stops the per-client instances of a session that ended.
func (g *Gateway) endSession(id string) {
	g.call.forgetSession(id)
	if pc, ok := g.ups.(PerClientUpstreams); ok && id != "" {
		// Off the unregister hook's goroutine: stopping a process takes
		// up to its grace periods.
		go pc.EndClient(sessionKey(id))
	}
}

// rootsChanged passes a session's notifications/roots/list_changed on to
// its instances.
func (g *Gateway) rootsChanged(ctx context.Context, _ mcp.JSONRPCNotification) {
	s := server.ClientSessionFromContext(ctx)
	if s == nil || s.SessionID() == "" {
		return
	}
	if pc, ok := g.ups.(PerClientUpstreams); ok {
		go pc.ClientRootsChanged(sessionKey(s.SessionID()))
	}
}

// suggestions rate-limits the "make it per-client" hint: once a minute per
// server in the log.
type suggestions struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// suggestPerClient notes that a shared server asked its client something
// while clients other than one had calls in flight there: the Servers page
// (upstream's Status) and the log say so and offer per-client.
func (g *Gateway) suggestPerClient(upstreamName, what string, clients int) {
	if clients < 2 {
		return
	}
	if pc, ok := g.ups.(PerClientUpstreams); ok {
		pc.SuggestPerClient(upstreamName, what, clients)
	}
	g.suggested.mu.Lock()
	last := g.suggested.last[upstreamName]
	quiet := time.Since(last) < time.Minute
	if !quiet {
		g.suggested.last[upstreamName] = time.Now()
	}
	g.suggested.mu.Unlock()
	if quiet {
		return
	}
	g.log.WithField("server", upstreamName).WithField("clients", clients).
		Warnf("shared server %s sent a %s request while %d clients used it: it depends on who its client is; make it per-client (mcp-router servers update %s --isolation per-client, or the server's form) so each client gets its own instance", upstreamName, what, clients, upstreamName)
}
