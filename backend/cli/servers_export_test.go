package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

func listDefs(t *testing.T, dir string) map[string]spec.Server {
	t.Helper()
	var rows []spec.Server
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "list", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]spec.Server{}
	for _, r := range rows {
		out[r.Name] = r
	}
	return out
}

// servers export → servers import into another data dir gives the same
// servers, passUpstreamAuth included; a built-in server is left out with
// a note; the file is 0600 and never overwritten.
func TestServersExportImportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "fs", "--env", "DEBUG=1", "--cwd", "/srv", "--", "npx", "-y", "server-fs", "/tmp")
	mustRun(t, dir, "servers", "add", "gh", "--url", "https://api.example.com/mcp", "--header", "X-Team=a", "--pass-upstream-auth")
	mustRun(t, dir, "servers", "add", "legacy", "--url", "https://old.example.com/sse", "--transport", "sse", "--pass-upstream-auth", "--disabled")
	mustRun(t, dir, "servers", "add", "plain", "--url", "https://plain.example.com/mcp")
	mustRun(t, dir, "servers", "add", "state_gate", "--builtin")

	r := run(t, dir, "", "servers", "export")
	if r.code != 0 || !strings.Contains(r.stderr, "left out state_gate: built into the router") {
		t.Fatalf("export: %+v", r)
	}
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, r.stdout)
	}
	if doc.MCPServers["gh"]["passUpstreamAuth"] != true || doc.MCPServers["legacy"]["passUpstreamAuth"] != true ||
		doc.MCPServers["plain"]["passUpstreamAuth"] != nil || doc.MCPServers["fs"]["passUpstreamAuth"] != nil || len(doc.MCPServers) != 4 {
		t.Errorf("export:\n%s", r.stdout)
	}

	file := filepath.Join(t.TempDir(), "servers.json")
	if out := mustRun(t, dir, "servers", "export", "-o", file); !strings.Contains(out, "exported 4 server(s) to "+file) {
		t.Errorf("export -o said %q", out)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("exported file: %v %v", st, err)
	}
	written, _ := os.ReadFile(file)
	if string(written) != r.stdout {
		t.Errorf("the file differs from stdout")
	}
	// An existing file is not overwritten; an unknown name is an error.
	if r := run(t, dir, "", "servers", "export", "-o", file, "gh"); r.code == 0 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("export over an existing file: %+v", r)
	}
	if again, _ := os.ReadFile(file); string(again) != string(written) {
		t.Error("the existing file was changed")
	}
	if r := run(t, dir, "", "servers", "export", "gh", "nope"); r.code == 0 || !strings.Contains(r.stderr, `no server named "nope"`) || r.stdout != "" {
		t.Errorf("export of an unknown name: %+v", r)
	}
	one := run(t, dir, "", "servers", "export", "gh")
	if one.code != 0 || !strings.Contains(one.stdout, `"gh"`) || strings.Contains(one.stdout, `"fs"`) {
		t.Errorf("export gh: %+v", one)
	}

	other := t.TempDir()
	imp := run(t, other, "", "servers", "import", file)
	if imp.code != 0 || !strings.Contains(imp.stdout, "imported 4 server(s): fs, gh, legacy, plain") {
		t.Errorf("import: %+v", imp)
	}
	// The flag came from a file: the import says so, per server.
	if !strings.Contains(imp.stderr, "note: gh has passUpstreamAuth on: a client's X-Upstream-Authorization is sent to https://api.example.com/mcp") ||
		!strings.Contains(imp.stderr, "note: legacy has passUpstreamAuth on") || strings.Contains(imp.stderr, "plain") || strings.Contains(imp.stderr, "fs ") {
		t.Errorf("import notes: %q", imp.stderr)
	}
	before, after := listDefs(t, dir), listDefs(t, other)
	delete(before, "state_gate")
	for name, want := range before {
		got := after[name]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s after export and import:\n got %+v\nwant %+v", name, got, want)
		}
	}
	if !after["gh"].PassUpstreamAuth || !after["legacy"].PassUpstreamAuth || after["plain"].PassUpstreamAuth || after["legacy"].Enabled {
		t.Errorf("imported %+v", after)
	}
	// Imported again where they came from: every name is taken, nothing changes.
	if r := run(t, dir, "", "servers", "import", file); r.code != 0 || !strings.Contains(r.stdout, "nothing imported") {
		t.Errorf("import into the source: %+v", r)
	}
}
