package hotpath

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Garbage collection headroom. With the default GOGC=100 the heap may grow
// to twice the live heap before the next collection. The router's live
// heap is small (tens of MB) and every call allocates a few kilobytes, so
// under load it collected many times a second, and the collector's marking
// and assists were about a tenth of the router's CPU per call. What a
// collection costs is proportional to the live heap, how often it runs to
// the garbage made between two: letting the heap grow by a fixed amount
// (MinHeadroom) over the live heap, rather than by 100% of it, makes a small
// heap collect several times less often for the same work, and leaves a
// large one (a 10,000-tool catalog) at GOGC=100 as before.
//
// The percentage is set again after every collection, from the live heap
// that collection found: GOGC = MinHeadroom / live heap, never below 100
// (the default) nor above maxGCPercent. Only while the process is busy,
// though: collections less than busyBelow apart turn the headroom on, one
// more than idleAbove after the last turns it off (the runtime collects at
// least every two minutes), so that a desktop app that served a burst
// gives the memory back when it is idle. Setting the standard GOGC
// variable (to a percentage or off) leaves the collector to it.

// MinHeadroom is how much the heap may grow over the live heap before the
// next collection while busy: exactly that for a live heap of 4 to 64 MiB,
// the live heap itself (GOGC=100) above, and 16 times the live heap below
// (maxGCPercent).
const MinHeadroom = 64 << 20

// maxGCPercent bounds the percentage for a nearly empty heap, so that a
// process with 1 MB live does not wait for 64 MB of garbage when that is
// 64 times its live heap: such a process has little to scan anyway.
const maxGCPercent = 1600

// Collections this close together mean the process is busy; this far
// apart, that it is idle.
const (
	busyBelow = time.Second
	idleAbove = 10 * time.Second
)

// gcPercentFor is the GOGC, while busy, for a live heap of live bytes.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return maxGCPercent
	}
	p := uint64(MinHeadroom) * 100 / live
	switch {
	case p < 100:
		return 100
	case p > maxGCPercent:
		return maxGCPercent
	}
	return int(p)
}

// gcTuner follows the collections of the process.
type gcTuner struct {
	stopped atomic.Bool
	percent atomic.Int64 // what it set last

	mu     sync.Mutex // the rest, from the finalizer goroutine and tests
	sample []metrics.Sample
	last   time.Time // of the last collection seen (or the start)
	busy   bool
}

// gcSentinel is garbage the tuner makes on purpose: its finalizer runs
// once per collection (the first one that finds it unreachable). It holds
// a pointer so that it is never a tiny allocation, which may share a block
// with other objects and outlive its collection.
type gcSentinel struct{ t *gcTuner }

var tuner struct {
	once sync.Once
	t    *gcTuner
}

// tuneGC starts the tuner once per process, unless GOGC is set.
func tuneGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	tuner.once.Do(func() {
		tuner.t = startGCTuner()
	})
}

func startGCTuner() *gcTuner {
	t := newGCTuner(time.Now())
	t.arm()
	return t
}

// newGCTuner is a tuner, idle at start, not yet following collections.
func newGCTuner(now time.Time) *gcTuner {
	t := &gcTuner{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}, last: now}
	t.set(100)
	return t
}

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{t}, func(s *gcSentinel) {
		if s.t.stopped.Load() {
			return
		}
		s.t.tune(time.Now())
		s.t.arm()
	})
}

// tune sets GOGC after a collection that ended at now.
func (t *gcTuner) tune(now time.Time) {
	t.mu.Lock()
	gap := now.Sub(t.last)
	t.last = now
	switch {
	case gap < busyBelow:
		t.busy = true
	case gap > idleAbove:
		t.busy = false
	}
	p := 100
	if t.busy {
		metrics.Read(t.sample)
		live := uint64(0)
		if t.sample[0].Value.Kind() == metrics.KindUint64 {
			live = t.sample[0].Value.Uint64()
		}
		p = gcPercentFor(live)
	}
	t.mu.Unlock()
	t.set(p)
}

// set gives the runtime p, once per change: at most once per collection,
// so it costs nothing to speak of (the runtime takes its heap lock, no
// stop of the world).
func (t *gcTuner) set(p int) {
	if int64(p) != t.percent.Swap(int64(p)) {
		debug.SetGCPercent(p)
	}
}

func (t *gcTuner) stop() { t.stopped.Store(true) }
