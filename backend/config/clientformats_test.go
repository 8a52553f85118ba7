package config

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testbombs"
)

// Files written the way each client's documentation shows them (not by
// our snippet) import with each field's meaning in that client.
func TestParseOtherClientsFormats(t *testing.T) {
	type want struct {
		name      string
		transport spec.Transport
		url       string
		command   string
		args      []string
		env       map[string]string
		headers   map[string]string
		enabled   bool
	}
	cases := []struct {
		client, file string
		want         []want
	}{
		// Gemini CLI: url is SSE, httpUrl streamable HTTP; its "mcp"
		// object (allowed/excluded) is not a server map.
		{ClientGemini, `{"mcp": {"allowed": ["a"]}, "theme": "x", "mcpServers": {
			"a": {"url": "http://h/events", "timeout": 5000},
			"b": {"httpUrl": "http://h/mcp", "headers": {"Authorization": "Bearer x"}, "trust": false},
			"c": {"command": "srv", "args": ["-v"], "env": {"K": "v"}}}}`,
			[]want{{name: "a", transport: spec.SSE, url: "http://h/events", enabled: true},
				{name: "b", transport: spec.HTTP, url: "http://h/mcp", headers: map[string]string{"Authorization": "Bearer x"}, enabled: true},
				{name: "c", transport: spec.Stdio, command: "srv", args: []string{"-v"}, env: map[string]string{"K": "v"}, enabled: true}}},
		// Windsurf: serverUrl; disabled.
		{ClientWindsurf, `{"mcpServers": {"w": {"serverUrl": "http://h/mcp", "disabled": true}}}`,
			[]want{{name: "w", transport: spec.HTTP, url: "http://h/mcp"}}},
		// Cline: a bare url is SSE, streamableHttp is not.
		{ClientCline, `{"mcpServers": {"s": {"url": "http://h/x"}, "t": {"type": "streamableHttp", "url": "http://h/mcp", "autoApprove": []}}}`,
			[]want{{name: "s", transport: spec.SSE, url: "http://h/x", enabled: true},
				{name: "t", transport: spec.HTTP, url: "http://h/mcp", enabled: true}}},
		// Zed: JSONC with comments and trailing commas, among other settings.
		{ClientZed, "{\n  // theme\n  \"theme\": \"One Dark\",\n  \"context_servers\": {\n    \"z\": {\"command\": \"srv\", \"args\": [\"a\",], \"env\": {},},\n    \"r\": {\"url\": \"http://h/mcp\", \"headers\": {\"X\": \"1\"}},\n  },\n}\n",
			[]want{{name: "r", transport: spec.HTTP, url: "http://h/mcp", headers: map[string]string{"X": "1"}, enabled: true},
				{name: "z", transport: spec.Stdio, command: "srv", args: []string{"a"}, enabled: true}}},
		// opencode: the command array, environment, enabled.
		{ClientOpencode, `{"$schema": "https://opencode.ai/config.json", "mcp": {
			"l": {"type": "local", "command": ["bun", "x", "srv"], "environment": {"K": "v"}, "enabled": false},
			"r": {"type": "remote", "url": "https://h/mcp", "headers": {"Authorization": "Bearer y"}}}}`,
			[]want{{name: "l", transport: spec.Stdio, command: "bun", args: []string{"x", "srv"}, env: map[string]string{"K": "v"}},
				{name: "r", transport: spec.HTTP, url: "https://h/mcp", headers: map[string]string{"Authorization": "Bearer y"}, enabled: true}}},
		// Continue's config.yaml, with models and comments around.
		{ClientContinue, "name: My Config\nversion: 1.0.0\nschema: v1\nmodels: []\n# tools\nmcpServers:\n  - name: sqlite\n    command: npx\n    args: [\"-y\", \"mcp-sqlite\", \"/db\"]\n  - name: remote\n    type: streamable-http\n    url: https://h/mcp\n    requestOptions:\n      headers:\n        Authorization: Bearer z\n  - name: old\n    type: sse\n    url: https://h/sse\n",
			[]want{{name: "old", transport: spec.SSE, url: "https://h/sse", enabled: true},
				{name: "remote", transport: spec.HTTP, url: "https://h/mcp", headers: map[string]string{"Authorization": "Bearer z"}, enabled: true},
				{name: "sqlite", transport: spec.Stdio, command: "npx", args: []string{"-y", "mcp-sqlite", "/db"}, enabled: true}}},
	}
	for _, tc := range cases {
		got, err := ParseClientConfigFor(tc.client, []byte(tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.client, err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: got %d servers, want %d: %+v", tc.client, len(got), len(tc.want), got)
		}
		for i, w := range tc.want {
			s := got[i]
			if s.Name != w.name || s.Transport != w.transport || s.URL != w.url || s.Command != w.command || s.Enabled != w.enabled {
				t.Errorf("%s %s: got %s %q %q enabled=%v, want %s %q %q enabled=%v", tc.client, w.name, s.Transport, s.URL, s.Command, s.Enabled, w.transport, w.url, w.command, w.enabled)
			}
			if strings.Join(s.Args, " ") != strings.Join(w.args, " ") {
				t.Errorf("%s %s: args %q, want %q", tc.client, w.name, s.Args, w.args)
			}
			for k, v := range w.env {
				if s.Env[k] != v {
					t.Errorf("%s %s: env %v", tc.client, w.name, s.Env)
				}
			}
			for k, v := range w.headers {
				if s.Headers[k] != v {
					t.Errorf("%s %s: headers %v", tc.client, w.name, s.Headers)
				}
			}
		}
	}
}

// What a hostile or broken file gets: an error naming the problem, no
// servers, in bounded time.
func TestParseOtherClientsRefusals(t *testing.T) {
	cases := []struct{ client, file, want string }{
		{ClientGemini, `{"mcpServers": {"a": {"url": "http://h/a", "httpUrl": "http://h/b"}}}`, "give one of url, httpUrl and serverUrl"},
		{ClientOpencode, `{"mcp": {"a": {"type": "local", "command": ["", "x"]}}}`, "empty program"},
		{ClientOpencode, `{"mcp": {"a": {"type": "local", "command": 7}}}`, `"command" must be`},
		{ClientOpencode, `{"mcp": {"a": {"command": ["x"], "env": {"A": "1"}, "environment": {"B": "2"}}}}`, "env or environment"},
		{ClientZed, `{"theme": "x"}`, `no "context_servers" key`},
		{ClientContinue, "mcpServers:\n  - command: x\n", "want a mapping with a name"},
		{ClientContinue, "mcpServers: {a: 1}\n", "must be a list"},
		{ClientContinue, "mcpServers:\n  - name: a\n    command: x\n  - name: a\n    command: y\n", "defined more than once"},
		{ClientContinue, "mcpServers:\n" + testbombs.Ladder("  ", 12, 10), "aliases expand the document past"},
		{ClientContinue, testbombs.BlockYAML(5000), "depth cap of a client config"},
		{ClientCodex, "[mcp_servers.x]\n", "TOML"},
	}
	for _, tc := range cases {
		start := time.Now()
		got, err := ParseClientConfigFor(tc.client, []byte(tc.file))
		if err == nil || len(got) != 0 {
			t.Errorf("%s %.40q: got %v, %v; want an error", tc.client, tc.file, got, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %.40q: error %q, want it to say %q", tc.client, tc.file, err, tc.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", tc.client, d)
		}
	}
}
