package hotpath

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, maxGCPercent},
		{1 * mb, maxGCPercent},         // 6400% would wait for 64 times the live heap
		{4 * mb, maxGCPercent},         // exactly 1600%
		{16 * mb, 400},                 // 64 MB over 16 MB live
		{32 * mb, 200},                 //
		{64 * mb, 100},                 // from here on, the default
		{1024 * mb, 100},               // a large heap is never collected more often than GOGC=100 would
		{MinHeadroom*100/250 + 1, 249}, // rounds down
	} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("gcPercentFor(%d MB) = %d, want %d", c.live/mb, got, c.want)
		}
	}
}

// TestGCTunerFollowsTheLiveHeap: a real tuner in this process sets the
// percentage after collections, from what each found live, and stops.
func TestGCTunerFollowsTheLiveHeap(t *testing.T) {
	if tuner.t != nil {
		tuner.t.stop() // Setup's, started by another test: one tuner at a time
	}
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	tu := startGCTuner()
	defer tu.stop()

	// A live heap of about 128 MB: the tuner must come back to 100.
	big := make([][]byte, 128)
	for i := range big {
		big[i] = make([]byte, 1<<20)
	}
	waitPercent(t, tu, func(p int64) bool { return p == 100 }, "100 with 128 MB live")
	runtime.KeepAlive(big)
	big = nil

	// Then a small one: well above 100.
	waitPercent(t, tu, func(p int64) bool { return p >= 400 }, "≥ 400 once the 128 MB are garbage")
	if got := debug.SetGCPercent(100); int64(got) != tu.percent.Load() {
		t.Errorf("runtime GOGC %d, tuner says it set %d", got, tu.percent.Load())
	}
}

// TestGCHeadroomOnlyWhileBusy: collections close together turn the
// headroom on, a long quiet (the runtime's periodic collection) turns it
// off, and the gaps in between leave it as it is.
func TestGCHeadroomOnlyWhileBusy(t *testing.T) {
	if tuner.t != nil {
		tuner.t.stop()
	}
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	t0 := time.Now()
	tu := newGCTuner(t0)
	at := t0
	for i, step := range []struct {
		after time.Duration
		busy  bool
	}{
		{30 * time.Second, false},      // the first collection after a quiet start
		{5 * time.Second, false},       // neither busy nor idle: as it was
		{200 * time.Millisecond, true}, // busy
		{3 * time.Second, true},        // the headroom spaces collections out: still busy
		{9 * time.Second, true},
		{2 * time.Minute, false}, // the runtime's periodic collection of an idle process
		{2 * time.Second, false},
	} {
		at = at.Add(step.after)
		tu.tune(at)
		p := tu.percent.Load()
		if busy := p > 100; busy != step.busy {
			t.Fatalf("step %d (+%s): GOGC %d, want busy=%v", i, step.after, p, step.busy)
		}
		if got := debug.SetGCPercent(int(p)); int64(got) != p {
			t.Fatalf("step %d: runtime GOGC %d, tuner says %d", i, got, p)
		}
	}
}

func waitPercent(t *testing.T, tu *gcTuner, ok func(int64) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok(tu.percent.Load()) {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC still %d, want %s", tu.percent.Load(), what)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSetupLeavesAnExplicitGOGC(t *testing.T) {
	t.Setenv("GOGC", "150")
	orig := debug.SetGCPercent(150)
	defer debug.SetGCPercent(orig)
	tuneGC()
	runtime.GC()
	runtime.GC()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("GOGC=150 set, yet the tuner changed it to %d", got)
	}
}

func TestSetupStartsTheGCTuner(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMAXPROCS", "")
	origProcs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(origProcs)
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	Setup()
	if tuner.t == nil {
		t.Fatal("Setup did not start the GC tuner with GOGC unset")
	}
	defer tuner.t.stop()
	if p := tuner.t.percent.Load(); p < 100 {
		t.Fatalf("tuner set GOGC %d, want at least 100", p)
	}
}
