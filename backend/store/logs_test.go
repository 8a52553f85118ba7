package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestLogs(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Logs()

		// Times in a non-UTC zone must still filter correctly: they are stored
		// as text, so the store has to normalize them.
		zone := time.FixedZone("UTC+9", 9*3600)
		base := time.Date(2026, 1, 1, 12, 0, 0, 0, zone)
		var batch []RequestLog
		for i := 0; i < 250; i++ {
			st := StatusOK
			if i%10 == 0 {
				st = StatusError
			}
			batch = append(batch, RequestLog{
				Time: base.Add(time.Duration(i) * time.Minute), Client: "c", Server: fmt.Sprintf("s%d", i%2),
				Method: "tools/call", Target: "t", DurationMs: float64(i), Status: st,
			})
		}
		if err := r.Insert(ctx, batch); err != nil {
			t.Fatal(err)
		}
		if err := r.Insert(ctx, nil); err != nil {
			t.Fatal(err)
		}

		tests := []struct {
			name   string
			f      LogFilter
			count  int
			newest float64 // DurationMs of the first entry
		}{
			{"default limit", LogFilter{}, DefaultLogLimit, 249},
			{"limit", LogFilter{Limit: 5}, 5, 249},
			{"server", LogFilter{Server: "s0", Limit: 1000}, 125, 248},
			{"status", LogFilter{Status: StatusError, Limit: 1000}, 25, 240},
			{"method miss", LogFilter{Method: "resources/read"}, 0, 0},
			{"since", LogFilter{Since: base.Add(240 * time.Minute).UTC()}, 10, 249},
			{"until", LogFilter{Until: base.Add(10 * time.Minute).In(time.UTC)}, 10, 9},
			{"window", LogFilter{Since: base.Add(time.Minute), Until: base.Add(3 * time.Minute)}, 2, 2},
			{"before id", LogFilter{BeforeID: 11}, 10, 9},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := r.List(ctx, tt.f)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != tt.count {
					t.Fatalf("got %d entries, want %d", len(got), tt.count)
				}
				if len(got) > 0 && got[0].DurationMs != tt.newest {
					t.Errorf("newest = %v, want %v", got[0].DurationMs, tt.newest)
				}
			})
		}

		// Keyset pagination visits every entry exactly once, newest first.
		seen := 0
		var before uint
		last := 1e9
		for {
			page, err := r.List(ctx, LogFilter{Limit: 60, BeforeID: before})
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			for _, e := range page {
				if e.DurationMs >= last {
					t.Fatalf("out of order: %v after %v", e.DurationMs, last)
				}
				last = e.DurationMs
			}
			seen += len(page)
			before = page[len(page)-1].ID
		}
		if seen != 250 {
			t.Errorf("paged through %d entries, want 250", seen)
		}

		n, err := r.DeleteOlderThan(ctx, base.Add(100*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if n != 100 {
			t.Errorf("deleted %d, want 100", n)
		}
		rest, _ := r.List(ctx, LogFilter{Limit: 1000})
		if len(rest) != 150 || rest[len(rest)-1].DurationMs != 100 {
			t.Errorf("after retention: %d entries, oldest %v", len(rest), rest[len(rest)-1].DurationMs)
		}
	})
}

// ListAfter pages forward by ID with the same filters as List, and MaxID
// bounds a read so that a follower neither repeats nor misses an entry.
func TestLogsListAfterAndMaxID(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Logs()

		if id, err := r.MaxID(ctx); err != nil || id != 0 {
			t.Fatalf("MaxID of an empty table = %d, %v", id, err)
		}
		var batch []RequestLog
		for i := 0; i < 30; i++ {
			batch = append(batch, RequestLog{Server: fmt.Sprintf("s%d", i%3), Method: "tools/call", Status: StatusOK, DurationMs: float64(i)})
		}
		if err := r.Insert(ctx, batch); err != nil {
			t.Fatal(err)
		}
		maxID, err := r.MaxID(ctx)
		if err != nil || maxID != batch[29].ID {
			t.Fatalf("MaxID = %d, %v; want %d", maxID, err, batch[29].ID)
		}

		// Forward pages of 4 over server s1 visit its 10 entries in order.
		var got []float64
		var after uint
		for {
			page, err := r.ListAfter(ctx, LogFilter{Server: "s1", Limit: 4}, after)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			for _, e := range page {
				got = append(got, e.DurationMs)
			}
			after = page[len(page)-1].ID
		}
		if fmt.Sprint(got) != "[1 4 7 10 13 16 19 22 25 28]" {
			t.Errorf("forward pages over s1: %v", got)
		}

		// BeforeID is an exclusive upper bound; an entry added later stays out.
		if err := r.Insert(ctx, []RequestLog{{Server: "s0", Status: StatusOK, DurationMs: 99}}); err != nil {
			t.Fatal(err)
		}
		page, err := r.ListAfter(ctx, LogFilter{BeforeID: maxID + 1, Limit: 100}, batch[26].ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) != 3 || page[0].DurationMs != 27 || page[2].DurationMs != 29 {
			t.Errorf("bounded page: %+v", page)
		}

		// IDs are not reused after retention empties the table.
		if _, err := r.DeleteOlderThan(ctx, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if id, _ := r.MaxID(ctx); id != 0 {
			t.Errorf("MaxID after deleting all = %d", id)
		}
		next := []RequestLog{{Server: "s0", Status: StatusOK}}
		if err := r.Insert(ctx, next); err != nil {
			t.Fatal(err)
		}
		if next[0].ID <= maxID+1 {
			t.Errorf("new entry got ID %d, reusing IDs up to %d", next[0].ID, maxID+1)
		}
	})
}

// Insert gives each entry the id it was stored under, across the chunks of
// one multi-row statement and the remainder (50 + 50 + 23 rows here).
func TestLogsInsertAssignsTheStoredIDs(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Logs()
		if err := r.Insert(ctx, []RequestLog{{Method: "first", Status: StatusOK}}); err != nil {
			t.Fatal(err)
		}
		batch := make([]RequestLog, 123)
		for i := range batch {
			batch[i] = RequestLog{Method: "m", Target: fmt.Sprint(i), Status: StatusOK, Request: fmt.Sprintf(`{"i":%d}`, i)}
			if i%2 == 0 {
				batch[i].BackendTool = fmt.Sprint("tool-", i) // every column lands in its row, chunks of 50 included
			}
			if i%3 == 0 {
				batch[i].Instance = fmt.Sprintf("#%d (pid %d)", i, 1000+i)
			}
		}
		if err := r.Insert(ctx, batch); err != nil {
			t.Fatal(err)
		}
		stored, err := r.List(ctx, LogFilter{Method: "m", Limit: 1000})
		if err != nil || len(stored) != len(batch) {
			t.Fatalf("stored %d entries, err %v", len(stored), err)
		}
		byID := map[uint]RequestLog{}
		for _, e := range stored {
			byID[e.ID] = e
		}
		for i, e := range batch {
			got, ok := byID[e.ID]
			if !ok || got.Target != fmt.Sprint(i) || got.Request != e.Request || got.BackendTool != e.BackendTool || got.Instance != e.Instance {
				t.Fatalf("entry %d got id %d, which holds %+v", i, e.ID, got)
			}
		}
	})
}
