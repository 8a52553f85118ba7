package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/pipeline"
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
func (g *Gate) activateServer(ctx context.Context, serverName string) (*activation, error) {
	g.mu.Lock()
	a, running := g.flights[serverName]
	if !running {
		a = &activation{done: make(chan struct{})}
		g.flights[serverName] = a
	}
	g.mu.Unlock()
	if !running {
		// Not the caller's context: the others that join must not fail
		// because the first one gave up.
		go func() {
			actx, cancel := context.WithTimeout(context.Background(), activateTimeout)
			defer cancel()
			a.connection, a.summary, a.err = g.connectAndInit(actx, serverName)
			g.mu.Lock()
			delete(g.flights, serverName)
			g.mu.Unlock()
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
func (g *Gate) connectAndInit(ctx context.Context, serverName string) (connection int, summary string, err error) {
	const attempts = 3
	for attempt := 1; ; attempt++ {
		s, ok := g.gateOrLockable(serverName)
		if !ok {
			return 0, "", fmt.Errorf("%s is not gated any more", serverName)
		}
		st, err := g.o.Upstreams.Connect(ctx, serverName)
		if err != nil {
			return 0, "", fmt.Errorf("could not connect: %w", err)
		}
		initText, err := g.runInit(ctx, serverName, s.Gate)
		var lost *connectionLost
		if errors.As(err, &lost) && attempt < attempts {
			g.awaitReplaced(ctx, serverName, st.Connection)
			continue
		}
		if err != nil {
			return 0, "", err
		}
		now, serr := g.o.Upstreams.Status(serverName)
		if serr != nil || now.State != upstream.StateRunning || now.Connection != st.Connection {
			if attempt < attempts {
				continue
			}
			return 0, "", errors.New("the upstream connection keeps dropping")
		}
		// Publish the tools of a connection the gateway has not seen yet,
		// so the summary and a hidden-tools client's next list have them.
		if g.o.Publish != nil {
			g.o.Publish()
		}
		return st.Connection, g.summary(serverName, s, now, initText), nil
	}
}

// awaitReplaced gives the supervisor a moment to notice that connection
// has gone, so the next attempt does not find it again.
func (g *Gate) awaitReplaced(ctx context.Context, serverName string, connection int) {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		st, err := g.o.Upstreams.Status(serverName)
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
func (g *Gate) runInit(ctx context.Context, serverName string, gate spec.Gate) (string, error) {
	upstreamErr := func(err error) error {
		var rpc *upstream.RPCError
		if errors.As(err, &rpc) || errors.Is(err, upstream.ErrTimeout) || ctx.Err() != nil {
			return err
		}
		return &connectionLost{err}
	}
	if gate.InitTool == "" {
		if _, err := g.o.Upstreams.Request(ctx, serverName, string(mcp.MethodPing), map[string]any{}); err != nil {
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
	raw, err := g.o.Upstreams.Request(ctx, serverName, string(mcp.MethodToolsCall), map[string]any{"name": gate.InitTool, "arguments": args})
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
func (g *Gate) summary(serverName string, s Server, st upstream.Status, initText string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s activated.\n", serverName)
	who := strings.TrimSpace(st.ServerName + " " + st.ServerVersion)
	if who == "" {
		who = serverName
	}
	fmt.Fprintf(&b, "Connected: yes (%s, connection %d).\n", who, st.Connection)
	if s.Gate.InitTool != "" {
		fmt.Fprintf(&b, "Init (%s): %s\n", s.Gate.InitTool, orOK(initText))
	}
	tools, overview := 0, ""
	if g.o.Tools != nil {
		published := g.o.Tools(serverName)
		tools = len(published)
		if s.Gate.OverviewTool != "" {
			overview = published[s.Gate.OverviewTool]
		}
	}
	fmt.Fprintf(&b, "Tools: %d.\n", tools)
	switch {
	case overview != "":
		fmt.Fprintf(&b, "Call %s for the overview of how to use them.\n", overview)
	case s.Gate.OverviewTool != "":
		fmt.Fprintf(&b, "The overview tool %s is not offered by the server.\n", s.Gate.OverviewTool)
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

// Tool is the tool a gated server contributes, named name.
func Tool(name, description string) mcp.Tool {
	return mcp.Tool{Name: name, Description: description,
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
}

// activate answers a call of r.Server's activate tool: it runs (or joins)
// the server's activation and unlocks the server for the caller.
func (g *Gate) activate(ctx context.Context, r *pipeline.Request) (pipeline.Result, error) {
	serverName := r.Server
	a, err := g.activateServer(ctx, serverName)
	if err != nil {
		return pipeline.Result{}, pipeline.Upstream(serverName, err)
	}
	if a.err != nil {
		return toolResult(mcp.NewToolResultError(fmt.Sprintf("%s: activation failed: %v", serverName, a.err))), nil
	}
	wasLocked := g.unlock(Key(r), serverName, a.connection)
	g.shareUnlock(Key(r), serverName)
	if s, ok := g.gatedFor(r, serverName); ok && s.Gate.HideTools && wasLocked {
		// The session's tools/list just grew.
		if id := r.Client.SessionID(); id != "" && g.o.ToolsChanged != nil {
			g.o.ToolsChanged(id)
		}
	}
	return toolResult(mcp.NewToolResultText(a.summary)), nil
}

func firstText(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if t, ok := c.(mcp.TextContent); ok {
			return t.Text
		}
	}
	return "tool reported an error"
}
