package clients

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/mcp-router/mcp-router/backend/config"
)

// FuzzSetJSONEntry: whatever a client's config file holds, Add either
// refuses it or writes a file that parses, holds exactly one router entry
// equal to the one asked for, keeps plain JSON plain, and is the same
// after a second run (idempotent: never a duplicate).
func FuzzSetJSONEntry(f *testing.F) {
	for _, seed := range []string{
		"{}", "", "{\n  \"mcpServers\": {}\n}\n", `{"mcpServers": {"mcp-router": 1, "mcp-router": 2}}`,
		"{\n\t// c\n\t\"mcpServers\": {\n\t\t\"a\": {}, // x\n\t},\n}\n", `{"mcpServers": []}`, `[]`, `{"a": /* c */ 1}`,
		"{\r\n  \"mcpServers\": {\r\n    \"a\": {}\r\n  }\r\n}\r\n", `{"mcpServers": {"a": {}}` + "\n// end\n",
	} {
		f.Add([]byte(seed))
	}
	value := map[string]any{"url": "http://127.0.0.1:3282/mcp", "headers": map[string]string{"Authorization": "Bearer T"}}
	want, _ := json.Marshal(value)
	f.Fuzz(func(t *testing.T, data []byte) {
		if config.ClientConfigLimits().CheckJSON(data) != nil {
			return // Prepare refuses it before this runs
		}
		out, err := setJSONEntry(data, "mcpServers", "mcp-router", value)
		if err != nil {
			return
		}
		if json.Valid(data) && !json.Valid(out) {
			t.Fatalf("plain JSON became invalid:\n%s\n→\n%s", data, out)
		}
		m, err := entries(config.ClientCursor, out)
		if err != nil {
			t.Fatalf("the result does not parse: %v\n%s", err, out)
		}
		if len(m["mcp-router"]) != 1 {
			t.Fatalf("%d router entries:\n%s", len(m["mcp-router"]), out)
		}
		var got, exp any
		_ = json.Unmarshal(m["mcp-router"][0], &got)
		_ = json.Unmarshal(want, &exp)
		g, _ := json.Marshal(got)
		e, _ := json.Marshal(exp)
		if !bytes.Equal(g, e) {
			t.Fatalf("entry %s, want %s", g, e)
		}
		again, err := setJSONEntry(out, "mcpServers", "mcp-router", value)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("a second run changed the file (%v):\n%s\n→\n%s", err, out, again)
		}
		if _, err := hujson.Parse(out); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzSetCodexEntry: whatever Codex's config.toml holds, Add refuses it or
// writes one whose router table is the snippet's, with every other value
// as it was, and a second run changes nothing.
func FuzzSetCodexEntry(f *testing.F) {
	for _, seed := range []string{
		"", "model = \"o3\"\n", "[mcp_servers.mcp-router]\nurl = \"x\"\n[mcp_servers.mcp-router.env]\nA = \"1\"\n",
		"[mcp_servers]\nmcp-router = { url = \"x\" }\n", "a = [[1], [2]]\n# [x]\n", "s = '''\n[mcp_servers.mcp-router]\n'''\n",
		"[[mcp_servers.mcp-router]]\nurl = \"x\"\n",
	} {
		f.Add([]byte(seed))
	}
	e, err := config.Entry(config.ClientCodex, config.ModeHTTP, config.SnippetOptions{Token: "T"})
	if err != nil {
		f.Fatal(err)
	}
	table := e.Value.(string)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := setCodexEntry(data, e.Name, table)
		if err != nil {
			return
		}
		m, err := codexEntries(out)
		if err != nil || len(m[e.Name]) != 1 {
			t.Fatalf("result %v:\n%s", err, out)
		}
		again, err := setCodexEntry(out, e.Name, table)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("a second run changed the file (%v):\n%s\n→\n%s", err, out, again)
		}
	})
}
