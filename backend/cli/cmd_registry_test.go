package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"time"

	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

const everythingName = "io.github.modelcontextprotocol/server-everything"

// registrySeed is what the test's registry holds: server-everything (the
// npm package test/peers installs, so npx finds it in npm's cache) in two
// versions, the second newer, declaring a secret environment variable; and
// three servers to page through.
func registrySeed(t *testing.T) []byte {
	t.Helper()
	pkgJSON, err := os.ReadFile(filepath.Join(testpeers.RepoRoot(t), "test", "peers", "node_modules", "@modelcontextprotocol", "server-everything", "package.json"))
	if err != nil {
		testpeers.Everything(t) // skips, or fails under MCPR_REQUIRE_PEERS
		t.Fatal(err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(pkgJSON, &pkg); err != nil {
		t.Fatal(err)
	}
	entry := func(name, version, desc string, packages any) map[string]any {
		e := map[string]any{
			"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
			"name":    name, "version": version, "description": desc,
		}
		if packages != nil {
			e["packages"] = packages
		}
		return e
	}
	everything := []map[string]any{{
		"registryType": "npm", "identifier": "@modelcontextprotocol/server-everything", "version": pkg.Version,
		"runtimeHint": "npx", "transport": map[string]string{"type": "stdio"},
		"packageArguments": []map[string]any{{"type": "positional", "valueHint": "transport", "default": "stdio", "choices": []string{"stdio"}}},
		"environmentVariables": []map[string]any{
			{"name": "EVERYTHING_API_KEY", "description": "a key the server is given", "isRequired": true, "isSecret": true},
			{"name": "EVERYTHING_REGION", "default": "eu"},
		},
	}}
	seed := []map[string]any{
		entry(everythingName, "1.0.0", "every MCP feature, for tests", everything),
		entry(everythingName, "1.1.0", "every MCP feature, for tests", everything),
		entry("io.github.test/alpha-tools", "0.1.0", "alpha", nil),
		entry("io.github.test/beta-tools", "0.2.0", "beta\u001b[31m red", nil),
		entry("io.github.test/gamma-tools", "0.3.0", "gamma", nil),
	}
	b, err := json.Marshal(seed)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The check: `registry search` and `registry install` against the
// real registry service run locally; the installed server starts and lists
// its tools; the declared secret is in the keychain (here, where no keychain
// service runs, its 0600 file), not in the database; `servers outdated`
// names the newer version.
func TestRegistrySearchInstallAgainstTheRealRegistry(t *testing.T) {
	testpeers.Everything(t)
	base := testpeers.StartRegistry(t, registrySeed(t))
	dir := t.TempDir()
	mustRun(t, dir, "settings", "set", "registryURL", base)
	// The seed is held to the registry's schema as the service serves it.
	for _, raw := range seededServers(t, base) {
		testpeers.CheckServerJSON(t, raw)
	}

	// Search, one page at a time, with the registry's cursor.
	out := mustRun(t, dir, "registry", "search", "tools", "--limit", "2")
	if !strings.Contains(out, "io.github.test/alpha-tools") || !strings.Contains(out, "io.github.test/beta-tools") || strings.Contains(out, "gamma") {
		t.Fatalf("first page:\n%s", out)
	}
	if strings.Contains(out, "\x1b") {
		t.Fatalf("a description's terminal escape reached the output:\n%q", out)
	}
	m := regexp.MustCompile(`--cursor (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no cursor for the next page:\n%s", out)
	}
	out = mustRun(t, dir, "registry", "search", "tools", "--limit", "2", "--cursor", m[1])
	if !strings.Contains(out, "io.github.test/gamma-tools") || strings.Contains(out, "alpha") || strings.Contains(out, "--cursor") {
		t.Fatalf("second (last) page:\n%s", out)
	}

	out = mustRun(t, dir, "registry", "show", everythingName+"@1.0.0")
	for _, want := range []string{everythingName + " 1.0.0", "package 1: npm @modelcontextprotocol/server-everything", "--env EVERYTHING_API_KEY=…  [required; secret]", "--arg transport=…"} {
		if !strings.Contains(out, want) {
			t.Fatalf("show lacks %q:\n%s", want, out)
		}
	}

	// Without a terminal, a missing required value is an error naming it,
	// and nothing is installed.
	r := run(t, dir, "", "registry", "install", everythingName+"@1.0.0")
	if r.code != ExitError || !strings.Contains(r.stderr, "--env EVERYTHING_API_KEY=… (secret)") || !strings.Contains(r.stderr, "run the install in a terminal") {
		t.Fatalf("install without the secret: exit %d: %s", r.code, r.stderr)
	}
	if rows := list(t, dir); len(rows) != 0 {
		t.Fatalf("a refused install left %v", rows)
	}

	// Asked for it (the terminal's no-echo reader), the install completes.
	const secret = "sk-registry-test-4f1c9a"
	var asked []string
	r = runWith(t, dir, Options{ReadSecret: func(prompt string) (string, error) {
		asked = append(asked, prompt)
		return secret, nil
	}}, "registry", "install", everythingName+"@1.0.0", "--name", "everything")
	if r.code != 0 {
		t.Fatalf("install: exit %d: %s", r.code, r.stderr)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "EVERYTHING_API_KEY") || !strings.Contains(asked[0], "not shown") {
		t.Fatalf("asked %q", asked)
	}
	wantCmd := "command: npx -y @modelcontextprotocol/server-everything@"
	if !strings.Contains(r.stdout, wantCmd) || !strings.Contains(r.stdout, " stdio\n") || !strings.Contains(r.stdout, "1 secret value(s) kept in") {
		t.Fatalf("install said:\n%s", r.stdout)
	}

	// The secret is in the secret store, never in the database file.
	dbFiles, _ := filepath.Glob(filepath.Join(dir, "mcp-router.db*"))
	if len(dbFiles) == 0 {
		t.Fatal("no database file")
	}
	for _, f := range dbFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Fatalf("the secret value is in %s", f)
		}
	}
	var shown struct {
		spec.Server
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "show", "everything", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Source != (spec.Source{Registry: base, Name: everythingName, Version: "1.0.0"}) || shown.Env["EVERYTHING_REGION"] != "eu" {
		t.Fatalf("installed %+v", shown.Server)
	}
	if out := mustRun(t, dir, "servers", "show", "everything"); !strings.Contains(out, "Installed from:  "+everythingName+"@1.0.0 ("+base) {
		t.Fatalf("servers show:\n%s", out)
	}
	resolved, err := secrets.NewServerValues(dir, nil).Resolve(shown.Server)
	if err != nil || resolved.Env["EVERYTHING_API_KEY"] != secret {
		t.Fatalf("the secret store has %q (%v)", resolved.Env["EVERYTHING_API_KEY"], err)
	}

	// On a real terminal (script(1) gives the command a pty) the install
	// asks, and the secret typed is not echoed.
	installOnTerminal(t, dir, everythingName+"@1.1.0", "everything-tty", "sk-typed-on-a-tty-83d2")

	// The installed server starts and lists its tools: npx, offline, finds
	// the package version the registry named in test/peers (the project of
	// the working directory), as npm's own lookup would for a user who has it.
	t.Setenv("npm_config_offline", "true")
	t.Chdir(filepath.Join(testpeers.RepoRoot(t), "test", "peers"))
	out = mustRun(t, dir, "servers", "test", "everything")
	if !strings.Contains(out, "echo") {
		t.Fatalf("servers test:\n%s", out)
	}

	// The registry has 1.1.0: outdated says so.
	out = mustRun(t, dir, "servers", "outdated")
	if !regexp.MustCompile(`everything\s+1\.0\.0\s+1\.1\.0\s+` + regexp.QuoteMeta(everythingName)).MatchString(out) {
		t.Fatalf("outdated:\n%s", out)
	}
}

// installOnTerminal runs `registry install ARG --name NAME` under script(1),
// types value once the no-echo prompt shows, and checks the value was not
// echoed and reached the secret store.
func installOnTerminal(t *testing.T, dir, arg, name, value string) {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script (util-linux) is needed to give the install a terminal: %v", err)
	}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	line := strings.Join([]string{quote(testBinary(t)), "--data-dir", quote(dir), "registry", "install", quote(arg), "--name", quote(name)}, " ")
	cmd := exec.Command("script", "-qefc", line, "/dev/null")
	cmd.Env = append(os.Environ(), envAsRouter+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out testpeers.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 30*time.Second, "the no-echo prompt", func() bool { return strings.Contains(out.String(), "not shown: ") })
	if _, err := io.WriteString(stdin, value+"\r"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the install did not end: %s", out.String())
	}
	_ = stdin.Close()
	if err != nil || !strings.Contains(out.String(), "installed "+strings.Split(arg, "@")[0]) {
		t.Fatalf("install on a terminal: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), value) {
		t.Fatalf("the secret was echoed:\n%s", out.String())
	}
	var shown struct{ spec.Server }
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "show", name, "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	resolved, err := secrets.NewServerValues(dir, nil).Resolve(shown.Server)
	if err != nil || resolved.Env["EVERYTHING_API_KEY"] != value {
		t.Fatalf("the typed secret is not in the secret store: %q (%v)", resolved.Env["EVERYTHING_API_KEY"], err)
	}
}

// seededServers is every server.json the registry at base lists.
func seededServers(t *testing.T, base string) []json.RawMessage {
	t.Helper()
	resp, err := http.Get(base + "/v0/servers?limit=100")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Servers []struct{ Server json.RawMessage }
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || len(page.Servers) == 0 {
		t.Fatalf("listing: %v (%d servers)", err, len(page.Servers))
	}
	out := make([]json.RawMessage, len(page.Servers))
	for i, s := range page.Servers {
		out[i] = s.Server
	}
	return out
}

// runWith is run with Options of the test's own (ReadSecret).
func runWith(t *testing.T, dataDir string, o Options, args ...string) result {
	t.Helper()
	var out, errb testpeers.SyncBuffer
	o.Stdin, o.Stdout, o.Stderr = strings.NewReader(""), &out, &errb
	code := Main(t.Context(), append([]string{"--data-dir", dataDir}, args...), o)
	return result{code, out.String(), errb.String()}
}
