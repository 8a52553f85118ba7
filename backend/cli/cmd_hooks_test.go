package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type listedHook struct {
	Name           string `json:"name"`
	Enabled        bool   `json:"enabled"`
	ExecutionOrder int    `json:"executionOrder"`
	HookType       string `json:"hookType"`
	FailClosed     bool   `json:"failClosed"`
	Script         string `json:"script"`
}

func hooksJSON(t *testing.T, dir string) []listedHook {
	t.Helper()
	out := mustRun(t, dir, "hooks", "list", "--json")
	var rows []listedHook
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return rows
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const blockScript = `if (context.requestType === 'CallTool' && String(context.arguments.message).includes('secret')) {
  console.warn('blocking', context.toolName);
  return { continue: false, error: { message: 'no secrets' } };
}
context.arguments.checked = true;`

func TestHooksAddListToggleRemove(t *testing.T) {
	dir, files := t.TempDir(), t.TempDir()
	block := writeFile(t, files, "block.js", blockScript)
	redact := writeFile(t, files, "redact.js", `context.response.content[0].text = 'x';`)

	if out := mustRun(t, dir, "hooks", "list"); !strings.Contains(out, "No hooks yet") {
		t.Errorf("empty list: %q", out)
	}
	out := mustRun(t, dir, "hooks", "add", "no-secrets", "--type", "pre", "--file", block, "--order", "5", "--fail-closed")
	if !strings.Contains(out, "added no-secrets (pre, order 5, fail-closed)") {
		t.Errorf("add said %q", out)
	}
	mustRun(t, dir, "hooks", "add", "redact", "--type", "post", "--file", redact, "--order", "1", "--disabled")
	rows := hooksJSON(t, dir)
	if len(rows) != 2 || rows[0].Name != "redact" || rows[1].Name != "no-secrets" {
		t.Fatalf("rows = %+v", rows)
	}
	if r := rows[1]; !r.Enabled || !r.FailClosed || r.HookType != "pre" || r.ExecutionOrder != 5 || r.Script != blockScript {
		t.Errorf("no-secrets stored as %+v", r)
	}
	if rows[0].Enabled {
		t.Error("--disabled ignored")
	}
	table := mustRun(t, dir, "hooks", "list")
	for _, want := range []string{"ORDER", "no-secrets", "redact", "post"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if got := mustRun(t, dir, "hooks", "show", "no-secrets"); got != blockScript+"\n" {
		t.Errorf("show = %q", got)
	}

	mustRun(t, dir, "hooks", "enable", "redact")
	mustRun(t, dir, "hooks", "disable", "no-secrets")
	rows = hooksJSON(t, dir)
	if !rows[0].Enabled || rows[1].Enabled {
		t.Errorf("toggles: %+v", rows)
	}

	// Update from stdin: only what was given changes.
	r := run(t, dir, "context.arguments.v = 2;", "hooks", "update", "no-secrets", "--file", "-", "--order", "0", "--fail-closed=false")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	rows = hooksJSON(t, dir)
	if h := rows[0]; h.Name != "no-secrets" || h.Script != "context.arguments.v = 2;" || h.FailClosed || h.HookType != "pre" {
		t.Errorf("after update: %+v", rows)
	}

	mustRun(t, dir, "hooks", "remove", "redact")
	if rows = hooksJSON(t, dir); len(rows) != 1 {
		t.Errorf("after remove: %+v", rows)
	}
}

func TestHooksTest(t *testing.T) {
	dir, files := t.TempDir(), t.TempDir()
	mustRun(t, dir, "hooks", "add", "no-secrets", "--type", "both", "--file", writeFile(t, files, "b.js", blockScript), "--disabled")
	sample := writeFile(t, files, "ctx.json", `{"requestType":"CallTool","serverName":"everything","toolName":"echo",
		"arguments":{"message":"my secret"},"request":{"method":"tools/call","params":{"name":"everything__echo"}}}`)
	out := mustRun(t, dir, "hooks", "test", "no-secrets", "--context", sample)
	for _, want := range []string{"[console.warn] blocking echo", `result: blocked: blocked by hook "no-secrets": no secrets`, `"toolName": "echo"`} {
		if !strings.Contains(out, want) {
			t.Errorf("test output lacks %q:\n%s", want, out)
		}
	}
	ok := writeFile(t, files, "ok.json", `{"method":"tools/call","toolName":"echo","arguments":{"message":"hi"}}`)
	var res struct {
		Continue bool           `json:"continue"`
		Phase    string         `json:"phase"`
		Context  map[string]any `json:"context"`
		Logs     []any          `json:"logs"`
	}
	out = mustRun(t, dir, "hooks", "test", "no-secrets", "--context", ok, "--phase", "post", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	args, _ := res.Context["arguments"].(map[string]any)
	if !res.Continue || res.Phase != "post" || args["checked"] != true || res.Context["requestType"] != "CallTool" || len(res.Logs) != 0 {
		t.Errorf("json result: %s", out)
	}
	// A failing script reports the failure and still exits 0.
	mustRun(t, dir, "hooks", "add", "thrower", "--type", "pre", "--file", writeFile(t, files, "t.js", "\nthrow new TypeError('nope')"))
	out = mustRun(t, dir, "hooks", "test", "thrower", "--context", ok)
	if !strings.Contains(out, "result: continue (the script failed: TypeError: nope (line 2, column") {
		t.Errorf("thrower:\n%s", out)
	}
}

// `hooks test` runs under the limits the router uses (the hookTimeout
// setting), and a hostile value read after the script ended is reported as
// the script's failure, not a crash.
func TestHooksTestUnderTheHookLimits(t *testing.T) {
	dir, files := t.TempDir(), t.TempDir()
	ok := writeFile(t, files, "ok.json", `{"method":"tools/call","toolName":"echo","arguments":{"message":"hi"}}`)
	mustRun(t, dir, "hooks", "add", "spin", "--type", "pre", "--file", writeFile(t, files, "s.js", "return { get continue() { for (;;) {} } };"))
	mustRun(t, dir, "settings", "set", "hookTimeout", "1")
	start := time.Now()
	out := mustRun(t, dir, "hooks", "test", "spin", "--context", ok)
	if d := time.Since(start); d > 4*time.Second || !strings.Contains(out, "result: continue (the script failed: timed out)") {
		t.Errorf("spinning getter with hookTimeout 1 (%v):\n%s", d, out)
	}
	mustRun(t, dir, "hooks", "add", "unreadable", "--type", "pre", "--file", writeFile(t, files, "u.js", "throw { toString() { throw new Error('no'); } };"))
	out = mustRun(t, dir, "hooks", "test", "unreadable", "--context", ok)
	if !strings.Contains(out, "the script failed: a thrown value that cannot be shown (converting it to a string threw Error: no") {
		t.Errorf("unreadable thrown value:\n%s", out)
	}
}

func TestHooksBadInput(t *testing.T) {
	dir, files := t.TempDir(), t.TempDir()
	good := writeFile(t, files, "good.js", "return;")
	mustRun(t, dir, "hooks", "add", "existing", "--type", "pre", "--file", good)
	before := hooksJSON(t, dir)
	bad := writeFile(t, files, "bad.js", "const a = 1;\nif (a > ) {}")
	big := writeFile(t, files, "big.js", strings.Repeat("/", 1<<20+1))
	ctxOK := writeFile(t, files, "ctx.json", `{"toolName":"x"}`)
	ctxBad := writeFile(t, files, "ctxbad.json", `{"toolName":`)
	ctxTypo := writeFile(t, files, "typo.json", `{"toolname":"x"}`)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"hooks", "add", "new", "--type", "pre", "--file", bad}, 1, `hook "new": syntax error at line 2, column 9: Unexpected token )`},
		{[]string{"hooks", "add", "new", "--type", "pre", "--file", filepath.Join(files, "missing.js")}, 1, "no such file"},
		{[]string{"hooks", "add", "existing", "--type", "pre", "--file", good}, 1, `a hook named "existing" already exists`},
		{[]string{"hooks", "add", "new", "--type", "pre", "--file", big}, 1, "is 1048577 bytes, over 1 MiB, the size cap of a hook script"},
		{[]string{"hooks", "add", "new", "--type", "around", "--file", good}, 2, `bad --type "around"`},
		{[]string{"hooks", "add", "new", "--file", good}, 2, "--type is required"},
		{[]string{"hooks", "add", "new", "--type", "pre"}, 2, "--file is required"},
		{[]string{"hooks", "add", "bad name!", "--type", "pre", "--file", good}, 2, `hook name "bad name!"`},
		{[]string{"hooks", "add"}, 2, "usage: mcp-router hooks add NAME"},
		{[]string{"hooks", "enable", "ghost"}, 1, `no hook named "ghost"`},
		{[]string{"hooks", "disable", "ghost"}, 1, `no hook named "ghost"`},
		{[]string{"hooks", "remove", "ghost"}, 1, `no hook named "ghost"`},
		{[]string{"hooks", "show", "ghost"}, 1, `no hook named "ghost"`},
		{[]string{"hooks", "update", "ghost", "--order", "1"}, 1, `no hook named "ghost"`},
		{[]string{"hooks", "update", "existing"}, 2, "nothing to update"},
		{[]string{"hooks", "update", "existing", "--file", bad}, 1, "syntax error at line 2"},
		{[]string{"hooks", "update", "existing", "--type", "x"}, 2, `bad --type "x"`},
		{[]string{"hooks", "test", "ghost", "--context", ctxOK}, 1, `no hook named "ghost"`},
		{[]string{"hooks", "test", "existing"}, 2, "--context is required"},
		{[]string{"hooks", "test", "existing", "--context", ctxBad}, 1, "ctxbad.json"},
		{[]string{"hooks", "test", "existing", "--context", ctxTypo}, 1, `unknown context key "toolname"`},
		{[]string{"hooks", "test", "existing", "--context", ctxOK, "--phase", "during"}, 2, `bad --phase "during"`},
	} {
		r := run(t, dir, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d and %q", tc.args, r.code, r.stderr, r.stdout, tc.code, tc.want)
		}
	}
	after := hooksJSON(t, dir)
	if len(after) != 1 || after[0] != before[0] {
		t.Errorf("database changed: %+v -> %+v", before, after)
	}
}
