// Package gate is the activate gate (seed 000), the pipeline's second step:
// a gated server's tools are refused, per client, until that client calls
// <server><sep>activate, which connects the upstream if needed, runs the
// server's init tool and unlocks the server for the caller. A client
// activated on one upstream connection that is later lost must activate
// again:
//
//	[locked, disconnected] --activate--> [unlocked, connected]
//	[unlocked, connected] --upstream lost or replaced--> [unlocked, disconnected]
//	[unlocked, disconnected] --activate--> [unlocked, connected]
//
// The gateway publishes which servers are gated (Publish) whenever it
// rebuilds its catalog; the gate keeps the per-client side.
package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// ActivateItem is the route item of a gate's activate tool; no upstream
// tool can have this name.
const ActivateItem = "\x00activate"

// activateTimeout bounds one activation: connecting and the init tool.
const activateTimeout = 2 * time.Minute

// Upstreams is what the gate needs of the upstream service.
type Upstreams interface {
	Status(name string) (upstream.Status, error)
	Connect(ctx context.Context, name string) (upstream.Status, error)
	Request(ctx context.Context, name, method string, params any) ([]byte, error)
}

// Options wire the gate to the gateway.
type Options struct {
	Upstreams Upstreams
	// Publish rebuilds the gateway's catalog now, so a new connection's
	// tools are offered before the activation answers.
	Publish func()
	// Tools are a server's published tools: upstream name → client-facing
	// name, the activate tool left out.
	Tools func(server string) map[string]string
	// ToolsChanged tells a session its tools/list changed.
	ToolsChanged func(sessionID string)
	Logger       logrus.FieldLogger
	// Shared, if set, shares the clients' unlocks with the other replicas
	// (shared.go); nil: they stay in this process.
	Shared SharedUnlocks
}

// Server is a gated server as the gateway's last rebuild published it.
type Server struct {
	Gate     spec.Gate
	Activate string // the activate tool's client-facing name
}

// Message is the text a client sees before activating serverName.
func (s Server) Message(serverName string) string {
	if m := strings.TrimSpace(s.Gate.Message); m != "" {
		return m
	}
	return fmt.Sprintf("The %s tools are locked: call %s first.", serverName, s.Activate)
}

// Gate is the activate gate. One per gateway.
type Gate struct {
	o Options

	mu        sync.Mutex
	servers   map[string]Server         // gated servers, as published
	lockable  map[string]Server         // the others: what a gated profile locks (PublishLockable)
	activated map[string]map[string]int // gate key → server → connection it activated on
	flights   map[string]*activation    // server → activation in progress
}

var _ pipeline.Step = (*Gate)(nil)

// New makes a gate with no gated server.
func New(o Options) *Gate {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	return &Gate{o: o, servers: map[string]Server{}, activated: map[string]map[string]int{},
		flights: map[string]*activation{}}
}

// Publish replaces the set of gated servers. A server whose gate went away
// (turned off, or the server removed) starts locked for everyone when it
// comes back.
func (g *Gate) Publish(servers map[string]Server) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for name := range g.servers {
		if _, still := servers[name]; !still {
			for _, unlocked := range g.activated {
				delete(unlocked, name)
			}
		}
	}
	g.servers = servers
}

// ProfileGated is the discovery mode of a gated profile
// (pipeline.Caller.Discovery): every server of the profile is locked for its
// clients until they activate it, as if it were gated with hidden tools.
const ProfileGated = "gated"

// PublishLockable replaces the servers a gated profile locks that have no
// gate of their own, each with its activate tool's name.
func (g *Gate) PublishLockable(servers map[string]Server) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.lockable = servers
}

// gatedFor is serverName's gate for the caller of r: its own, else, for a
// caller of a gated profile, the default one (hidden tools) under which
// the profile locks it.
func (g *Gate) gatedFor(r *pipeline.Request, serverName string) (Server, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.servers[serverName]; ok {
		return s, true
	}
	if r.Caller.Discovery == ProfileGated {
		s, ok := g.lockable[serverName]
		return s, ok
	}
	return Server{}, false
}

// gateOrLockable is serverName's own gate, else the one a gated profile
// locks it under: an activation runs for whichever caller asked.
func (g *Gate) gateOrLockable(serverName string) (Server, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.servers[serverName]; ok {
		return s, true
	}
	s, ok := g.lockable[serverName]
	return s, ok
}

// Gated returns a server's gate, if it has one.
func (g *Gate) Gated(serverName string) (Server, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.servers[serverName]
	return s, ok
}

// Any reports whether some server is gated.
func (g *Gate) Any() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.servers) > 0
}

// ForgetSession drops what a closed session had unlocked.
func (g *Gate) ForgetSession(sessionID string) {
	g.mu.Lock()
	delete(g.activated, sessionKey(sessionID))
	g.mu.Unlock()
	if g.o.Shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		defer cancel()
		if err := g.o.Shared.Forget(ctx, sessionKey(sessionID)); err != nil {
			g.o.Logger.Warnf("gate: forgetting a closed session's activations in the shared store: %v", err)
		}
	}
}

// Key names the client the gate state belongs to: its session, else (the
// stateless protocol revision, which has no session) its token and the
// client identity it declares in each request's _meta.
func Key(r *pipeline.Request) string {
	if r.Client.Modern {
		key := "client\x00" + r.Caller.Name
		if r.Client.Name != "" || r.Client.Version != "" {
			key += "\x00" + r.Client.Name + "\x00" + r.Client.Version
		}
		return key
	}
	if id := r.Client.SessionID(); id != "" {
		return sessionKey(id)
	}
	return "client\x00" + r.Caller.Name
}

func sessionKey(id string) string { return "session\x00" + id }

func (g *Gate) activatedOn(key, serverName string) (connection int, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	connection, ok = g.activated[key][serverName]
	return connection, ok
}

// unlock records key as activated on connection; it reports whether the
// key was locked before (never activated).
func (g *Gate) unlock(key, serverName string, connection int) (wasLocked bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.activated[key] == nil {
		g.activated[key] = map[string]int{}
	}
	_, was := g.activated[key][serverName]
	g.activated[key][serverName] = connection
	return !was
}

// blocks is the gate's one decision: whether the client named by key may
// send a request to serverName now and, if not, the text to refuse it with.
func (g *Gate) blocks(r *pipeline.Request, key, serverName string) (message string, blocked bool) {
	s, ok := g.gatedFor(r, serverName)
	if !ok {
		return "", false
	}
	connection, unlocked := g.activatedOn(key, serverName)
	if !unlocked {
		return s.Message(serverName), true
	}
	st, err := g.o.Upstreams.Status(serverName)
	if err != nil || st.State != upstream.StateRunning || st.Connection != connection {
		return disconnectedText(s.Activate), true
	}
	return "", false
}

// disconnectedText is the refusal of a call by a client whose upstream
// connection was lost since it activated.
func disconnectedText(activateTool string) string {
	return "upstream disconnected — call " + activateTool + " again"
}

// lost turns a gated server's lost connection, found by a call that passed
// the gate just before the loss was noticed, into the same [unlocked,
// disconnected] answer the next call would get. err is what send returned:
// a connection that failed, not an answer (an upstream error, a malformed
// result), a timeout or a refusal by a later step.
func (g *Gate) lost(r *pipeline.Request, serverName string, err error) (message string, lost bool) {
	s, ok := g.gatedFor(r, serverName)
	if !ok {
		return "", false
	}
	var re *pipeline.RouteError
	if !errors.As(err, &re) {
		return "", false
	}
	switch {
	case re.Reason == pipeline.ReasonServerDown,
		re.Reason == pipeline.ReasonBadResponse && re.Err != nil && !errors.Is(re.Err, pipeline.ErrMalformed):
		return disconnectedText(s.Activate), true
	}
	return "", false
}

// Serve implements pipeline.Step: it answers a call of an activate tool,
// refuses what a locked client sends a gated server, and hides what such a
// server hides until activation.
func (g *Gate) Serve(ctx context.Context, r *pipeline.Request, next pipeline.Handler) (pipeline.Result, error) {
	if r.List != nil {
		g.narrow(r)
		return next(ctx, r)
	}
	if r.Method == pipeline.MethodToolsCall && r.Item == ActivateItem {
		if _, ok := g.gatedFor(r, r.Server); !ok {
			return pipeline.Result{}, pipeline.NotFound(r)
		}
		return g.activate(ctx, r)
	}
	key := Key(r)
	if g.o.Shared != nil {
		if _, gated := g.gatedFor(r, r.Server); gated {
			if _, here := g.activatedOn(key, r.Server); !here {
				g.adopt(ctx, key, r.Server)
			}
		}
	}
	if message, blocked := g.blocks(r, key, r.Server); blocked {
		if r.Method == pipeline.MethodToolsCall {
			// A tool error, so the model reads the message.
			res := toolResult(mcp.NewToolResultError(message))
			res.Refusal = message
			return res, nil
		}
		return pipeline.Result{}, pipeline.Locked(r.Server, message)
	}
	res, err := next(ctx, r)
	if err != nil && r.Method == pipeline.MethodToolsCall {
		if message, lost := g.lost(r, r.Server, err); lost {
			return toolResult(mcp.NewToolResultError(message)), nil
		}
	}
	return res, err
}

// narrow takes out of a fan-out request what a locked client may not
// reach: the tools of servers that hide them until activation (their
// activate tools stay), and the servers logging/setLevel would go to.
func (g *Gate) narrow(r *pipeline.Request) {
	if !g.Any() && r.Caller.Discovery != ProfileGated {
		return
	}
	key := Key(r)
	elsewhere := map[string]bool{} // server → activated on another replica, read once a list
	switch r.Method {
	case pipeline.MethodToolsList:
		r.List.Keep(func(it pipeline.ListItem) bool {
			s, ok := g.gatedFor(r, it.Server)
			if !ok || !s.Gate.HideTools || it.Item == ActivateItem {
				return true
			}
			if _, unlocked := g.activatedOn(key, it.Server); unlocked {
				return true
			}
			// Activated on another replica: listed (a call adopts it).
			if g.o.Shared == nil {
				return false
			}
			if v, ok := elsewhere[it.Server]; ok {
				return v
			}
			elsewhere[it.Server] = g.unlockedElsewhere(context.Background(), key, it.Server)
			return elsewhere[it.Server]
		})
	case pipeline.MethodSetLevel:
		r.List.Keep(func(it pipeline.ListItem) bool {
			_, blocked := g.blocks(r, key, it.Server)
			return !blocked
		})
	}
}

// toolResult is a result the gate answers with, as bytes for the fast path
// and as the value mcp-go's path sends.
func toolResult(res *mcp.CallToolResult) pipeline.Result {
	raw, _ := json.Marshal(res)
	return pipeline.Result{Raw: raw, Value: res}
}
