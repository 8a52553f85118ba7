package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
)

// TestLogQueriesUseAnIndexAt100kRows proves the UI's request log queries
// stay fast as the log grows: over 100,000 real rows, SQLite's plan for each
// filter combination the UI sends must walk the rows in ID order (never
// collect and sort every match in a temporary B-tree), through the index of
// a filtered column when there is one. A plan, not a timing, so a busy
// machine cannot make it flaky.
func TestLogQueriesUseAnIndexAt100kRows(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts 100,000 rows")
	}
	s, _ := openTest(t)
	ctx := context.Background()
	base := time.Now().Add(-48 * time.Hour)
	clients := []string{"laptop", "ui", "ci", "anonymous"}
	statuses := []string{StatusOK, StatusOK, StatusOK, StatusError, StatusBlocked}
	batch := make([]RequestLog, 0, 5000)
	for i := 0; i < 100_000; i++ {
		batch = append(batch, RequestLog{
			Time: base.Add(time.Duration(i) * time.Second), Client: clients[i%len(clients)],
			Server: fmt.Sprintf("s%d", i%7), Method: []string{"tools/call", "tools/list", "resources/read"}[i%3],
			Target: "echo", DurationMs: 1, Status: statuses[i%len(statuses)],
			Request: `{"message":"` + strings.Repeat("x", 200) + `"}`,
		})
		if len(batch) == cap(batch) {
			if err := s.Logs().Insert(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	var n int64
	s.DB().Model(&RequestLog{}).Count(&n)
	if n != 100_000 {
		t.Fatalf("%d rows", n)
	}
	since := base.Add(24 * time.Hour)
	cases := []struct {
		name string
		f    LogFilter
	}{
		{"first page", LogFilter{Limit: 100}},
		{"next page", LogFilter{Limit: 100, BeforeID: 50_000}},
		{"client", LogFilter{Client: "ui", Limit: 100, BeforeID: 50_000}},
		{"server", LogFilter{Server: "s3", Limit: 100, BeforeID: 50_000}},
		{"method", LogFilter{Method: "tools/call", Limit: 100}},
		{"status", LogFilter{Status: StatusBlocked, Limit: 100, BeforeID: 90_000}},
		{"since", LogFilter{Since: since, Limit: 100}},
		{"until", LogFilter{Until: since, Limit: 100, BeforeID: 80_000}},
		{"client and status", LogFilter{Client: "ci", Status: StatusError, Limit: 100}},
		{"everything", LogFilter{Client: "ci", Server: "s1", Method: "tools/call", Status: StatusOK,
			Since: base, Until: since, BeforeID: 70_000, Limit: 500}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sql := s.DB().ToSQL(func(tx *gorm.DB) *gorm.DB {
				var out []RequestLog
				return tc.f.apply(tx.Model(&RequestLog{})).Order("id DESC").Limit(tc.f.limit()).Find(&out)
			})
			rows, err := s.DB().Raw("EXPLAIN QUERY PLAN " + sql).Rows()
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, notused int
				var detail string
				if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			joined := strings.Join(plan, "; ")
			if strings.Contains(joined, "TEMP B-TREE") {
				t.Errorf("plan sorts every match: %s\n%s", joined, sql)
			}
			// Without an equality filter, walking the table backwards by
			// rowid is right: the LIMIT stops it after one page of matches.
			// With one, the walk must go through that column's index.
			equality := tc.f.Client != "" || tc.f.Server != "" || tc.f.Method != "" || tc.f.Status != ""
			if equality && !strings.Contains(joined, "USING INDEX idx_request_logs_") {
				t.Errorf("plan does not use an index for the filter: %s\n%s", joined, sql)
			}
			// And the query answers: newest first, below the cursor.
			got, err := s.Logs().List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range got {
				if tc.f.BeforeID != 0 && r.ID >= tc.f.BeforeID || i > 0 && r.ID >= got[i-1].ID {
					t.Fatalf("row %d id %d out of order or past the cursor", i, r.ID)
				}
			}
			t.Logf("%d rows; plan: %s", len(got), joined)
		})
	}
}
