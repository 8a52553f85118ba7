package reqlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/store"
)

// waitFor polls cond until it holds; the deadline only turns a hang into a
// failure, it measures nothing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "mcp-router.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func all(t *testing.T, st *store.Store) []store.RequestLog {
	t.Helper()
	rows, err := st.Logs().List(context.Background(), store.LogFilter{Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	// oldest first reads better in assertions
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	return rows
}

// logHook records what the writer logs.
type logHook struct {
	mu   sync.Mutex
	msgs []string
}

func (h *logHook) Levels() []logrus.Level { return logrus.AllLevels }
func (h *logHook) Fire(e *logrus.Entry) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, e.Level.String()+": "+e.Message)
	return nil
}
func (h *logHook) count(substr string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.msgs {
		if strings.Contains(m, substr) {
			n++
		}
	}
	return n
}

func quietLogger() (*logrus.Logger, *logHook) {
	l := logrus.New()
	l.Out = io.Discard
	h := &logHook{}
	l.AddHook(h)
	return l, h
}

// countingSink wraps a Sink: it counts transactions, can fail the next N
// inserts, and can hold inserts until released.
type countingSink struct {
	Sink
	inserts  atomic.Int64
	largest  atomic.Int64
	prunes   atomic.Int64
	failNext atomic.Int64
	entered  chan struct{} // if set, receives once per Insert call before it blocks
	release  chan struct{} // if set, Insert waits for it to close
}

func (c *countingSink) Insert(ctx context.Context, b []store.RequestLog) error {
	if c.entered != nil {
		select {
		case c.entered <- struct{}{}:
		default:
		}
	}
	if c.release != nil {
		<-c.release
	}
	c.inserts.Add(1)
	if n := int64(len(b)); n > c.largest.Load() {
		c.largest.Store(n)
	}
	if c.failNext.Load() > 0 {
		c.failNext.Add(-1)
		return errors.New("insert request logs: database is locked")
	}
	return c.Sink.Insert(ctx, b)
}

func (c *countingSink) DeleteOlderThan(ctx context.Context, t time.Time) (int64, error) {
	c.prunes.Add(1)
	return c.Sink.DeleteOlderThan(ctx, t)
}

func entry(i int) store.RequestLog {
	return store.RequestLog{Client: "claude-code", Server: "fs", Method: "tools/call", Target: fmt.Sprintf("t%d", i),
		DurationMs: float64(i), Status: store.StatusOK}
}

func TestFlushStoresEntries(t *testing.T) {
	st := openStore(t)
	l, _ := quietLogger()
	w := New(st.Logs(), Options{FlushInterval: time.Hour, Logger: l})
	defer w.Close()

	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	before := time.Now()
	w.Log(store.RequestLog{Time: at, Client: "cursor", Server: "remote", Method: "tools/call", Target: "search",
		DurationMs: 12.5, Status: store.StatusError, Error: "remote: timeout", Request: `{"q":1}`, Response: `{}`})
	w.Log(store.RequestLog{Client: "claude-code", Server: "fs", Method: "resources/read", Target: "file:///a", Status: store.StatusOK})
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := time.Now()

	rows := all(t, st)
	if len(rows) != 2 {
		t.Fatalf("stored %d rows, want 2", len(rows))
	}
	a, b := rows[0], rows[1]
	if !a.Time.Equal(at) || a.Client != "cursor" || a.Server != "remote" || a.Target != "search" || a.DurationMs != 12.5 ||
		a.Status != store.StatusError || a.Error != "remote: timeout" || a.Request != `{"q":1}` || a.Response != `{}` {
		t.Errorf("first row stored as %+v", a)
	}
	if b.Time.Before(before.Add(-time.Millisecond)) || b.Time.After(after.Add(time.Millisecond)) {
		t.Errorf("zero Time filled as %v, want between %v and %v", b.Time, before, after)
	}
	if b.Method != "resources/read" || b.Target != "file:///a" {
		t.Errorf("second row stored as %+v", b)
	}
}

// Without Flush, the ticker writes within FlushInterval.
func TestTickerWrites(t *testing.T) {
	st := openStore(t)
	l, _ := quietLogger()
	w := New(st.Logs(), Options{FlushInterval: 10 * time.Millisecond, Logger: l})
	defer w.Close()
	w.Log(entry(1))
	waitFor(t, "the ticker to write the entry", func() bool { return len(all(t, st)) == 1 })
}

// 2,000 entries logged at once go in MaxBatch-sized transactions.
func TestBatching(t *testing.T) {
	st := openStore(t)
	l, _ := quietLogger()
	sink := &countingSink{Sink: st.Logs()}
	w := New(sink, Options{FlushInterval: time.Hour, Logger: l})
	defer w.Close()
	for i := 0; i < 2000; i++ {
		w.Log(entry(i))
	}
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := all(t, st)
	if len(rows) != 2000 || w.Dropped() != 0 {
		t.Fatalf("stored %d rows, dropped %d", len(rows), w.Dropped())
	}
	for i, r := range rows {
		if r.Target != fmt.Sprintf("t%d", i) {
			t.Fatalf("row %d is %s: order not kept", i, r.Target)
		}
	}
	if n := sink.inserts.Load(); n != 4 {
		t.Errorf("2000 entries took %d transactions, want 4 of %d", n, DefaultMaxBatch)
	}
	if sink.largest.Load() > DefaultMaxBatch {
		t.Errorf("a transaction held %d entries, more than MaxBatch", sink.largest.Load())
	}

	// With the default interval the ticker also flushes: still a handful of
	// transactions, not one per entry.
	sink2 := &countingSink{Sink: st.Logs()}
	w2 := New(sink2, Options{Logger: l, MaxBatch: 300})
	for i := 0; i < 2000; i++ {
		w2.Log(entry(i))
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if n := sink2.inserts.Load(); n < 7 || n > 20 {
		t.Errorf("2000 entries with MaxBatch 300 took %d transactions", n)
	}
	if sink2.largest.Load() > 300 {
		t.Errorf("a transaction held %d entries, more than MaxBatch 300", sink2.largest.Load())
	}
	if got := len(all(t, st)); got != 4000 {
		t.Errorf("%d rows after the second writer, want 4000", got)
	}
}

// With the sink stuck, the buffer fills and Log drops and counts.
func TestFullBufferDrops(t *testing.T) {
	st := openStore(t)
	l, hook := quietLogger()
	sink := &countingSink{Sink: st.Logs(), entered: make(chan struct{}, 1), release: make(chan struct{})}
	w := New(sink, Options{FlushInterval: time.Hour, MaxBatch: 5, Buffer: 10, Logger: l})

	for i := 0; i < 5; i++ { // a full batch: the writer takes it to the sink and sticks there
		w.Log(entry(i))
	}
	select {
	case <-sink.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer never reached the sink")
	}
	returned := make(chan struct{})
	go func() {
		for i := 5; i < 105; i++ {
			w.Log(entry(i))
		}
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("Log blocked on a full buffer")
	}
	if d := w.Dropped(); d != 90 {
		t.Errorf("Dropped() = %d, want 90 (100 logged, 10 buffered)", d)
	}
	if n := hook.count("buffer is full"); n != 1 {
		t.Errorf("%d buffer-full warnings for 90 drops, want 1", n)
	}

	close(sink.release)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows := all(t, st)
	if len(rows) != 15 {
		t.Fatalf("stored %d rows, want 15", len(rows))
	}
	if rows[14].Target != "t14" {
		t.Errorf("last stored is %s, want the buffered t14", rows[14].Target)
	}
}

// Many goroutines logging while the sink hangs all return.
func TestLogNeverBlocksWhenSinkHangs(t *testing.T) {
	st := openStore(t)
	l, _ := quietLogger()
	sink := &countingSink{Sink: st.Logs(), release: make(chan struct{})}
	w := New(sink, Options{FlushInterval: time.Millisecond, Logger: l})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10000; i++ {
				w.Log(entry(i))
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Log blocked while the sink hung")
	}
	// Everything is either queued (at most Buffer, plus what the writer took
	// before it stuck, at most another Buffer) or counted as dropped.
	if d := w.Dropped(); d < 80000-2*DefaultBuffer {
		t.Errorf("dropped only %d of 80000 with the sink stuck", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	if err := w.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Flush with a hung sink = %v, want the context's error", err)
	}
	cancel()
	close(sink.release)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := uint64(len(all(t, st))) + w.Dropped(); got != 80000 {
		t.Errorf("stored + dropped = %d, want 80000", got)
	}
}

func TestTruncation(t *testing.T) {
	if got := Truncate("short", 16); got != "short" {
		t.Errorf("Truncate(short) = %q", got)
	}
	if got := Truncate(strings.Repeat("a", 100), 16); got != strings.Repeat("a", 16)+"…[truncated 84 bytes]" {
		t.Errorf("Truncate(100 a) = %q", got)
	}
	// "é" is 2 bytes: a cut in the middle backs off to the rune start.
	s := strings.Repeat("é", 20) // 40 bytes
	got := Truncate(s, 15)
	if got != strings.Repeat("é", 7)+"…[truncated 26 bytes]" || !utf8.ValidString(got) {
		t.Errorf("Truncate(é×20, 15) = %q", got)
	}

	st := openStore(t)
	l, _ := quietLogger()
	w := New(st.Logs(), Options{FlushInterval: time.Hour, MaxBodyBytes: 32, Logger: l})
	defer w.Close()
	big := `{"content":"` + strings.Repeat("x", 1000) + `"}`
	w.Log(store.RequestLog{Status: store.StatusOK, Request: big, Response: big, Error: big})
	w.Log(store.RequestLog{Status: store.StatusOK, Request: `{"a":1}`, Response: strings.Repeat("y", 32)})
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := all(t, st)
	want := big[:32] + fmt.Sprintf("…[truncated %d bytes]", len(big)-32)
	if rows[0].Request != want || rows[0].Response != want || rows[0].Error != want {
		t.Errorf("long bodies stored as %q / %q / %q", rows[0].Request, rows[0].Response, rows[0].Error)
	}
	if rows[1].Request != `{"a":1}` || rows[1].Response != strings.Repeat("y", 32) {
		t.Errorf("short bodies changed: %+v", rows[1])
	}
}

// A transient failure costs nothing: the batch is retried once.
func TestInsertErrorRetriedOnce(t *testing.T) {
	st := openStore(t)
	l, hook := quietLogger()
	sink := &countingSink{Sink: st.Logs()}
	w := New(sink, Options{FlushInterval: time.Hour, Logger: l})
	defer w.Close()
	ctx := context.Background()

	sink.failNext.Store(1)
	for i := 0; i < 3; i++ {
		w.Log(entry(i))
	}
	if err := w.Flush(ctx); err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Fatalf("Flush over a failing insert = %v", err)
	}
	if hook.count("will retry once") != 1 {
		t.Errorf("failure not logged: %v", hook.msgs)
	}
	w.Log(entry(3))
	if err := w.Flush(ctx); err != nil {
		t.Fatalf("Flush after the transient failure: %v", err)
	}
	rows := all(t, st)
	if len(rows) != 4 || w.Dropped() != 0 || rows[0].Target != "t0" || rows[3].Target != "t3" {
		t.Fatalf("after a retry: %d rows, dropped %d", len(rows), w.Dropped())
	}

	// Two failures in a row: that batch is dropped, later ones still land.
	sink.failNext.Store(2)
	for i := 4; i < 7; i++ {
		w.Log(entry(i))
	}
	if err := w.Flush(ctx); err == nil {
		t.Fatal("first failure not reported")
	}
	if err := w.Flush(ctx); err == nil || !strings.Contains(err.Error(), "dropped") {
		t.Fatalf("second failure = %v, want a drop", err)
	}
	if w.Dropped() != 3 || hook.count("refused them twice") != 1 {
		t.Errorf("dropped %d; log %v", w.Dropped(), hook.msgs)
	}
	w.Log(entry(7))
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows = all(t, st)
	if len(rows) != 5 || rows[4].Target != "t7" {
		t.Errorf("after a drop: %d rows, last %s", len(rows), rows[len(rows)-1].Target)
	}
}

// The ticker retries a failed batch by itself.
func TestTickerRetries(t *testing.T) {
	st := openStore(t)
	l, _ := quietLogger()
	sink := &countingSink{Sink: st.Logs()}
	sink.failNext.Store(1)
	w := New(sink, Options{FlushInterval: 5 * time.Millisecond, Logger: l})
	defer w.Close()
	w.Log(entry(1))
	waitFor(t, "the retried entry", func() bool { return len(all(t, st)) == 1 })
	if sink.inserts.Load() < 2 || w.Dropped() != 0 {
		t.Errorf("%d inserts, %d dropped", sink.inserts.Load(), w.Dropped())
	}
}

func TestRetention(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	now := time.Now()
	old := func(tag string) store.RequestLog {
		return store.RequestLog{Time: now.Add(-48 * time.Hour), Target: tag, Status: store.StatusOK}
	}
	if err := st.Logs().Insert(ctx, []store.RequestLog{old("old1"), old("old2"),
		{Time: now.Add(-time.Hour), Target: "recent", Status: store.StatusOK}}); err != nil {
		t.Fatal(err)
	}

	var keep atomic.Int64
	keep.Store(int64(24 * time.Hour))
	var asked atomic.Int64
	l, _ := quietLogger()
	w := New(st.Logs(), Options{FlushInterval: time.Hour, PruneInterval: 5 * time.Millisecond, Logger: l,
		Retention: func() time.Duration { asked.Add(1); return time.Duration(keep.Load()) }})
	defer w.Close()
	// The first prune runs before the writer serves anything, so after a
	// Flush it has happened.
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows := all(t, st)
	if len(rows) != 1 || rows[0].Target != "recent" {
		t.Fatalf("after the start prune: %+v", rows)
	}

	// Periodic prune.
	if err := st.Logs().Insert(ctx, []store.RequestLog{old("old3")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the periodic prune", func() bool { return len(all(t, st)) == 1 })

	// Retention is read at each prune; 0 keeps everything.
	keep.Store(0)
	n := asked.Load()
	// A prune that read the old value has finished once the next one starts.
	waitFor(t, "a prune with retention 0", func() bool { return asked.Load() >= n+1 })
	if err := st.Logs().Insert(ctx, []store.RequestLog{old("old4")}); err != nil {
		t.Fatal(err)
	}
	n = asked.Load()
	waitFor(t, "two more prunes", func() bool { return asked.Load() >= n+2 })
	if got := len(all(t, st)); got != 2 {
		t.Errorf("retention 0 pruned: %d rows left, want 2", got)
	}
	keep.Store(int64(24 * time.Hour))
	waitFor(t, "the prune with retention back on", func() bool { return len(all(t, st)) == 1 })
}

func TestCloseFlushesAndLogAfterCloseIsNoop(t *testing.T) {
	st := openStore(t)
	l, _ := quietLogger()
	w := New(st.Logs(), Options{FlushInterval: time.Hour, MaxBatch: 3, Logger: l})
	for i := 0; i < 7; i++ {
		w.Log(entry(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := len(all(t, st)); got != 7 {
		t.Fatalf("Close left %d of 7 entries stored", got)
	}
	w.Log(entry(99))
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Flush(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close = %v", err)
	}
	if got := len(all(t, st)); got != 7 || w.Dropped() != 0 {
		t.Errorf("Log after Close: %d rows, %d dropped", got, w.Dropped())
	}
}

// Close over a failing database retries once, then gives up and says so.
func TestCloseWithFailingSink(t *testing.T) {
	st := openStore(t)
	l, _ := quietLogger()
	sink := &countingSink{Sink: st.Logs()}
	sink.failNext.Store(1 << 20)
	w := New(sink, Options{FlushInterval: time.Hour, MaxBatch: 4, Logger: l})
	for i := 0; i < 10; i++ {
		w.Log(entry(i))
	}
	err := w.Close()
	if err == nil || w.Dropped() != 10 {
		t.Fatalf("Close = %v, dropped %d; want an error and 10 dropped", err, w.Dropped())
	}
	if n := sink.inserts.Load(); n != 2 {
		t.Errorf("%d insert attempts at close, want 2 (one batch and its retry)", n)
	}
}

func TestSubscribe(t *testing.T) {
	st := openStore(t)
	l, hook := quietLogger()
	w := New(st.Logs(), Options{FlushInterval: time.Hour, Logger: l})
	defer w.Close()
	ctx := context.Background()

	var mu sync.Mutex
	var got []store.RequestLog
	unsub := w.Subscribe(func(e store.RequestLog) {
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	})
	w.Subscribe(func(store.RequestLog) { panic("bad subscriber") })
	for i := 0; i < 10; i++ {
		w.Log(entry(i))
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	stored := all(t, st)
	mu.Lock()
	if len(got) != 10 {
		t.Fatalf("subscriber got %d entries, want 10", len(got))
	}
	for i, e := range got {
		if e.ID == 0 || e.ID != stored[i].ID || e.Target != stored[i].Target {
			t.Errorf("entry %d: got %+v, stored %+v", i, e, stored[i])
		}
	}
	mu.Unlock()
	if hook.count("subscriber panicked") == 0 {
		t.Error("a panicking subscriber was not reported")
	}

	unsub()
	unsub() // idempotent
	w.Log(entry(10))
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 10 {
		t.Errorf("unsubscribed fn still called: %d entries", len(got))
	}
	if n := len(all(t, st)); n != 11 {
		t.Errorf("%d rows stored, want 11 (the panicking subscriber must not stop the writer)", n)
	}
}

// nopSink discards entries, so the benchmark measures Log and not SQLite.
type nopSink struct{}

func (nopSink) Insert(context.Context, []store.RequestLog) error { return nil }
func (nopSink) DeleteOlderThan(context.Context, time.Time) (int64, error) {
	return 0, nil
}

// BenchmarkLog is the cost Log adds to one request on the call path.
//
//	accepted: the entry is queued (the writer is flushed, timer stopped,
//	          every 4096 calls so the buffer never fills)
//	dropped:  the buffer is full and the sink stuck, so every call drops
//	parallel: all CPUs logging flat out; dropped/op shows how much of that
//	          the writer could not take (real traffic is far slower)
//
// The sink doesn't matter to Log (it only sees the channel), so a
// no-op sink keeps the untimed flushes quick.
func BenchmarkLog(b *testing.B) {
	e := store.RequestLog{Client: "claude-code", Server: "fs", Method: "tools/call", Target: "read_file",
		DurationMs: 1.5, Status: store.StatusOK, Request: `{"path":"/tmp/a"}`, Response: `{"content":[]}`}
	accepted := func(b *testing.B, sink Sink) {
		l, _ := quietLogger()
		w := New(sink, Options{Logger: l})
		defer w.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			w.Log(e)
			if i%4096 == 4095 {
				b.StopTimer()
				if err := w.Flush(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		}
		b.StopTimer()
		if w.Dropped() != 0 {
			b.Fatalf("%d entries dropped: this measures the accepted path", w.Dropped())
		}
	}
	b.Run("accepted", func(b *testing.B) { accepted(b, nopSink{}) })
	b.Run("dropped", func(b *testing.B) {
		l, _ := quietLogger()
		sink := &countingSink{Sink: nopSink{}, entered: make(chan struct{}, 1), release: make(chan struct{})}
		w := New(sink, Options{Logger: l, Buffer: 1, MaxBatch: 1})
		defer w.Close()
		defer close(sink.release)
		w.Log(e)
		<-sink.entered
		w.Log(e) // fills the buffer
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			w.Log(e)
		}
		b.StopTimer()
		if w.Dropped() != uint64(b.N) {
			b.Fatalf("dropped %d of %d", w.Dropped(), b.N)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		l, _ := quietLogger()
		w := New(nopSink{}, Options{Logger: l})
		defer w.Close()
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				w.Log(e)
			}
		})
		b.StopTimer()
		b.ReportMetric(float64(w.Dropped())/float64(b.N), "dropped/op")
	})
}
