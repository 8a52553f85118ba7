package appapi

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestBatcherKeepsOrderLosesNothingAndFlushesOnStop: two keys fed at the
// same time over several intervals arrive complete, in order, in a few
// batches per key (at most one per interval); stop flushes what is pending.
func TestBatcherKeepsOrderLosesNothingAndFlushesOnStop(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]string{}
	batches := map[string]int{}
	b := newBatcher(20*time.Millisecond, func(key string, items []string) {
		mu.Lock()
		defer mu.Unlock()
		got[key] = append(got[key], items...)
		batches[key]++
	})
	var wg sync.WaitGroup
	for _, key := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				b.add(key, fmt.Sprint(i))
				if i%100 == 0 {
					time.Sleep(10 * time.Millisecond) // spread over several intervals
				}
			}
		}()
	}
	wg.Wait()
	b.stop() // flushes the last partial batch
	b.add("a", "after stop")
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, key := range []string{"a", "b"} {
		if len(got[key]) != 1000 {
			t.Fatalf("%s: %d items, want 1000", key, len(got[key]))
		}
		for i, v := range got[key] {
			if v != fmt.Sprint(i) {
				t.Fatalf("%s: item %d is %s", key, i, v)
			}
		}
		if batches[key] < 2 || batches[key] > 100 {
			t.Errorf("%s: %d batches for 1,000 items over ~100 ms", key, batches[key])
		}
		t.Logf("%s: 1,000 items in %d batches", key, batches[key])
	}
}
