package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cliProcess = `id: review
version: 1.0.0
states:
  - name: draft
    initial: true
  - name: merged
    final: true
events:
  - name: merge
transitions:
  - {from: draft, event: merge, to: merged}
`

func TestStateGateCLI(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "review.yaml")
	if err := os.WriteFile(file, []byte(cliProcess), 0o600); err != nil {
		t.Fatal(err)
	}

	// The built-in server is added like any other, and only by name.
	if out := mustRun(t, dir, "servers", "add", "state_gate", "--builtin", "--disabled"); !strings.Contains(out, "added state_gate (builtin: built in)") {
		t.Fatalf("servers add: %q", out)
	}
	if rows := list(t, dir); len(rows) != 1 || rows[0].Transport != "builtin" || rows[0].Enabled {
		t.Fatalf("servers: %+v", rows)
	}
	for _, bad := range [][]string{
		{"servers", "add", "other", "--builtin"},
		{"servers", "add", "state_gate", "--builtin", "--url", "http://x"},
		{"servers", "add", "state_gate", "--builtin", "--", "cmd"},
	} {
		if r := run(t, dir, "", bad...); r.code != ExitUsage || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}

	if out := mustRun(t, dir, "stategate", "process", "check", file); !strings.Contains(out, "process review 1.0.0 is valid") {
		t.Fatalf("check: %q", out)
	}
	if out := mustRun(t, dir, "stategate", "process", "add", file); !strings.Contains(out, "added process review 1.0.0") {
		t.Fatalf("add: %q", out)
	}
	if r := run(t, dir, "", "stategate", "process", "add", file); r.code != ExitError || !strings.Contains(r.stderr, "already exists") {
		t.Fatalf("second add: %+v", r)
	}
	// A bad definition: every problem with its line and column, nothing written.
	bad := strings.Replace(strings.Replace(cliProcess, "to: merged", "to: nowhere", 1), "version: 1.0.0", "version: 2.0.0\ncolor: red", 1)
	r := run(t, dir, bad, "stategate", "process", "add", "--replace", "-")
	if r.code != ExitError || !strings.Contains(r.stderr, "stdin:3:1:") {
		t.Fatalf("bad add: %+v", r)
	}
	bad = strings.Replace(cliProcess, "to: merged", "to: nowhere", 1)
	bad = strings.Replace(bad, "event: merge,", "event: mrge,", 1)
	r = run(t, dir, bad, "stategate", "process", "add", "--replace", "-")
	if r.code != ExitError || !strings.Contains(r.stderr, "stdin:11:") || !strings.Contains(r.stderr, `unknown state "nowhere"`) ||
		!strings.Contains(r.stderr, `unknown event "mrge"`) || !strings.HasSuffix(strings.TrimSpace(r.stderr), "more problems)") {
		t.Fatalf("bad add: %+v", r)
	}
	if out := mustRun(t, dir, "stategate", "process", "show", "review"); out != cliProcess {
		t.Fatalf("show after a refused replace: %q", out)
	}
	var procs []processJSON
	if err := json.Unmarshal([]byte(mustRun(t, dir, "stategate", "process", "list", "--json")), &procs); err != nil || len(procs) != 1 || procs[0].ID != "review" {
		t.Fatalf("list: %+v (%v)", procs, err)
	}

	// Runs.
	var created struct {
		RunID        string `json:"run_id"`
		CurrentState string `json:"current_state"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "stategate", "run", "create", "review", "--context", `{"pr":7}`, "--json")), &created); err != nil ||
		created.CurrentState != "draft" || !strings.HasPrefix(created.RunID, "run-") {
		t.Fatalf("run create: %+v (%v)", created, err)
	}
	if r := run(t, dir, "", "stategate", "run", "create", "nope"); r.code != ExitError || !strings.Contains(r.stderr, "PROCESS_NOT_FOUND") {
		t.Fatalf("run create of a missing process: %+v", r)
	}
	if r := run(t, dir, "", "stategate", "run", "create", "review", "--context", "{"); r.code != ExitUsage {
		t.Fatalf("bad context: %+v", r)
	}
	if out := mustRun(t, dir, "stategate", "run", "list"); !strings.Contains(out, created.RunID) || !strings.Contains(out, "draft") {
		t.Fatalf("run list: %q", out)
	}
	if out := mustRun(t, dir, "stategate", "run", "show", created.RunID); !strings.Contains(out, "state draft (revision 0)") {
		t.Fatalf("run show: %q", out)
	}

	// Removing the process keeps the run and its version.
	mustRun(t, dir, "stategate", "process", "remove", "review")
	if out := mustRun(t, dir, "stategate", "run", "show", created.RunID); !strings.Contains(out, "process review 1.0.0") {
		t.Fatalf("run show after remove: %q", out)
	}
	if r := run(t, dir, "", "stategate", "process", "show", "review"); r.code != ExitError {
		t.Fatalf("show of a removed process: %+v", r)
	}
}
