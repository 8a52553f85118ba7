package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLogInsert is the request log's write: batches of 500 entries
// shaped like a fast-path echo call's, per entry.
func BenchmarkLogInsert(b *testing.B) {
	st, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const batch = 500
	entries := make([]RequestLog, batch)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n += batch {
		for i := range entries {
			entries[i] = RequestLog{Time: time.Now(), Client: "anonymous", Server: "everything", Method: "tools/call",
				Target: "everything__echo", DurationMs: 0.123, Status: StatusOK,
				Request:  `{"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"mcpr-bench"}}}`,
				Response: `{"content":[{"type":"text","text":"Echo: mcpr-bench"}]}`}
		}
		if err := st.Logs().Insert(ctx, entries); err != nil {
			b.Fatal(err)
		}
	}
}
