package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// fastOptions keep supervision snappy so tests take seconds, not minutes.
func fastOptions() Options {
	return Options{
		BackoffBase:  50 * time.Millisecond,
		BackoffMax:   500 * time.Millisecond,
		PingInterval: 200 * time.Millisecond,
		PingTimeout:  300 * time.Millisecond,
		StartTimeout: 30 * time.Second,
	}
}

func newTestService(t *testing.T) *Service {
	t.Helper()
	s := New(fastOptions())
	t.Cleanup(s.Close)
	return s
}

// marker tags every process a test starts, so it can prove none survive.
func marker(t *testing.T) string {
	return fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
}

func everythingStdio(t *testing.T, name, mark string) spec.Server {
	s := spec.Server{Name: name, Command: testpeers.Everything(t), Args: []string{"stdio"},
		Env: map[string]string{"MCPR_TEST_MARKER": mark}, Enabled: true}
	s.Normalize()
	return s
}

func fakeServer(name, mode, mark string) spec.Server {
	s := spec.Server{Name: name, Command: os.Args[0],
		Env: map[string]string{"MCPR_FAKE_MODE": mode, "MCPR_TEST_MARKER": mark}, Enabled: true}
	s.Normalize()
	return s
}

func waitState(t *testing.T, s *Service, name string, want State, timeout time.Duration) Status {
	t.Helper()
	var st Status
	testpeers.Eventually(t, timeout, fmt.Sprintf("%s to be %s", name, want), func() bool {
		st, _ = s.Status(name)
		return st.State == want
	})
	return st
}

func toolNames(c Catalog) []string {
	var names []string
	for _, t := range c.Tools {
		names = append(names, t.Name)
	}
	return names
}

func callEcho(t *testing.T, s *Service, server, msg string) string {
	t.Helper()
	raw, err := s.Request(context.Background(), server, "tools/call",
		map[string]any{"name": "echo", "arguments": map[string]any{"message": msg}})
	if err != nil {
		t.Fatalf("echo via %s: %v", server, err)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("echo result %s: %v", raw, err)
	}
	return res.Content[0].Text
}

func TestStdioEverythingServesAndStopsCleanly(t *testing.T) {
	mark := marker(t)
	s := newTestService(t)
	if err := s.Sync([]spec.Server{everythingStdio(t, "everything", mark)}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "everything", StateRunning, 30*time.Second)
	if st.PID == 0 || st.Tools == 0 || st.ServerName == "" {
		t.Fatalf("running status incomplete: %+v", st)
	}
	cat, _ := s.Catalog("everything")
	names := strings.Join(toolNames(cat), ",")
	for _, want := range []string{"echo", "get-sum"} {
		if !strings.Contains(names, want) {
			t.Errorf("tool %s missing from %s", want, names)
		}
	}
	if len(cat.Resources) == 0 || len(cat.Prompts) == 0 {
		t.Errorf("resources (%d) and prompts (%d) should be cached", len(cat.Resources), len(cat.Prompts))
	}
	// The schema is kept verbatim, not re-encoded from a typed struct.
	for _, tool := range cat.Tools {
		if tool.Name == "echo" && !strings.Contains(string(tool.Raw), `"inputSchema"`) {
			t.Errorf("echo raw definition lost its schema: %s", tool.Raw)
		}
	}
	if got := callEcho(t, s, "everything", "hello"); !strings.Contains(got, "hello") {
		t.Errorf("echo answered %q", got)
	}
	if len(testpeers.ProcessesWithMarker(mark)) == 0 {
		t.Fatal("no upstream process found while running")
	}
	s.Close()
	if st, _ := s.Status("everything"); st.State != StateStopped {
		t.Errorf("after Close state is %s", st.State)
	}
	testpeers.WaitNoProcesses(t, mark, 2*time.Second)
}

func TestStdioRestartsAfterSIGKILL(t *testing.T) {
	mark := marker(t)
	s := newTestService(t)
	var mu sync.Mutex
	var states []State
	defer s.Subscribe(func(e Event) {
		if e.Kind == EventState && e.Server == "everything" {
			mu.Lock()
			states = append(states, e.Status.State)
			mu.Unlock()
		}
	})()
	_ = s.Sync([]spec.Server{everythingStdio(t, "everything", mark)})
	first := waitState(t, s, "everything", StateRunning, 30*time.Second)

	if err := testpeers.KillProcess(first.PID); err != nil {
		t.Fatal(err)
	}
	var st Status
	testpeers.Eventually(t, 30*time.Second, "a restarted, running server", func() bool {
		st, _ = s.Status("everything")
		return st.State == StateRunning && st.Restarts == 1 && st.PID != first.PID
	})
	if got := callEcho(t, s, "everything", "again"); !strings.Contains(got, "again") {
		t.Errorf("echo after restart answered %q", got)
	}
	mu.Lock()
	seen := fmt.Sprint(states)
	mu.Unlock()
	if !strings.Contains(seen, string(StateRestarting)) {
		t.Errorf("subscribers never saw %s: %s", StateRestarting, seen)
	}
}

func TestOneFailingServerDoesNotHoldUpOthers(t *testing.T) {
	mark := marker(t)
	s := newTestService(t)
	missing := spec.Server{Name: "missing", Command: "/nonexistent/mcp-server", Enabled: true}
	missing.Normalize()
	crashing := fakeServer("crashing", "exit", mark)
	disabled := everythingStdio(t, "disabled", mark)
	disabled.Enabled = false
	_ = s.Sync([]spec.Server{missing, crashing, everythingStdio(t, "good", mark), disabled})

	waitState(t, s, "good", StateRunning, 30*time.Second)
	st := waitState(t, s, "missing", StateErrored, 10*time.Second)
	if !strings.Contains(st.Error, "not found") {
		t.Errorf("missing command error = %q", st.Error)
	}
	st = waitState(t, s, "crashing", StateErrored, 10*time.Second)
	if st.Error == "" {
		t.Error("crashing server has no reason")
	}
	console, _ := s.Console("crashing")
	if !strings.Contains(strings.Join(console, "\n"), "missing API key") {
		t.Errorf("crash output not captured: %q", console)
	}
	if st, _ := s.Status("disabled"); st.State != StateStopped {
		t.Errorf("disabled server is %s", st.State)
	}
}

func TestHTTPUpstreamReinitializesAfterServerRestart(t *testing.T) {
	mark := marker(t)
	port := testpeers.FreePort(t)
	peer := testpeers.StartEverythingHTTP(t, "streamableHttp", port, mark)
	s := newTestService(t)
	def := spec.Server{Name: "remote", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), Enabled: true}
	def.Normalize()
	_ = s.Sync([]spec.Server{def})
	first := waitState(t, s, "remote", StateRunning, 30*time.Second)
	if first.SessionID == "" {
		t.Fatal("no session id from streamable HTTP")
	}
	callEcho(t, s, "remote", "before")

	// Back at once: the old session is rejected (404, or server-everything's 400).
	peer.Kill()
	peer = testpeers.StartEverythingHTTP(t, "streamableHttp", port, mark)
	var st Status
	testpeers.Eventually(t, 30*time.Second, "a new session", func() bool {
		st, _ = s.Status("remote")
		return st.State == StateRunning && st.SessionID != "" && st.SessionID != first.SessionID
	})
	if st.Restarts < 1 {
		t.Errorf("restarts = %d", st.Restarts)
	}
	if got := callEcho(t, s, "remote", "after"); !strings.Contains(got, "after") {
		t.Errorf("echo after re-init answered %q", got)
	}

	// Down long enough for the health check to notice: the supervisor
	// keeps retrying until the server is back.
	second := st
	peer.Kill()
	testpeers.Eventually(t, 10*time.Second, "the loss to be noticed", func() bool {
		st, _ = s.Status("remote")
		return st.State == StateRestarting || st.State == StateErrored
	})
	testpeers.StartEverythingHTTP(t, "streamableHttp", port, mark)
	testpeers.Eventually(t, 30*time.Second, "a third session", func() bool {
		st, _ = s.Status("remote")
		return st.State == StateRunning && st.SessionID != "" && st.SessionID != second.SessionID
	})
	if got := callEcho(t, s, "remote", "third"); !strings.Contains(got, "third") {
		t.Errorf("echo after the outage answered %q", got)
	}
}

func TestSSEUpstream(t *testing.T) {
	mark := marker(t)
	port := testpeers.FreePort(t)
	testpeers.StartEverythingHTTP(t, "sse", port, mark)
	s := newTestService(t)
	def := spec.Server{Name: "legacy", Transport: spec.SSE, URL: fmt.Sprintf("http://127.0.0.1:%d/sse", port), Enabled: true}
	def.Normalize()
	_ = s.Sync([]spec.Server{def})
	waitState(t, s, "legacy", StateRunning, 30*time.Second)
	if got := callEcho(t, s, "legacy", "over sse"); !strings.Contains(got, "over sse") {
		t.Errorf("echo answered %q", got)
	}
}

func TestGoSDKEverythingServerOverStdio(t *testing.T) {
	s := newTestService(t)
	def := spec.Server{Name: "gosdk", Command: testpeers.GoEverything(t), Enabled: true}
	def.Normalize()
	_ = s.Sync([]spec.Server{def})
	st := waitState(t, s, "gosdk", StateRunning, 30*time.Second)
	cat, _ := s.Catalog("gosdk")
	if st.Tools == 0 || !strings.Contains(strings.Join(toolNames(cat), ","), "test_simple_text") {
		t.Errorf("go-sdk everything-server tools: %v", toolNames(cat))
	}
}

func TestToolsListChangedRefreshesCache(t *testing.T) {
	s := newTestService(t)
	events := make(chan Event, 16)
	defer s.Subscribe(func(e Event) {
		if e.Kind == EventCatalog {
			events <- e
		}
	})()
	_ = s.Sync([]spec.Server{fakeServer("dyn", "listchanged", marker(t))})
	waitState(t, s, "dyn", StateRunning, 10*time.Second)
	<-events // the initial catalog
	if _, err := s.Request(context.Background(), "dyn", "tools/call", map[string]any{"name": "grow"}); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-events:
		if fmt.Sprint(e.Lists) != "[tools]" {
			t.Errorf("changed lists = %v", e.Lists)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no catalog event after list_changed")
	}
	cat, _ := s.Catalog("dyn")
	names := toolNames(cat)
	sort.Strings(names)
	if got := strings.Join(names, ","); got != "extra,grow" {
		t.Errorf("tools after refresh = %s", got)
	}
}

func TestHungServerIsRestartedByHealthCheck(t *testing.T) {
	s := newTestService(t)
	_ = s.Sync([]spec.Server{fakeServer("hung", "hang", marker(t))})
	waitState(t, s, "hung", StateRunning, 10*time.Second)
	st := waitState(t, s, "hung", StateRestarting, 10*time.Second)
	if !strings.Contains(st.Error, "health check failed") {
		t.Errorf("reason = %q", st.Error)
	}
}

func TestStopKillsStubbornProcessTree(t *testing.T) {
	old := [2]time.Duration{stdinGrace, termGrace}
	stdinGrace, termGrace = 200*time.Millisecond, 200*time.Millisecond
	defer func() { stdinGrace, termGrace = old[0], old[1] }()

	mark := marker(t)
	s := newTestService(t)
	_ = s.Sync([]spec.Server{fakeServer("stubborn", "stubborn", mark)})
	waitState(t, s, "stubborn", StateRunning, 10*time.Second)
	testpeers.Eventually(t, 5*time.Second, "the grandchild", func() bool {
		return len(testpeers.ProcessesWithMarker(mark)) >= 2
	})
	s.Close()
	testpeers.WaitNoProcesses(t, mark, 2*time.Second)
}

func TestStopCancelsAStartInProgressAndStartResumes(t *testing.T) {
	old := [2]time.Duration{stdinGrace, termGrace}
	stdinGrace, termGrace = 200*time.Millisecond, 200*time.Millisecond
	defer func() { stdinGrace, termGrace = old[0], old[1] }()

	mark := marker(t)
	s := newTestService(t)
	_ = s.Sync([]spec.Server{fakeServer("slow", "silent", mark), fakeServer("off", "listchanged", mark)})
	waitState(t, s, "slow", StateStarting, 5*time.Second)
	testpeers.Eventually(t, 5*time.Second, "the slow server and its child", func() bool {
		return len(testpeers.ProcessesWithMarker(mark)) >= 2
	})
	start := time.Now()
	if err := s.Stop("slow"); err != nil {
		t.Fatal(err)
	}
	// The start timeout is 30 s: returning well before it means the start
	// was cancelled, not waited out.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Stop took %s", d)
	}
	if st, _ := s.Status("slow"); st.State != StateStopped {
		t.Errorf("after Stop: %s", st.State)
	}
	waitState(t, s, "off", StateRunning, 10*time.Second)
	if err := s.Stop("off"); err != nil {
		t.Fatal(err)
	}
	// Only "slow"'s processes were ended by its Stop; "off" had one process
	// until its own Stop. Now none of either is left.
	testpeers.WaitNoProcesses(t, mark, 3*time.Second)

	// A Sync with unchanged definitions leaves stopped servers stopped.
	_ = s.Sync([]spec.Server{fakeServer("slow", "silent", mark), fakeServer("off", "listchanged", mark)})
	if st, _ := s.Status("off"); st.State != StateStopped {
		t.Errorf("Sync restarted a server the user stopped: %s", st.State)
	}
	if err := s.Start("off"); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "off", StateRunning, 10*time.Second)

	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"start unknown", func() error { return s.Start("nope") }, ErrUnknownServer},
		{"stop unknown", func() error { return s.Stop("nope") }, ErrUnknownServer},
		{"start disabled", func() error {
			d := fakeServer("disabled", "listchanged", mark)
			d.Enabled = false
			_ = s.Sync([]spec.Server{fakeServer("slow", "silent", mark), fakeServer("off", "listchanged", mark), d})
			return s.Start("disabled")
		}, ErrDisabled},
	}
	for _, tc := range cases {
		if err := tc.call(); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	if st, _ := s.Status("disabled"); st.State != StateStopped {
		t.Errorf("disabled server after a refused Start: %s", st.State)
	}
}

func TestSyncAddsRemovesAndToggles(t *testing.T) {
	mark := marker(t)
	s := newTestService(t)
	a := fakeServer("a", "listchanged", mark)
	b := fakeServer("b", "listchanged", mark)
	_ = s.Sync([]spec.Server{a, b})
	waitState(t, s, "a", StateRunning, 10*time.Second)
	waitState(t, s, "b", StateRunning, 10*time.Second)

	a.Enabled = false
	_ = s.Sync([]spec.Server{a})
	if _, err := s.Status("b"); err == nil {
		t.Error("removed server b still known")
	}
	if st, _ := s.Status("a"); st.State != StateStopped {
		t.Errorf("disabled a is %s", st.State)
	}
	if _, err := s.Request(context.Background(), "a", "tools/list", nil); err == nil {
		t.Error("request to a stopped server succeeded")
	}
	if _, err := s.Request(context.Background(), "nope", "tools/list", nil); err == nil || !strings.Contains(err.Error(), "unknown server") {
		t.Errorf("unknown server error = %v", err)
	}
	a.Enabled = true
	_ = s.Sync([]spec.Server{a})
	waitState(t, s, "a", StateRunning, 10*time.Second)
}

func TestConsoleIsBounded(t *testing.T) {
	s := New(Options{ConsoleLines: 100, PingInterval: time.Hour})
	t.Cleanup(s.Close)
	_ = s.Sync([]spec.Server{fakeServer("spam", "spam", marker(t))})
	testpeers.Eventually(t, 10*time.Second, "all stderr lines", func() bool {
		lines, _ := s.Console("spam")
		return len(lines) == 100 && lines[99] == "line 2999"
	})
	lines, _ := s.Console("spam")
	if lines[0] != "line 2900" {
		t.Errorf("oldest kept line = %q", lines[0])
	}
}

func TestProbeListsToolsAndLeavesNoProcess(t *testing.T) {
	mark := marker(t)
	var stderr strings.Builder
	res, err := Probe(context.Background(), everythingStdio(t, "everything", mark), Options{}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(toolNames(res.Catalog), ","), "echo") {
		t.Errorf("probe tools: %v", toolNames(res.Catalog))
	}
	testpeers.WaitNoProcesses(t, mark, 2*time.Second)
}

func TestProbeReportsStartFailures(t *testing.T) {
	mark := marker(t)
	cases := []struct {
		name string
		def  spec.Server
		want string
	}{
		{"missing command", spec.Server{Name: "x", Command: "/nonexistent/bin"}, "not found"},
		{"exits at once", fakeServer("x", "exit", mark), "exit status 3"},
		{"nothing listening", spec.Server{Name: "x", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", testpeers.FreePort(t))}, "connect"},
		{"malformed tools/list", fakeServer("x", "nameless", mark), "tools/list: an entry without a name"},
		{"bad cwd", spec.Server{Name: "x", Command: "sh", Cwd: "/nonexistent/dir"}, "/nonexistent/dir"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.def.Normalize()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := Probe(ctx, tc.def, Options{}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	testpeers.WaitNoProcesses(t, mark, 2*time.Second)
}

func TestBackoffIsExponentialAndCapped(t *testing.T) {
	s := New(Options{BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second})
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		if got := s.backoff(i + 1); got != w*time.Millisecond {
			t.Errorf("backoff(%d) = %s, want %s", i+1, got, w*time.Millisecond)
		}
	}
}

// Status.StateSince moves with every change of state, and only then.
func TestStateSinceFollowsTheState(t *testing.T) {
	mark := marker(t)
	s := newTestService(t)
	a := fakeServer("a", "listchanged", mark)
	before := time.Now()
	_ = s.Sync([]spec.Server{a})
	running := waitState(t, s, "a", StateRunning, 10*time.Second)
	if running.StateSince.Before(before) || running.StateSince.After(time.Now()) {
		t.Fatalf("running since %v, the test started at %v", running.StateSince, before)
	}
	time.Sleep(20 * time.Millisecond)
	// A refresh of the lists is no change of state.
	if st, _ := s.Status("a"); !st.StateSince.Equal(running.StateSince) {
		t.Fatalf("state since moved from %v to %v while running", running.StateSince, st.StateSince)
	}
	a.Enabled = false
	_ = s.Sync([]spec.Server{a})
	stopped := waitState(t, s, "a", StateStopped, 10*time.Second)
	if !stopped.StateSince.After(running.StateSince) {
		t.Fatalf("stopped since %v, running since %v", stopped.StateSince, running.StateSince)
	}
}
