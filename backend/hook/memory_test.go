package hook

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// goHeld is the memory the Go runtime holds from the OS: everything it has
// mapped minus what it has handed back (roughly its share of the RSS).
func goHeld() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// rssMB is the process's resident set size from /proc, for the figures a
// test prints (never asserted: it depends on the machine).
func rssMB() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				if kb, err := strconv.Atoi(f[1]); err == nil {
					return strconv.Itoa(kb>>10) + " MB"
				}
			}
		}
	}
	return "?"
}

func mb(b uint64) uint64 { return b >> 20 }

// settle collects garbage and returns the free heap to the OS, so that the
// figure taken next is the idle size.
func settle() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	return goHeld()
}

// heavyScript holds about n MB in strings while it runs, built a megabyte
// at a time (with a little work between allocations, so that the run spans
// many watchdog ticks), and returns.
func heavyScript(n int) string {
	return `const a = []; for (let i = 0; i < ` + strconv.Itoa(n) + `; i++) { a.push('x'.repeat(1 << 20) + i); let k = 0; for (let j = 0; j < 1000; j++) k ^= j; }
context.shared.held = a.length;`
}

// waitReleased waits until the service has handed memory back to the OS
// at least once more than before.
func waitReleased(t *testing.T, s *Service, before int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.released.Load() <= before {
		if time.Now().After(deadline) {
			t.Fatal("the service did not release memory within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// After a hook that held a lot of memory has run and been removed, the
// router goes back to about its idle size without waiting for Go's next
// garbage collection (which an idle router may not need for minutes).
func TestMemoryReturnsAfterAHeavyHookIsRemoved(t *testing.T) {
	f := newFixture(t, Options{MaxMemory: 1 << 30, Timeout: 60 * time.Second})
	idle := settle()
	rssIdle := rssMB()

	f.add("heavy", "pre", 0, heavyScript(200))
	c := callTool(map[string]any{})
	if b := f.svc.Pre(context.Background(), c); b != nil {
		t.Fatal(b)
	}
	if c.Shared["held"] != 200.0 {
		t.Fatalf("the heavy hook did not run to its end: shared = %v, logs = %+v", c.Shared, f.svc.Logs("heavy"))
	}
	after := goHeld()
	rssAfter := rssMB()

	before := f.svc.released.Load()
	if err := f.svc.Delete(context.Background(), "heavy"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitReleased(t, f.svc, before)
	removed := goHeld()
	t.Logf("Go runtime's memory (RSS): idle %d MB (%s), after the heavy hook ran %d MB (%s), after it was removed %d MB (%s)",
		mb(idle), rssIdle, mb(after), rssAfter, mb(removed), rssMB())
	if removed > idle+64<<20 {
		t.Errorf("after removal the router holds %d MB, idle was %d MB", mb(removed), mb(idle))
	}
}

// A run stopped for its memory budget gives the memory back as well, while
// the hook stays installed.
func TestMemoryReturnsAfterARunOverBudget(t *testing.T) {
	f := newFixture(t, Options{MaxMemory: 96 << 20, Timeout: 60 * time.Second})
	idle := settle()
	f.add("greedy", "pre", 0, heavyScript(400))
	before := f.svc.released.Load()
	f.svc.Pre(context.Background(), callTool(map[string]any{}))
	if logs := f.svc.Logs("greedy"); len(logs) == 0 || !strings.Contains(logs[len(logs)-1].Message, "used too much memory") {
		t.Fatalf("logs = %+v", logs)
	}
	waitReleased(t, f.svc, before)
	held := goHeld()
	t.Logf("Go runtime's memory: idle %d MB, after the stopped run %d MB (RSS %s)", mb(idle), mb(held), rssMB())
	if held > idle+48<<20 {
		t.Errorf("after the stopped run the router holds %d MB, idle was %d MB", mb(held), mb(idle))
	}
}

// The idle runtimes of a removed hook are dropped, and one that was running
// when the hook was removed is not put back.
func TestRemovedHookDropsItsRuntimes(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("h", "pre", 0, `context.arguments.v = 1;`)
	f.svc.Pre(context.Background(), callTool(map[string]any{}))
	old := f.svc.set.Load().byName["h"]
	if len(old.pool.ch) == 0 {
		t.Fatal("no pooled runtime after a run")
	}
	sb, err := f.svc.getSandbox(old) // a run in flight while the hook goes
	if err != nil {
		t.Fatal(err)
	}
	f.svc.Delete(context.Background(), "h")
	f.svc.Reload(context.Background())
	if !old.pool.retired.Load() || len(old.pool.ch) != 0 {
		t.Errorf("removed hook's pool: retired=%v idle=%d", old.pool.retired.Load(), len(old.pool.ch))
	}
	f.svc.putSandbox(old, sb)
	if len(old.pool.ch) != 0 {
		t.Error("a runtime came back into a removed hook's pool")
	}
}

// The limits come from Options.Limits at every call, so that a changed
// setting applies to the next request.
func TestLimitsApplyWithoutRestart(t *testing.T) {
	var timeout atomic.Int64
	var memory atomic.Int64
	timeout.Store(int64(100 * time.Millisecond))
	memory.Store(1 << 30)
	f := newFixture(t, Options{Limits: func() Limits {
		return Limits{Timeout: time.Duration(timeout.Load()), MaxMemory: memory.Load()}
	}})
	f.add("slow", "pre", 0, `sleep(400); context.shared.slept = true;`)
	c := callTool(map[string]any{})
	f.svc.Pre(context.Background(), c)
	if logs := f.svc.Logs("slow"); c.Shared["slept"] == true || len(logs) == 0 || !strings.Contains(logs[len(logs)-1].Message, "timed out") {
		t.Errorf("100 ms limit: shared=%v logs=%+v", c.Shared, logs)
	}
	timeout.Store(int64(5 * time.Second))
	c = callTool(map[string]any{})
	f.svc.Pre(context.Background(), c)
	if c.Shared["slept"] != true {
		t.Errorf("5 s limit: the hook did not finish: %+v", f.svc.Logs("slow"))
	}

	g := newFixture(t, Options{Timeout: 60 * time.Second, Limits: func() Limits { return Limits{MaxMemory: memory.Load()} }})
	g.add("heavy", "pre", 0, heavyScript(96))
	c = callTool(map[string]any{})
	g.svc.Pre(context.Background(), c)
	if c.Shared["held"] != 96.0 {
		t.Errorf("1 GB budget: the hook did not finish: %+v", g.svc.Logs("heavy"))
	}
	memory.Store(16 << 20)
	c = callTool(map[string]any{})
	start := time.Now()
	g.svc.Pre(context.Background(), c)
	logs := g.svc.Logs("heavy")
	if c.Shared["held"] != nil || len(logs) == 0 || !strings.Contains(logs[len(logs)-1].Message, "used too much memory") {
		t.Errorf("16 MB budget: shared=%v logs=%+v", c.Shared, logs)
	}
	t.Logf("16 MB budget: stopped after %v", time.Since(start).Round(time.Millisecond))
}

// Garbage is not held memory: a script that allocates far more than its
// budget but keeps little of it runs to its end, even when Go's own
// collector would not have run (the watchdog has the garbage collected
// before it judges).
func TestChurnWithinBudgetIsNotStopped(t *testing.T) {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	f := newFixture(t, Options{MaxMemory: 64 << 20, Timeout: 60 * time.Second})
	// 300 MB allocated in all (two strings of 256 KB a turn), about 1 MB
	// held at any time, at most about 512 MB/s: much less than half a
	// budget piles up while the watchdog's collection runs.
	f.add("churn", "pre", 0, `let n = 0;
for (let i = 0; i < 600; i++) { const s = 'x'.repeat(1 << 18) + i; n += s.length; sleep(1); }
context.shared.n = n;`)
	c := callTool(map[string]any{})
	f.svc.Pre(context.Background(), c)
	if c.Shared["n"] == nil {
		t.Errorf("a churning hook was stopped: %+v", f.svc.Logs("churn"))
	}
}
