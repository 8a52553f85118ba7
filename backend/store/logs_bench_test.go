package store

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/cputime"
)

// BenchmarkLogInsert is the request log's write: batches of 500 entries
// shaped like a fast-path echo call's, per entry, into a new database.
func BenchmarkLogInsert(b *testing.B) { benchLogInsert(b, 0, false) }

// BenchmarkLogInsertDistinctBodies is BenchmarkLogInsert with a request
// and a response that differ from row to row, as real calls' arguments
// and answers mostly do (the echo's are all the same).
func BenchmarkLogInsertDistinctBodies(b *testing.B) { benchLogInsert(b, 0, true) }

// BenchmarkLogInsert200k is BenchmarkLogInsert into a table that already
// holds 200,000 rows (deeper B-trees, and the WAL checkpoints that a
// running router's log meets).
func BenchmarkLogInsert200k(b *testing.B) { benchLogInsert(b, 200_000, false) }

func benchLogInsert(b *testing.B, prefill int, distinct bool) {
	st, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const batch = 500
	entries := make([]RequestLog, batch)
	requests, responses := make([]string, batch), make([]string, batch)
	for i := range requests {
		msg := "mcpr-bench"
		if distinct {
			msg += "-" + strconv.Itoa(i)
		}
		requests[i] = `{"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"` + msg + `"}}}`
		responses[i] = `{"content":[{"type":"text","text":"Echo: ` + msg + `"}]}`
	}
	fill := func() {
		for i := range entries {
			entries[i] = RequestLog{Time: time.Now(), Client: "anonymous", Server: "everything", Method: "tools/call",
				Target: "everything__echo", DurationMs: 0.123, Status: StatusOK,
				Request: requests[i], Response: responses[i]}
		}
	}
	ctx := context.Background()
	for n := 0; n < prefill; n += batch {
		fill()
		if err := st.Logs().Insert(ctx, entries); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for n := 0; n < b.N; n += batch {
		fill()
		if err := st.Logs().Insert(ctx, entries); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/row")
	}
}

// BenchmarkLogQuery100k is the Logs page's first screen (newest 200 of one
// client's calls) over 100,000 rows.
func BenchmarkLogQuery100k(b *testing.B) {
	st, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	clients := []string{"laptop", "ui", "ci", "anonymous"}
	base := time.Now().Add(-48 * time.Hour)
	batch := make([]RequestLog, 0, 5000)
	for i := 0; i < 100_000; i++ {
		batch = append(batch, RequestLog{Time: base.Add(time.Duration(i) * time.Second), Client: clients[i%len(clients)],
			Server: "everything", Method: "tools/call", Target: "echo", DurationMs: 1, Status: StatusOK,
			Request: `{"message":"mcpr-bench"}`})
		if len(batch) == cap(batch) {
			if err := st.Logs().Insert(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		got, err := st.Logs().List(ctx, LogFilter{Client: "ci", Limit: 200})
		if err != nil || len(got) != 200 {
			b.Fatalf("List: %d rows, %v", len(got), err)
		}
	}
}

// BenchmarkOpenMigrate is a first start: create the file and run every
// migration.
func BenchmarkOpenMigrate(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	for n := 0; n < b.N; n++ {
		st, err := Open(filepath.Join(dir, "bench"+strconv.Itoa(n)+".db"))
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
