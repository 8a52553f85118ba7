package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogInsertBatchIsAllOrNothing holds the request log's batch write to
// one transaction that commits every row or none, over several INSERT
// statements (chunks of insertChunk rows), now that SQLite's statement is
// INSERT OR ROLLBACK (which spares it a statement journal per multi-row
// INSERT): a row refused in the last chunk must take the earlier chunks
// with it, the error must reach the caller, and the next batch must write
// normally on the same pool. Two kinds of refusal: a constraint conflict,
// which OR ROLLBACK resolves by rolling the whole transaction back inside
// SQLite, and an abort raised by a trigger, which ends only the statement
// and leaves the rollback to insertRaw.
func TestLogInsertBatchIsAllOrNothing(t *testing.T) {
	for _, c := range []struct{ name, ddl, want string }{
		{"conflict", `CREATE UNIQUE INDEX refuse_twice ON request_logs(target)`, "UNIQUE constraint failed"},
		{"abort", `CREATE TRIGGER refuse_poison BEFORE INSERT ON request_logs
			WHEN NEW.target = 't0' AND NEW.client = 'again' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END`, "poisoned row"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Open(filepath.Join(t.TempDir(), "atomic.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			if err := s.DB().Exec(c.ddl).Error; err != nil {
				t.Fatal(err)
			}
			batch := make([]RequestLog, 2*insertChunk+20)
			for i := range batch {
				batch[i] = RequestLog{Client: "c", Server: "s", Method: "tools/call", Target: fmt.Sprintf("t%d", i), Status: StatusOK}
			}
			// The third chunk repeats the first row's target.
			batch[len(batch)-3].Target, batch[len(batch)-3].Client = "t0", "again"
			err = s.Logs().Insert(ctx, batch)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Insert with a refused row: err = %v, want %q", err, c.want)
			}
			count := func() int64 {
				var n int64
				if err := s.DB().Model(&RequestLog{}).Count(&n).Error; err != nil {
					t.Fatal(err)
				}
				return n
			}
			if n := count(); n != 0 {
				t.Fatalf("%d rows of a failed batch were committed, want 0", n)
			}
			batch[len(batch)-3].Target, batch[len(batch)-3].Client = "fine", "c"
			for i := 0; i < 3; i++ { // more batches than the pool has connections
				if err := s.Logs().Insert(ctx, batch); err != nil {
					t.Fatalf("batch %d after the failed one: %v", i, err)
				}
				for j := range batch {
					batch[j].Target += "x"
				}
			}
			if n := count(); n != 3*int64(len(batch)) {
				t.Fatalf("%d rows after 3 good batches of %d", n, len(batch))
			}
		})
	}
}
