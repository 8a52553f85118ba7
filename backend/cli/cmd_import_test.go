package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/internal/testelectron"
)

// import electron: the dry run prints the plan and writes nothing; the
// import prints the same plan and does it; a second import adds nothing.
// Before this command there was no way in from the Electron app.
func TestImportElectronCommand(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	data := t.TempDir()
	mustRun(t, data, "servers", "add", "keep", "--", "echo", "mine")
	app, _ := testelectron.UserData(t)
	db := filepath.Join(app, "mcprouter.db")

	dry := mustRun(t, data, "import", "electron", "--db", db, "--dry-run")
	for _, want := range []string{
		"source: " + db + ` (database, workspace "Local")`,
		"would import 5 server(s):",
		`GitHub-MCP  stdio  npx -y @modelcontextprotocol/server-github  (from "GitHub MCP"; 2 tool(s) off: create_issue, delete_repo; secrets to the keychain: GITHUB_PERSONAL_ACCESS_TOKEN; project "Web Dev")`,
		"Remote-SSE  sse  https://mcp.example.com/sse",
		"would import 2 profile(s):",
		`Web-Dev  (project "Web Dev"): GitHub-MCP, Remote-SSE`,
		`server "keep": a different server named "keep" exists here`,
		`server "bundle": unsupported server type "dxt"`,
		"3 access token(s) of the Electron app are not carried over",
		"dry run: nothing was written",
	} {
		if !strings.Contains(dry, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, dry)
		}
	}
	if got := list(t, data); len(got) != 1 {
		t.Fatalf("the dry run wrote servers: %+v", got)
	}
	if got := profilesJSON(t, data); len(got) != 0 {
		t.Fatalf("the dry run wrote profiles: %+v", got)
	}

	done := mustRun(t, data, "import", "electron", "--db", db)
	wantDone := strings.ReplaceAll(strings.TrimSuffix(dry, "dry run: nothing was written\n"), "would import", "imported")
	if done != wantDone {
		t.Errorf("the import's summary differs from its dry run's:\n--- dry run (as done)\n%s--- import\n%s", wantDone, done)
	}
	var names []string
	for _, s := range list(t, data) {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	if want := []string{"GitHub-MCP", "Remote-SSE", "dev-server", "filesystem", "keep", "streamable"}; !slices.Equal(names, want) {
		t.Errorf("servers %v, want %v", names, want)
	}
	if got := profilesJSON(t, data); len(got) != 2 || got[0].Name != "Notes-Docs" || !slices.Equal(got[1].Servers, []string{"GitHub-MCP", "Remote-SSE"}) {
		t.Errorf("profiles %+v", got)
	}

	again := mustRun(t, data, "import", "electron", "--db", db, "--json")
	var plan struct {
		Servers []json.RawMessage `json:"servers"`
		Skipped []struct {
			Kind, Name, Reason string
		} `json:"skipped"`
		Applied bool `json:"applied"`
	}
	if err := json.Unmarshal([]byte(again), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Servers) != 0 || !plan.Applied || len(plan.Skipped) != 11 {
		t.Errorf("second import: %s", again)
	}
	if got := list(t, data); len(got) != 6 {
		t.Errorf("a second import changed the servers: %d", len(got))
	}
}

// Without --db the database is read from where the app keeps it.
func TestImportElectronDefaultLocation(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the user config dir is $XDG_CONFIG_HOME on Linux only")
	}
	t.Setenv(secrets.EnvStore, secrets.InFile)
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	data := t.TempDir()
	r := run(t, data, "", "import", "electron", "--dry-run")
	if r.code == 0 || !strings.Contains(r.stderr, filepath.Join(cfg, "MCP Router", "mcprouter.db")) || !strings.Contains(r.stderr, "--db") {
		t.Errorf("no database: exit %d, %q", r.code, r.stderr)
	}
	app, _ := testelectron.UserData(t)
	if err := os.Rename(app, filepath.Join(cfg, "MCP Router")); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, data, "import", "electron", "--dry-run")
	if !strings.Contains(out, "source: "+filepath.Join(cfg, "MCP Router", "mcprouter.db")) || !strings.Contains(out, "would import 6 server(s)") {
		t.Errorf("default location: %s", out)
	}
}

// A hostile file: an error naming what is wrong, and nothing imported.
func TestImportElectronHostileExport(t *testing.T) {
	data := t.TempDir()
	bad := filepath.Join(t.TempDir(), "export.json")
	if err := os.WriteFile(bad, []byte(`{"servers": [{"name": "a", "command": "x", "args": "-y"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, data, "", "import", "electron", "--export", bad)
	if r.code == 0 || !strings.Contains(r.stderr, "servers.args") {
		t.Errorf("exit %d, %q", r.code, r.stderr)
	}
	if r := run(t, data, "", "import", "electron", "--export", bad, "--db", bad); r.code == 0 || !strings.Contains(r.stderr, "not both") {
		t.Errorf("both: exit %d, %q", r.code, r.stderr)
	}
	if got := list(t, data); len(got) != 0 {
		t.Errorf("imported %+v", got)
	}
}

// An Electron server that points at this router (the app's own entry for
// it, or a URL of this router's endpoint) is skipped by the loop guard;
// the others are imported.
func TestImportElectronSkipsThisRouter(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	data := t.TempDir()
	db := filepath.Join(t.TempDir(), "mcprouter.db")
	app := testelectron.New(t, db, testelectron.ServersTable)
	app.AddServer(testelectron.Server{ID: "a", Name: "self", ServerType: "remote-streamable", RemoteURL: "http://localhost:3282/mcp"})
	app.AddServer(testelectron.Server{ID: "b", Name: "time", Command: "uvx", Args: []string{"mcp-server-time"}})
	out := mustRun(t, data, "import", "electron", "--db", db)
	if !strings.Contains(out, "imported 1 server(s):") || !strings.Contains(out, `server "self": points at this router`) {
		t.Errorf("output:\n%s", out)
	}
	if got := list(t, data); len(got) != 1 || got[0].Name != "time" {
		t.Errorf("servers %+v", got)
	}
}
