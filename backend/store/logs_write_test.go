package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// storedLog is one request_logs row as SQLite holds it: every column as
// its text and its storage class, so a change in what the write binds (a
// time formatted differently, a real stored as an integer, empty text as NULL)
// shows even where reading it back through List would hide it.
type storedLog struct {
	id                                                                       int64
	time, timeType, client, server, method, target, durType, status, errText string
	duration                                                                 float64
	request, response, backendTool, instance, textTypes                      string
}

func readStoredLogs(t *testing.T, s *Store) []storedLog {
	t.Helper()
	rows, err := s.sql.Query(`SELECT id, CAST(time AS TEXT), typeof(time), client, server, method, target,
		duration_ms, typeof(duration_ms), status, error, request, response, backend_tool, instance,
		typeof(client)||typeof(server)||typeof(method)||typeof(target)||typeof(status)||typeof(error)||
		typeof(request)||typeof(response)||typeof(backend_tool)||typeof(instance)
		FROM request_logs ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []storedLog
	for rows.Next() {
		var r storedLog
		if err := rows.Scan(&r.id, &r.time, &r.timeType, &r.client, &r.server, &r.method, &r.target,
			&r.duration, &r.durType, &r.status, &r.errText, &r.request, &r.response, &r.backendTool, &r.instance,
			&r.textTypes); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLogInsertBatchSizesKeepIDsAndValues writes batches of every shape
// the statement cache splits differently (below, at and above a full
// chunk, a power of two and not, one row, many chunks), with a batch that
// fails in the middle, on more transactions than the pool has connections.
// Every entry must come back with its id set to the row that holds its own
// values, ids consecutive from 1 in the order of the batches, and every
// column stored as the driver stores a bound Go value, as before the
// statement bound preformatted times and NULL for empty text: the time as the text
// of time.Time.String in UTC, the duration as a real, strings as text
// (empty ones too, never NULL).
func TestLogInsertBatchSizesKeepIDsAndValues(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "sizes.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.DB().Exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON request_logs
		WHEN NEW.target = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END`).Error; err != nil {
		t.Fatal(err)
	}
	zone := time.FixedZone("UTC+9", 9*3600)
	base := time.Date(2026, 3, 4, 5, 6, 7, 0, zone)
	var all []RequestLog // in insertion order, IDs as Insert set them
	n := 0
	sizes := []int{1, 2, insertChunk - 1, insertChunk, insertChunk + 1, 2*insertChunk - 1, 3, 500, 37, 2*insertChunk + 5, 1, 13}
	for bi, size := range sizes {
		batch := make([]RequestLog, size)
		for i := range batch {
			n++
			batch[i] = RequestLog{
				// Nanoseconds with and without trailing zeros, and none.
				Time:   base.Add(time.Duration(n)*time.Second + time.Duration(n%4)*time.Duration([]int{0, 1, 120, 123456789}[n%4])),
				Client: fmt.Sprintf("c%d", n%3), Server: "s", Method: "tools/call", Target: fmt.Sprintf("t%d", n),
				DurationMs: float64(n%5) / 4, Status: StatusOK, Request: strings.Repeat("r", n%7),
				Response: "ü" + strings.Repeat("x", n%3), BackendTool: []string{"", "b"}[n%2], Instance: []string{"", "#1"}[n%2],
			}
			if n%11 == 0 {
				batch[i].Error = "boom"
			}
			if n%17 == 0 { // every string empty: stored as '', not NULL
				batch[i] = RequestLog{Time: batch[i].Time, DurationMs: 2}
			}
			if n%29 == 0 { // the writer's own kind of time: local, with a monotonic reading
				batch[i].Time = time.Now()
			}
		}
		if bi == 5 { // a batch refused by its last row: nothing of it stays, the next batch writes normally
			poisoned := append([]RequestLog(nil), batch...)
			poisoned[len(poisoned)-1].Target = "poison"
			if err := s.Logs().Insert(ctx, poisoned); err == nil || !strings.Contains(err.Error(), "poisoned row") {
				t.Fatalf("poisoned batch: err = %v", err)
			}
		}
		if err := s.Logs().Insert(ctx, batch); err != nil {
			t.Fatalf("batch %d of %d rows: %v", bi, size, err)
		}
		all = append(all, batch...)
	}
	// A statement's later rows against its first: empty where the first
	// has values, equal to it, different, and the first again.
	full := RequestLog{Client: "fc", Server: "fs", Method: "fm", Target: "ft", Status: "fst", Error: "fe",
		Request: "frq", Response: "frs", BackendTool: "fb", Instance: "fi", DurationMs: 1}
	other := RequestLog{Client: "oc", Server: "os", Method: "om", Target: "ot", Status: "ost", Error: "oe",
		Request: "orq", Response: "ors", BackendTool: "ob", Instance: "oi", DurationMs: 2}
	against := []RequestLog{full, {}, full, other, {}, other, full}
	for i := range against {
		against[i].Time = base.Add(time.Duration(i) * time.Millisecond)
	}
	for _, b := range [][]RequestLog{against, {against[1], against[0], against[3], against[1]}} {
		if err := s.Logs().Insert(ctx, b); err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	stored := readStoredLogs(t, s)
	if len(stored) != len(all) {
		t.Fatalf("%d rows stored, want %d", len(stored), len(all))
	}
	for i, e := range all {
		r := stored[i]
		if e.ID != uint(i+1) || r.id != int64(i+1) {
			t.Fatalf("entry %d (%s): ID %d, row id %d, want %d", i, e.Target, e.ID, r.id, i+1)
		}
		want := storedLog{
			id: r.id, time: e.Time.UTC().String(), timeType: "text", client: e.Client, server: e.Server,
			method: e.Method, target: e.Target, duration: e.DurationMs, durType: "real", status: e.Status,
			errText: e.Error, request: e.Request, response: e.Response, backendTool: e.BackendTool,
			instance: e.Instance, textTypes: strings.Repeat("text", 10),
		}
		if r != want {
			t.Fatalf("row %d:\n got %+v\nwant %+v", i+1, r, want)
		}
	}
	// What List and Get read back is what was written.
	got, err := s.Logs().Get(ctx, all[len(all)-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Time.Equal(all[len(all)-1].Time) || got.Target != all[len(all)-1].Target {
		t.Fatalf("Get = %+v, want %+v", got, all[len(all)-1])
	}
}

// TestLogConnectionAloneSkipsTheCommitFsync holds the trade logWriter
// makes to its connection alone: the request log commits with
// synchronous=NORMAL (1), while the pool that writes servers, settings and
// tokens keeps FULL (2), an fsync per commit. A DSN change that put every
// connection on NORMAL, or the log back on FULL, fails here.
func TestLogConnectionAloneSkipsTheCommitFsync(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.Logs().Insert(ctx, []RequestLog{{Client: "c", Status: StatusOK}}); err != nil {
		t.Fatal(err)
	}
	sync := func(db interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) int {
		var v int
		if err := db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Several of the pool's connections at once, not just the idle one.
	var conns []*sql.Conn
	for i := 0; i < 3; i++ {
		c, err := s.sql.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i, c := range conns {
		if got := sync(c); got != 2 {
			t.Errorf("store connection %d: synchronous = %d, want 2 (FULL)", i, got)
		}
	}
	if got := sync(s.logs.db); got != 1 {
		t.Errorf("request log connection: synchronous = %d, want 1 (NORMAL)", got)
	}
	// The log's commit is visible to the pool at once.
	if n, err := s.Logs().MaxID(ctx); err != nil || n != 1 {
		t.Fatalf("MaxID after one insert = %d, %v", n, err)
	}
}
