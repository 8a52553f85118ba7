package hotpath

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
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
// (the default) nor above maxGCPercent. Setting the standard GOGC
// variable (to a percentage or off) leaves the collector to it.

// MinHeadroom is how much the heap may grow over the live heap before the
// next collection, at least.
const MinHeadroom = 64 << 20

// maxGCPercent bounds the percentage for a nearly empty heap, so that a
// process with 1 MB live does not wait for 64 MB of garbage when that is
// 64 times its live heap: such a process has little to scan anyway.
const maxGCPercent = 1600

// gcPercentFor is the GOGC for a live heap of live bytes.
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
	sample  []metrics.Sample
	mu      sync.Mutex // sample, from the finalizer goroutine and tune
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
	t := &gcTuner{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.tune()
	t.arm()
	return t
}

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{t}, func(s *gcSentinel) {
		if s.t.stopped.Load() {
			return
		}
		s.t.tune()
		s.t.arm()
	})
}

// tune sets GOGC for the live heap the last collection found (before the
// first, the heap in use now).
func (t *gcTuner) tune() {
	t.mu.Lock()
	metrics.Read(t.sample)
	live := uint64(0)
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		live = t.sample[0].Value.Uint64()
	}
	t.mu.Unlock()
	p := gcPercentFor(live)
	// Once per collection at most, so it costs nothing to speak of (the
	// runtime takes its heap lock, no stop of the world).
	if int64(p) != t.percent.Swap(int64(p)) {
		debug.SetGCPercent(p)
	}
}

func (t *gcTuner) stop() { t.stopped.Store(true) }
