package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/store"
)

func TestAuditVerifyAndExport(t *testing.T) {
	dir := t.TempDir()
	if out := mustRun(t, dir, "audit", "verify"); !strings.HasPrefix(out, "audit trail intact: 0 rows") {
		t.Errorf("empty: %q", out)
	}
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	for i, args := range []string{`{"id":1}`, `{"id":2}`, `{"id":3}`} {
		if _, err := st.Audit().Append(context.Background(), store.AuditRow{Client: "claude", Server: "fs", Tool: "delete_file",
			Target: "fs__delete_file", Policies: "guard", Arguments: args, Status: "ok", Result: `{"content":[]}`}, time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
	out := mustRun(t, dir, "audit", "verify")
	if !strings.HasPrefix(out, "audit trail intact: 3 rows, head ") {
		t.Errorf("3 rows: %q", out)
	}
	out = mustRun(t, dir, "audit", "export", "--jsonl")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("export: %q", out)
	}
	var row store.AuditRow
	if err := json.Unmarshal([]byte(lines[1]), &row); err != nil || row.ID != 2 || row.Arguments != `{"id":2}` || row.Time != "2026-01-01T00:01:00Z" || row.Hash != store.AuditHash(row) {
		t.Errorf("line 2: %s (%v)", lines[1], err)
	}
	assertOneLineError(t, run(t, dir, "", "audit", "export"), ExitUsage, "needs --jsonl")

	// Row 2 deleted (its trigger dropped first, as with sqlite3).
	for _, s := range []string{"DROP TRIGGER policy_audit_no_delete", "DELETE FROM policy_audit WHERE id = 2"} {
		if err := st.DB().Exec(s).Error; err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	r := run(t, dir, "", "audit", "verify")
	if r.code != ExitError || !strings.Contains(r.stdout, "rows 2 to 2 are missing") || !strings.Contains(r.stderr, "tampered with: 2 problems in 2 rows") {
		t.Errorf("after a deletion: %+v", r)
	}
	r = run(t, dir, "", "audit", "verify", "--json")
	var rep store.AuditReport
	if json.Unmarshal([]byte(r.stdout), &rep) != nil || rep.OK() || rep.Rows != 2 || r.code != ExitError {
		t.Errorf("--json: %+v", r)
	}
}
