package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// servers add/update --start: stored and listed with what it resolves to
// (export carries the field with the definition); an unknown mode is
// refused naming the choices.
func TestServersStartMode(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "lz", "--start", "lazy", "--", "everything-server")
	mustRun(t, dir, "servers", "add", "eg", "--start", "eager", "--", "everything-server")
	mustRun(t, dir, "servers", "add", "au", "--", "everything-server")
	starts := serverStarts(t, dir)
	if s := starts(); s["lz"] != "lazy/lazy" || s["eg"] != "eager/eager" || s["au"] != "auto/eager" {
		t.Fatalf("after add (start/resolved): %v", s)
	}
	mustRun(t, dir, "servers", "update", "lz", "--start", "eager")
	mustRun(t, dir, "servers", "update", "eg", "--start", "lazy")
	if s := starts(); s["lz"] != "eager/eager" || s["eg"] != "lazy/lazy" {
		t.Fatalf("after update: %v", s)
	}
	if out := mustRun(t, dir, "servers", "show", "eg"); !strings.Contains(out, "Start:") || !strings.Contains(out, "lazy (starts on use") ||
		strings.Contains(out, "auto") {
		t.Errorf("servers show of a lazy server:\n%s", out)
	}
	if out := mustRun(t, dir, "servers", "show", "lz"); !strings.Contains(out, "eager (with the router)") {
		t.Errorf("servers show of an eager server:\n%s", out)
	}
	for _, args := range [][]string{
		{"servers", "add", "odd", "--start", "later", "--", "srv"},
		{"servers", "update", "eg", "--start", "sometimes"},
	} {
		if r := run(t, dir, "", args...); r.code == 0 || !strings.Contains(r.stderr, "must be auto, eager or lazy") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

// serverStarts reads `servers list --json`: each server's "start/resolvedStart".
func serverStarts(t *testing.T, dir string) func() map[string]string {
	return func() map[string]string {
		t.Helper()
		var rows []struct {
			Name          string `json:"name"`
			Start         string `json:"start"`
			ResolvedStart string `json:"resolvedStart"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "list", "--json")), &rows); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range rows {
			out[r.Name] = r.Start + "/" + r.ResolvedStart
		}
		return out
	}
}

// An auto start resolves to lazy for a gated server and for one that only
// search profiles have, and back to eager when another profile has it too;
// list and show say so, and why. An explicit eager stays eager whatever the
// profiles, and a server in no profile at all stays eager (the default
// profile, plain /mcp, does not count).
func TestServersAutoStartResolves(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c", "e"} {
		mustRun(t, dir, "servers", "add", n, "--", "everything-server")
	}
	mustRun(t, dir, "servers", "update", "e", "--start", "eager")
	mustRun(t, dir, "servers", "gate", "c", "--on")
	mustRun(t, dir, "profiles", "add", "finder", "--servers", "a,b,e", "--mode", "search")
	starts := serverStarts(t, dir)
	if s := starts(); s["a"] != "auto/lazy" || s["b"] != "auto/lazy" || s["c"] != "auto/lazy" || s["e"] != "eager/eager" {
		t.Fatalf("search-only a, b; gated c; explicit eager e: %v", s)
	}
	mustRun(t, dir, "profiles", "add", "plain", "--servers", "b")
	if s := starts(); s["a"] != "auto/lazy" || s["b"] != "auto/eager" {
		t.Fatalf("b in an all profile too: %v", s)
	}
	if out := mustRun(t, dir, "servers", "show", "a"); !strings.Contains(out, "lazy (starts on use") || !strings.Contains(out, "auto: the server is only in search profiles") {
		t.Errorf("servers show a:\n%s", out)
	}
	if out := mustRun(t, dir, "servers", "show", "c"); !strings.Contains(out, "auto: the server is gated") {
		t.Errorf("servers show c:\n%s", out)
	}
	list := mustRun(t, dir, "servers", "list")
	for _, want := range []string{"START", "lazy (auto)", "eager (auto)"} {
		if !strings.Contains(list, want) {
			t.Errorf("servers list lacks %q:\n%s", want, list)
		}
	}
	mustRun(t, dir, "profiles", "remove", "finder")
	if s := starts(); s["a"] != "auto/eager" {
		t.Fatalf("a in no profile: %v", s)
	}
}
