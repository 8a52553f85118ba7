package electronimport

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// exportOf writes the app's servers as JSON.stringify writes its
// MCPServerConfig records (packages/shared/src/types/mcp-types.ts), with
// its projects.
func exportOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp-router-export.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImportFromExportRecords(t *testing.T) {
	ctx := context.Background()
	path := exportOf(t, map[string]any{
		"servers": []map[string]any{
			{"id": "s1", "name": "GitHub MCP", "serverType": "local", "command": "npx",
				"args": []string{"-y", "@modelcontextprotocol/server-github"},
				"env":  map[string]any{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"}, "autoStart": true, "disabled": false,
				"inputParams":     map[string]any{"GITHUB_PERSONAL_ACCESS_TOKEN": map[string]any{"sensitive": true}},
				"toolPermissions": map[string]bool{"create_issue": false}, "projectId": "p1"},
			{"id": "s2", "name": "linear", "serverType": "remote-streamable", "remoteUrl": "https://mcp.linear.app/mcp",
				"env": map[string]any{}, "bearerToken": "lin_x", "projectId": nil},
		},
		"projects": []map[string]any{{"id": "p1", "name": "Work"}},
	})
	st, sec := routerStore(t)
	src, err := ReadExport(path)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MakePlan(ctx, st, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(ctx, st, sec, plan); err != nil {
		t.Fatal(err)
	}
	gh, err := st.Servers().Get(ctx, "GitHub-MCP")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gh.DisabledTools, []string{"create_issue"}) || !slices.Equal(gh.SecretEnv, []string{"GITHUB_PERSONAL_ACCESS_TOKEN"}) {
		t.Errorf("GitHub-MCP = %+v", gh.Server)
	}
	lin, err := st.Servers().Get(ctx, "linear")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := sec.Resolve(lin.Server); err != nil || r.Headers["Authorization"] != "Bearer lin_x" {
		t.Errorf("linear headers %v (%v)", r.Headers, err)
	}
	p, err := st.Profiles().Get(ctx, "Work")
	if err != nil || !slices.Equal(p.Servers, []string{"GitHub-MCP"}) {
		t.Errorf("profile Work = %+v (%v)", p, err)
	}
}

func TestImportFromExportClientShape(t *testing.T) {
	ctx := context.Background()
	path := exportOf(t, map[string]any{"mcpServers": map[string]any{
		"time": map[string]any{"command": "uvx", "args": []string{"mcp-server-time"}},
		"docs": map[string]any{"url": "https://docs.example.com/mcp", "headers": map[string]string{"X-Key": "k"}},
		"old":  map[string]any{"type": "sse", "url": "https://old.example.com/sse"},
		"keep": map[string]any{"command": "theirs"},
	}})
	st, sec := routerStore(t)
	src, err := ReadExport(path)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MakePlan(ctx, st, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range plan.Servers {
		names = append(names, s.Name+":"+s.Transport)
	}
	if !slices.Equal(names, []string{"docs:http", "old:sse", "time:stdio"}) {
		t.Errorf("planned %v", names)
	}
	if !containsText(plan.Notes, "servers only") {
		t.Errorf("notes %q: want the shape's limits said", plan.Notes)
	}
	if err := Apply(ctx, st, sec, plan); err != nil {
		t.Fatal(err)
	}
	if d, err := st.Servers().Get(ctx, "docs"); err != nil || d.Headers["X-Key"] != "k" {
		t.Errorf("docs = %+v (%v)", d.Server, err)
	}
}

func TestHostileExport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := write("big.json", `{"servers": [{"name": "a", "command": "`+strings.Repeat("x", MaxExportBytes)+`"}]}`)
	deep := write("deep.json", strings.Repeat("[", 10000)+strings.Repeat("]", 10000))
	var many strings.Builder
	many.WriteString("[")
	for i := 0; i <= MaxServers; i++ {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`{"name": "s` + itoa(i) + `", "command": "npx"}`)
	}
	many.WriteString("]")
	cases := map[string]struct{ path, want string }{
		"too big":       {big, "size cap of a saved export of the Electron MCP Router"},
		"too deep":      {deep, "nest"},
		"too many":      {write("many.json", many.String()), "MaxServers"},
		"wrong type":    {write("type.json", `{"servers": [{"name": "a", "args": "-y x"}]}`), "servers.args is a JSON string, want an array of strings"},
		"not JSON":      {write("bad.json", `{"servers": [`), "not valid JSON"},
		"nothing known": {write("other.json", `{"hello": 1}`), "not an export of the Electron MCP Router"},
		"both shapes":   {write("both.json", `{"servers": [], "mcpServers": {}}`), "keep one"},
		"env object":    {write("env.json", `[{"name": "a", "command": "x", "env": {"K": [1]}}]`), `entry "K"`},
		"nameless":      {write("nameless.json", `[{"command": "x"}]`), "column name: is empty"},
		"empty project": {write("proj.json", `{"servers": [], "projects": [{"id": "", "name": "x"}]}`), "needs an id and a name"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ReadExport(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to say %q", err, tc.want)
			}
		})
	}
}
