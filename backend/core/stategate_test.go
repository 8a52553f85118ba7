package core

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// loopProcess has one event that keeps the run where it is: a stream of
// events that are all accepted, for the exactly-once tests and the bench.
const loopProcess = `id: loop
version: 1.0.0
states:
  - name: working
    initial: true
  - name: done
    final: true
events:
  - name: tick
    description: one step of work
    payload_schema:
      type: object
      properties:
        n: {type: integer}
  - name: finish
transitions:
  - {from: working, event: tick, to: working}
  - {from: working, event: finish, to: done}
`

func stateGateDef() spec.Server {
	return spec.Server{Name: stategate.ServerName, Transport: spec.Builtin, Enabled: true}
}

func writeProcess(t testing.TB, dataDir, src string) {
	t.Helper()
	dir := stategate.ProcessesDir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "loop.yaml"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
}

// callTool calls a tool and returns the answer's JSON (its text).
func callTool(ctx context.Context, c *client.Client, name string, args map[string]any) (json.RawMessage, error) {
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		return nil, err
	}
	if len(res.Content) != 1 {
		return nil, fmt.Errorf("%s: %d contents", name, len(res.Content))
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		return nil, fmt.Errorf("%s: not text: %+v", name, res.Content[0])
	}
	return json.RawMessage(text.Text), nil
}

func createRun(t testing.TB, c *client.Client, tool string) string {
	t.Helper()
	raw, err := callTool(context.Background(), c, tool, map[string]any{"process_id": "loop"})
	if err != nil {
		t.Fatal(err)
	}
	var run stategate.RunInfo
	if err := json.Unmarshal(raw, &run); err != nil || run.RunID == "" {
		t.Fatalf("create_run: %s", raw)
	}
	return run.RunID
}

func emitArgs(run string, rev int64, key string) map[string]any {
	return map[string]any{"run_id": run, "event_name": "tick", "payload": map[string]any{"n": rev},
		"expected_revision": rev, "idempotency_key": key}
}

// Through the router's HTTP endpoint: 50 clients emit at once with the same
// expected_revision; exactly one is accepted and 49 get REVISION_CONFLICT.
// Then one idempotency key sent 20 times at once: one event, 20 answers
// with the same result. The tools are named with the separator, the seed's
// own names with '.'.
func TestStateGateExactlyOnceThroughTheEndpoint(t *testing.T) {
	dir := t.TempDir()
	writeProcess(t, dir, loopProcess)
	ep := serve(t, dir, []spec.Server{stateGateDef()}, true)
	if err := ep.core.Settings.Set(context.Background(), "separator", "."); err != nil {
		t.Fatal(err)
	}
	ep.core.Gateway.Rebuild()

	const n = 50
	clients := make([]*client.Client, n)
	for i := range clients {
		c, err := mcpClient(t, ep.url, "")
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c
	}
	tools := listTools(t, clients[0])
	for _, want := range []string{"state_gate.get_state", "state_gate.list_events", "state_gate.emit_event", "state_gate.create_run", "state_gate.list_runs"} {
		if !contains(tools, want) {
			t.Fatalf("tools %v lack %s", tools, want)
		}
	}
	run := createRun(t, clients[0], "state_gate.create_run")
	if _, err := callTool(context.Background(), clients[0], "state_gate.emit_event", emitArgs(run, 0, "first")); err != nil {
		t.Fatal(err)
	}

	answers := make([]stategate.EmitResponse, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			raw, err := callTool(context.Background(), clients[i], "state_gate.emit_event", emitArgs(run, 1, fmt.Sprintf("race-%d", i)))
			if err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			if err := json.Unmarshal(raw, &answers[i]); err != nil {
				t.Errorf("client %d: %s", i, raw)
			}
		}()
	}
	close(start)
	wg.Wait()
	accepted, conflicts := 0, 0
	for i, a := range answers {
		switch {
		case a.Success && a.Error == nil && a.Result.NewRevision == 2:
			accepted++
		case !a.Success && a.Error != nil && a.Error.Code == stategate.CodeRevisionConflict && *a.Error.Details.CurrentRevision == 2:
			conflicts++
		default:
			t.Errorf("client %d: %+v", i, a)
		}
	}
	if accepted != 1 || conflicts != n-1 {
		t.Fatalf("%d accepted, %d REVISION_CONFLICT; want 1 and %d", accepted, conflicts, n-1)
	}

	// One key, 20 times at once.
	const same = 20
	raws := make([]stategate.EmitResponse, same)
	start = make(chan struct{})
	for i := 0; i < same; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			raw, err := callTool(context.Background(), clients[i], "state_gate.emit_event", emitArgs(run, 2, "the-same-key"))
			if err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			_ = json.Unmarshal(raw, &raws[i])
		}()
	}
	close(start)
	wg.Wait()
	firstResult, _ := json.Marshal(raws[0].Result)
	originals, replays := 0, 0
	for i, a := range raws {
		got, _ := json.Marshal(a.Result)
		if !a.Success || string(got) != string(firstResult) {
			t.Errorf("answer %d: %+v, want the same result as %s", i, a, firstResult)
		}
		switch {
		case a.Error == nil:
			originals++
		case a.Error.Code == stategate.CodeIdempotentReplay:
			replays++
		}
	}
	if originals != 1 || replays != same-1 {
		t.Errorf("%d originals and %d replays, want 1 and %d", originals, replays, same-1)
	}
	events, err := ep.core.Store.StateGate().Events(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 {
		t.Fatalf("%d events in the history, want 3", len(events))
	}
	for i, e := range events {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ---- a router killed with SIGKILL in the middle of a stream of emits ----

// TestMain lets the test binary be the router: MCPR_STATEGATE_ROUTER=DIR
// serves DIR on a loopback port, prints the address and waits to be killed.
type routerProcess struct {
	cmd *exec.Cmd
	url string
}

func startRouterProcess(t *testing.T, dir string) *routerProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MCPR_STATEGATE_ROUTER="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
				lines <- addr
			}
		}
	}()
	select {
	case addr := <-lines:
		return &routerProcess{cmd: cmd, url: "http://" + addr + "/mcp"}
	case <-time.After(30 * time.Second):
		t.Fatal("the router process did not start")
	}
	return nil
}

// kill sends SIGKILL (again, if a kill is already on its way) and reaps.
func (p *routerProcess) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	if err := p.cmd.Wait(); err == nil {
		t.Fatal("the router exited cleanly instead of being killed")
	}
}

// A client emits a stream of events, each after the last, while the router
// is killed with SIGKILL at random moments and started again. A request
// whose answer was lost is sent again, same key and revision, until it is
// answered. Afterwards the history must be exactly the events the client
// saw accepted: 1..N with no gap and no duplicate.
func TestStateGateSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills router processes")
	}
	dir := t.TempDir()
	writeProcess(t, dir, loopProcess)
	{ // the built-in server, enabled, in the database the processes open
		c, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Store.Servers().Create(context.Background(), stateGateDef()); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	router := startRouterProcess(t, dir)
	connect := func() *client.Client {
		var c *client.Client
		testpeers.Eventually(t, 20*time.Second, "a client session", func() bool {
			var err error
			c, err = mcpClient(t, router.url, "")
			return err == nil
		})
		return c
	}
	c := connect()
	run := createRun(t, c, "state_gate__create_run")

	const total = 120
	kills := map[int]bool{}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for len(kills) < 3 {
		kills[10+rng.Intn(total-20)] = true
	}
	seen := map[string]int64{} // event id → revision the client saw it make
	var rev int64
	retries := 0
	for i := 0; i < total; i++ {
		key := fmt.Sprintf("tick-%d", i)
		if kills[i] {
			// Kill while this emit is in flight (or just before or after
			// it: the client cannot tell, which is the point).
			proc := router.cmd.Process
			go func(d time.Duration) { time.Sleep(d); _ = proc.Signal(syscall.SIGKILL) }(time.Duration(rng.Intn(2000)) * time.Microsecond)
		}
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			raw, err := callTool(ctx, c, "state_gate__emit_event", emitArgs(run, rev, key))
			cancel()
			if err == nil {
				var a stategate.EmitResponse
				if jerr := json.Unmarshal(raw, &a); jerr != nil || !a.Success {
					t.Fatalf("emit %s: %s", key, raw)
				}
				if a.Error != nil && a.Error.Code != stategate.CodeIdempotentReplay {
					t.Fatalf("emit %s: %s", key, raw)
				}
				if prev, dup := seen[a.Result.EventID]; dup && prev != a.Result.NewRevision {
					t.Fatalf("event %s seen at revisions %d and %d", a.Result.EventID, prev, a.Result.NewRevision)
				}
				seen[a.Result.EventID] = a.Result.NewRevision
				rev = a.Result.NewRevision
				break
			}
			// The answer was lost: the router is gone. Start it again (the
			// kill may still be on its way) and send the same request.
			retries++
			router.kill(t)
			router = startRouterProcess(t, dir)
			c = connect()
		}
	}
	if retries < 3 {
		t.Fatalf("only %d requests lost their answer; the kills did not land mid-stream", retries)
	}
	router.kill(t)

	c2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	events, err := c2.Store.StateGate().Events(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != total || len(seen) != total {
		t.Fatalf("%d events stored, %d seen accepted; want %d each", len(events), len(seen), total)
	}
	var keys []string
	for i, e := range events {
		if e.Seq != int64(i+1) {
			t.Fatalf("gap: event %d has seq %d", i, e.Seq)
		}
		if seen[e.EventID] != e.Seq {
			t.Fatalf("stored event %s (seq %d) is not what the client saw (%d)", e.EventID, e.Seq, seen[e.EventID])
		}
		keys = append(keys, e.IdempotencyKey)
	}
	sort.Strings(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			t.Fatalf("key %s used twice", keys[i])
		}
	}
	t.Logf("%d events, %d answers lost to SIGKILL and recovered by retrying", total, retries)
}

// An event's roles are matched against who called, as the router's
// identity step names them: the token's name (token:NAME) and the role the
// token carries (admin, client).
func TestStateGateRolesFromTokens(t *testing.T) {
	dir := t.TempDir()
	writeProcess(t, dir, strings.Replace(loopProcess, "  - name: finish\n", "  - name: finish\n    roles: [admin, \"token:closer\"]\n", 1))
	ep := serve(t, dir, []spec.Server{stateGateDef()}, false)
	ctx := context.Background()
	agent, _, err := ep.core.Auth.Create(ctx, "agent", nil)
	if err != nil {
		t.Fatal(err)
	}
	closer, _, _ := ep.core.Auth.Create(ctx, "closer", nil)
	admin, _, _ := ep.core.Auth.CreateAdmin(ctx, "boss")
	ac, err := mcpClient(t, ep.url, agent)
	if err != nil {
		t.Fatal(err)
	}
	finish := func(c *client.Client, run string) stategate.EmitResponse {
		t.Helper()
		raw, err := callTool(ctx, c, "state_gate__emit_event", map[string]any{"run_id": run, "event_name": "finish",
			"expected_revision": 0, "idempotency_key": "finish"})
		if err != nil {
			t.Fatal(err)
		}
		var a stategate.EmitResponse
		_ = json.Unmarshal(raw, &a)
		return a
	}
	run1, run2 := createRun(t, ac, "state_gate__create_run"), createRun(t, ac, "state_gate__create_run")
	if a := finish(ac, run1); a.Success || a.Error.Code != stategate.CodeForbidden || !strings.Contains(a.Error.Message, "agent may not emit") {
		t.Fatalf("a client token: %+v", a)
	}
	cc, err := mcpClient(t, ep.url, closer)
	if err != nil {
		t.Fatal(err)
	}
	if a := finish(cc, run1); !a.Success {
		t.Fatalf("token:closer: %+v", a.Error)
	}
	bc, err := mcpClient(t, ep.url, admin)
	if err != nil {
		t.Fatal(err)
	}
	if a := finish(bc, run2); !a.Success {
		t.Fatalf("an admin token: %+v", a.Error)
	}
	events, _ := ep.core.Store.StateGate().Events(ctx, run2)
	if len(events) != 1 || events[0].Actor != "boss" {
		t.Fatalf("history of run 2: %+v", events)
	}
}

// A run another process creates (the CLI, on the same database) reaches a
// running router's clients: the router follows every commit for state_gate,
// not only configuration changes, which alone reload the rest.
func TestStateGateFollowsRunsMadeByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	writeProcess(t, dir, loopProcess)
	ep := serve(t, dir, []spec.Server{stateGateDef()}, true)
	c, err := mcpClient(t, ep.url, "")
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 16)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationResourcesListChanged) {
			changed <- struct{}{}
		}
	})
	reloads := ep.core.Reloads()

	other, err := Open(dir, Options{}) // the CLI's view of the same data dir
	if err != nil {
		t.Fatal(err)
	}
	run, err := other.StateGate.CreateRun(context.Background(), stategate.Actor{Name: "cli"}, "loop", nil, "")
	other.Close()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no resources/list_changed for a run made by another process")
	}
	res, err := c.ListResources(context.Background(), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res.Resources {
		found = found || strings.Contains(r.URI, run.RunID)
	}
	if !found {
		t.Fatalf("run %s is not among the resources %+v", run.RunID, res.Resources)
	}
	if got := ep.core.Reloads(); got != reloads {
		t.Errorf("a new run reloaded the configuration %d times", got-reloads)
	}
}

// bombProcess's guard is the CEL bomb: over a client's context
// (l = 1,000 items, s = 2 MB) it copies 4 MB once per item.
const bombProcess = `id: bomb
version: "1"
states:
  - name: open
    initial: true
  - name: done
    final: true
events:
  - name: go
transitions:
  - {from: open, event: go, to: done, guard: heavy}
guards:
  - name: heavy
    expression: size(context.l.map(x, context.s + context.s)) > 0
`

// A data dir poisoned as the issue found it: the CEL bomb's run stored as
// it was before the caps (and the context cap raised, so its guard is
// evaluated when the runs are listed at start), a run whose context is not
// JSON and a run whose stored definition no longer compiles. The router
// starts within the time a clean data dir takes (twice it, plus 2 s of
// slack for a loaded machine), answers
// /mcp, lists the three runs as errored with why, and serves a new run.
// Before, the bomb's listing at start (core.Open → Resync) ran the router
// out of memory at every start, the run with a broken context made
// list_runs fail for every run, and the broken definition was retried and
// logged at every database change.
func TestStateGatePoisonedDataDirStarts(t *testing.T) {
	ctx := context.Background()
	startTime := func(dir string) (time.Duration, *endpoint) {
		start := time.Now()
		ep := serve(t, dir, []spec.Server{stateGateDef()}, true)
		if resp, body := post(t, ep.url, initializeBody, nil); resp.StatusCode != 200 || !strings.Contains(body, `"serverInfo"`) {
			t.Fatalf("initialize: %d %s", resp.StatusCode, body)
		}
		return time.Since(start), ep
	}
	clean, _ := startTime(t.TempDir())

	dir := t.TempDir()
	writeProcess(t, dir, bombProcess)
	{
		c, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Settings.Set(ctx, "stategateMaxContextKB", "8192"); err != nil {
			t.Fatal(err)
		}
		repo := c.Store.StateGate()
		bombContext, _ := json.Marshal(map[string]any{"l": make([]int, 1000), "s": strings.Repeat("x", 2<<20)})
		now := time.Now().UTC()
		def := store.StateGateDefinition{Hash: "bomb-hash", ProcessID: "bomb", Version: "1", Source: bombProcess, CreatedAt: now}
		broken := store.StateGateDefinition{Hash: "broken-hash", ProcessID: "gone", Version: "1", Source: "id: [", CreatedAt: now}
		for _, r := range []struct {
			def     store.StateGateDefinition
			id, ctx string
		}{
			{def, "run-bomb", string(bombContext)},
			{def, "run-corrupt", `{"l": [1, 2`},
			{broken, "run-broken", `{}`},
		} {
			run := store.StateGateRun{ID: r.id, ProcessID: r.def.ProcessID, ProcessVersion: "1", DefinitionHash: r.def.Hash, State: "open",
				Context: r.ctx, Workspace: dir, CreatedAt: now, UpdatedAt: now}
			if err := repo.CreateRun(ctx, r.def, run); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
	}

	heap := watchHeap()
	took, ep := startTime(dir)
	t.Logf("start: %v with a clean data dir, %v with the poisoned one", clean, took)
	if took > 2*clean+2*time.Second {
		t.Errorf("the poisoned data dir started in %v, a clean one in %v", took, clean)
	}
	c, err := mcpClient(t, ep.url, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"run-bomb":    "guard heavy: the guard was stopped: it exceeded its cost limit",
		"run-corrupt": "the run's stored context is not a JSON object",
		"run-broken":  "stored definition of gone 1",
	}
	var runs stategate.RunList
	testpeers.Eventually(t, 10*time.Second, "the poisoned runs listed as errored", func() bool {
		raw, err := callTool(ctx, c, "state_gate__list_runs", map[string]any{})
		if err != nil || json.Unmarshal(raw, &runs) != nil {
			return false
		}
		n := 0
		for _, r := range runs.Runs {
			if w, ok := want[r.RunID]; ok && strings.Contains(r.Error, w) {
				n++
			}
		}
		return n == len(want)
	})
	if grew := heap(); grew > 200<<20 {
		t.Errorf("starting and listing the poisoned runs grew the heap by %d MB at its peak, over the bound of 200 MB", grew>>20)
	} else {
		t.Logf("the heap grew by at most %.1f MB while the router started and listed the poisoned runs", float64(grew)/(1<<20))
	}
	// The run with a corrupt context answers, its guards failing with why.
	raw, err := callTool(ctx, c, "state_gate__get_state", map[string]any{"run_id": "run-corrupt"})
	var sv stategate.StateView
	if err != nil || json.Unmarshal(raw, &sv) != nil || string(sv.Context) != "{}" || len(sv.MissingGuards) != 1 ||
		!strings.Contains(sv.MissingGuards[0].CurrentStatus, "not evaluated: the run's stored context is not a JSON object") {
		t.Fatalf("get_state of the run with a corrupt context: %s %v", raw, err)
	}
	if d, err := ep.core.StateGate.Detail(ctx, stategate.Actor{Name: "ui"}, "run-corrupt"); err != nil {
		t.Fatalf("the UI's detail of the run with a corrupt context: %v", err)
	} else if _, err := json.Marshal(d); err != nil || d.Run.Error == "" {
		t.Fatalf("the UI's detail of the run with a corrupt context: %v, error %q", err, d.Run.Error)
	}
	// The bomb's emit is refused, not run; a new run works.
	raw, err = callTool(ctx, c, "state_gate__emit_event", map[string]any{"run_id": "run-bomb", "event_name": "go",
		"expected_revision": 0, "idempotency_key": "k"})
	var res stategate.EmitResponse
	if err != nil || json.Unmarshal(raw, &res) != nil || res.Success || res.Error.Code != stategate.CodeGuardFailed {
		t.Fatalf("emit on the bomb's run: %s %v", raw, err)
	}
	raw, err = callTool(ctx, c, "state_gate__create_run", map[string]any{"process_id": "bomb", "context": map[string]any{"l": []int{1}, "s": "x"}})
	var fresh stategate.RunInfo
	if err != nil || json.Unmarshal(raw, &fresh) != nil || fresh.RunID == "" || fresh.Error != "" {
		t.Fatalf("a new run beside the poisoned ones: %s %v", raw, err)
	}
}

// watchHeap samples the heap every 5 ms from now on; the func it returns
// stops and gives the peak growth over the heap at the start (live objects
// after a GC). The peak, not the allocations, is what a bomb would push.
func watchHeap() func() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base, peak := m.HeapAlloc, m.HeapAlloc
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return peak - base
	}
}

// readChars is how many bytes this process has read through read(2) and
// the like (Linux's /proc/self/io rchar: sparse files count too).
func readChars(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			var n int64
			fmt.Sscan(v, &n)
			return n
		}
	}
	t.Skip("no rchar in /proc/self/io")
	return 0
}

// Through the router: a client submits a 4 GiB artifact (the caps raised
// to let it be hashed) and goes away; the hashing stops with it. Before,
// the router read the file to its end (the 10 GiB took 38.7 s)
// after the client had gone.
func TestStateGateHashingStopsWhenTheClientGoes(t *testing.T) {
	dir := t.TempDir()
	writeProcess(t, dir, loopProcess)
	ep := serve(t, dir, []spec.Server{stateGateDef()}, true)
	ctx := context.Background()
	for key, v := range map[string]string{"stategateMaxArtifactMB": "8192", "stategateMaxRunArtifactsMB": "8192"} {
		if err := ep.core.Settings.Set(ctx, key, v); err != nil {
			t.Fatal(err)
		}
	}
	c, err := mcpClient(t, ep.url, "")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := callTool(ctx, c, "state_gate__create_run", map[string]any{"process_id": "loop"})
	var run stategate.RunInfo
	if err != nil || json.Unmarshal(raw, &run) != nil {
		t.Fatalf("create_run: %s %v", raw, err)
	}
	big := filepath.Join(run.Workspace, "big.bin")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 4<<30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	args := emitArgs(run.RunID, 0, "big")
	args["artifact_paths"] = []string{"big.bin"}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = callTool(cctx, c, "state_gate__emit_event", args)
	cancel()
	if err == nil {
		t.Fatal("the emit of a 4 GiB artifact answered within 300 ms; the test needs it to be still hashing")
	}
	time.Sleep(300 * time.Millisecond) // the cancellation reaches the hash
	r1 := readChars(t)
	time.Sleep(time.Second)
	grew := readChars(t) - r1
	if grew > 32<<20 {
		t.Fatalf("%d MB read in the second after the client went: the hash goes on", grew>>20)
	}
	t.Logf("%d KB read in the second after the client went", grew>>10)
	events, _ := ep.core.Store.StateGate().Events(ctx, run.RunID)
	if len(events) != 0 {
		t.Fatalf("the abandoned emit stored %d events", len(events))
	}
}

// docsCodeReview is the worked example of docs/state-gate.md, as written.
func docsCodeReview(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(testpeers.RepoRoot(t), "docs", "state-gate.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "parsed by backend/stategate/docs_test.go -->\n```yaml\n")
	if !ok {
		t.Fatal("docs/state-gate.md has no marked yaml block")
	}
	src, _, _ := strings.Cut(rest, "```\n")
	if !strings.Contains(src, "roles: [reviewer, \"token:lead-agent\"]") || !strings.Contains(src, "roles: [maintainer, \"token:lead-agent\"]") {
		t.Fatalf("the example no longer keeps approve to reviewer and merge to maintainer:\n%s", src)
	}
	return src
}

// The docs' worked example through the router's endpoint, with tokens as
// the docs make them: approve is kept to the reviewer role, and a token
// made with --role reviewer (auth.NewToken.Roles) fires it, while a token
// without it — none, or another role — gets FORBIDDEN. merge is kept to
// maintainer: the reviewer's token gets it only after its roles are
// changed, by another process on the same database (as `tokens update
// --role maintainer` does), which the running router follows.
func TestStateGateDocsExampleWithTokenRoles(t *testing.T) {
	dir := t.TempDir()
	procs := stategate.ProcessesDir(dir)
	if err := os.MkdirAll(procs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(procs, "code-review.yaml"), []byte(docsCodeReview(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := serve(t, dir, []spec.Server{stateGateDef()}, false)
	ctx := context.Background()
	agentSecret, _, err := ep.core.Auth.Create(ctx, "agent", nil)
	if err != nil {
		t.Fatal(err)
	}
	reviewerSecret, _, err := ep.core.Auth.CreateToken(ctx, auth.NewToken{Name: "review-bot", Roles: []string{"reviewer"}})
	if err != nil {
		t.Fatal(err)
	}
	qaSecret, _, err := ep.core.Auth.CreateToken(ctx, auth.NewToken{Name: "qa-bot", Roles: []string{"qa"}})
	if err != nil {
		t.Fatal(err)
	}
	clients := map[string]*client.Client{}
	for name, secret := range map[string]string{"agent": agentSecret, "review-bot": reviewerSecret, "qa-bot": qaSecret} {
		c, err := mcpClient(t, ep.url, secret)
		if err != nil {
			t.Fatal(err)
		}
		clients[name] = c
	}

	raw, err := callTool(ctx, clients["agent"], "state_gate__create_run", map[string]any{"process_id": "code-review", "context": map[string]any{"risk": "high"}})
	if err != nil {
		t.Fatal(err)
	}
	var run stategate.RunInfo
	if err := json.Unmarshal(raw, &run); err != nil || run.RunID == "" || run.CurrentState != "draft" {
		t.Fatalf("create_run: %s", raw)
	}
	for _, f := range []string{"changes/cache.patch", "review/notes.md"} {
		p := filepath.Join(run.Workspace, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	key := 0
	emit := func(who, event string, payload map[string]any, rev int64, artifacts ...string) stategate.EmitResponse {
		t.Helper()
		key++
		args := map[string]any{"run_id": run.RunID, "event_name": event, "expected_revision": rev, "idempotency_key": fmt.Sprint("k", key)}
		if payload != nil {
			args["payload"] = payload
		}
		if artifacts != nil {
			args["artifact_paths"] = artifacts
		}
		raw, err := callTool(ctx, clients[who], "state_gate__emit_event", args)
		if err != nil {
			t.Fatal(err)
		}
		var r stategate.EmitResponse
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s %s: %s", who, event, raw)
		}
		return r
	}
	accepted := func(r stategate.EmitResponse, to string) bool {
		return r.Success && r.Result != nil && r.Result.Transition != nil && r.Result.Transition.ToState == to
	}
	forbidden := func(r stategate.EmitResponse, who string) bool {
		return !r.Success && r.Error != nil && r.Error.Code == stategate.CodeForbidden && strings.Contains(r.Error.Message, who+" may not emit")
	}

	if r := emit("agent", "submit_for_review", map[string]any{"title": "Add the cache"}, 0, "changes/cache.patch"); !accepted(r, "in_review") {
		t.Fatalf("submit_for_review: %+v", r)
	}
	emit("agent", "comment", map[string]any{"finding": "a"}, 1)
	emit("agent", "comment", map[string]any{"finding": "b"}, 2)
	for _, who := range []string{"agent", "qa-bot"} {
		if r := emit(who, "approve", nil, 3); !forbidden(r, who) {
			t.Errorf("approve by %s (no reviewer role): %+v", who, r.Error)
		}
	}
	if r := emit("review-bot", "approve", nil, 3); !accepted(r, "approved") {
		t.Fatalf("approve by the token with --role reviewer: %+v %+v", r.Result, r.Error)
	}
	if r := emit("review-bot", "merge", nil, 4, "review/notes.md"); !forbidden(r, "review-bot") {
		t.Fatalf("merge by a reviewer: %+v", r.Error)
	}

	// Another process (the CLI) gives the token maintainer instead.
	other, err := store.Open(filepath.Join(dir, "mcp-router.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	otherAuth := auth.New(other)
	defer otherAuth.Close()
	if _, err := otherAuth.SetRoles(ctx, "review-bot", []string{"maintainer"}); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 5*time.Second, "the router to see review-bot's new roles", func() bool {
		id, err := ep.core.Auth.Verify(ctx, reviewerSecret)
		return err == nil && slices.Equal(id.Roles, []string{"maintainer"})
	})
	if r := emit("review-bot", "merge", nil, 4, "review/notes.md"); !accepted(r, "merged") {
		t.Fatalf("merge after tokens update --role maintainer: %+v %+v", r.Result, r.Error)
	}
	events, err := ep.core.Store.StateGate().Events(ctx, run.RunID)
	if err != nil || len(events) != 5 || events[3].Actor != "review-bot" || events[4].Actor != "review-bot" || events[0].Actor != "agent" {
		t.Fatalf("history: %+v, %v", events, err)
	}
}
