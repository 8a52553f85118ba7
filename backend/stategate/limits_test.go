package stategate

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcp-router/mcp-router/internal/testbombs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/mcp-router/mcp-router/backend/store"
)

// bombProcess's guard copies the context's string once per item of its
// list: context.l.map(x, context.s + context.s). Both are dyn, so before
// guardCost each copy cost 1 unit and the cost limit never stopped it.
const bombProcess = `id: bomb
version: "1"
states:
  - name: open
    initial: true
  - name: done
    final: true
artifacts:
  - type: file
    patterns: ["*"]
events:
  - name: go
  - name: attach
transitions:
  - {from: open, event: go, to: done, guard: heavy}
  - {from: open, event: attach, to: open}
guards:
  - name: heavy
    description: copies the context over and over
    expression: size(context.l.map(x, context.s + context.s)) > 0
`

// gate is a Service over a real SQLite file with one process.
type gate struct {
	t   *testing.T
	dir string
	st  *store.Store
	svc *Service
}

func newGate(t *testing.T, src string, o Options) *gate {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "mcp-router.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o.DataDir, o.Store = dir, st
	svc := New(o)
	if _, err := svc.AddProcess([]byte(src), false); err != nil {
		t.Fatal(err)
	}
	return &gate{t: t, dir: dir, st: st, svc: svc}
}

// reopen is a restart: a new service over the same data dir and database.
func (g *gate) reopen(o Options) *Service {
	o.DataDir, o.Store = g.dir, g.st
	return New(o)
}

func limitsOf(l Limits) func() Limits { return func() Limits { return l } }

// bombContext is the issue's: l = 1,000 items, s = 2 MB.
func bombContext(t testing.TB) json.RawMessage {
	b, err := json.Marshal(map[string]any{"l": make([]int, 1000), "s": strings.Repeat("x", 2<<20)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (g *gate) emit(ctx context.Context, run string, rev int64, event, key string, payload json.RawMessage, paths ...string) *EmitResponse {
	g.t.Helper()
	res, err := g.svc.Emit(ctx, Actor{Name: "agent"}, EmitRequest{RunID: run, EventName: event, ExpectedRevision: &rev,
		IdempotencyKey: key, Payload: payload, ArtifactPaths: paths})
	if err != nil {
		g.t.Fatal(err)
	}
	return res
}

// The CEL bomb, with the context cap raised past its 2 MB so the
// guard itself is what is tested: the emit is refused with GUARD_FAILED
// naming the cost limit, the evaluation allocates a few megabytes (not the
// 4 GB the copies would take), nothing is stored, and a restart lists the
// run as errored without running out of memory. Before guardCost the
// guard copied 4 MB a thousand times and the router died.
func TestGuardOverDynValuesIsChargedBySize(t *testing.T) {
	lim := Limits{MaxContextBytes: 8 << 20}
	g := newGate(t, bombProcess, Options{Limits: limitsOf(lim)})
	ctx := context.Background()
	run, err := g.svc.CreateRun(ctx, Actor{Name: "agent"}, "bomb", bombContext(t), "")
	if err != nil {
		t.Fatal(err)
	}
	const bound = 200 << 20
	var res *EmitResponse
	start := time.Now()
	grew := testbombs.Allocated(func() { res = g.emit(ctx, run.RunID, 0, "go", "k1", nil) })
	took := time.Since(start)
	if res.Success || res.Error.Code != CodeGuardFailed || len(res.Error.Details.MissingGuards) != 1 ||
		!strings.Contains(res.Error.Details.MissingGuards[0], "heavy: the guard was stopped: it exceeded its cost limit of 100000 units") {
		t.Fatalf("emit: %+v (%+v)", res, res.Error)
	}
	if grew > bound {
		t.Fatalf("the refused emit allocated %d MB, over the bound of %d MB", grew>>20, bound>>20)
	}
	t.Logf("bomb refused with GUARD_FAILED after %v, %.1f MB allocated", took, float64(grew)/(1<<20))
	if events, _ := g.st.StateGate().Events(ctx, run.RunID); len(events) != 0 {
		t.Fatalf("a refused emit stored %d events", len(events))
	}

	// A restart lists every run (Resync): the poisoned one is errored,
	// with why, and the listing stays within the bound.
	svc := g.reopen(Options{Limits: limitsOf(lim)})
	var srv *Server
	grew = testbombs.Allocated(func() {
		srv = NewServer(svc, ServerOptions{})
		srv.Resync(ctx)
	})
	defer srv.Close()
	if grew > bound {
		t.Fatalf("listing the runs at start allocated %d MB, over the bound of %d MB", grew>>20, bound>>20)
	}
	runs, err := svc.Runs(ctx, "", 0)
	if err != nil || len(runs) != 1 || !strings.Contains(runs[0].Error, "guard heavy: the guard was stopped: it exceeded its cost limit") {
		t.Fatalf("runs after a restart: %+v, %v", runs, err)
	}
	t.Logf("restart listed the run as errored, %.1f MB allocated: %s", float64(grew)/(1<<20), runs[0].Error)
}

// guardCost prices dyn operations as cel-go prices the typed ones, and
// leaves the typed ones to cel-go.
func TestGuardCost(t *testing.T) {
	env, err := guardEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("y", 600_000) // + itself: 1.2 MB copied, 120,000 units
	small := strings.Repeat("y", 1000)
	for _, c := range []struct {
		expr   string
		s      string
		budget bool
	}{
		{`context.s + context.s != ""`, big, true},
		{`string(context.s) + string(context.s) != ""`, big, true}, // typed: cel-go's own price
		{`context.s + context.s != ""`, small, false},
		{`context.l.exists(x, context.s + context.s == "")`, small, true}, // 1,000 copies of 2 KB
		{`context.s < context.s + "a"`, small, false},
		{`"a" in context.l`, small, false},
	} {
		prg, iss := compileGuard(env, c.expr, CompileOptions{CostLimit: DefaultCostLimit})
		if iss != nil {
			t.Fatalf("%s: %v", c.expr, iss)
		}
		gctx, cancel := guardCtx(context.Background(), Limits{}.withDefaults())
		_, err := prg.eval(gctx, guardVars{Context: map[string]any{"s": c.s, "l": make([]any, 1000)}})
		cancel()
		if overBudget(err) != c.budget {
			t.Errorf("%s over %d bytes: error %v, want over budget %v", c.expr, len(c.s), err, c.budget)
		}
	}
	// The prices themselves.
	for _, c := range []struct {
		fn   string
		args []any
		want uint64
	}{
		{"_+_", []any{strings.Repeat("a", 1000), strings.Repeat("b", 1000)}, 1 + 200},
		{"_<_", []any{strings.Repeat("a", 1000), "b"}, 1 + 1},
		{"@in", []any{"a", make([]any, 500)}, 1 + 500},
		{"string", []any{[]byte("abc")}, 1 + 1},
	} {
		args := make([]ref.Val, len(c.args))
		for i, a := range c.args {
			args[i] = types.DefaultTypeAdapter.NativeToValue(a)
		}
		var result ref.Val = types.True
		if c.fn == "string" {
			result = types.String(strings.Repeat("z", 10))
		}
		if got := *(guardCost{}).CallCost(c.fn, "", args, result); got != c.want {
			t.Errorf("%s: cost %d, want %d", c.fn, got, c.want)
		}
	}
	if (guardCost{}).CallCost("_+_", "add_string", nil, nil) != nil {
		t.Error("a typed overload must keep cel-go's price")
	}
}

// A guard over its time limit stops at the deadline with a message naming
// the limit and its setting.
func TestGuardDeadline(t *testing.T) {
	src := strings.Replace(bombProcess, "size(context.l.map(x, context.s + context.s)) > 0",
		"context.l.all(x, context.l.all(y, context.l.all(z, x == y)))", 1)
	lim := Limits{GuardTimeout: 50 * time.Millisecond}
	g := newGate(t, src, Options{Limits: limitsOf(lim), CostLimit: 1 << 62})
	ctx := context.Background()
	run, err := g.svc.CreateRun(ctx, Actor{}, "bomb", json.RawMessage(`{"l": [`+strings.TrimSuffix(strings.Repeat("0,", 1000), ",")+`]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := g.emit(ctx, run.RunID, 0, "go", "k", nil)
	took := time.Since(start)
	if res.Success || res.Error.Code != CodeGuardFailed ||
		!strings.Contains(res.Error.Details.MissingGuards[0], "time limit of 50ms (setting stategateGuardTimeoutMs)") {
		t.Fatalf("emit: %+v", res.Error)
	}
	if took > time.Second {
		t.Fatalf("a 50 ms deadline took %v to stop the guard", took)
	}
	t.Logf("deadline of 50 ms: refused after %v", took)
}

// A context or a payload over its cap is refused before anything is
// stored, naming the cap and its setting; so is one nested too deep.
func TestContextAndPayloadCaps(t *testing.T) {
	g := newGate(t, bombProcess, Options{})
	ctx := context.Background()
	_, err := g.svc.CreateRun(ctx, Actor{}, "bomb", bombContext(t), "")
	if err == nil || !strings.Contains(err.Error(), "INVALID_REQUEST: context is 2.0 MiB, over the cap of 1.0 MiB (setting stategateMaxContextKB)") {
		t.Fatalf("create_run with the bomb's context: %v", err)
	}
	deep := strings.Repeat(`{"a":`, MaxJSONDepth+1) + "1" + strings.Repeat("}", MaxJSONDepth+1)
	if _, err := g.svc.CreateRun(ctx, Actor{}, "bomb", json.RawMessage(deep), ""); err == nil || !strings.Contains(err.Error(), "nested 65 deep, over the cap of 64") {
		t.Fatalf("create_run with a deep context: %v", err)
	}
	if runs, _ := g.st.StateGate().RunRevisions(ctx); len(runs) != 0 {
		t.Fatalf("refused create_runs stored %d runs", len(runs))
	}
	if entries, _ := os.ReadDir(WorkspacesDir(g.dir)); len(entries) != 0 {
		t.Fatalf("refused create_runs made %d workspaces", len(entries))
	}

	run, err := g.svc.CreateRun(ctx, Actor{}, "bomb", json.RawMessage(`{"l": [], "s": ""}`), "")
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]string{"s": strings.Repeat("p", 1<<20)})
	res := g.emit(ctx, run.RunID, 0, "attach", "k1", payload)
	if res.Success || res.Error.Code != CodeInvalidPayload ||
		!strings.Contains(res.Error.Message, "payload is 1.0 MiB, over the cap of 1.0 MiB (setting stategateMaxPayloadKB)") {
		t.Fatalf("an oversized payload: %+v", res.Error)
	}
	if res := g.emit(ctx, run.RunID, 0, "attach", "k2", json.RawMessage(deep)); res.Success || res.Error.Code != CodeInvalidPayload {
		t.Fatalf("a deep payload: %+v", res.Error)
	}
	if events, _ := g.st.StateGate().Events(ctx, run.RunID); len(events) != 0 {
		t.Fatalf("refused emits stored %d events", len(events))
	}
	// Just under the caps is fine.
	if res := g.emit(ctx, run.RunID, 0, "attach", "k3", json.RawMessage(`{"s": "`+strings.Repeat("p", 1000)+`"}`)); !res.Success {
		t.Fatalf("a small payload: %+v", res.Error)
	}
}

// A stored run whose context is over the cap (written before it, or the cap
// lowered since) or not JSON is errored, not fatal: its guards fail naming
// why, unguarded events still go, and it is listed with the reason.
func TestStoredContextOverTheCap(t *testing.T) {
	g := newGate(t, bombProcess, Options{Limits: limitsOf(Limits{MaxContextBytes: 8 << 20})})
	ctx := context.Background()
	run, err := g.svc.CreateRun(ctx, Actor{}, "bomb", bombContext(t), "")
	if err != nil {
		t.Fatal(err)
	}
	var contextCap atomic.Int64 // 0: the default cap, 1 MiB
	svc := g.reopen(Options{Limits: func() Limits { return Limits{MaxContextBytes: contextCap.Load()} }})
	srv := NewServer(svc, ServerOptions{})
	defer srv.Close()
	srv.Resync(ctx) // lists it errored, by the cap
	res, err := svc.Emit(ctx, Actor{}, EmitRequest{RunID: run.RunID, EventName: "go", ExpectedRevision: new(int64), IdempotencyKey: "k"})
	if err != nil || res.Success || res.Error.Code != CodeGuardFailed ||
		!strings.Contains(res.Error.Details.MissingGuards[0], "heavy: not evaluated: the run's context is 2.0 MiB, over the cap of 1.0 MiB (setting stategateMaxContextKB)") {
		t.Fatalf("emit on a run whose context is over the cap: %+v %v", res, err)
	}
	runs, _ := svc.Runs(ctx, "", 0)
	if len(runs) != 1 || string(runs[0].Context) != "{}" || !strings.Contains(runs[0].Error, "over the cap") {
		t.Fatalf("list_runs: %+v", runs)
	}
	if res, err := svc.Emit(ctx, Actor{}, EmitRequest{RunID: run.RunID, EventName: "attach", ExpectedRevision: new(int64), IdempotencyKey: "k2"}); err != nil || !res.Success {
		t.Fatalf("an unguarded event on the errored run: %+v %v", res, err)
	}
	// Raised again, the cap no longer errors the run.
	contextCap.Store(8 << 20)
	if runs, _ := svc.Runs(ctx, "", 0); len(runs) != 1 || runs[0].Error != "" || len(runs[0].Context) < 2<<20 {
		t.Fatalf("list_runs with the cap raised: error %q, context of %d bytes", runs[0].Error, len(runs[0].Context))
	}
}

// A guard's message shows at most maxRenderedPart of any {{ }} part.
func TestRenderedMessageIsBounded(t *testing.T) {
	src := strings.Replace(bombProcess, "    description: copies the context over and over\n",
		"    message: \"s is {{ context.s }}\"\n", 1)
	src = strings.Replace(src, "size(context.l.map(x, context.s + context.s)) > 0", "false", 1)
	g := newGate(t, src, Options{})
	ctx := context.Background()
	run, err := g.svc.CreateRun(ctx, Actor{}, "bomb", json.RawMessage(fmt.Sprintf(`{"s": %q}`, strings.Repeat("é", 200_000))), "")
	if err != nil {
		t.Fatal(err)
	}
	res := g.emit(ctx, run.RunID, 0, "go", "k", nil)
	if res.Success || len(res.Error.Details.MissingGuards[0]) > maxRenderedPart+64 || !strings.HasSuffix(res.Error.Details.MissingGuards[0], "é…") {
		t.Fatalf("message of %d bytes: %.80q…", len(res.Error.Details.MissingGuards[0]), res.Error.Details.MissingGuards[0])
	}
}
