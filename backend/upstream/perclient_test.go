package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// perClientWhoami is the fake whoami server as a per-client server whose
// args and env name its client.
func perClientWhoami(name, mark string) spec.Server {
	s := fakeServer(name, "whoami", mark)
	s.Args = []string{"--root", "${client.root}", "--all", "${client.roots}", "--name", "${client.name}"}
	s.Env["WHO"] = "token=${token.name}"
	s.Isolation = spec.PerClient
	return s
}

type whoami struct {
	Args []string `json:"args"`
	Who  string   `json:"who"`
	PID  int      `json:"pid"`
}

func callPerClientTool(ctx context.Context, s *Service, server, tool string) (string, error) {
	raw, err := s.Request(ctx, server, "tools/call", map[string]any{"name": tool})
	if err != nil {
		return "", err
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		return "", fmt.Errorf("result %s: %v", raw, err)
	}
	return res.Content[0].Text, nil
}

func askWhoami(t *testing.T, s *Service, server string, cl Client) whoami {
	t.Helper()
	text, err := callPerClientTool(WithClient(context.Background(), cl), s, server, "whoami")
	if err != nil {
		t.Fatalf("whoami for %s: %v", cl.Key, err)
	}
	var w whoami
	if err := json.Unmarshal([]byte(text), &w); err != nil {
		t.Fatalf("whoami %q: %v", text, err)
	}
	return w
}

func testClient(key, name, token string, roots ...string) Client {
	return Client{Key: key, Label: name + " " + key, Name: name, Token: token, Roots: true,
		ListRoots: func(context.Context) ([]string, error) { return roots, nil }}
}

// Two clients of a per-client server each get an instance of their own,
// started with their own values in the templates; the catalog connection
// took none of theirs. On the old code every request went down the one
// shared connection: one pid, no client's root in its args.
func TestPerClientInstancesAreSeparate(t *testing.T) {
	s := New(fastOptions())
	t.Cleanup(s.Close)
	mark := marker(t)
	if err := s.Sync([]spec.Server{perClientWhoami("who", mark)}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "who", StateRunning, 20*time.Second)
	a := testClient("session\x00a", "alpha", "tok-a", "file:///projects/a", "file:///shared/x")
	b := testClient("session\x00b", "beta", "tok-b", "file:///projects/b")
	wa, wb := askWhoami(t, s, "who", a), askWhoami(t, s, "who", b)
	if want := []string{"--root", "/projects/a", "--all", "/projects/a", "/shared/x", "--name", "alpha"}; strings.Join(wa.Args, " ") != strings.Join(want, " ") {
		t.Errorf("a's instance args %q, want %q", wa.Args, want)
	}
	if want := []string{"--root", "/projects/b", "--all", "/projects/b", "--name", "beta"}; strings.Join(wb.Args, " ") != strings.Join(want, " ") {
		t.Errorf("b's instance args %q, want %q", wb.Args, want)
	}
	if wa.Who != "token=tok-a" || wb.Who != "token=tok-b" {
		t.Errorf("WHO: a %q, b %q", wa.Who, wb.Who)
	}
	if wa.PID == wb.PID || wa.PID == st.PID || wb.PID == st.PID {
		t.Errorf("pids: a %d, b %d, catalog connection %d: want three processes", wa.PID, wb.PID, st.PID)
	}
	// The same client again: the same instance.
	if again := askWhoami(t, s, "who", a); again.PID != wa.PID {
		t.Errorf("a's second call went to pid %d, its instance is %d", again.PID, wa.PID)
	}
	st, _ = s.Status("who")
	if len(st.Instances) != 2 || st.Instances[0].Client != a.Label || st.Instances[0].PID != wa.PID ||
		st.Instances[0].Calls != 2 || st.Instances[1].PID != wb.PID || st.Instances[1].Calls != 1 {
		t.Errorf("instances %+v", st.Instances)
	}
	// No client: refused, not served by someone's instance.
	if _, err := callPerClientTool(context.Background(), s, "who", "whoami"); !errors.Is(err, ErrNoClient) {
		t.Errorf("a call for no client: %v, want ErrNoClient", err)
	}
	s.Close()
	testpeers.WaitNoProcesses(t, mark, 10*time.Second)
}

// What an instance asks goes to its own client, marked with its key: the
// service's ClientSide learns whose instance asks (InstanceClientFrom).
// Capabilities its client did not declare are not declared upstream.
func TestPerClientRequestsCarryTheirClient(t *testing.T) {
	o := fastOptions()
	var mu sync.Mutex
	var asked []string
	o.ClientSide.Roots = func(ctx context.Context, server string, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
		ic, ok := InstanceClientFrom(ctx)
		if !ok {
			return nil, errors.New("no instance client")
		}
		mu.Lock()
		asked = append(asked, ic.Key)
		mu.Unlock()
		return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///for/" + ic.Key}}}, nil
	}
	s := New(o)
	t.Cleanup(s.Close)
	mark := marker(t)
	def := fakeServer("who", "whoami", mark)
	def.Isolation = spec.PerClient
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "who", StateRunning, 20*time.Second)
	for _, key := range []string{"a", "b", "a"} {
		got, err := callPerClientTool(WithClient(context.Background(), testClient(key, key, "")), s, "who", "roots")
		if err != nil || got != "file:///for/"+key {
			t.Errorf("client %s's instance got roots %q, %v", key, got, err)
		}
	}
	mu.Lock()
	if strings.Join(asked, ",") != "a,b,a" {
		t.Errorf("asked for %q", asked)
	}
	mu.Unlock()
	// A client that declared no roots: its instance declares none either,
	// so the server cannot ask (and nobody is asked for it).
	noRoots := testClient("c", "c", "")
	noRoots.Roots = false
	got, _ := callPerClientTool(WithClient(context.Background(), noRoots), s, "who", "roots")
	if strings.Contains(got, "file://") {
		t.Errorf("a client without roots: its instance got %q", got)
	}
	mu.Lock()
	if len(asked) != 3 {
		t.Errorf("asked %q after the client without roots", asked)
	}
	mu.Unlock()
	// The catalog connection declares nothing: the server asked it nothing.
}

// The cap refuses a client past it with an error naming the cap and its
// setting; ending a client's session and idleness each stop its instance,
// leaving no process.
func TestPerClientCapIdleAndEnd(t *testing.T) {
	o := fastOptions()
	var limMu sync.Mutex
	limits := PerClientLimits{MaxInstances: 1, IdleTimeout: time.Hour}
	o.PerClient = func() PerClientLimits { limMu.Lock(); defer limMu.Unlock(); return limits }
	s := New(o)
	t.Cleanup(s.Close)
	mark := marker(t)
	if err := s.Sync([]spec.Server{perClientWhoami("who", mark)}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "who", StateRunning, 20*time.Second)
	a := testClient("a", "alpha", "t", "file:///a")
	b := testClient("b", "beta", "t", "file:///b")
	wa := askWhoami(t, s, "who", a)
	_, err := callPerClientTool(WithClient(context.Background(), b), s, "who", "whoami")
	if !errors.Is(err, ErrInstanceCap) || !strings.Contains(err.Error(), SettingPerClientMaxInstances) || !strings.Contains(err.Error(), "1 is its cap") {
		t.Fatalf("past the cap: %v", err)
	}
	// Restart restarts the instances too.
	if err := s.Restart("who"); err != nil {
		t.Fatal(err)
	}
	if testpeers.ProcessAlive(wa.PID) {
		t.Errorf("a's instance (pid %d) outlived a restart", wa.PID)
	}
	wa = askWhoami(t, s, "who", a)
	s.EndClient("a")
	if testpeers.ProcessAlive(wa.PID) {
		t.Errorf("a's instance (pid %d) outlived its session", wa.PID)
	}
	if st, _ := s.Status("who"); len(st.Instances) != 0 {
		t.Errorf("instances after the end: %+v", st.Instances)
	}
	wb := askWhoami(t, s, "who", b) // the cap has room again
	limMu.Lock()
	limits.IdleTimeout = 100 * time.Millisecond
	limMu.Unlock()
	testpeers.Eventually(t, 10*time.Second, "b's idle instance to stop", func() bool { return !testpeers.ProcessAlive(wb.PID) })
	testpeers.Eventually(t, 5*time.Second, "no instance listed", func() bool {
		st, _ := s.Status("who")
		return len(st.Instances) == 0
	})
	// Next use starts a fresh one.
	if again := askWhoami(t, s, "who", b); again.PID == wb.PID || !testpeers.ProcessAlive(again.PID) {
		t.Errorf("after idle: pid %d (was %d)", again.PID, wb.PID)
	}
}

// A client whose roots changed gets an instance on its new roots when the
// definition names them; a missing template value is a clear error; a
// stopped server runs no instance.
func TestPerClientRootsChangeAndMissingValues(t *testing.T) {
	s := New(fastOptions())
	t.Cleanup(s.Close)
	mark := marker(t)
	if err := s.Sync([]spec.Server{perClientWhoami("who", mark)}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "who", StateRunning, 20*time.Second)
	var mu sync.Mutex
	root := "file:///old"
	a := testClient("a", "alpha", "t")
	a.ListRoots = func(context.Context) ([]string, error) { mu.Lock(); defer mu.Unlock(); return []string{root}, nil }
	first := askWhoami(t, s, "who", a)
	mu.Lock()
	root = "file:///new"
	mu.Unlock()
	s.ClientRootsChanged("a")
	if testpeers.ProcessAlive(first.PID) {
		t.Errorf("the instance on the old roots (pid %d) still runs", first.PID)
	}
	if w := askWhoami(t, s, "who", a); w.Args[1] != "/new" {
		t.Errorf("after the change: args %q", w.Args)
	}

	nameless := testClient("n", "", "t", "file:///n")
	if _, err := callPerClientTool(WithClient(context.Background(), nameless), s, "who", "whoami"); !errors.Is(err, spec.ErrTemplateValue) || !strings.Contains(err.Error(), "${client.name}") {
		t.Errorf("a client with no name: %v", err)
	}
	rootless := testClient("r", "r", "t")
	if _, err := callPerClientTool(WithClient(context.Background(), rootless), s, "who", "whoami"); !errors.Is(err, spec.ErrTemplateValue) || !strings.Contains(err.Error(), "${client.root}") {
		t.Errorf("a client with no roots: %v", err)
	}
	if st, _ := s.Status("who"); len(st.Instances) != 1 {
		t.Errorf("failed starts left instances: %+v", st.Instances)
	}
	if err := s.Stop("who"); err != nil {
		t.Fatal(err)
	}
	if _, err := callPerClientTool(WithClient(context.Background(), a), s, "who", "whoami"); !errors.Is(err, ErrNotRunning) {
		t.Errorf("a stopped server: %v", err)
	}
	testpeers.WaitNoProcesses(t, mark, 10*time.Second)
}

// An HTTP per-client server: each client's instance is an HTTP session of
// its own (the go-sdk everything-server), apart from the catalog
// connection's, and ends with its client.
func TestPerClientHTTPInstancesAreSessionsOfTheirOwn(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=false")
	s := New(fastOptions())
	t.Cleanup(s.Close)
	def := spec.Server{Name: "web", URL: "http://" + addr + "/mcp", Enabled: true, Isolation: spec.PerClient,
		Headers: map[string]string{"X-Client": "${client.name}"}}
	def.Normalize()
	if err := def.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "web", StateRunning, 20*time.Second)
	sessions := map[string]string{"catalog": st.SessionID}
	for _, key := range []string{"a", "b"} {
		raw, err := s.Request(WithClient(context.Background(), testClient(key, "client-"+key, "t")), "web", "tools/list", nil)
		if err != nil || !strings.Contains(string(raw), `"tools"`) {
			t.Fatalf("client %s: %s, %v", key, raw, err)
		}
		m, _ := s.get("web")
		m.instMu.Lock()
		inst := m.instances[key]
		m.instMu.Unlock()
		if inst == nil || inst.conn == nil {
			t.Fatalf("client %s: no instance", key)
		}
		sessions[key] = inst.conn.tr.GetSessionId()
	}
	if sessions["a"] == "" || sessions["a"] == sessions["b"] || sessions["a"] == sessions["catalog"] || sessions["b"] == sessions["catalog"] {
		t.Errorf("sessions %v: want three different ones", sessions)
	}
	s.EndClient("a")
	if st, _ := s.Status("web"); len(st.Instances) != 1 || st.Instances[0].Client != testClient("b", "client-b", "t").Label {
		t.Errorf("after a's end: %+v", st.Instances)
	}
	// A header template with a value that would split the header: refused.
	evil := testClient("e", "x\r\nX-Admin: 1", "t")
	if _, err := s.Request(WithClient(context.Background(), evil), "web", "tools/list", nil); !errors.Is(err, spec.ErrTemplateValue) {
		t.Errorf("a name that splits a header: %v", err)
	}
}

// servers test of a per-client server starts it as its catalog connection
// does: the templates take the router's values and an empty directory,
// never a literal ${client.root}.
func TestProbePerClientExpandsTheTemplates(t *testing.T) {
	mark := marker(t)
	res, err := Probe(context.Background(), perClientWhoami("who", mark), fastOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerName != "whoami" || len(res.Catalog.Tools) != 3 {
		t.Errorf("probe %+v", res)
	}
	testpeers.WaitNoProcesses(t, mark, 10*time.Second)
}

// Without a roots template, a client's roots change reaches its own
// instance as notifications/roots/list_changed, and no other's.
func TestPerClientRootsChangedReachesOnlyItsInstance(t *testing.T) {
	s := New(fastOptions())
	t.Cleanup(s.Close)
	mark := marker(t)
	def := fakeServer("who", "whoami", mark)
	def.Isolation = spec.PerClient
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "who", StateRunning, 20*time.Second)
	a, b := testClient("a", "a", "t"), testClient("b", "b", "t")
	changes := func(cl Client) string {
		got, err := callPerClientTool(WithClient(context.Background(), cl), s, "who", "changes")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	first := askWhoami(t, s, "who", a)
	askWhoami(t, s, "who", b)
	s.ClientRootsChanged("a")
	testpeers.Eventually(t, 5*time.Second, "a's instance to hear of the change", func() bool { return changes(a) == "1" })
	if got := changes(b); got != "0" {
		t.Errorf("b's instance heard of a's change: %s", got)
	}
	if again := askWhoami(t, s, "who", a); again.PID != first.PID {
		t.Errorf("a's instance was restarted (%d, was %d): without a roots template it is told, not restarted", again.PID, first.PID)
	}
}

// An instance's stderr reaches its own console and the server's, marked
// with the instance.
func TestPerClientInstanceConsole(t *testing.T) {
	s := New(fastOptions())
	t.Cleanup(s.Close)
	mark := marker(t)
	def := perClientWhoami("who", mark)
	def.Args = []string{"${client.name}"} // the fake refuses nothing here
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "who", StateRunning, 20*time.Second)
	// A name with a template in it is taken literally, and the fake
	// says so on stderr as it exits.
	_, err := callPerClientTool(WithClient(context.Background(), testClient("a", "${x}", "t")), s, "who", "whoami")
	if err == nil {
		t.Fatal("the fake started with a literal ${x}")
	}
	testpeers.Eventually(t, 5*time.Second, "the instance's line in the server's console", func() bool {
		lines, _ := s.Console("who")
		for _, l := range lines {
			if strings.HasPrefix(l, "[#1] unexpanded template") {
				return true
			}
		}
		return false
	})
}
