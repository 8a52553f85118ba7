package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

type ctxKey struct{}

// A built-in server is supervised like any other, reached in-process with
// the caller's context, and its notifications and list changes arrive as
// they do from a process.
func TestBuiltinServerInProcess(t *testing.T) {
	srv := server.NewMCPServer("inproc", "1", server.WithToolCapabilities(true), server.WithResourceCapabilities(true, true))
	srv.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		who, _ := ctx.Value(ctxKey{}).(string)
		return mcp.NewToolResultText("caller " + who), nil
	})

	var mu sync.Mutex
	var notes []mcp.JSONRPCNotification
	o := fastOptions()
	o.Builtins = map[string]*server.MCPServer{"state_gate": srv}
	o.OnNotification = func(name string, n mcp.JSONRPCNotification) {
		mu.Lock()
		defer mu.Unlock()
		if name == "state_gate" {
			notes = append(notes, n)
		}
	}
	s := New(o)
	t.Cleanup(s.Close)
	def := spec.Server{Name: "state_gate", Transport: spec.Builtin, Enabled: true}
	def.Normalize()
	if err := def.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "state_gate", StateRunning, 5*time.Second)
	if st.PID != 0 || st.ServerName != "inproc" {
		t.Fatalf("status %+v", st)
	}
	cat, _ := s.Catalog("state_gate")
	if names := toolNames(cat); len(names) != 1 || names[0] != "whoami" {
		t.Fatalf("tools %v", names)
	}

	ctx := context.WithValue(context.Background(), ctxKey{}, "alice")
	raw, err := s.Request(ctx, "state_gate", "tools/call", map[string]any{"name": "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 || res.Content[0].(mcp.TextContent).Text != "caller alice" {
		t.Fatalf("result %s (%v)", raw, err)
	}

	// A new tool: list_changed reaches the supervisor, which re-lists.
	srv.AddTool(mcp.NewTool("second"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("2"), nil
	})
	testpeers.Eventually(t, 5*time.Second, "the new tool in the catalog", func() bool {
		cat, _ := s.Catalog("state_gate")
		return len(cat.Tools) == 2
	})
	// Other notifications go to OnNotification.
	srv.SendNotificationToAllClients(string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": "x://1"})
	testpeers.Eventually(t, 5*time.Second, "resources/updated forwarded", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range notes {
			if n.Method == string(mcp.MethodNotificationResourceUpdated) && n.Params.AdditionalFields["uri"] == "x://1" {
				return true
			}
		}
		return false
	})

	// Stop and start like any server.
	if err := s.Stop("state_gate"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Request(ctx, "state_gate", "tools/call", map[string]any{"name": "whoami"}); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("request to a stopped built-in: %v", err)
	}
	if err := s.Start("state_gate"); err != nil {
		t.Fatal(err)
	}
	st = waitState(t, s, "state_gate", StateRunning, 5*time.Second)
	if st.Connection != 2 {
		t.Fatalf("connection %d after a restart, want 2", st.Connection)
	}
}

// A built-in this process does not provide is an errored server, not a
// crash.
func TestBuiltinServerMissing(t *testing.T) {
	s := newTestService(t)
	def := spec.Server{Name: "state_gate", Transport: spec.Builtin, Enabled: true}
	def.Normalize()
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "state_gate", StateErrored, 5*time.Second)
	if st.Error == "" {
		t.Fatal("no error reported")
	}
	_, err := Probe(context.Background(), def, Options{}, nil)
	if !errors.Is(err, ErrNoBuiltin) {
		t.Fatalf("Probe = %v, want ErrNoBuiltin", err)
	}
}

// A list_changed that changes nothing (or a 2026-07-28 listen stream
// reopened, which re-reads the lists) re-reads the list but announces no
// catalog change: no rebuild of every client's view for nothing. A real
// change right after is announced as before.
func TestUnchangedListIsNoCatalogChange(t *testing.T) {
	var lists atomic.Int32
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(context.Context, any, *mcp.ListToolsRequest, *mcp.ListToolsResult) { lists.Add(1) })
	srv := server.NewMCPServer("inproc", "1", server.WithToolCapabilities(true), server.WithHooks(hooks))
	srv.AddTool(mcp.NewTool("first"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("1"), nil
	})
	o := fastOptions()
	o.Builtins = map[string]*server.MCPServer{"state_gate": srv}
	s := New(o)
	t.Cleanup(s.Close)
	events := make(chan Event, 16)
	defer s.Subscribe(func(e Event) {
		if e.Kind == EventCatalog {
			events <- e
		}
	})()
	def := spec.Server{Name: "state_gate", Transport: spec.Builtin, Enabled: true}
	def.Normalize()
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "state_gate", StateRunning, 5*time.Second)
	select {
	case <-events: // the first catalog
	case <-time.After(5 * time.Second):
		t.Fatal("no first catalog")
	}

	// list_changed with nothing changed: the supervisor lists again...
	before := lists.Load()
	srv.SendNotificationToAllClients(string(mcp.MethodNotificationToolsListChanged), nil)
	testpeers.Eventually(t, 5*time.Second, "the tools listed again", func() bool { return lists.Load() > before })
	// ...and then a real change. The first event after the first catalog
	// must be the real change (the supervisor refreshes in order, so an
	// event for the no-op would come first).
	srv.AddTool(mcp.NewTool("second"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("2"), nil
	})
	select {
	case e := <-events:
		cat, _ := s.Catalog("state_gate")
		if fmt.Sprint(e.Lists) != "[tools]" || len(cat.Tools) != 2 || e.Status.Tools != 2 {
			t.Fatalf("first catalog event after the no-op: lists %v, status tools %d, catalog %v", e.Lists, e.Status.Tools, toolNames(cat))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no catalog event after a real change")
	}
}
