package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// servers add/update --protocol: stored, shown and listed; auto goes back
// to the default; unknown values, 2026-07-28 on an SSE server and the flag
// on a built-in server are refused with the reason.
func TestServersProtocol(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "gosdk", "--protocol", "2026-07-28", "--", "everything-server")
	var rows []struct {
		Name     string `json:"name"`
		Protocol string `json:"protocol"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "list", "--json")), &rows); err != nil || len(rows) != 1 || rows[0].Protocol != "2026-07-28" {
		t.Fatalf("%v %+v", err, rows)
	}
	if out := mustRun(t, dir, "servers", "show", "gosdk"); !strings.Contains(out, "Protocol:") || !strings.Contains(out, "2026-07-28") {
		t.Errorf("show: %s", out)
	}
	mustRun(t, dir, "servers", "update", "gosdk", "--protocol", "auto")
	if out := mustRun(t, dir, "servers", "show", "gosdk"); strings.Contains(out, "Protocol:") {
		t.Errorf("back to auto: %s", out)
	}
	mustRun(t, dir, "servers", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--protocol", "2025-11-25")
	if out := mustRun(t, dir, "servers", "show", "web"); !strings.Contains(out, "2025-11-25") {
		t.Errorf("pinned http server: %s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"servers", "add", "odd", "--protocol", "latest", "--", "srv"}, "must be auto, 2025-11-25 or 2026-07-28"},
		{[]string{"servers", "update", "web", "--protocol", "2024-11-05"}, "must be auto, 2025-11-25 or 2026-07-28"},
		{[]string{"servers", "add", "legacy", "--url", "http://127.0.0.1:9/sse", "--transport", "sse", "--protocol", "2026-07-28"}, "sse transport has no 2026-07-28"},
		{[]string{"servers", "add", "state_gate", "--builtin", "--protocol", "2025-11-25"}, "--protocol does not apply to a built-in server"},
	} {
		if r := run(t, dir, "", c.args...); r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: %+v", c.args, r)
		}
	}
}
