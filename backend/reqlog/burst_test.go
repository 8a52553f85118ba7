package reqlog

import (
	"fmt"
	"sync"
	"testing"

	"github.com/mcp-router/mcp-router/backend/store"
)

// TestBurstIsAllLoggedAndCloseFlushes: a burst of calls from many
// goroutines, more than several batches and chunks of the SQLite INSERT,
// written with the default batching into a real store, is all there after
// Close, each row once and intact. Nothing dropped, nothing duplicated.
func TestBurstIsAllLoggedAndCloseFlushes(t *testing.T) {
	st := openStore(t)
	l, _ := quietLogger()
	const workers, each = 8, 1500
	w := New(st.Logs(), Options{Buffer: workers * each, Logger: l})
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				w.Log(store.RequestLog{Client: fmt.Sprintf("c%d", g), Server: "fs", Method: "tools/call",
					Target: fmt.Sprintf("t%d", i), DurationMs: float64(i), Status: store.StatusOK,
					Request: fmt.Sprintf(`{"g":%d,"i":%d}`, g, i)})
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if d := w.Dropped(); d != 0 {
		t.Fatalf("%d entries dropped", d)
	}
	rows := all(t, st)
	if len(rows) != workers*each {
		t.Fatalf("%d rows stored, want %d", len(rows), workers*each)
	}
	seen := make(map[string]bool, len(rows))
	for _, r := range rows {
		var g, i int
		if _, err := fmt.Sscanf(r.Request, `{"g":%d,"i":%d}`, &g, &i); err != nil {
			t.Fatalf("row %d: request %q: %v", r.ID, r.Request, err)
		}
		if r.Client != fmt.Sprintf("c%d", g) || r.Target != fmt.Sprintf("t%d", i) || r.DurationMs != float64(i) {
			t.Fatalf("row %d mixed up: %+v", r.ID, r)
		}
		if seen[r.Request] {
			t.Fatalf("row %q stored twice", r.Request)
		}
		seen[r.Request] = true
	}
}
