package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// servers add/update --isolation: per-client is stored and shown, client
// templates need it, and going back to shared with templates left is
// refused with the reason.
func TestServersIsolation(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "fs", "--isolation", "per-client", "--", "srv", "${client.roots}")
	var rows []struct {
		Name      string   `json:"name"`
		Isolation string   `json:"isolation"`
		Args      []string `json:"args"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "list", "--json")), &rows); err != nil || len(rows) != 1 ||
		rows[0].Isolation != "per-client" || rows[0].Args[0] != "${client.roots}" {
		t.Fatalf("%v %+v", err, rows)
	}
	if out := mustRun(t, dir, "servers", "show", "fs"); !strings.Contains(out, "per-client") {
		t.Errorf("show: %s", out)
	}
	if r := run(t, dir, "", "servers", "update", "fs", "--isolation", "shared"); r.code == 0 || !strings.Contains(r.stderr, "need isolation per-client") {
		t.Errorf("shared with templates: %+v", r)
	}
	if r := run(t, dir, "", "servers", "add", "bad", "--", "srv", "${client.root}"); r.code == 0 || !strings.Contains(r.stderr, "need isolation per-client") {
		t.Errorf("template on a shared add: %+v", r)
	}
	if r := run(t, dir, "", "servers", "add", "odd", "--isolation", "per-user", "--", "srv"); r.code == 0 || !strings.Contains(r.stderr, "must be shared or per-client") {
		t.Errorf("unknown isolation: %+v", r)
	}
	mustRun(t, dir, "servers", "add", "plain", "--", "srv")
	mustRun(t, dir, "servers", "update", "plain", "--isolation", "per-client")
	if out := mustRun(t, dir, "servers", "show", "plain"); !strings.Contains(out, "per-client") {
		t.Errorf("update to per-client: %s", out)
	}
	mustRun(t, dir, "servers", "update", "plain", "--isolation", "shared")
	if out := mustRun(t, dir, "servers", "show", "plain"); strings.Contains(out, "per-client") {
		t.Errorf("back to shared: %s", out)
	}
}
