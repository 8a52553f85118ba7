package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// servers add/update --start: stored and listed (export carries the field
// with the definition); an unknown mode is refused naming the choices.
func TestServersStartMode(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "lz", "--start", "lazy", "--", "everything-server")
	mustRun(t, dir, "servers", "add", "eg", "--", "everything-server")
	starts := func() map[string]string {
		var rows []struct {
			Name  string `json:"name"`
			Start string `json:"start"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "list", "--json")), &rows); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range rows {
			out[r.Name] = r.Start
		}
		return out
	}
	if s := starts(); s["lz"] != "lazy" || s["eg"] != "eager" {
		t.Fatalf("after add: %v", s)
	}
	mustRun(t, dir, "servers", "update", "lz", "--start", "eager")
	mustRun(t, dir, "servers", "update", "eg", "--start", "lazy")
	if s := starts(); s["lz"] != "eager" || s["eg"] != "lazy" {
		t.Fatalf("after update: %v", s)
	}
	if out := mustRun(t, dir, "servers", "show", "eg"); !strings.Contains(out, "Start:") || !strings.Contains(out, "lazy (starts on use") {
		t.Errorf("servers show of a lazy server:\n%s", out)
	}
	if out := mustRun(t, dir, "servers", "show", "lz"); strings.Contains(out, "Start:") {
		t.Errorf("servers show of an eager server:\n%s", out)
	}
	for _, args := range [][]string{
		{"servers", "add", "odd", "--start", "later", "--", "srv"},
		{"servers", "update", "eg", "--start", "sometimes"},
	} {
		if r := run(t, dir, "", args...); r.code == 0 || !strings.Contains(r.stderr, "must be eager or lazy") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}
