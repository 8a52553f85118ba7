package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// What <server><sep>activate does: one shared activation per server
// (connect, init tool, check the connection held), then the caller's unlock.

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
			g.awaitReplaced(ctx, serverName, st.Connection)
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

// awaitReplaced gives the supervisor a moment to notice that connection
// has gone, so the next attempt does not find it again.
func (g *Gateway) awaitReplaced(ctx context.Context, serverName string, connection int) {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		st, err := g.ups.Status(serverName)
		if err != nil || st.State != upstream.StateRunning || st.Connection != connection {
			return
		}
		time.Sleep(20 * time.Millisecond)
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
		fmt.Fprintf(&b, "Init (%s): %s\n", s.gate.InitTool, orOK(initText))
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

// orOK is an init result's text, or "ok" for a result without text.
func orOK(s string) string {
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
