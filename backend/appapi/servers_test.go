package appapi

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func TestServerEditingStartStopAndTools(t *testing.T) {
	f := newFixture(t, everything(t, "everything"))
	f.waitState(t, "everything", "running")

	// Add a disabled server through the form; it shows up at once.
	v, err := f.api.AddServer(spec.Server{Name: "remote", URL: "http://127.0.0.1:1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "remote" || v.Transport != "http" || v.Enabled || v.State != "stopped" {
		t.Errorf("AddServer view = %+v", v)
	}
	if got := f.rec.states("remote"); len(got) == 0 {
		t.Error("no servers:changed for the added server")
	}
	cfg, err := f.api.GetServer("remote")
	if err != nil || cfg.URL != "http://127.0.0.1:1/mcp" || cfg.PrefixMode != spec.PrefixAlways {
		t.Errorf("GetServer = %+v, %v", cfg, err)
	}

	// Rename through UpdateServer: the old name is removed, the new one stored.
	cfg.Name = "remote2"
	cfg.Headers = map[string]string{"X-Key": "1"}
	if _, err := f.api.UpdateServer("remote", cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := f.api.GetServer("remote"); err == nil {
		t.Error("old name still stored after a rename")
	}
	if got, _ := f.api.GetServer("remote2"); got.Headers["X-Key"] != "1" {
		t.Errorf("renamed server = %+v", got)
	}

	bad := []struct {
		name string
		call func() error
		want string
	}{
		{"duplicate add", func() error { _, err := f.api.AddServer(everything(t, "everything")); return err }, "already exists"},
		{"invalid name", func() error {
			_, err := f.api.AddServer(spec.Server{Name: "bad name!", Command: "x"})
			return err
		}, "name"},
		{"no command or url", func() error { _, err := f.api.AddServer(spec.Server{Name: "empty"}); return err }, "empty"},
		{"rename onto an existing name", func() error {
			c, _ := f.api.GetServer("remote2")
			c.Name = "everything"
			_, err := f.api.UpdateServer("remote2", c)
			return err
		}, "already exists"},
		{"update unknown", func() error { _, err := f.api.UpdateServer("nope", cfg); return err }, "not found"},
		{"start unknown", func() error { return f.api.StartServer("nope") }, "not found"},
		{"start disabled", func() error { return f.api.StartServer("remote2") }, "disabled"},
		{"restart disabled", func() error { return f.api.RestartServer("remote2") }, "disabled"},
		{"bad prefix mode", func() error { return f.api.SetPrefixMode("everything", "sometimes") }, "want always or never"},
		{"tool of unknown server", func() error { return f.api.SetToolEnabled("nope", "echo", false) }, "not found"},
		{"empty tool name", func() error { return f.api.SetToolEnabled("everything", " ", false) }, "empty"},
		{"enable unknown", func() error { return f.api.SetServerEnabled("nope", true) }, "not found"},
		{"console of unknown", func() error { _, err := f.api.ServerConsole("nope"); return err }, "not found"},
	}
	for _, tc := range bad {
		wantErr(t, tc.name, tc.call(), tc.want)
	}
	// The failed rename left both servers as they were.
	if got, err := f.api.GetServer("remote2"); err != nil || got.URL != "http://127.0.0.1:1/mcp" {
		t.Errorf("after a refused rename: %+v, %v", got, err)
	}
	if got, err := f.api.GetServer("everything"); err != nil || got.Command == "" {
		t.Errorf("after a refused rename: %+v, %v", got, err)
	}

	// Runtime stop and start: the definition stays enabled.
	if err := f.api.StopServer("everything"); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.c.Servers.Status("everything"); st.State != upstream.StateStopped {
		t.Errorf("after StopServer: %s", st.State)
	}
	if cfg, _ := f.api.GetServer("everything"); !cfg.Enabled {
		t.Error("StopServer disabled the stored server")
	}
	if err := f.api.StartServer("everything"); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, "everything", "running")
	if err := f.api.RestartServer("everything"); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 30*time.Second, "a restart", func() bool {
		st, _ := f.c.Servers.Status("everything")
		return st.Restarts >= 1 && st.State == upstream.StateRunning
	})

	// Tools: the aggregated list, per-server flags, hiding one, prefix mode.
	waitTool := func(name string, present bool) {
		t.Helper()
		testpeers.Eventually(t, 10*time.Second, "tool "+name, func() bool {
			tools, _ := f.api.ListTools()
			return slices.ContainsFunc(tools, func(x AggregatedTool) bool { return x.Name == name }) == present
		})
	}
	waitTool("everything__echo", true)
	tools, err := f.api.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools, func(x AggregatedTool) bool { return x.Name == "everything__echo" })
	if echo := tools[i]; echo.Server != "everything" || echo.Tool != "echo" || echo.Description == "" ||
		!jsonHasKey(t, echo.InputSchema, "properties") {
		t.Errorf("echo = %+v", echo)
	}
	changed := len(f.rec.of(EventToolsChanged))
	if err := f.api.SetToolEnabled("everything", "echo", false); err != nil {
		t.Fatal(err)
	}
	waitTool("everything__echo", false)
	testpeers.Eventually(t, 5*time.Second, "tools:changed", func() bool { return len(f.rec.of(EventToolsChanged)) > changed })
	st, err := f.api.ServerTools("everything")
	if err != nil {
		t.Fatal(err)
	}
	j := slices.IndexFunc(st, func(x ServerTool) bool { return x.Name == "echo" })
	if j < 0 || st[j].Enabled || st[j].FinalName != "everything__echo" {
		t.Errorf("ServerTools echo = %+v", st)
	}
	if cfg, _ := f.api.GetServer("everything"); !slices.Equal(cfg.DisabledTools, []string{"echo"}) {
		t.Errorf("disabled tools stored = %v", cfg.DisabledTools)
	}
	if err := f.api.SetToolEnabled("everything", "echo", true); err != nil {
		t.Fatal(err)
	}
	if err := f.api.SetPrefixMode("everything", "never"); err != nil {
		t.Fatal(err)
	}
	waitTool("echo", true)
	waitTool("everything__echo", false)

	if lines, err := f.api.ServerConsole("everything"); err != nil || lines == nil {
		t.Errorf("ServerConsole = %v, %v", lines, err)
	}
	if lines, err := f.api.ServerConsole("remote2"); err != nil || len(lines) != 0 {
		t.Errorf("console of a never-started server = %v, %v", lines, err)
	}

	// Disable through the API: stored and stopped.
	if err := f.api.SetServerEnabled("everything", false); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.c.Servers.Status("everything"); st.State != upstream.StateStopped {
		t.Errorf("disabled server is %s", st.State)
	}
	if err := f.api.StartServer("everything"); !errors.Is(err, upstream.ErrDisabled) {
		t.Errorf("starting a disabled server: %v", err)
	}
}

func jsonHasKey(t *testing.T, v any, key string) bool {
	t.Helper()
	var m map[string]any
	if err := jsonUnmarshalString(mustJSON(t, v), &m); err != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// TestStopServerCancelsASlowStart: a server whose command prints a burst
// of 1,000 stderr lines and then never answers the handshake (an npx still
// downloading) is stopped from the UI while it starts; every console line
// reaches the UI in a few batches, none lost, in order.
func TestStopServerCancelsASlowStartAndBatchesItsConsole(t *testing.T) {
	mark := marker(t)
	slow := spec.Server{Name: "slow", Command: "sh", Enabled: true,
		Args: []string{"-c", `i=1; while [ $i -le 1000 ]; do echo "line $i" >&2; i=$((i+1)); done; exec sleep 300`},
		Env:  map[string]string{"MCPR_TEST_MARKER": mark}}
	f := newFixture(t, slow)
	lines := func() []string {
		var out []string
		for _, d := range f.rec.of(EventConsoleLines) {
			if c := d.(ConsoleLines); c.Server == "slow" {
				out = append(out, c.Lines...)
			}
		}
		return out
	}
	testpeers.Eventually(t, 20*time.Second, "1,000 console lines", func() bool { return len(lines()) >= 1000 })
	got := lines()
	if len(got) != 1000 {
		t.Fatalf("%d lines, want 1000", len(got))
	}
	for i, l := range got {
		if want := "line " + itoa(i+1); l != want {
			t.Fatalf("line %d = %q, want %q", i, l, want)
		}
	}
	batches := 0
	for _, d := range f.rec.of(EventConsoleLines) {
		if d.(ConsoleLines).Server == "slow" {
			batches++
		}
	}
	if batches > 50 {
		t.Errorf("1,000 lines came in %d events; the console is not batched", batches)
	}
	t.Logf("1,000 lines in %d console:lines events", batches)
	if st, _ := f.c.Servers.Status("slow"); st.State != upstream.StateStarting {
		t.Fatalf("slow is %s, want starting", st.State)
	}
	start := time.Now()
	if err := f.api.StopServer("slow"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("StopServer took %s", d)
	}
	testpeers.WaitNoProcesses(t, mark, 5*time.Second)
	testpeers.Eventually(t, 5*time.Second, "a stopped event", func() bool { return f.rec.lastState("slow") == "stopped" })
	if cons, _ := f.api.ServerConsole("slow"); len(cons) != 1000 || cons[0] != "line 1" {
		t.Errorf("ServerConsole = %d lines", len(cons))
	}
}

// passUpstreamAuth through the browser UI's API, as the server form sends
// it: stored on add, kept by an edit that sends it back, cleared by one
// that leaves it out, refused for a stdio server with the stored one left
// as it was.
func TestPassUpstreamAuthThroughTheUIAPI(t *testing.T) {
	h := newHTTPFixture(t, nil)
	get := func() map[string]any {
		t.Helper()
		r := h.call(t, "GetServer", h.token, `["gh"]`)
		var cfg map[string]any
		if r.code != 200 || json.Unmarshal([]byte(r.body), &cfg) != nil {
			t.Fatalf("GetServer: %d %s", r.code, r.body)
		}
		return cfg
	}
	add := `[{"name":"gh","transport":"http","url":"http://127.0.0.1:1/mcp","enabled":false,"prefixMode":"always","passUpstreamAuth":true}]`
	if r := h.call(t, "AddServer", h.token, add); r.code != 200 {
		t.Fatalf("AddServer: %d %s", r.code, r.body)
	}
	cfg := get()
	if cfg["passUpstreamAuth"] != true {
		t.Fatalf("stored %v", cfg)
	}
	// An edit of another field sends the whole config back: kept.
	cfg["headers"] = map[string]string{"X-Team": "a"}
	if r := h.call(t, "UpdateServer", h.token, mustJSON(t, []any{"gh", cfg})); r.code != 200 {
		t.Fatalf("UpdateServer: %d %s", r.code, r.body)
	}
	if got := get(); got["passUpstreamAuth"] != true {
		t.Errorf("after an edit: %v", got)
	}
	// Turned into a stdio server with the flag still on: refused, nothing changed.
	stdio := map[string]any{"name": "gh", "transport": "stdio", "command": "node", "enabled": false, "prefixMode": "always", "passUpstreamAuth": true}
	if r := h.call(t, "UpdateServer", h.token, mustJSON(t, []any{"gh", stdio})); r.code == 200 || !strings.Contains(errorOf(t, r), "passUpstreamAuth is for http and sse servers") {
		t.Errorf("stdio with the flag: %d %s", r.code, r.body)
	}
	if got := get(); got["transport"] != "http" || got["passUpstreamAuth"] != true {
		t.Errorf("after a refused edit: %v", got)
	}
	// Unticked: the form leaves the field out.
	delete(cfg, "passUpstreamAuth")
	if r := h.call(t, "UpdateServer", h.token, mustJSON(t, []any{"gh", cfg})); r.code != 200 {
		t.Fatalf("UpdateServer: %d %s", r.code, r.body)
	}
	if got := get(); got["passUpstreamAuth"] != nil {
		t.Errorf("after unticking: %v", got)
	}
}
