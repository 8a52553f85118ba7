package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// This file is the activate gate (seed 000): a gated server's tools are
// refused, per client, until that client calls <server><sep>activate, which
// connects the upstream if needed, runs the server's init tool and unlocks
// the server for the caller. A client activated on one upstream connection
// that is later lost must activate again:
//
//	[locked, disconnected] --activate--> [unlocked, connected]
//	[unlocked, connected] --upstream lost or replaced--> [unlocked, disconnected]
//	[unlocked, disconnected] --activate--> [unlocked, connected]

// gateToolItem is the route item of a gate's activate tool; no upstream
// tool can have this name.
const gateToolItem = "\x00activate"

// activateTimeout bounds one activation: connecting and the init tool.
const activateTimeout = 2 * time.Minute

// disconnectedText is the refusal of a call by a client whose upstream
// connection was lost since it activated.
func disconnectedText(activateTool string) string {
	return "upstream disconnected — call " + activateTool + " again"
}

// gatedServer is a gated server as the last rebuild published it.
type gatedServer struct {
	gate     spec.Gate
	activate string // the activate tool's client-facing name
}

// message is the text a client sees before activating.
func (s gatedServer) message(name string) string {
	if m := strings.TrimSpace(s.gate.Message); m != "" {
		return m
	}
	return fmt.Sprintf("The %s tools are locked: call %s first.", name, s.activate)
}

// gateState is the per-client side of the gate.
type gateState struct {
	mu        sync.Mutex
	activated map[string]map[string]int // gate key → server → upstream connection it activated on
	flights   map[string]*activation    // server → activation in progress
	refused   sync.Map                  // *mcp.CallToolResult → the log records it as blocked
}

func (s *gateState) activatedOn(key, serverName string) (connection int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	connection, ok = s.activated[key][serverName]
	return connection, ok
}

// unlock records key as activated on connection; it reports whether the
// key was locked before (never activated).
func (s *gateState) unlock(key, serverName string, connection int) (wasLocked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.activated == nil {
		s.activated = map[string]map[string]int{}
	}
	if s.activated[key] == nil {
		s.activated[key] = map[string]int{}
	}
	_, was := s.activated[key][serverName]
	s.activated[key][serverName] = connection
	return !was
}

func (s *gateState) forgetServer(serverName string) {
	s.mu.Lock()
	for _, servers := range s.activated {
		delete(servers, serverName)
	}
	s.mu.Unlock()
}

func (s *gateState) forget(key string) {
	s.mu.Lock()
	delete(s.activated, key)
	s.mu.Unlock()
}

// gateKey names the client the gate state belongs to: its session, else
// (the stateless protocol revision, which has no session) its token and
// the client identity it declares in each request's _meta.
func (g *Gateway) gateKey(ctx context.Context) string {
	caller := g.o.CallerFrom(ctx).Name
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		key := "client\x00" + caller
		if info.ClientInfo != nil {
			key += "\x00" + info.ClientInfo.Name + "\x00" + info.ClientInfo.Version
		}
		return key
	}
	if s := server.ClientSessionFromContext(ctx); s != nil && s.SessionID() != "" {
		return sessionGateKey(s.SessionID())
	}
	return "client\x00" + caller
}

func sessionGateKey(id string) string { return "session\x00" + id }

// gated returns the gate of a server, if it has one enabled.
func (g *Gateway) gated(serverName string) (gatedServer, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	s, ok := g.gates[serverName]
	return s, ok
}

// gateBlocks is the gate's one decision: whether the client named by key
// may send a request to serverName now and, if not, the text to refuse it
// with. Every path that forwards to an upstream asks it.
func (g *Gateway) gateBlocks(key, serverName string) (message string, blocked bool) {
	s, ok := g.gated(serverName)
	if !ok {
		return "", false
	}
	connection, unlocked := g.gate.activatedOn(key, serverName)
	if !unlocked {
		return s.message(serverName), true
	}
	st, err := g.ups.Status(serverName)
	if err != nil || st.State != upstream.StateRunning || st.Connection != connection {
		return disconnectedText(s.activate), true
	}
	return "", false
}

// gateLost turns a gated server's lost connection, found by a call that
// passed the gate just before the loss was noticed, into the same
// [unlocked, disconnected] answer the next call would get.
func (g *Gateway) gateLost(serverName string, err error) (message string, lost bool) {
	s, ok := g.gated(serverName)
	if !ok {
		return "", false
	}
	var rpc *upstream.RPCError
	var b *hook.Block
	if errors.As(err, &rpc) || errors.As(err, &b) || errors.Is(err, upstream.ErrTimeout) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", false
	}
	return disconnectedText(s.activate), true
}

// refuse is a locked call's result: a tool error carrying the gate's text,
// recorded in the request log as blocked.
func (g *Gateway) refuse(message string) *mcp.CallToolResult {
	res := mcp.NewToolResultError(message)
	if g.o.RequestLog != nil {
		g.gate.refused.Store(res, struct{}{})
	}
	return res
}

// wasRefused reports (once) whether res is a gate refusal.
func (g *Gateway) wasRefused(res *mcp.CallToolResult) bool {
	_, ok := g.gate.refused.LoadAndDelete(res)
	return ok
}

// hideLockedTools takes out of a tools/list result the tools of servers
// that hide them until the client activates (their activate tools stay).
func (g *Gateway) hideLockedTools(ctx context.Context, res *mcp.ListToolsResult) {
	if res == nil {
		return
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	if len(g.gates) == 0 {
		return
	}
	key := g.gateKey(ctx)
	kept := make([]mcp.Tool, 0, len(res.Tools))
	for _, t := range res.Tools {
		un := g.tools[t.Name]
		if s, ok := g.gates[un.Server]; ok && s.gate.HideTools && un.Item != gateToolItem {
			if _, unlocked := g.gate.activatedOn(key, un.Server); !unlocked {
				continue
			}
		}
		kept = append(kept, t)
	}
	res.Tools = kept
}
