package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

func appendRows(t *testing.T, s *Store, n int) {
	t.Helper()
	for i := range n {
		if _, err := s.Audit().Append(context.Background(), AuditRow{Client: "c", Server: "s", Tool: "delete_note",
			Target: "s__delete_note", Policies: "guard", Arguments: fmt.Sprintf(`{"id":%d}`, i), Status: "ok", Result: `{"content":[]}`}, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
}

// tamper opens the file as an attacker with sqlite3 would: the triggers
// dropped first, since they refuse every change.
func tamper(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range append([]string{"DROP TRIGGER policy_audit_no_update", "DROP TRIGGER policy_audit_no_delete"}, stmts...) {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func verify(t *testing.T, s *Store) AuditReport {
	t.Helper()
	rep, err := s.Audit().Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestAuditChain(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		if rep := verify(t, s); !rep.OK() || rep.Rows != 0 || rep.Head != GenesisHash {
			t.Errorf("empty: %+v", rep)
		}
		appendRows(t, s, 5)
		rep := verify(t, s)
		if !rep.OK() || rep.Rows != 5 || rep.Head == GenesisHash {
			t.Fatalf("5 rows: %+v", rep)
		}
		var rows []AuditRow
		s.Audit().Each(context.Background(), func(r AuditRow) error { rows = append(rows, r); return nil })
		if rows[0].PrevHash != GenesisHash || rows[3].PrevHash != rows[2].Hash || rows[4].Hash != rep.Head || rows[4].ID != 5 {
			t.Errorf("chain %+v", rows)
		}
		// The table refuses changes through the store.
		db := s.db.Exec("UPDATE policy_audit SET arguments = '{}' WHERE id = 2")
		if db.Error == nil || !strings.Contains(db.Error.Error(), "append-only") {
			t.Errorf("update: %v", db.Error)
		}
		if err := s.db.Exec("DELETE FROM policy_audit").Error; err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("delete: %v", err)
		}
	})
}

func TestAuditVerifyFindsTampering(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stmts []string
		want  string
	}{
		{"an edited argument", []string{`UPDATE policy_audit SET arguments = '{"id":"other"}' WHERE id = 3`}, "row 3: its content does not match its hash"},
		{"an edited row with its hash recomputed by a naive forger", []string{`UPDATE policy_audit SET status = 'error', hash = 'x' WHERE id = 2`}, "row 3: prev_hash does not match"},
		{"a deleted row", []string{`DELETE FROM policy_audit WHERE id = 2`}, "rows 2 to 2 are missing"},
		{"the last row deleted", []string{`DELETE FROM policy_audit WHERE id = 5`}, "rows 5 to 5 were written and are missing"},
		{"every row deleted", []string{`DELETE FROM policy_audit`}, "rows 1 to 5 were written and are missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, path := openTest(t)
			appendRows(t, s, 5)
			tamper(t, path, tc.stmts...)
			rep := verify(t, s)
			if rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), tc.want) {
				t.Errorf("problems %q, want %q", rep.Problems, tc.want)
			}
		})
	}
}

// Appends from many goroutines keep one chain.
func TestAuditConcurrentAppends(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() { defer wg.Done(); appendRows(t, s, 5) }()
		}
		wg.Wait()
		if rep := verify(t, s); !rep.OK() || rep.Rows != 40 {
			t.Errorf("%+v", rep)
		}
	})
}

func TestAuditPage(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		appendRows(t, s, 7)
		rows, err := s.Audit().Page(context.Background(), 0, 3)
		if err != nil || len(rows) != 3 || rows[0].ID != 7 || rows[2].ID != 5 {
			t.Fatalf("first page %v %v", rows, err)
		}
		rows, err = s.Audit().Page(context.Background(), 5, 10)
		if err != nil || len(rows) != 4 || rows[0].ID != 4 || rows[3].ID != 1 {
			t.Fatalf("second page %v %v", rows, err)
		}
	})
}
