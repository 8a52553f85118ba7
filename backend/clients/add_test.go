package clients

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/internal/testbombs"
)

func testEnv(t *testing.T) Env {
	home := t.TempDir()
	return Env{Home: home, ConfigDir: filepath.Join(home, "cfg"), GOOS: runtime.GOOS}
}

func entryFor(t *testing.T, client, token string) config.SnippetEntry {
	t.Helper()
	mode := config.ModeHTTP
	if client == config.ClientClaudeDesktop {
		mode = config.ModeStdio
	}
	e, err := config.Entry(client, mode, config.SnippetOptions{Token: token, BinaryPath: "/usr/bin/mcp-router"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// existing is a config each client might already have: another server,
// other settings, and (where the format allows) comments.
func existing(client string) string {
	switch client {
	case config.ClientCodex:
		return "# my Codex config\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"srv\" # keep\n\n[profiles.fast]\nmodel = \"o4-mini\"\n"
	case config.ClientContinue:
		return "name: other\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: sqlite\n    command: npx\n    args: [\"-y\", \"mcp-sqlite\"]\n"
	case config.ClientZed:
		return "// Zed settings\n{\n  \"theme\": \"One Dark\", // mine\n  \"context_servers\": {\n    \"other\": {\"command\": \"srv\", \"args\": [],},\n  },\n}\n"
	case config.ClientOpencode:
		return "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {\n    \"other\": {\"type\": \"local\", \"command\": [\"srv\"]}\n  }\n}\n"
	}
	return "{\n  \"theme\": \"dark\",\n  \"" + config.JSONTopKey(client) + "\": {\n    \"other\": {\"command\": \"srv\"}\n  },\n  \"zzz\": [1, 2]\n}\n"
}

// The check: Add run twice leaves a backup and exactly one router
// entry, every other key kept, the file's mode kept; the result imports.
func TestAddTwiceLeavesABackupAndOneEntry(t *testing.T) {
	for _, client := range Writable {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			path, err := env.Path(client, config.SnippetServerName)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			orig := existing(client)
			if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
				t.Fatal(err)
			}
			t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			for i, tok := range []string{"mcpr_first", "mcpr_second"} {
				plan, err := Prepare(client, path, entryFor(t, client, tok))
				if err != nil {
					t.Fatal(err)
				}
				if plan.Replaces != (i == 1) {
					t.Errorf("run %d: Replaces = %v", i+1, plan.Replaces)
				}
				if !strings.Contains(plan.Diff, "+") || !strings.Contains(plan.Diff, tok) {
					t.Errorf("run %d: diff does not show the new entry:\n%s", i+1, plan.Diff)
				}
				if i == 1 && !strings.Contains(plan.Diff, "-") {
					t.Errorf("run 2: diff does not show the old token going:\n%s", plan.Diff)
				}
				backup, err := plan.Write(t0.Add(time.Duration(i) * time.Second))
				if err != nil {
					t.Fatal(err)
				}
				if want := path + ".bak-2026112" + "7T10000" + string(rune('0'+i)) + "Z"; backup != want {
					t.Errorf("backup %q, want %q", backup, want)
				}
			}
			first, err := os.ReadFile(path + ".bak-20261127T100000Z")
			if err != nil || string(first) != orig {
				t.Errorf("the first backup is not the original: %v\n%s", err, first)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := entries(client, data)
			if err != nil {
				t.Fatal(err)
			}
			if len(m[config.SnippetServerName]) != 1 || !bytes.Contains(m[config.SnippetServerName][0], []byte("mcpr_second")) {
				t.Errorf("want one router entry with the second token:\n%s", data)
			}
			if len(m["other"])+len(m["sqlite"]) != 1 {
				t.Errorf("the other server is gone:\n%s", data)
			}
			if client != config.ClientContinue {
				for _, keep := range []string{"theme", "zzz", "$schema", "// Zed settings", "// mine", "# my Codex config", "# keep", "[profiles.fast]"} {
					if strings.Contains(orig, keep) && !strings.Contains(string(data), keep) {
						t.Errorf("%q is gone:\n%s", keep, data)
					}
				}
			}
			if runtime.GOOS != "windows" {
				if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
					t.Errorf("mode %v, want 0640 kept", st.Mode().Perm())
				}
			}
			if client != config.ClientCodex { // the import reads no TOML
				servers, err := config.ParseClientConfigFor(client, data)
				if err != nil || len(servers) != 2 {
					t.Errorf("the written file does not import: %v %v\n%s", servers, err, data)
				}
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp-*"))
			if len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
		})
	}
}

// JSON with comments keeps its comments, trailing commas and layout; the
// router's entry is added in the file's own indentation.
func TestAddKeepsJSONCFormatting(t *testing.T) {
	src := "{\n\t// my servers\n\t\"context_servers\": {\n\t\t\"a\": {\"command\": \"x\"}, // keep\n\t},\n\t\"vim_mode\": true,\n}\n"
	out, err := setJSONEntry([]byte(src), "context_servers", "mcp-router", map[string]string{"url": "http://h/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n\t// my servers\n\t\"context_servers\": {\n\t\t\"a\": {\"command\": \"x\"}, // keep\n\t\t\"mcp-router\": {\n\t\t\t\"url\": \"http://h/mcp\"\n\t\t},\n\t},\n\t\"vim_mode\": true,\n}\n"
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	// Plain JSON stays plain JSON (no trailing comma added), the section
	// added when missing.
	out, err = setJSONEntry([]byte("{\n  \"a\": 1\n}\n"), "mcpServers", "mcp-router", map[string]string{"url": "u"})
	if err != nil {
		t.Fatal(err)
	}
	want = "{\n  \"a\": 1,\n  \"mcpServers\": {\n    \"mcp-router\": {\n      \"url\": \"u\"\n    }\n  }\n}\n"
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	// Two router entries (a hand edit) become one.
	out, err = setJSONEntry([]byte(`{"mcpServers": {"mcp-router": {"url": "1"}, "b": {}, "mcp-router": {"url": "2"}}}`), "mcpServers", "mcp-router", map[string]string{"url": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) || bytes.Count(out, []byte(`"mcp-router"`)) != 1 || !bytes.Contains(out, []byte(`"b": {}`)) {
		t.Errorf("duplicates: %s", out)
	}
}

// A file Add cannot parse, or of the wrong shape, or too big, or not a
// regular file is refused with the reason, and nothing is written: no
// change, no backup, no temp file.
func TestAddRefusesAndTouchesNothing(t *testing.T) {
	env := testEnv(t)
	path, _ := env.Path(config.ClientCursor, "mcp-router")
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, content, want string }{
		{"truncated", `{"mcpServers": {"a": {"command": "x"}`, "not valid JSON"},
		{"array", `[]`, "top value is not a JSON object"},
		{"section not an object", `{"mcpServers": ["x"]}`, `"mcpServers" is not an object`},
		{"section twice", `{"mcpServers": {}, "mcpServers": {}}`, "appears twice"},
		// Nested past the cap: refused before hujson's recursive parser
		// (a million levels would exhaust the goroutine's stack, a fatal
		// error no recover catches).
		{"deep", `{"a": ` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `}`, "depth cap of a client config"},
	}
	for _, tc := range cases {
		if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Prepare(config.ClientCursor, path, entryFor(t, config.ClientCursor, "mcpr_x"))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was written") {
			t.Errorf("%s: %v", tc.name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.content {
			t.Errorf("%s: the file changed", tc.name)
		}
	}
	// Over the size cap (a sparse file).
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(config.MaxClientConfigBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Prepare(config.ClientCursor, path, entryFor(t, config.ClientCursor, "mcpr_x")); err == nil || !strings.Contains(err.Error(), "16 MiB") {
		t.Errorf("oversized: %v", err)
	}
	// A FIFO is refused, not waited on.
	fifo := filepath.Join(dir, "fifo.json")
	if err := testbombs.MakeFIFO(fifo); err == nil {
		done := make(chan error, 1)
		go func() {
			_, err := Prepare(config.ClientCursor, fifo, entryFor(t, config.ClientCursor, "mcpr_x"))
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Error("a FIFO was accepted")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Prepare waited on a FIFO")
		}
	}
	// Continue's YAML: an alias ladder is refused before decoding.
	cpath, _ := env.Path(config.ClientContinue, "mcp-router")
	os.MkdirAll(filepath.Dir(cpath), 0o700)
	bomb := "mcpServers:\n" + testbombs.Ladder("  ", 12, 10)
	os.WriteFile(cpath, []byte(bomb), 0o600)
	if _, err := Prepare(config.ClientContinue, cpath, entryFor(t, config.ClientContinue, "mcpr_x")); err == nil || !strings.Contains(err.Error(), "aliases expand") {
		t.Errorf("yaml bomb: %v", err)
	}
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		if strings.Contains(n.Name(), ".bak-") || strings.Contains(n.Name(), ".tmp-") {
			t.Errorf("left %s", n.Name())
		}
	}
}

// A file changed between the diff and the write is not overwritten; a new
// file is created 0600 with its directory.
func TestAddWriteChecks(t *testing.T) {
	env := testEnv(t)
	path, _ := env.Path(config.ClientGemini, "mcp-router")
	plan, err := Prepare(config.ClientGemini, path, entryFor(t, config.ClientGemini, "mcpr_x"))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Exists {
		t.Fatal("Exists for a missing file")
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(`{"theme": "new"}`), 0o600)
	if _, err := plan.Write(time.Now()); err == nil || !strings.Contains(err.Error(), "changed since the diff") {
		t.Errorf("write over a file created since: %v", err)
	}
	os.Remove(path)
	os.Remove(filepath.Dir(path))
	backup, err := plan.Write(time.Now())
	if err != nil || backup != "" {
		t.Fatalf("%q %v", backup, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v", st.Mode().Perm())
	}
	// Symlinked config: the target is edited, the link stays.
	target := filepath.Join(env.Home, "dotfiles-settings.json")
	os.Rename(path, target)
	if err := os.Symlink(target, path); err != nil {
		t.Skip(err)
	}
	plan, err = Prepare(config.ClientGemini, path, entryFor(t, config.ClientGemini, "mcpr_y"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Write(time.Now()); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(path); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(target); !bytes.Contains(b, []byte("mcpr_y")) {
		t.Errorf("target not edited: %s", b)
	}
}

// Codex's TOML: the router's table and its subtables are replaced as text,
// the rest kept byte for byte; an entry the text edit cannot reach (an
// inline table) and a file that is not TOML are refused.
func TestAddCodexTOML(t *testing.T) {
	src := "model = \"o3\"\n\n[mcp_servers.mcp-router]\nurl = \"http://old/mcp\"\n\n[mcp_servers.mcp-router.http_headers]\nAuthorization = \"Bearer old\"\n\n[mcp_servers.b]\ncommand = \"b\"\n"
	e := entryFor(t, config.ClientCodex, "mcpr_new")
	out, err := setCodexEntry([]byte(src), e.Name, e.Value.(string))
	if err != nil {
		t.Fatal(err)
	}
	want := "model = \"o3\"\n\n[mcp_servers.b]\ncommand = \"b\"\n\n[mcp_servers.mcp-router]\nurl = \"http://127.0.0.1:3282/mcp\"\nhttp_headers = { \"Authorization\" = \"Bearer mcpr_new\" }\n"
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	for _, tc := range []struct{ src, want string }{
		{"[mcp_servers]\nmcp-router = { url = \"x\" }\n", "edit it by hand"},
		{"mcp_servers.mcp-router.url = \"x\"\n", "edit it by hand"},
		{"[a\nb = ", "not valid TOML"},
		// A million nested arrays overflowed the parser's stack (fatal).
		{"a = " + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + "\n", "depth cap of a client config"},
		// Brackets in strings and comments do not count.
		{"# [[[[\n" + "s = '" + strings.Repeat("[", 100) + "'\nm = \"\"\"" + strings.Repeat("{", 100) + "\"\"\"\n[mcp_servers]\nmcp-router = { url = \"x\" }\n", "edit it by hand"},
	} {
		if _, err := setCodexEntry([]byte(tc.src), e.Name, e.Value.(string)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v", tc.src, err)
		}
	}
}
