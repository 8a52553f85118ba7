package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clients add: the diff first (dry run writes nothing and creates no
// token), then --yes writes with a new client token and a backup; twice
// leaves exactly one router entry; a malformed config is not touched.
func TestClientsAdd(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "settings.json")
	orig := "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": {\"command\": \"srv\"}\n  }\n}\n"
	if err := os.WriteFile(cfg, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}

	r := run(t, dir, "", "clients", "add", "gemini", "--path", cfg, "--dry-run")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if !strings.Contains(r.stdout, "+    \"mcp-router\": {") || !strings.Contains(r.stdout, `"httpUrl": "http://127.0.0.1:3282/mcp"`) || !strings.Contains(r.stdout, placeholderToken) {
		t.Errorf("dry run diff:\n%s", r.stdout)
	}
	if b, _ := os.ReadFile(cfg); string(b) != orig {
		t.Error("the dry run wrote")
	}
	if out := mustRun(t, dir, "tokens", "list"); strings.Contains(out, "gemini") {
		t.Errorf("the dry run created a token:\n%s", out)
	}

	// No terminal and no --yes: refused, nothing written.
	r = run(t, dir, "", "clients", "add", "gemini", "--path", cfg)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "pass --yes") {
		t.Errorf("no tty: %d %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(cfg); string(b) != orig {
		t.Error("written without --yes")
	}

	var tokens []string
	for i := 0; i < 2; i++ {
		r = run(t, dir, "", "clients", "add", "gemini", "--path", cfg, "--yes")
		if r.code != 0 {
			t.Fatal(r.stderr)
		}
		if !strings.Contains(r.stderr, "Backed up the old file to "+cfg+".bak-") {
			t.Errorf("run %d: %s", i+1, r.stderr)
		}
		var doc struct {
			Theme      string                    `json:"theme"`
			MCPServers map[string]map[string]any `json:"mcpServers"`
		}
		b, _ := os.ReadFile(cfg)
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		e := doc.MCPServers["mcp-router"]
		h, _ := e["headers"].(map[string]any)
		tok := strings.TrimPrefix(h["Authorization"].(string), "Bearer ")
		if doc.Theme != "dark" || doc.MCPServers["other"] == nil || len(doc.MCPServers) != 2 || !strings.HasPrefix(tok, "mcpr_") || tok == placeholderToken {
			t.Errorf("run %d wrote:\n%s", i+1, b)
		}
		if strings.Count(string(b), `"mcp-router"`) != 1 {
			t.Errorf("run %d: the entry is there %d times", i+1, strings.Count(string(b), `"mcp-router"`))
		}
		if id, err := verifyIn(t, dir, tok); err != nil || id.IsAdmin() {
			t.Errorf("token: %+v %v", id, err)
		}
		tokens = append(tokens, tok)
	}
	backups, _ := filepath.Glob(cfg + ".bak-*")
	if len(backups) == 0 {
		t.Error("no backup")
	}
	if st, _ := os.Stat(cfg); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}

	// A malformed config: refused, untouched, no token created.
	bad := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(bad, []byte(`{"mcpServers": {`), 0o600)
	before := mustRun(t, dir, "tokens", "list")
	r = run(t, dir, "", "clients", "add", "cursor", "--path", bad, "--yes")
	if r.code == 0 || !strings.Contains(r.stderr, "nothing was written") {
		t.Errorf("malformed: %d %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(bad); string(b) != `{"mcpServers": {` {
		t.Error("the malformed file changed")
	}
	if after := mustRun(t, dir, "tokens", "list"); after != before {
		t.Errorf("a token was created for a refused write:\n%s", after)
	}
	if left, _ := filepath.Glob(bad + ".bak-*"); len(left) > 0 {
		t.Errorf("backup of a refused file: %v", left)
	}

	// Codex's TOML: a JSON file there is refused as not TOML; unknown
	// clients are refused.
	r = run(t, dir, "", "clients", "add", "codex", "--path", bad, "--yes")
	if r.code == 0 || !strings.Contains(r.stderr, "not valid TOML") {
		t.Errorf("codex: %d %s", r.code, r.stderr)
	}
	r = run(t, dir, "", "clients", "add", "emacs", "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `unknown client "emacs"`) {
		t.Errorf("emacs: %d %s", r.code, r.stderr)
	}
}

// Without --path, the client's own file under $HOME is written, created
// with its directory when missing.
func TestClientsAddDefaultPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	dir := t.TempDir()
	r := run(t, dir, "", "clients", "add", "windsurf", "--yes", "--token", "")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"))
	if err != nil || !strings.Contains(string(b), `"serverUrl"`) {
		t.Fatalf("%v\n%s", err, b)
	}
	if out := mustRun(t, dir, "clients", "path", "zed"); strings.TrimSpace(out) != filepath.Join(home, ".config", "zed", "settings.json") {
		t.Errorf("zed path %q", out)
	}
}

// servers import reads the new clients' files: --client gemini takes a bare
// url as SSE (Gemini CLI's meaning), a .yaml file is Continue's.
func TestServersImportOtherClients(t *testing.T) {
	dir := t.TempDir()
	files := t.TempDir()
	gemini := filepath.Join(files, "settings.json")
	os.WriteFile(gemini, []byte(`{"mcp": {"allowed": []}, "mcpServers": {"events": {"url": "http://127.0.0.1:9/events"}, "h": {"httpUrl": "http://127.0.0.1:9/mcp"}}}`), 0o600)
	mustRun(t, dir, "servers", "import", "--client", "gemini", gemini)
	cont := filepath.Join(files, "config.yaml")
	os.WriteFile(cont, []byte("mcpServers:\n  - name: c\n    command: srv\n    args: [a]\n"), 0o600)
	mustRun(t, dir, "servers", "import", cont)
	got := map[string]listed{}
	for _, s := range list(t, dir) {
		got[s.Name] = s
	}
	if got["events"].Transport != "sse" || got["h"].Transport != "http" || got["c"].Command != "srv" || len(got) != 3 {
		t.Errorf("imported %+v", got)
	}
	// Without --client the common format: the same file's bare url is not SSE.
	dir2 := t.TempDir()
	mustRun(t, dir2, "servers", "import", gemini)
	seen := false
	for _, s := range list(t, dir2) {
		if s.Name == "events" {
			seen = true
			if s.Transport != "http" {
				t.Errorf("without --client: %s", s.Transport)
			}
		}
	}
	if !seen {
		t.Error("without --client: events not imported")
	}
}

// Asked before writing (a terminal; here Options.Confirm): no writes
// nothing and creates no token, yes writes.
func TestClientsAddAsks(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	orig := `{"mcpServers": {}}`
	os.WriteFile(cfg, []byte(orig), 0o600)
	for _, answer := range []bool{false, true} {
		var asked string
		var out, errb strings.Builder
		code := Main(context.Background(), []string{"--data-dir", dir, "clients", "add", "cursor", "--path", cfg},
			Options{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Confirm: func(q string) (bool, error) {
				asked = q
				return answer, nil
			}})
		if code != 0 || !strings.Contains(asked, "Write "+cfg) {
			t.Fatalf("answer %v: exit %d, asked %q: %s", answer, code, asked, errb.String())
		}
		b, _ := os.ReadFile(cfg)
		if !answer {
			if string(b) != orig || !strings.Contains(errb.String(), "Nothing was written.") {
				t.Errorf("no: the file is %s; %s", b, errb.String())
			}
			if strings.Contains(mustRun(t, dir, "tokens", "list"), "cursor") {
				t.Error("no: a token was created")
			}
		} else if !strings.Contains(string(b), `"mcp-router"`) {
			t.Errorf("yes: not written: %s", b)
		}
	}
}
