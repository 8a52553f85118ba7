package core

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// openWithIdle makes a data directory whose lazy servers idle out after 1 s,
// holding defs and profiles, and closes it.
func openWithIdle(t *testing.T, defs []spec.Server, profiles []store.Profile) string {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Settings.Set(ctx, settings.KeyLazyIdleSeconds, "1"); err != nil {
		t.Fatal(err)
	}
	for _, d := range defs {
		if _, err := c.Store.Servers().Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range profiles {
		if _, err := c.Profiles.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// An auto start follows the profiles while the router runs: a running
// (eager) server that a search profile comes to hold alone turns lazy and
// stops once idle; when that profile goes, it is eager again and starts.
// Before, auto did not exist: the server ran throughout.
func TestAutoStartFollowsProfiles(t *testing.T) {
	bin := testpeers.GoEverything(t)
	marker := fmt.Sprintf("autostart-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { testpeers.WaitNoProcesses(t, marker, 10*time.Second) })
	dir := openWithIdle(t, []spec.Server{{Name: "a", Transport: spec.Stdio, Command: bin, Enabled: true,
		Env: map[string]string{"MCPR_TEST_MARKER": marker}}}, nil)
	ep := serve(t, dir, nil, true)
	ctx := context.Background()
	if r := runningServers(ep.core); !slices.Equal(r, []string{"a"}) {
		t.Fatalf("a server in no profile is eager: running %v", r)
	}
	if _, err := ep.core.Profiles.Create(ctx, store.Profile{Name: "finder", Mode: profile.ModeSearch, Servers: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 20*time.Second, "a, now only in a search profile, stopped once idle", func() bool {
		return len(runningServers(ep.core)) == 0 && len(testpeers.ProcessesWithMarker(marker)) == 0
	})
	if def, err := ep.core.Servers.Definition("a"); err != nil || !def.IsLazy() {
		t.Fatalf("a's definition as the router holds it: %+v %v", def, err)
	}
	if err := ep.core.Profiles.Remove(ctx, "finder"); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 20*time.Second, "a, in no profile again, started (eager)", func() bool {
		return slices.Equal(runningServers(ep.core), []string{"a"}) && len(testpeers.ProcessesWithMarker(marker)) == 1
	})
}

// Seed 000's diagram: a gated server (auto, so lazy) is [locked,
// disconnected] at launch. While stopped its tools are listed from the
// persisted catalog (locked: a call gets the lock message and starts
// nothing), a gated profile's activate tool names them, and so does the
// activate tool of a gate that hides its tools (with the default message),
// and search_tools finds them; activation starts it, and then its tools
// answer. Before, a gated server started at
// launch, and one left stopped listed only what this process had seen of it
// (nothing at launch).
func TestGatedLazyServerLockedAndDisconnected(t *testing.T) {
	bin := testpeers.GoEverything(t)
	marker := fmt.Sprintf("gatedlazy-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { testpeers.WaitNoProcesses(t, marker, 10*time.Second) })
	env := map[string]string{"MCPR_TEST_MARKER": marker}
	dir := openWithIdle(t, []spec.Server{
		{Name: "g", Transport: spec.Stdio, Command: bin, Enabled: true, Env: env, Gate: spec.Gate{Enabled: true}},
		{Name: "l", Transport: spec.Stdio, Command: bin, Enabled: true, Env: env, Start: spec.StartLazy},
		{Name: "h", Transport: spec.Stdio, Command: bin, Enabled: true, Env: env, Gate: spec.Gate{Enabled: true, HideTools: true}},
	}, []store.Profile{{Name: "big", Mode: profile.ModeGated, Servers: []string{"g", "l"}},
		{Name: "find", Mode: profile.ModeSearch, Servers: []string{"g"}}})
	processes := func() int { return len(testpeers.ProcessesWithMarker(marker)) }

	t.Run("first launch fills the catalog", func(t *testing.T) {
		ep := serve(t, dir, nil, true)
		testpeers.Eventually(t, 30*time.Second, "both listed their tools and stopped", func() bool {
			return ep.core.hasPersistedLists("g") && ep.core.hasPersistedLists("l") && ep.core.hasPersistedLists("h") &&
				len(runningServers(ep.core)) == 0 && processes() == 0
		})
	})

	ep := serve(t, dir, nil, true)
	if n, r := processes(), runningServers(ep.core); n != 0 || len(r) != 0 {
		t.Fatalf("at launch: %d processes, running %v (want none: [locked, disconnected])", n, r)
	}
	call := bearerSession(t, ep.url, "")
	listed := toolDescriptions(t, call)
	if _, ok := listed["g__activate"]; !ok {
		t.Fatalf("g's activate tool not listed while g is stopped: %v", listed)
	}
	if _, ok := listed["g__test_simple_text"]; !ok {
		t.Fatalf("g's tools not listed (locked) from the persisted catalog while it is stopped: %v", listed)
	}
	// h hides its tools until activation: its activate tool's (default)
	// description names them, from the persisted catalog.
	if d := listed["h__activate"]; !strings.Contains(d, "The h tools are locked: call h__activate first. h has 28 tools: json_schema_2020_12_tool,") {
		t.Errorf("h__activate's description gives no overview of the stopped server: %q", d)
	}
	if _, ok := listed["h__test_simple_text"]; ok {
		t.Errorf("h's tools listed before activation")
	}
	b := call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"g__test_simple_text","arguments":{}}}`)
	if !strings.Contains(string(b), "locked") {
		t.Fatalf("a locked call: %s", b)
	}
	if n := processes(); n != 0 {
		t.Fatalf("a locked call started %d processes", n)
	}

	big := bearerSession(t, ep.url+"/big", "")
	overview := toolDescriptions(t, big)
	// l has no gate of its own: the profile's activate tool names its tools
	// (the first 12 of 28). g keeps its own gate's message.
	if d := overview["l__activate"]; !strings.Contains(d, "l has 28 tools: json_schema_2020_12_tool, test_audio_content") {
		t.Errorf("the gated profile's l__activate does not name the stopped server's tools: %q", d)
	}
	if _, ok := overview["g__activate"]; !ok {
		t.Errorf("the gated profile lacks g__activate: %v", overview)
	}
	if n := processes(); n != 0 {
		t.Fatalf("listing started %d processes", n)
	}

	finder, err := mcpClient(t, ep.url+"/find", "")
	if err != nil {
		t.Fatal(err)
	}
	if found := searchNames(t, finder, "simple text response"); !slices.Contains(found, "g__test_simple_text") {
		t.Errorf("search on a search profile does not find the stopped gated server's tool: %v", found)
	}
	if n := processes(); n != 0 {
		t.Fatalf("a search started %d processes", n)
	}

	b = call(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"g__activate","arguments":{}}}`)
	if strings.Contains(string(b), `"isError":true`) || strings.Contains(string(b), `"error"`) {
		t.Fatalf("activate g: %s", b)
	}
	if n, r := processes(), runningServers(ep.core); n != 1 || !slices.Equal(r, []string{"g"}) {
		t.Fatalf("after activating g: %d processes, running %v (want g's alone)", n, r)
	}
	b = call(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"g__test_simple_text","arguments":{}}}`)
	if !strings.Contains(string(b), "This is a simple text response for testing") {
		t.Fatalf("g's tool once activated: %s", b)
	}
	testpeers.Eventually(t, 20*time.Second, "g stopped after the idle time", func() bool { return processes() == 0 && len(runningServers(ep.core)) == 0 })
}
