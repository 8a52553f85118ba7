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

const abilityPolicy = `abilities:
  - name: sum
    permission: read
    server: calc
    tool: get-sum
    input_schema:
      type: object
      properties:
        x: {type: integer}
        y: {type: integer}
      required: [x]
    arguments:
      a: {from: x}
      b: {from: y, default: 100}
      mode: {const: exact}
  - name: drop_note
    permission: write
    server: notes
    tool: delete_note
    input_schema: {type: object}
policies:
  - name: writes-need-a-person
    match: {permissions: [write]}
    require: {human_approval: true}
  - name: no-calc-for-ci
    match: {clients: [ci]}
    servers: {deny: [calc]}
`

// explain resolves an ability by its name: its permission (which
// match.permissions sees), its backend server and tool, its mapping, and
// --args checked and mapped as a call would be; --permission explains any
// call as one of an ability with that permission.
func TestPolicyExplainAbilities(t *testing.T) {
	dir := t.TempDir()
	writePolicy(t, dir, abilityPolicy)
	out := mustRun(t, dir, "policy", "explain", "--client", "claude", "--tool", "sum", "--args", `{"x":2}`)
	for _, want := range []string{
		`ability: sum (read), routed to server "calc", tool "get-sum"` + "\n",
		`  arguments: a ← x; b ← y (default 100); mode = "exact"` + "\n",
		`call: client "claude", server "calc", tool "get-sum" (sum), permission read` + "\n",
		"matching rules: none\n",
		"decision: allow: no rule matches\n",
		"in tools/list: yes\n",
		`arguments: sent to get-sum as {"a":2,"b":100,"mode":"exact"}` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain sum lacks %q:\n%s", want, out)
		}
	}
	// The write ability needs a person; the same backend tool called as
	// itself does not.
	out = mustRun(t, dir, "policy", "explain", "--client", "claude", "--tool", "drop_note")
	for _, want := range []string{
		`ability: drop_note (write), routed to server "notes", tool "delete_note"`,
		"  arguments: none (the tool is called with {})",
		"  writes-need-a-person: requires human approval",
		`decision: approval (policy "writes-need-a-person")`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain drop_note lacks %q:\n%s", want, out)
		}
	}
	if out := mustRun(t, dir, "policy", "explain", "--client", "claude", "--tool", "notes__delete_note"); !strings.Contains(out, "decision: allow") || strings.Contains(out, "ability:") {
		t.Errorf("the backend tool as itself:\n%s", out)
	}
	// --permission: any call, explained as one with that permission.
	out = mustRun(t, dir, "policy", "explain", "--client", "claude", "--tool", "notes__delete_note", "--permission", "write")
	if !strings.Contains(out, `(notes__delete_note), permission write`) || !strings.Contains(out, `decision: approval (policy "writes-need-a-person")`) {
		t.Errorf("--permission write:\n%s", out)
	}
	out = mustRun(t, dir, "policy", "explain", "--client", "claude", "--server", "notes", "--tool", "delete_note", "--permission", "read")
	if !strings.Contains(out, "decision: allow") {
		t.Errorf("--permission read:\n%s", out)
	}
	// Invalid arguments: refused before any rule, with the validator's words.
	out = mustRun(t, dir, "policy", "explain", "--client", "ci", "--tool", "sum", "--args", `{"x":"two"}`, "--json")
	var ex struct {
		Decision, Rule, Why string
		Listed              bool
		Query               struct{ Server, Tool, Target, Permission string }
		Ability             struct {
			Name, Permission, Server, Tool string
			Mapping                        []string
			Arguments                      json.RawMessage
			ArgumentsError                 string
		}
		Matches []struct{ Rule string }
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if ex.Decision != "invalid_arguments" || ex.Rule != "" || !strings.Contains(ex.Why, "before any rule") ||
		!strings.Contains(ex.Ability.ArgumentsError, "invalid arguments for sum") || !strings.Contains(ex.Ability.ArgumentsError, "/x") ||
		ex.Ability.Arguments != nil || ex.Query.Permission != "read" || ex.Query.Target != "sum" || ex.Query.Server != "calc" ||
		ex.Ability.Tool != "get-sum" || len(ex.Ability.Mapping) != 3 {
		t.Errorf("invalid args: %+v\n%s", ex, out)
	}
	// The rules still say what they would do: ci is refused calc, and sum
	// is not in its tools/list.
	if len(ex.Matches) != 1 || ex.Matches[0].Rule != "no-calc-for-ci" || ex.Listed {
		t.Errorf("ci's matches %+v, listed %v", ex.Matches, ex.Listed)
	}
	out = mustRun(t, dir, "policy", "explain", "--client", "ci", "--tool", "sum", "--json")
	if err := json.Unmarshal([]byte(out), &ex); err != nil || ex.Decision != "deny" || ex.Rule != "no-calc-for-ci" {
		t.Errorf("ci sum: %+v %v", ex, err)
	}
	// Bad input: one line, exit 2.
	assertOneLineError(t, run(t, dir, "", "policy", "explain", "--client", "c", "--tool", "sum", "--permission", "admin"), ExitUsage, `--permission "admin": it is read or write`)
	assertOneLineError(t, run(t, dir, "", "policy", "explain", "--client", "c", "--tool", "sum", "--permission", "write"), ExitUsage, `--permission write: ability "sum" has permission read`)
	assertOneLineError(t, run(t, dir, "", "policy", "explain", "--client", "c", "--tool", "summ"), ExitUsage, "is no ability of the policy")
	// With --server, --tool is the server's own tool name, never an ability.
	if out := mustRun(t, dir, "policy", "explain", "--client", "c", "--server", "calc", "--tool", "sum"); strings.Contains(out, "ability:") || !strings.Contains(out, `tool "sum" (calc__sum)`) {
		t.Errorf("--server calc --tool sum:\n%s", out)
	}
}
