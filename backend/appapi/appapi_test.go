package appapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// recorder is a fake Emitter that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []event
}

// Observer: the tests' recorder is no UI a person answers approvals in
// (approvals_test.go attaches a real event stream for that).
func (*recorder) Observer() {}

type event struct {
	name string
	data any
}

func (r *recorder) Emit(name string, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{name, data})
}

// of returns the payloads of the named event, in order.
func (r *recorder) of(name string) []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []any
	for _, e := range r.events {
		if e.name == name {
			out = append(out, e.data)
		}
	}
	return out
}

func (r *recorder) states(server string) []string {
	var out []string
	for _, d := range r.of(EventServersChanged) {
		if v := d.(ServerView); v.Name == server {
			out = append(out, v.State)
		}
	}
	return out
}

func (r *recorder) lastState(server string) string {
	st := r.states(server)
	if len(st) == 0 {
		return ""
	}
	return st[len(st)-1]
}

type fixture struct {
	c   *core.Core
	api *API
	rec *recorder
	// autostart records the calls SaveSettings made.
	autostartMu  sync.Mutex
	autostart    []bool
	autostartErr error
}

// newFixture runs a real router over a temp data dir with the given
// servers stored, and attaches a recorder. The database poll is off (an
// hour), so every change the tests see was applied by the API itself.
func newFixture(t *testing.T, servers ...spec.Server) *fixture {
	t.Helper()
	return newFixtureWith(t, core.Options{}, servers...)
}

// newFixtureWith is newFixture with the core's options (a test's logger).
func newFixtureWith(t *testing.T, o core.Options, servers ...spec.Server) *fixture {
	t.Helper()
	c, err := core.Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	for _, s := range servers {
		if _, err := c.Store.Servers().Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{c: c, rec: &recorder{}}
	f.api = New(c, Options{BatchInterval: 50 * time.Millisecond, Autostart: func(on bool) error {
		f.autostartMu.Lock()
		defer f.autostartMu.Unlock()
		if f.autostartErr != nil {
			return f.autostartErr
		}
		f.autostart = append(f.autostart, on)
		return nil
	}, Executable: func() (string, error) { return "/opt/mcp-router/mcp-router", nil }})
	t.Cleanup(func() { Close(f.api) })
	detach := Attach(f.api, f.rec)
	t.Cleanup(detach)
	if err := c.Run(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	return f
}

func everything(t *testing.T, name string) spec.Server {
	return spec.Server{Name: name, Command: testpeers.Everything(t), Args: []string{"stdio"}, Enabled: true,
		Env: map[string]string{"MCPR_TEST_MARKER": marker(t)}}
}

func marker(t *testing.T) string {
	return fmt.Sprintf("appapi-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
}

func (f *fixture) waitState(t *testing.T, server, state string) {
	t.Helper()
	testpeers.Eventually(t, 30*time.Second, server+" "+state, func() bool {
		st, err := f.c.Servers.Status(server)
		return err == nil && string(st.State) == state
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantErr(t *testing.T, what string, err error, contains string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", what, contains)
		return
	}
	if !strings.Contains(err.Error(), contains) {
		t.Errorf("%s: error %q does not contain %q", what, err, contains)
	}
}

func TestListServersAndStateEvents(t *testing.T) {
	f := newFixture(t, everything(t, "everything"),
		spec.Server{Name: "off", URL: "http://127.0.0.1:1/mcp", Enabled: false})
	testpeers.Eventually(t, 30*time.Second, "a running event", func() bool { return f.rec.lastState("everything") == "running" })
	views, err := f.api.ListServers()
	if err != nil || len(views) != 2 {
		t.Fatalf("ListServers = %v, %v", views, err)
	}
	ev, off := views[0], views[1]
	if ev.Name != "everything" || ev.State != "running" || ev.Tools == 0 || ev.Transport != "stdio" || ev.PrefixMode != "always" {
		t.Errorf("everything view = %+v", ev)
	}
	// When it started running, in ms since the epoch: the page counts from it.
	if now := time.Now().UnixMilli(); ev.StateSince <= 0 || ev.StateSince > now || now-ev.StateSince > 60_000 {
		t.Errorf("everything running since %d (now %d)", ev.StateSince, now)
	}
	if off.State != "stopped" || off.Enabled || off.Target != "http://127.0.0.1:1/mcp" {
		t.Errorf("off view = %+v", off)
	}
	if err := f.api.RemoveServer("off"); err != nil {
		t.Fatal(err)
	}
	if got := f.rec.of(EventServerRemoved); len(got) != 1 || got[0] != "off" {
		t.Errorf("removed events = %v", got)
	}
	if err := f.api.RemoveServer("off"); err == nil {
		t.Error("removing a removed server succeeded")
	}
}

// Each server's protocol revision: the connection's, and those the server
// named in its answer to server/discover (server-everything over stdio is
// not asked; the go-sdk server over stateless HTTP names 2026-07-28 and
// the handshake's revisions, and the router's connection is on 2026-07-28).
func TestServerViewProtocols(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t)
	gosdk := spec.Server{Name: "gosdk", Transport: spec.HTTP, URL: "http://" + addr + "/mcp", Enabled: true}
	f := newFixture(t, everything(t, "everything"), gosdk)
	for _, name := range []string{"everything", "gosdk"} {
		testpeers.Eventually(t, 30*time.Second, name+" running", func() bool { return f.rec.lastState(name) == "running" })
	}
	views, err := f.api.ListServers()
	if err != nil || len(views) != 2 {
		t.Fatalf("ListServers = %v, %v", views, err)
	}
	ev, gs := views[0], views[1]
	if ev.Protocol != "2025-11-25" || len(ev.ProtocolsOffered) != 0 {
		t.Errorf("server-everything: protocol %q, offered %v", ev.Protocol, ev.ProtocolsOffered)
	}
	if gs.Protocol != "2026-07-28" || len(gs.ProtocolsOffered) == 0 || gs.ProtocolsOffered[0] != "2026-07-28" {
		t.Errorf("go-sdk server: protocol %q, offered %v", gs.Protocol, gs.ProtocolsOffered)
	}
	raw, err := json.Marshal(gs)
	if err != nil || !strings.Contains(string(raw), `"protocol":"2026-07-28","protocolsOffered":["2026-07-28",`) {
		t.Errorf("go-sdk server's view as JSON: %s", raw)
	}
}

func jsonUnmarshalString(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func itoa(i int) string { return fmt.Sprint(i) }
