package core

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Lazy servers (issue 27 item 4), on real go-sdk everything-server
// processes: never run, a lazy server starts once to fill the persisted
// catalog and stops when idle. On the next launch none starts; their tools
// are listed from the persisted catalog; a call starts exactly its server,
// waits for it and goes through, and the request log says so; the server
// stops after lazyIdleSeconds and its tools stay listed.
func TestLazyServersStartOnUse(t *testing.T) {
	bin := testpeers.GoEverything(t)
	dir := t.TempDir()
	ctx := context.Background()
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Settings.Set(ctx, settings.KeyLazyIdleSeconds, "1"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	names := []string{"la", "lb", "lc", "ld"}
	var defs []spec.Server
	for _, n := range names {
		defs = append(defs, spec.Server{Name: n, Transport: spec.Stdio, Command: bin, Enabled: true, Start: spec.StartLazy})
	}
	running := func(c *Core) []string {
		var out []string
		for _, st := range c.Servers.Statuses() {
			if st.State != upstream.StateStopped || st.PID != 0 {
				out = append(out, st.Name+":"+string(st.State))
			}
		}
		return out
	}

	t.Run("first launch fills the catalog, then stops", func(t *testing.T) {
		ep := serve(t, dir, defs, true)
		testpeers.Eventually(t, 30*time.Second, "every lazy server listed its tools and stopped", func() bool {
			for _, n := range names {
				if _, ok := ep.core.persistedLists(n); !ok {
					return false
				}
			}
			return len(running(ep.core)) == 0
		})
	})

	ep := serve(t, dir, nil, true)
	if r := running(ep.core); len(r) != 0 {
		t.Fatalf("at launch, lazy servers not stopped: %v", r)
	}
	call := bearerSession(t, ep.url, "")
	listed := toolDescriptions(t, call)
	for _, n := range names {
		if _, ok := listed[n+"__test_simple_text"]; !ok {
			t.Fatalf("%s's tools not listed while it is stopped: %v", n, listed)
		}
	}
	if r := running(ep.core); len(r) != 0 {
		t.Fatalf("listing started servers: %v", r)
	}

	b := call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lb__test_simple_text","arguments":{}}}`)
	if !strings.Contains(string(b), "This is a simple text response for testing") {
		t.Fatalf("call of a stopped lazy server: %s", b)
	}
	if r := running(ep.core); len(r) != 1 || !strings.HasPrefix(r[0], "lb:") {
		t.Fatalf("after a call of lb, running: %v (want lb alone)", r)
	}
	if err := ep.core.Requests.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	logs, err := ep.core.Store.Logs().List(ctx, store.LogFilter{Method: "tools/call"})
	if err != nil || len(logs) != 1 || !strings.Contains(logs[0].Error+logs[0].Response+logs[0].Instance, "started the lazy server in") {
		t.Fatalf("request log of the starting call = %+v, %v", logs, err)
	}

	testpeers.Eventually(t, 15*time.Second, "lb stopped after the idle time", func() bool { return len(running(ep.core)) == 0 })
	listed = toolDescriptions(t, call)
	if _, ok := listed["lb__test_simple_text"]; !ok {
		t.Fatalf("lb's tools not listed once it stopped: %v", listed)
	}
}

// add_tools on a search profile starts the stopped lazy servers of the
// tools it adds (issue 27: a lazy server starts on its first call,
// activation or add_tools), exactly those, and each stops again after the
// idle time though no call came. Before, add_tools started nothing.
func TestAddToolsStartsItsLazyServers(t *testing.T) {
	bin := testpeers.GoEverything(t)
	dir := t.TempDir()
	ctx := context.Background()
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Settings.Set(ctx, settings.KeyLazyIdleSeconds, "1"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	var defs []spec.Server
	for _, n := range []string{"la", "lb", "lc"} {
		defs = append(defs, spec.Server{Name: n, Transport: spec.Stdio, Command: bin, Enabled: true, Start: spec.StartLazy})
	}
	running := func(c *Core) []string {
		var out []string
		for _, st := range c.Servers.Statuses() {
			if st.State != upstream.StateStopped || st.PID != 0 {
				out = append(out, st.Name)
			}
		}
		return out
	}
	ep := serve(t, dir, defs, true)
	testpeers.Eventually(t, 30*time.Second, "the lazy servers filled the catalog and stopped", func() bool {
		for _, d := range defs {
			if _, ok := ep.core.persistedLists(d.Name); !ok {
				return false
			}
		}
		return len(running(ep.core)) == 0
	})
	if _, err := ep.core.Profiles.Create(ctx, store.Profile{Name: "ps", Mode: profile.ModeSearch, Servers: []string{"la", "lb", "lc"}}); err != nil {
		t.Fatal(err)
	}
	cl, err := mcpClient(t, ep.url+"/ps", "")
	if err != nil {
		t.Fatal(err)
	}
	if r := running(ep.core); len(r) != 0 {
		t.Fatalf("a client's initialize started %v", r)
	}
	res, err := callText(t, cl, "add_tools", map[string]any{"names": []string{"lb__test_simple_text"}})
	if err != nil || res.IsError {
		t.Fatalf("add_tools: %v %+v", err, res)
	}
	testpeers.Eventually(t, 30*time.Second, "lb started by add_tools", func() bool {
		r := running(ep.core)
		return len(r) == 1 && r[0] == "lb"
	})
	testpeers.Eventually(t, 15*time.Second, "lb stopped after the idle time with no call", func() bool { return len(running(ep.core)) == 0 })
}
