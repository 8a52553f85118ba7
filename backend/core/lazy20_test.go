package core

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/catalog"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// runningServers names the servers that are not stopped.
func runningServers(c *Core) []string {
	var out []string
	for _, st := range c.Servers.Statuses() {
		if st.State != upstream.StateStopped || st.PID != 0 {
			out = append(out, st.Name)
		}
	}
	return out
}

// The check of issue 27: "with 20 lazy servers configured, the router starts
// with no upstream process running; a call starts exactly its server; the
// server stops after the idle time; search finds tools of servers that are
// stopped". The 20 servers are go-sdk everything-server processes, counted
// by the marker in their environment. None says `start: lazy`: each is
// auto, and lazy because only a search profile has it (the default).
// The catalog is filled by one earlier launch; the router is then started
// again on the same database. The go-sdk server gives every list ttlMs 0:
// the persisted lists are stale (reported so), still searched, and fetched
// anew when the call starts the server.
//
// On the code before auto starts every server was eager: all 20 processes
// ran at the second launch (and never stopped).
func TestTwentyLazyServers(t *testing.T) {
	bin := testpeers.GoEverything(t)
	marker := fmt.Sprintf("lazy20-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { testpeers.WaitNoProcesses(t, marker, 10*time.Second) })
	dir := t.TempDir()
	ctx := context.Background()
	var names []string
	for i := 1; i <= 20; i++ {
		names = append(names, fmt.Sprintf("s%02d", i))
	}
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Settings.Set(ctx, settings.KeyLazyIdleSeconds, "1"); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		def := spec.Server{Name: n, Transport: spec.Stdio, Command: bin, Enabled: true, Env: map[string]string{"MCPR_TEST_MARKER": marker}}
		if _, err := c.Store.Servers().Create(ctx, def); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Profiles.Create(ctx, store.Profile{Name: "finder", Mode: profile.ModeSearch, Servers: names}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	processes := func() int { return len(testpeers.ProcessesWithMarker(marker)) }

	t.Run("first launch fills the catalog, then every server stops", func(t *testing.T) {
		ep := serve(t, dir, nil, true)
		testpeers.Eventually(t, 60*time.Second, "every server listed its tools and stopped", func() bool {
			for _, n := range names {
				if !ep.core.hasPersistedLists(n) {
					return false
				}
			}
			return len(runningServers(ep.core)) == 0 && processes() == 0
		})
	})

	t.Run("second launch: nothing runs until a call", func(t *testing.T) {
		ep := serve(t, dir, nil, true)
		if n := processes(); n != 0 {
			t.Fatalf("at launch %d upstream processes run (want none): servers %v", n, runningServers(ep.core))
		}
		cl, err := mcpClient(t, ep.url+"/finder", "")
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, n := range searchNames(t, cl, "simple text response") {
			if server, tool, ok := strings.Cut(n, "__"); ok && tool == "test_simple_text" {
				found[server] = true
			}
		}
		if len(found) < 15 {
			t.Fatalf("search found the simple-text tool of %d stopped servers (%v), want most of the 20", len(found), found)
		}
		time.Sleep(300 * time.Millisecond) // anything a search set off would show by now
		if n := processes(); n != 0 {
			t.Fatalf("after a search %d upstream processes run (want none)", n)
		}

		before, err := ep.core.Catalog.Lists(ctx, "s07")
		if err != nil || !slices.Contains(before.Stale, catalog.ListTools) {
			t.Fatalf("s07's tools list (ttlMs %v, seen %v) not reported stale: %v %v", before.TTLs, before.SeenAt, before.Stale, err)
		}
		res, err := callText(t, cl, "call_tool", map[string]any{"name": "s07__test_simple_text", "arguments": map[string]any{}})
		if err != nil || res.IsError || !strings.Contains(textOf(res), "simple text response") {
			t.Fatalf("call_tool s07__test_simple_text: %v %+v", err, res)
		}
		if n, r := processes(), runningServers(ep.core); n != 1 || !slices.Equal(r, []string{"s07"}) {
			t.Fatalf("after a call of s07: %d processes, running %v (want s07's alone)", n, r)
		}
		if after, err := ep.core.Catalog.Lists(ctx, "s07"); err != nil || !after.SeenAt[catalog.ListTools].After(before.SeenAt[catalog.ListTools]) {
			t.Errorf("s07's stale tools list was not fetched anew by its start: seen %v, then %v (%v)",
				before.SeenAt[catalog.ListTools], after.SeenAt[catalog.ListTools], err)
		}
		testpeers.Eventually(t, 20*time.Second, "s07 stopped after the idle time", func() bool {
			return processes() == 0 && len(runningServers(ep.core)) == 0
		})
		if r := runningServers(ep.core); len(r) != 0 {
			t.Fatalf("running after the idle stop: %v", r)
		}
	})

}
