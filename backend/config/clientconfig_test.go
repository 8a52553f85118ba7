package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

const claudeDesktop = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/Users/me/Downloads"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_xxx"}
    },
    "sqlite": {
      "command": "uvx",
      "args": ["mcp-server-sqlite", "--db-path", "/Users/me/test.db"],
      "disabled": true
    }
  },
  "globalShortcut": "Ctrl+Space"
}`

const claudeCodeMCPJSON = `{
  "mcpServers": {
    "sentry": {
      "type": "http",
      "url": "https://mcp.sentry.dev/mcp",
      "headers": {"Authorization": "Bearer ${SENTRY_TOKEN}"}
    },
    "linear": {"type": "sse", "url": "https://mcp.linear.app/sse"},
    "everything": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"],
      "env": {}
    }
  }
}`

const cursor = `{
  "mcpServers": {
    "context7": {"url": "https://mcp.context7.com/mcp"},
    "legacy-sse": {"url": "http://localhost:8000/sse"},
    "streamable": {"type": "streamableHttp", "url": "http://localhost:9000/mcp/"},
    "local": {"command": "node", "args": ["server.js"], "cwd": "/work/tools", "env": {"PORT": "3000"}}
  }
}`

// VS Code's mcp.json: "servers", an "inputs" array, comments and a trailing
// comma, all of which VS Code accepts.
const vscode = `{
  // Inputs are prompted on first server start.
  "inputs": [
    {"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true}
  ],
  "servers": {
    /* a stdio server */
    "perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"},
      "envFile": "${workspaceFolder}/.env",
    },
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}, // no type
  },
}`

func TestParseClientConfigFormats(t *testing.T) {
	std := func(name, cmd string, args []string) spec.Server {
		return spec.Server{Name: name, Transport: spec.Stdio, Command: cmd, Args: args, Enabled: true,
			PrefixMode: spec.PrefixAlways}
	}
	remote := func(name string, tr spec.Transport, u string) spec.Server {
		return spec.Server{Name: name, Transport: tr, URL: u, Enabled: true,
			PrefixMode: spec.PrefixAlways}
	}
	with := func(s spec.Server, f func(*spec.Server)) spec.Server { f(&s); return s }

	tests := []struct {
		name string
		in   string
		want []spec.Server
	}{
		{"claude desktop", claudeDesktop, []spec.Server{
			std("filesystem", "npx", []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/Users/me/Downloads"}),
			with(std("github", "docker", []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"}),
				func(s *spec.Server) { s.Env = map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_xxx"} }),
			with(std("sqlite", "uvx", []string{"mcp-server-sqlite", "--db-path", "/Users/me/test.db"}),
				func(s *spec.Server) { s.Enabled = false }),
		}},
		{"claude code .mcp.json", claudeCodeMCPJSON, []spec.Server{
			with(std("everything", "npx", []string{"-y", "@modelcontextprotocol/server-everything"}),
				func(s *spec.Server) { s.Env = map[string]string{} }),
			remote("linear", spec.SSE, "https://mcp.linear.app/sse"),
			with(remote("sentry", spec.HTTP, "https://mcp.sentry.dev/mcp"),
				func(s *spec.Server) { s.Headers = map[string]string{"Authorization": "Bearer ${SENTRY_TOKEN}"} }),
		}},
		{"cursor", cursor, []spec.Server{
			remote("context7", spec.HTTP, "https://mcp.context7.com/mcp"),
			remote("legacy-sse", spec.SSE, "http://localhost:8000/sse"),
			with(std("local", "node", []string{"server.js"}), func(s *spec.Server) {
				s.Cwd = "/work/tools"
				s.Env = map[string]string{"PORT": "3000"}
			}),
			remote("streamable", spec.HTTP, "http://localhost:9000/mcp/"),
		}},
		{"vs code with inputs and comments", vscode, []spec.Server{
			remote("github", spec.HTTP, "https://api.githubcopilot.com/mcp/"),
			std("memory", "npx", []string{"-y", "@modelcontextprotocol/server-memory"}),
			with(std("perplexity", "npx", []string{"-y", "server-perplexity-ask"}),
				func(s *spec.Server) { s.Env = map[string]string{"PERPLEXITY_API_KEY": "${input:perplexity-key}"} }),
		}},
		{"empty map", `{"mcpServers": {}}`, nil},
		{"bom", "\xEF\xBB\xBF" + `{"servers": {"a": {"command": "x"}}}`, []spec.Server{std("a", "x", nil)}},
		{"comment markers inside strings", `{"mcpServers": {"a": {"command": "x", "args": ["//not a comment", "/* nor this */", "a,]"]}}}`,
			[]spec.Server{std("a", "x", []string{"//not a comment", "/* nor this */", "a,]"})}},
		{"type is case-insensitive", `{"mcpServers": {"a": {"type": "SSE", "url": "http://h/events"}}}`,
			[]spec.Server{remote("a", spec.SSE, "http://h/events")}},
		{"explicit http beats /sse suffix", `{"mcpServers": {"a": {"type": "streamable-http", "url": "http://h/sse"}}}`,
			[]spec.Server{remote("a", spec.HTTP, "http://h/sse")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseClientConfig([]byte(tt.in))
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestParseClientConfigErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string // substrings, each expected in the message
		invalid bool     // wraps spec.ErrInvalid
	}{
		{"syntax error with position", "{\n  \"mcpServers\": {\n    \"a\" {\"command\": \"x\"}\n  }\n}",
			[]string{"line 3, column 9: invalid character '{' after object key"}, false},
		{"double comma", "{\"mcpServers\": {\"a\": {\"command\": \"x\"},,\n}}", []string{"line 1, column 39: invalid character ','"}, false},
		{"truncated", "{\"mcpServers\": {", []string{"line 1", "unexpected end of JSON input"}, false},
		{"empty file", "  \n", []string{"empty"}, false},
		{"top level array", `[{"command": "x"}]`, []string{`"mcpServers"`, `"servers"`}, false},
		{"neither key", `{"a": {"command": "x"}}`, []string{`no "mcpServers"`, `or "servers"`}, false},
		{"both keys", `{"mcpServers": {}, "servers": {}}`, []string{"line 1, column 31", "keep only one"}, false},
		{"section not an object", `{"mcpServers": []}`, []string{"line 1, column 16", "must be an object"}, false},
		{"entry not an object", "{\"mcpServers\": {\n  \"a\": \"npx foo\"\n}}", []string{`line 2, column 8: invalid server definition: server "a": must be an object`}, true},
		{"args not array", `{"mcpServers": {"a": {"command": "x", "args": "--flag"}}}`, []string{`server "a": "args" must be an array of strings`}, true},
		{"env value not string", `{"mcpServers": {"a": {"command": "x", "env": {"PORT": 3000}}}}`, []string{`server "a"`, "env", "a string"}, true},
		{"unknown type", `{"mcpServers": {"a": {"type": "websocket", "url": "ws://h"}}}`, []string{`server "a": unknown type "websocket"`}, true},
		{"fails validate", `{"mcpServers": {"bad name": {"command": "x"}}}`, []string{`server name "bad name"`}, true},
		{"no command no url", `{"mcpServers": {"a": {"args": ["x"]}}}`, []string{`server "a"`, "command"}, true},
		{"stdio with url", `{"mcpServers": {"a": {"type": "stdio", "url": "http://h"}}}`, []string{`server "a": a stdio server needs a command`}, true},
		{"duplicate entry", "{\"mcpServers\": {\n\"a\": {\"command\": \"x\"},\n\"a\": {\"command\": \"y\"}}}", []string{`line 3, column 6`, `"a" is defined more than once`}, true},
		{"passUpstreamAuth on stdio", "{\"mcpServers\": {\n\"a\": {\"command\": \"x\", \"passUpstreamAuth\": true}}}", []string{"line 2, column 6", `server "a": passUpstreamAuth is for http and sse servers`}, true},
		{"unknown isolation", "{\"mcpServers\": {\n\"a\": {\"command\": \"x\", \"isolation\": \"per-user\"}}}", []string{"line 2, column 6", `isolation "per-user" must be shared or per-client`}, true},
		{"unknown protocol", "{\"mcpServers\": {\n\"a\": {\"command\": \"x\", \"protocol\": \"2024-11-05\"}}}", []string{"line 2, column 6", `protocol "2024-11-05" must be auto, 2025-11-25 or 2026-07-28`}, true},
		{"2026-07-28 on sse", `{"mcpServers": {"a": {"type": "sse", "url": "https://h/sse", "protocol": "2026-07-28"}}}`, []string{"sse transport has no 2026-07-28"}, true},
		{"client template on a shared server", `{"mcpServers": {"a": {"command": "x", "args": ["${client.root}"]}}}`, []string{"need isolation per-client"}, true},
		{"passUpstreamAuth not a bool", `{"mcpServers": {"a": {"url": "http://h/mcp", "passUpstreamAuth": "yes"}}}`, []string{`server "a": "passUpstreamAuth" must be true or false`}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseClientConfig([]byte(tt.in))
			if err == nil {
				t.Fatalf("no error; got %+v", got)
			}
			if got != nil {
				t.Errorf("servers returned with an error: %+v", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			if errors.Is(err, spec.ErrInvalid) != tt.invalid {
				t.Errorf("errors.Is(err, spec.ErrInvalid) = %v, want %v", !tt.invalid, tt.invalid)
			}
		})
	}
}

// One bad entry must not let the good ones through, and every bad entry is
// reported, one per line, in file order.
func TestParseClientConfigAllErrors(t *testing.T) {
	in := `{"mcpServers": {
  "good": {"command": "x"},
  "bad1": {"url": "ftp://h"},
  "bad2": {"command": "x", "url": "http://h"},
  "bad3": 42
}}`
	got, err := ParseClientConfig([]byte(in))
	if err == nil || got != nil {
		t.Fatalf("got %v, %v; want only an error", got, err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 error lines, got %q", lines)
	}
	for i, want := range []string{`line 3, column 11: invalid server definition: server "bad1"`, `line 4, column 11:`, `line 5, column 11:`} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], want)
		}
	}
	if !errors.Is(err, spec.ErrInvalid) {
		t.Error("joined error should wrap spec.ErrInvalid")
	}
}

func TestReadClientConfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "claude_desktop_config.json")
	if err := os.WriteFile(good, []byte(claudeDesktop), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadClientConfig(good); err != nil || len(got) != 3 {
		t.Fatalf("ReadClientConfig = %d servers, %v", len(got), err)
	}
	bad := filepath.Join(dir, "config.json")
	os.WriteFile(bad, []byte("{\"mcpServers\": {\"a\": {}, \"b\": {}}}"), 0o600)
	_, err := ReadClientConfig(bad)
	if err == nil {
		t.Fatal("no error")
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if !strings.HasPrefix(line, bad+": line 1, column ") {
			t.Errorf("line %q lacks the file name and position", line)
		}
	}
	if !errors.Is(err, spec.ErrInvalid) {
		t.Error("prefixing lost spec.ErrInvalid")
	}
	if _, err := ReadClientConfig(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
