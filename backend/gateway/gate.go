package gateway

import (
	"context"
	"encoding/json"
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

// activation is one server's connect-and-init, shared by every client
// that asks while it runs.
type activation struct {
	done       chan struct{}
	connection int
	summary    string
	err        error
}

// activateServer runs an activation of serverName, or joins the one in
// progress: ten clients activating at once make one connection attempt and
// one init call.
func (g *Gateway) activateServer(ctx context.Context, serverName string) (*activation, error) {
	g.gate.mu.Lock()
	a, running := g.gate.flights[serverName]
	if !running {
		if g.gate.flights == nil {
			g.gate.flights = map[string]*activation{}
		}
		a = &activation{done: make(chan struct{})}
		g.gate.flights[serverName] = a
	}
	g.gate.mu.Unlock()
	if !running {
		// Not the caller's context: the others that join must not fail
		// because the first one gave up.
		go func() {
			actx, cancel := context.WithTimeout(context.Background(), activateTimeout)
			defer cancel()
			a.connection, a.summary, a.err = g.connectAndInit(actx, serverName)
			g.gate.mu.Lock()
			delete(g.gate.flights, serverName)
			g.gate.mu.Unlock()
			close(a.done)
		}()
	}
	select {
	case <-a.done:
		return a, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// connectAndInit connects serverName if it is down, runs its init tool
// (or a ping when it has none) to prove the connection answers, and
// describes the result. A connection lost meanwhile is retried, so an
// activation racing a reconnect ends on the new connection.
func (g *Gateway) connectAndInit(ctx context.Context, serverName string) (connection int, summary string, err error) {
	const attempts = 3
	for attempt := 1; ; attempt++ {
		s, ok := g.gated(serverName)
		if !ok {
			return 0, "", fmt.Errorf("%s is not gated any more", serverName)
		}
		st, err := g.ups.Connect(ctx, serverName)
		if err != nil {
			return 0, "", fmt.Errorf("could not connect: %w", err)
		}
		initText, err := g.runInit(ctx, serverName, s.gate)
		var lost *connectionLost
		if errors.As(err, &lost) && attempt < attempts {
			continue
		}
		if err != nil {
			return 0, "", err
		}
		now, serr := g.ups.Status(serverName)
		if serr != nil || now.State != upstream.StateRunning || now.Connection != st.Connection {
			if attempt < attempts {
				continue
			}
			return 0, "", errors.New("the upstream connection keeps dropping")
		}
		// Publish the tools of a connection the gateway has not seen yet,
		// so the summary and a hidden-tools client's next list have them.
		g.rebuild()
		return st.Connection, g.summary(serverName, s, now, initText), nil
	}
}

// connectionLost is an init call that failed because the connection went
// away under it (not an answer from the server).
type connectionLost struct{ err error }

func (e *connectionLost) Error() string { return e.err.Error() }

// runInit calls the gate's init tool with its arguments (files read now),
// or pings when there is none; it returns the init result's text.
func (g *Gateway) runInit(ctx context.Context, serverName string, gate spec.Gate) (string, error) {
	upstreamErr := func(err error) error {
		var rpc *upstream.RPCError
		if errors.As(err, &rpc) || errors.Is(err, upstream.ErrTimeout) || ctx.Err() != nil {
			return err
		}
		return &connectionLost{err}
	}
	if gate.InitTool == "" {
		if _, err := g.ups.Request(ctx, serverName, string(mcp.MethodPing), map[string]any{}); err != nil {
			var rpc *upstream.RPCError
			if errors.As(err, &rpc) { // answered, just without ping: alive
				return "", nil
			}
			return "", upstreamErr(err)
		}
		return "", nil
	}
	args, err := gate.InitArguments()
	if err != nil {
		return "", err
	}
	raw, err := g.ups.Request(ctx, serverName, string(mcp.MethodToolsCall), map[string]any{"name": gate.InitTool, "arguments": args})
	if err != nil {
		return "", upstreamErr(fmt.Errorf("init tool %s: %w", gate.InitTool, err))
	}
	msg := json.RawMessage(raw)
	res, err := mcp.ParseCallToolResult(&msg)
	if err != nil {
		return "", fmt.Errorf("init tool %s: malformed result: %w", gate.InitTool, err)
	}
	if res.IsError {
		return "", fmt.Errorf("init tool %s failed: %s", gate.InitTool, firstText(res))
	}
	return allText(res), nil
}

// summary is the activate result: what an AI needs to go on.
func (g *Gateway) summary(serverName string, s gatedServer, st upstream.Status, initText string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s activated.\n", serverName)
	who := strings.TrimSpace(st.ServerName + " " + st.ServerVersion)
	if who == "" {
		who = serverName
	}
	fmt.Fprintf(&b, "Connected: yes (%s, connection %d).\n", who, st.Connection)
	if s.gate.InitTool != "" {
		fmt.Fprintf(&b, "Init (%s): %s\n", s.gate.InitTool, oneParagraph(initText))
	}
	tools, overview := 0, ""
	g.mu.RLock()
	for name, un := range g.tools {
		if un.Server != serverName || un.Item == gateToolItem {
			continue
		}
		tools++
		if s.gate.OverviewTool != "" && un.Item == s.gate.OverviewTool {
			overview = name
		}
	}
	g.mu.RUnlock()
	fmt.Fprintf(&b, "Tools: %d.\n", tools)
	switch {
	case overview != "":
		fmt.Fprintf(&b, "Call %s for the overview of how to use them.\n", overview)
	case s.gate.OverviewTool != "":
		fmt.Fprintf(&b, "The overview tool %s is not offered by the server.\n", s.gate.OverviewTool)
	}
	if instr := strings.TrimSpace(st.Instructions); instr != "" {
		fmt.Fprintf(&b, "\nInstructions from %s:\n%s\n", serverName, instr)
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneParagraph(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "ok"
	}
	return s
}

func allText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// activateTool is the tool a gated server contributes.
func activateTool(name, description string) server.ServerTool {
	return server.ServerTool{Tool: mcp.Tool{Name: name, Description: description,
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}
}

// callActivate is the handler of <server><sep>activate.
func (g *Gateway) callActivate(serverName string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !g.o.CallerFrom(ctx).allows(serverName) {
			return nil, fmt.Errorf("tool '%s' not found", req.Params.Name)
		}
		a, err := g.activateServer(ctx, serverName)
		if err != nil {
			return nil, routeError(serverName, err)
		}
		if a.err != nil {
			return mcp.NewToolResultError(fmt.Sprintf("%s: activation failed: %v", serverName, a.err)), nil
		}
		key := g.gateKey(ctx)
		wasLocked := g.gate.unlock(key, serverName, a.connection)
		if s, ok := g.gated(serverName); ok && s.gate.HideTools && wasLocked {
			// The session's tools/list just grew.
			if sess := server.ClientSessionFromContext(ctx); sess != nil && sess.SessionID() != "" {
				if err := g.srv.SendNotificationToSpecificClient(sess.SessionID(),
					string(mcp.MethodNotificationToolsListChanged), nil); err != nil {
					g.log.WithField("server", serverName).Debugf("tools/list_changed not delivered: %v", err)
				}
			}
		}
		return mcp.NewToolResultText(a.summary), nil
	}
}
