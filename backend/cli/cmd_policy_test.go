package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePolicy(t *testing.T, dir, src string) string {
	t.Helper()
	p := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func seedPolicy(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join("..", "policy", "testdata", "seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPolicyCheck(t *testing.T) {
	dir := t.TempDir()
	if out := mustRun(t, dir, "policy", "check"); !strings.Contains(out, "does not exist: the router runs without a policy") {
		t.Errorf("no file: %q", out)
	}
	path := writePolicy(t, dir, seedPolicy(t))
	if out := mustRun(t, dir, "policy", "check"); out != path+": ok, 3 rules\n" {
		t.Errorf("seed: %q", out)
	}
	bad := writePolicy(t, t.TempDir(), "policies:\n  - name: a\n    match: {tools: [\"[x\"]}\n    limit: {requests_per_minit: 5}\n")
	r := run(t, dir, "", "policy", "check", bad)
	if r.code != ExitError {
		t.Errorf("exit %d", r.code)
	}
	if !strings.Contains(r.stdout, bad+":4:") || !strings.Contains(r.stdout, `unknown field "requests_per_minit"`) {
		t.Errorf("stdout %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "does not load (1 problem)") {
		t.Errorf("stderr %q", r.stderr)
	}
	// Semantic problems: every one, each at its line and column.
	bad = writePolicy(t, t.TempDir(), "policies:\n  - name: a\n    match: {tools: [\"[x\"]}\n    limit: {requests_per_minute: 0}\n")
	r = run(t, dir, "", "policy", "check", bad)
	if r.code != ExitError || !strings.Contains(r.stdout, bad+":3:21: bad pattern") || !strings.Contains(r.stdout, bad+":4:34: limit.requests_per_minute") {
		t.Errorf("exit %d stdout %q", r.code, r.stdout)
	}
	r = run(t, dir, "", "policy", "check", filepath.Join(dir, "nope.yaml"))
	assertOneLineError(t, r, ExitError, "no such file")
}

func TestPolicyExplain(t *testing.T) {
	dir := t.TempDir()
	writePolicy(t, dir, seedPolicy(t))
	out := mustRun(t, dir, "policy", "explain", "--client", "claude", "--tool", "sophia__delete_note", "--args", `{"id":"n1"}`)
	for _, want := range []string{
		`call: client "claude", server "sophia", tool "delete_note" (sophia__delete_note)`,
		"  destructive-operations-guard: requires human approval; asks for an audit record\n",
		"  rate-limit: limits to 60 calls a minute per client×tool\n",
		`  allowed-servers: allows server "sophia"`,
		`decision: approval (policy "destructive-operations-guard")`,
		"in tools/list: yes",
		"arguments: valid JSON",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	out = mustRun(t, dir, "policy", "explain", "--client", "claude", "--server", "github", "--tool", "search", "--json")
	var ex struct {
		Decision, Rule string
		Listed         bool
		Query          struct{ Target string }
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Decision != "deny" || ex.Rule != "allowed-servers" || ex.Listed || ex.Query.Target != "github__search" {
		t.Errorf("github: %+v\n%s", ex, out)
	}
	assertOneLineError(t, run(t, dir, "", "policy", "explain", "--client", "c"), ExitUsage, "needs --client and --tool")
	assertOneLineError(t, run(t, dir, "", "policy", "explain", "--client", "c", "--tool", "x__y", "--args", "[1"), ExitUsage, "--args is not a JSON object")
	assertOneLineError(t, run(t, dir, "", "policy", "explain", "--client", "c", "--tool", "plain"), ExitUsage, "has no server part")
	// A bad file: explained nowhere, its problems printed.
	writePolicy(t, dir, "policies: [\n")
	r := run(t, dir, "", "policy", "explain", "--client", "c", "--tool", "x__y")
	if r.code != ExitError || !strings.Contains(r.stderr, "policy.yaml:1:") || r.stdout != "" {
		t.Errorf("bad file: %+v", r)
	}
}
