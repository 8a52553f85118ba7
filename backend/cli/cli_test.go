package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

type result struct {
	code           int
	stdout, stderr string
}

// run executes the CLI in-process against dataDir. Its output goes to
// syncBuffers: the router's logger writes to stderr from its own goroutines
// (an upstream's request refused while a command runs, say) while the
// command writes there too; os.Stderr takes that, a bytes.Buffer does not.
func run(t *testing.T, dataDir string, stdin string, args ...string) result {
	t.Helper()
	var out, errb testpeers.SyncBuffer
	code := Main(context.Background(), append([]string{"--data-dir", dataDir}, args...),
		Options{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	return result{code, out.String(), errb.String()}
}

func mustRun(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	r := run(t, dataDir, "", args...)
	if r.code != 0 {
		t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
	}
	return r.stdout
}

type listed struct {
	Name      string            `json:"name"`
	Transport string            `json:"transport"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
	Enabled   bool              `json:"enabled"`
	Gate      json.RawMessage   `json:"gate"`
}

func list(t *testing.T, dataDir string) []listed {
	t.Helper()
	var rows []listed
	if err := json.Unmarshal([]byte(mustRun(t, dataDir, "servers", "list", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestServersAddListShowRemove(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, dir, "servers", "add", "everything", "--env", "A=1", "--", "npx", "-y", "@modelcontextprotocol/server-everything")
	if !strings.Contains(out, "added everything") {
		t.Errorf("add said %q", out)
	}
	mustRun(t, dir, "servers", "add", "remote", "--url", "http://127.0.0.1:3001/mcp", "--header", "Authorization=Bearer x")
	mustRun(t, dir, "servers", "add", "legacy", "--url", "http://127.0.0.1:3001/sse", "--transport", "sse", "--disabled")

	rows := list(t, dir)
	if len(rows) != 3 {
		t.Fatalf("listed %d servers", len(rows))
	}
	byName := map[string]listed{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	ev := byName["everything"]
	if ev.Transport != "stdio" || ev.Command != "npx" || strings.Join(ev.Args, " ") != "-y @modelcontextprotocol/server-everything" || ev.Env["A"] != "1" || !ev.Enabled {
		t.Errorf("everything stored as %+v", ev)
	}
	if r := byName["remote"]; r.Transport != "http" || r.Headers["Authorization"] != "Bearer x" {
		t.Errorf("remote stored as %+v", r)
	}
	if r := byName["legacy"]; r.Transport != "sse" || r.Enabled {
		t.Errorf("legacy stored as %+v", r)
	}

	table := mustRun(t, dir, "servers", "list")
	for _, want := range []string{"NAME", "everything", "npx -y @modelcontextprotocol/server-everything", "http://127.0.0.1:3001/sse"} {
		if !strings.Contains(table, want) {
			t.Errorf("list table lacks %q:\n%s", want, table)
		}
	}
	show := mustRun(t, dir, "servers", "show", "remote")
	if !strings.Contains(show, "Header:") || !strings.Contains(show, "Authorization: Bearer x") {
		t.Errorf("show remote:\n%s", show)
	}
	var shown listed
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "show", "everything", "--json")), &shown); err != nil || shown.Command != "npx" {
		t.Errorf("show --json: %+v %v", shown, err)
	}

	mustRun(t, dir, "servers", "disable", "everything")
	mustRun(t, dir, "servers", "enable", "legacy")
	rows = list(t, dir)
	for _, r := range rows {
		if (r.Name == "everything" && r.Enabled) || (r.Name == "legacy" && !r.Enabled) {
			t.Errorf("toggle did not stick: %+v", r)
		}
	}
	mustRun(t, dir, "servers", "remove", "legacy")
	if n := len(list(t, dir)); n != 2 {
		t.Errorf("%d servers after remove", n)
	}
}

// Every bad input: one line on stderr, a non-zero exit, the database as it was.
func TestBadInputIsOneLineAndChangesNothing(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "existing", "--", "echo", "hi")
	mustRun(t, dir, "servers", "gate", "existing", "--on", "--message", "kept as it is")
	mustRun(t, dir, "servers", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--header", "A=1")
	files := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	malformed := write("malformed.json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\" \"args\": []}\n  }\n}")
	halfBad := write("halfbad.json", `{"mcpServers": {"good": {"command": "x"}, "bad": {"url": "ftp://nope"}}}`)
	noKey := write("nokey.json", `{"something": {}}`)
	stdioPass := write("stdiopass.json", `{"mcpServers": {"new": {"command": "x", "passUpstreamAuth": true}}}`)

	cases := []struct {
		name string
		args []string
		want string // in the error line
		code int
	}{
		{"unknown server show", []string{"servers", "show", "nope"}, `no server named "nope"`, ExitError},
		{"unknown server remove", []string{"servers", "remove", "nope"}, `no server named "nope"`, ExitError},
		{"unknown server enable", []string{"servers", "enable", "nope"}, `no server named "nope"`, ExitError},
		{"unknown server test", []string{"servers", "test", "nope"}, `no server named "nope"`, ExitError},
		{"missing command", []string{"servers", "add", "x"}, "needs a command after --", ExitUsage},
		{"empty command", []string{"servers", "add", "x", "--"}, "needs a command", ExitUsage},
		{"command without --", []string{"servers", "add", "x", "npx", "pkg"}, "put the command after --", ExitUsage},
		{"bad URL scheme", []string{"servers", "add", "x", "--url", "ftp://host/mcp"}, "scheme must be http or https", ExitError},
		{"URL without host", []string{"servers", "add", "x", "--url", "http://"}, "no host", ExitError},
		{"URL and command", []string{"servers", "add", "x", "--url", "http://h/mcp", "--", "cmd"}, "not both", ExitUsage},
		{"bad transport", []string{"servers", "add", "x", "--url", "http://h/mcp", "--transport", "carrier-pigeon"}, "unknown transport", ExitError},
		{"bad name", []string{"servers", "add", "bad name!", "--", "cmd"}, "server name", ExitError},
		{"bad env", []string{"servers", "add", "x", "--env", "NOEQUALS", "--", "cmd"}, "want KEY=VALUE", ExitUsage},
		{"bad prefix", []string{"servers", "add", "x", "--prefix", "sometimes", "--", "cmd"}, "prefix mode", ExitError},
		{"header value with a line break", []string{"servers", "add", "x", "--url", "http://h/mcp", "--header", "Authorization=Bearer a\nX-Evil: 1"}, "line break", ExitError},
		{"transport's own header", []string{"servers", "add", "x", "--url", "http://h/mcp", "--header", "Mcp-Session-Id=s"}, "set by the transport", ExitError},
		{"duplicate name", []string{"servers", "add", "existing", "--", "other"}, "already exists", ExitError},
		{"malformed JSON", []string{"servers", "import", malformed}, "line 3, column", ExitError},
		{"one bad entry", []string{"servers", "import", halfBad}, "bad", ExitError},
		{"no servers key", []string{"servers", "import", noKey}, "mcpServers", ExitError},
		{"passUpstreamAuth on a stdio entry", []string{"servers", "import", stdioPass}, "passUpstreamAuth is for http and sse servers", ExitError},
		{"export unknown server", []string{"servers", "export", "nope"}, `no server named "nope"`, ExitError},
		{"missing file", []string{"servers", "import", filepath.Join(files, "absent.json")}, "no such file", ExitError},
		{"unknown subcommand", []string{"servers", "frobnicate"}, "", ExitUsage},
		{"unknown flag", []string{"servers", "list", "--yaml"}, "unknown flag", ExitUsage},
		{"missing argument", []string{"servers", "show"}, "usage: mcp-router servers show NAME", ExitUsage},
		{"gate unknown server", []string{"servers", "gate", "nope", "--on"}, `no server named "nope"`, ExitError},
		{"gate on and off", []string{"servers", "gate", "existing", "--on", "--off"}, "not both", ExitUsage},
		{"gate hide and show", []string{"servers", "gate", "existing", "--hide-tools", "--show-tools"}, "not both", ExitUsage},
		{"gate nothing to change", []string{"servers", "gate", "existing"}, "say what to change", ExitUsage},
		{"gate bad JSON", []string{"servers", "gate", "existing", "--init-tool", "t", "--init-args", "{mode:1}"}, "want a JSON object", ExitUsage},
		{"gate JSON not an object", []string{"servers", "gate", "existing", "--init-tool", "t", "--init-args", "[1]"}, "want a JSON object", ExitUsage},
		{"gate file without =", []string{"servers", "gate", "existing", "--init-tool", "t", "--init-arg-file", "code.js"}, "want KEY=FILE", ExitUsage},
		{"gate missing file", []string{"servers", "gate", "existing", "--init-tool", "t", "--init-arg-file", "code=" + filepath.Join(files, "absent.js")}, "no such file", ExitError},
		{"gate args without tool", []string{"servers", "gate", "existing", "--init-args", "{}"}, "need an init tool", ExitError},
		{"update unknown server", []string{"servers", "update", "nope", "--timeout", "5"}, `no server named "nope"`, ExitError},
		{"update nothing to change", []string{"servers", "update", "existing"}, "say what to change", ExitUsage},
		{"update negative timeout", []string{"servers", "update", "existing", "--timeout", "-1"}, "--timeout must be 0", ExitUsage},
		{"update timeout not a number", []string{"servers", "update", "existing", "--timeout", "soon"}, "invalid argument", ExitUsage},
		{"update bad env", []string{"servers", "update", "existing", "--env", "NOEQUALS"}, "want KEY=VALUE", ExitUsage},
		{"update unset missing env", []string{"servers", "update", "existing", "--unset-env", "ABSENT"}, "not set", ExitError},
		{"update set and unset", []string{"servers", "update", "existing", "--env", "A=1", "--unset-env", "A"}, "both name", ExitUsage},
		{"update header on stdio", []string{"servers", "update", "existing", "--header", "A=1"}, "for HTTP/SSE servers", ExitUsage},
		{"update env on HTTP", []string{"servers", "update", "web", "--env", "A=1"}, "for stdio servers", ExitUsage},
		{"update arg on HTTP", []string{"servers", "update", "web", "--arg", "x"}, "for stdio servers", ExitUsage},
		{"update command on HTTP", []string{"servers", "update", "web", "--", "cmd"}, "not a command", ExitUsage},
		{"update args two ways", []string{"servers", "update", "existing", "--arg", "a", "--no-args"}, "one way", ExitUsage},
		{"update bad URL", []string{"servers", "update", "web", "--url", "ftp://h/x"}, "scheme must be http or https", ExitError},
		{"update transport stdio", []string{"servers", "update", "web", "--transport", "stdio"}, "stays http or sse", ExitUsage},
		{"update bad header", []string{"servers", "update", "web", "--header", "Mcp-Session-Id=s"}, "set by the transport", ExitError},
		{"update bad prefix", []string{"servers", "update", "existing", "--prefix", "sometimes"}, "prefix mode", ExitError},
		{"update empty command", []string{"servers", "update", "existing", "--"}, "no command after --", ExitUsage},
		{"gate arg twice", []string{"servers", "gate", "existing", "--init-tool", "t", "--init-args", `{"code":1}`, "--init-arg-file", "code=" + malformed}, "both as JSON and as a file", ExitError},
	}
	before := list(t, dir)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, dir, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "mcp-router: ") {
				t.Errorf("stderr is not one error line: %q", r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.want)
			}
			if after := list(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("database changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// servers update changes only what its flags name.
func TestServersUpdate(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "fs", "--env", "A=1", "--env", "B=2", "--cwd", "/tmp", "--", "npx", "-y", "server-fs", "/home")
	mustRun(t, dir, "servers", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--header", "Authorization=Bearer old", "--timeout", "30")
	mustRun(t, dir, "servers", "gate", "fs", "--on", "--message", "kept")
	show := func(name string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "show", name, "--json")), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	steps := []struct {
		args     []string
		name     string
		validate func(t *testing.T, m map[string]any)
	}{
		{[]string{"--timeout", "120"}, "fs", func(t *testing.T, m map[string]any) {
			if m["timeoutSeconds"] != float64(120) || m["command"] != "npx" || fmt.Sprint(m["args"]) != "[-y server-fs /home]" {
				t.Errorf("after --timeout: %v", m)
			}
		}},
		{[]string{"--env", "A=changed", "--env", "C=3", "--unset-env", "B"}, "fs", func(t *testing.T, m map[string]any) {
			if fmt.Sprint(m["env"]) != "map[A:changed C:3]" || m["timeoutSeconds"] != float64(120) {
				t.Errorf("after --env: %v", m)
			}
		}},
		{[]string{"--arg", "-y", "--arg", "server-fs", "--arg", "/with space"}, "fs", func(t *testing.T, m map[string]any) {
			if fmt.Sprint(m["args"]) != "[-y server-fs /with space]" || m["command"] != "npx" {
				t.Errorf("after --arg: %v", m)
			}
		}},
		{[]string{"--no-args", "--cwd", ""}, "fs", func(t *testing.T, m map[string]any) {
			if m["args"] != nil || m["cwd"] != nil {
				t.Errorf("after --no-args --cwd '': %v", m)
			}
		}},
		{[]string{"--timeout", "0", "--", "node", "server.js", "stdio"}, "fs", func(t *testing.T, m map[string]any) {
			gate, _ := m["gate"].(map[string]any)
			if m["command"] != "node" || fmt.Sprint(m["args"]) != "[server.js stdio]" || m["timeoutSeconds"] != nil ||
				fmt.Sprint(m["env"]) != "map[A:changed C:3]" || gate["message"] != "kept" {
				t.Errorf("after a new command: %v", m)
			}
		}},
		{[]string{"--header", "Authorization=Bearer new", "--header", "X-Extra=1", "--url", "http://127.0.0.1:10/mcp", "--transport", "sse"}, "web", func(t *testing.T, m map[string]any) {
			if fmt.Sprint(m["headers"]) != "map[Authorization:Bearer new X-Extra:1]" || m["url"] != "http://127.0.0.1:10/mcp" ||
				m["transport"] != "sse" || m["timeoutSeconds"] != float64(30) {
				t.Errorf("after --header --url --transport: %v", m)
			}
		}},
		{[]string{"--unset-header", "X-Extra", "--prefix", "never"}, "web", func(t *testing.T, m map[string]any) {
			if fmt.Sprint(m["headers"]) != "map[Authorization:Bearer new]" || m["prefixMode"] != "never" {
				t.Errorf("after --unset-header --prefix: %v", m)
			}
		}},
	}
	for _, st := range steps {
		out := mustRun(t, dir, append([]string{"servers", "update", st.name}, st.args...)...)
		if !strings.HasPrefix(out, "updated "+st.name+"\n") {
			t.Errorf("%v said %q", st.args, out)
		}
		st.validate(t, show(st.name))
	}
	if out := mustRun(t, dir, "servers", "show", "fs"); !strings.Contains(out, "the timeout setting") {
		t.Errorf("show with timeout 0: %q", out)
	}
}

func TestImportSkipsExistingNamesAndAddsTheRest(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "github", "--url", "http://127.0.0.1:1/mcp")
	claude := `{"mcpServers": {
		"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"DEBUG": "1"}},
		"remote": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "k"}}
	}}`
	r := run(t, dir, claude, "servers", "import", "-")
	if r.code != 0 {
		t.Fatalf("import failed: %s", r.stderr)
	}
	if !strings.Contains(r.stdout, "imported 2 server(s): fs, remote") || !strings.Contains(r.stderr, "skipped github") {
		t.Errorf("import said %q / %q", r.stdout, r.stderr)
	}
	for _, s := range list(t, dir) {
		if s.Name == "github" && s.Transport != "http" {
			t.Error("existing server was overwritten")
		}
	}
	vscode := `{"inputs": [], "servers": {"vs": {"type": "stdio", "command": "node", "args": ["server.js"]}}}`
	if r := run(t, dir, vscode, "servers", "import", "-"); r.code != 0 || !strings.Contains(r.stdout, "vs") {
		t.Errorf("vscode import: %+v", r)
	}
}

func TestServersTestAgainstRealServers(t *testing.T) {
	mark := fmt.Sprintf("cli-%d", time.Now().UnixNano())
	dir := t.TempDir()
	port := testpeers.FreePort(t)
	testpeers.StartEverythingHTTP(t, "streamableHttp", port, mark+"-http")
	mustRun(t, dir, "servers", "add", "everything", "--env", "MCPR_TEST_MARKER="+mark, "--", testpeers.Everything(t), "stdio")
	mustRun(t, dir, "servers", "add", "gosdk", "--env", "MCPR_TEST_MARKER="+mark, "--", testpeers.GoEverything(t))
	mustRun(t, dir, "servers", "add", "remote", "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port))

	for server, tool := range map[string]string{"everything": "echo", "gosdk": "test_simple_text", "remote": "echo"} {
		out := mustRun(t, dir, "servers", "test", server)
		if !strings.Contains(out, "connected to") || !strings.Contains(out, tool) {
			t.Errorf("servers test %s:\n%s", server, out)
		}
	}
	if out := mustRun(t, dir, "servers", "test", "remote"); strings.Contains(out, "it offers") {
		t.Errorf("servers test remote shows revisions server-everything never named:\n%s", out)
	}
	var probe struct {
		Catalog struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"catalog"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "test", "everything", "--json")), &probe); err != nil || len(probe.Catalog.Tools) == 0 {
		t.Errorf("--json probe: %+v %v", probe, err)
	}
	testpeers.WaitNoProcesses(t, mark, 3*time.Second)
}

// servers list --connect: each enabled server's revisions, from one
// connection, in the table and in --json; a disabled server is not
// started, a failing one shows its error.
func TestServersListConnect(t *testing.T) {
	mark := fmt.Sprintf("cli-%d", time.Now().UnixNano())
	dir := t.TempDir()
	addr := testpeers.StartGoEverythingHTTP(t)
	mustRun(t, dir, "servers", "add", "everything", "--env", "MCPR_TEST_MARKER="+mark, "--", testpeers.Everything(t), "stdio")
	mustRun(t, dir, "servers", "add", "gosdk", "--env", "MCPR_TEST_MARKER="+mark, "--", testpeers.GoEverything(t))
	mustRun(t, dir, "servers", "add", "web", "--url", "http://"+addr+"/mcp")
	mustRun(t, dir, "servers", "add", "off", "--disabled", "--", "sh", "-c", "touch "+filepath.Join(dir, "started"))
	mustRun(t, dir, "servers", "add", "broken", "--", "sh", "-c", "exit 7")

	var rows []struct {
		Name             string   `json:"name"`
		Protocol         string   `json:"protocol"`
		ProtocolsOffered []string `json:"protocolsOffered"`
		ConnectError     string   `json:"connectError"`
		Command          string   `json:"command"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "list", "--connect", "--json")), &rows); err != nil || len(rows) != 5 {
		t.Fatalf("list --connect --json: %+v, %v", rows, err)
	}
	byName := map[string]int{}
	for i, r := range rows {
		byName[r.Name] = i
	}
	gosdk, web, ev, off, broken := rows[byName["gosdk"]], rows[byName["web"]], rows[byName["everything"]], rows[byName["off"]], rows[byName["broken"]]
	for _, r := range []struct {
		name, protocol string
		offered        []string
	}{{"web", web.Protocol, web.ProtocolsOffered}} {
		// The go-sdk server over stateless HTTP: used on 2026-07-28.
		if r.protocol != "2026-07-28" || len(r.offered) == 0 || r.offered[0] != "2026-07-28" {
			t.Errorf("%s: protocol %q, offered %v", r.name, r.protocol, r.offered)
		}
	}
	// stdio is not asked (a server of both eras would take the probe's
	// revision for the pipe's).
	if gosdk.Protocol != "2025-11-25" || len(gosdk.ProtocolsOffered) != 0 {
		t.Errorf("gosdk over stdio: %+v", gosdk)
	}
	if out := mustRun(t, dir, "servers", "test", "web"); !strings.Contains(out, "(protocol 2026-07-28)\nit offers 2026-07-28, 2025-11-25") {
		t.Errorf("servers test web does not show the revisions it offers:\n%s", out)
	}
	if ev.Protocol != "2025-11-25" || len(ev.ProtocolsOffered) != 0 || ev.Command == "" {
		t.Errorf("everything: %+v", ev)
	}
	if off.Protocol != "" || off.ConnectError != "" {
		t.Errorf("off: %+v", off)
	}
	if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
		t.Error("the disabled server was started")
	}
	if !strings.Contains(broken.ConnectError, "exit status 7") {
		t.Errorf("broken: %+v", broken)
	}

	table := mustRun(t, dir, "servers", "list", "--connect")
	for _, want := range []string{"PROTOCOL", "OFFERS", "2026-07-28,2025-11-25", "error: initialize: process exit status 7"} {
		if !strings.Contains(table, want) {
			t.Errorf("list --connect table lacks %q:\n%s", want, table)
		}
	}
	if plain := mustRun(t, dir, "servers", "list"); strings.Contains(plain, "PROTOCOL") {
		t.Errorf("servers list without --connect connected:\n%s", plain)
	}
	testpeers.WaitNoProcesses(t, mark, 3*time.Second)
}

func TestServersTestReportsAFailingServer(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "broken", "--", "sh", "-c", "echo 'boom: no API key' >&2; exit 7")
	r := run(t, dir, "", "servers", "test", "broken")
	if r.code != ExitError || !strings.Contains(r.stderr, "mcp-router: broken: initialize: process exit status 7") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "boom: no API key") {
		t.Errorf("the server's stderr is not shown: %q", r.stderr)
	}
}

// shownGate is the gate in `servers show --json`.
type shownGate struct {
	Enabled      bool              `json:"enabled"`
	Message      string            `json:"message"`
	InitTool     string            `json:"initTool"`
	InitArgs     map[string]any    `json:"initArgs"`
	InitArgFiles map[string]string `json:"initArgFiles"`
	OverviewTool string            `json:"overviewTool"`
	HideTools    bool              `json:"hideTools"`
}

func TestServersGateSetsShowsAndTurnsOff(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "penpot", "--url", "http://127.0.0.1:4401/mcp")
	initFile := filepath.Join(t.TempDir(), "penpot-init.js")
	if err := os.WriteFile(initFile, []byte("penpotUtils.init()"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A relative file is stored by its absolute path.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, initFile)
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, dir, "servers", "gate", "penpot", "--on", "--message", "Load the /penpot skill, then call penpot__activate",
		"--init-tool", "execute_code", "--init-args", `{"timeout":5}`, "--init-arg-file", "code="+rel,
		"--overview-tool", "high_level_overview", "--hide-tools")
	if !strings.Contains(out, "gate of penpot is on") {
		t.Errorf("gate said %q", out)
	}
	var shown struct {
		Gate shownGate `json:"gate"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "show", "penpot", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	g := shown.Gate
	if !g.Enabled || g.Message != "Load the /penpot skill, then call penpot__activate" || g.InitTool != "execute_code" ||
		g.InitArgs["timeout"] != float64(5) || g.InitArgFiles["code"] != initFile || g.OverviewTool != "high_level_overview" || !g.HideTools {
		t.Errorf("stored gate = %+v", g)
	}
	text := mustRun(t, dir, "servers", "show", "penpot")
	for _, want := range []string{"Gate:", "on", "Gate message:", "Init tool:", "execute_code", "Init args:", `{"timeout":5}`,
		"Init arg file:", "code=" + initFile, "Overview tool:", "high_level_overview", "hidden until activation"} {
		if !strings.Contains(text, want) {
			t.Errorf("servers show lacks %q:\n%s", want, text)
		}
	}

	// Only the flags given change; --off keeps the settings.
	mustRun(t, dir, "servers", "gate", "penpot", "--show-tools")
	mustRun(t, dir, "servers", "gate", "penpot", "--off")
	shown.Gate = shownGate{}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "show", "penpot", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if g := shown.Gate; g.Enabled || g.HideTools || g.InitTool != "execute_code" || g.Message == "" {
		t.Errorf("after --show-tools and --off: %+v", g)
	}
	if text := mustRun(t, dir, "servers", "show", "penpot"); !strings.Contains(text, "Gate:") || !strings.Contains(text, "off") {
		t.Errorf("servers show after --off:\n%s", text)
	}
	// --init-tool "" removes the init step with its arguments.
	mustRun(t, dir, "servers", "gate", "penpot", "--init-tool", "")
	shown.Gate = shownGate{}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "show", "penpot", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if g := shown.Gate; g.InitTool != "" || len(g.InitArgs) != 0 || len(g.InitArgFiles) != 0 {
		t.Errorf("init not removed: %+v", g)
	}
	// A server without a gate shows none.
	mustRun(t, dir, "servers", "add", "plain", "--", "echo")
	if text := mustRun(t, dir, "servers", "show", "plain"); strings.Contains(text, "Gate") {
		t.Errorf("ungated server shows a gate:\n%s", text)
	}
}
