package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tailscale/hujson"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Each new client's snippet, exactly, in both modes: the field names are
// the whole point (docs/clients.md cites each client's documentation).
func TestNewClientSnippetsExactly(t *testing.T) {
	http := SnippetOptions{Token: "T"}
	stdio := SnippetOptions{Token: "T", BinaryPath: "/usr/bin/mcp-router"}
	cases := []struct {
		client, mode string
		want         string
	}{
		{ClientGemini, ModeHTTP, `{"mcpServers":{"mcp-router":{"httpUrl":"http://127.0.0.1:3282/mcp","headers":{"Authorization":"Bearer T"}}}}`},
		{ClientGemini, ModeStdio, `{"mcpServers":{"mcp-router":{"command":"/usr/bin/mcp-router","args":["connect"],"env":{"MCPR_TOKEN":"T"}}}}`},
		{ClientWindsurf, ModeHTTP, `{"mcpServers":{"mcp-router":{"serverUrl":"http://127.0.0.1:3282/mcp","headers":{"Authorization":"Bearer T"}}}}`},
		{ClientWindsurf, ModeStdio, `{"mcpServers":{"mcp-router":{"command":"/usr/bin/mcp-router","args":["connect"],"env":{"MCPR_TOKEN":"T"}}}}`},
		{ClientCline, ModeHTTP, `{"mcpServers":{"mcp-router":{"type":"streamableHttp","url":"http://127.0.0.1:3282/mcp","headers":{"Authorization":"Bearer T"}}}}`},
		{ClientCline, ModeStdio, `{"mcpServers":{"mcp-router":{"type":"stdio","command":"/usr/bin/mcp-router","args":["connect"],"env":{"MCPR_TOKEN":"T"}}}}`},
		{ClientLMStudio, ModeHTTP, `{"mcpServers":{"mcp-router":{"url":"http://127.0.0.1:3282/mcp","headers":{"Authorization":"Bearer T"}}}}`},
		{ClientLMStudio, ModeStdio, `{"mcpServers":{"mcp-router":{"command":"/usr/bin/mcp-router","args":["connect"],"env":{"MCPR_TOKEN":"T"}}}}`},
		{ClientZed, ModeHTTP, `{"context_servers":{"mcp-router":{"url":"http://127.0.0.1:3282/mcp","headers":{"Authorization":"Bearer T"}}}}`},
		{ClientZed, ModeStdio, `{"context_servers":{"mcp-router":{"command":"/usr/bin/mcp-router","args":["connect"],"env":{"MCPR_TOKEN":"T"}}}}`},
		{ClientOpencode, ModeHTTP, `{"mcp":{"mcp-router":{"type":"remote","url":"http://127.0.0.1:3282/mcp","headers":{"Authorization":"Bearer T"},"enabled":true}}}`},
		{ClientOpencode, ModeStdio, `{"mcp":{"mcp-router":{"type":"local","command":["/usr/bin/mcp-router","connect"],"environment":{"MCPR_TOKEN":"T"},"enabled":true}}}`},
	}
	for _, tc := range cases {
		o := http
		if tc.mode == ModeStdio {
			o = stdio
		}
		got, err := Snippet(tc.client, tc.mode, o)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.client, tc.mode, err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(tc.want), "", "  "); err != nil {
			t.Fatal(err)
		}
		want.WriteByte('\n')
		if got != want.String() {
			t.Errorf("%s %s:\n%s\nwant:\n%s", tc.client, tc.mode, got, want.String())
		}
	}

	got, err := Snippet(ClientContinue, ModeHTTP, http)
	if err != nil {
		t.Fatal(err)
	}
	want := `name: mcp-router
version: 0.0.1
schema: v1
mcpServers:
  - name: mcp-router
    type: streamable-http
    url: http://127.0.0.1:3282/mcp
    requestOptions:
      headers:
        Authorization: Bearer T
`
	if got != want {
		t.Errorf("continue http:\n%s\nwant:\n%s", got, want)
	}
	got, err = Snippet(ClientContinue, ModeStdio, stdio)
	if err != nil {
		t.Fatal(err)
	}
	want = `name: mcp-router
version: 0.0.1
schema: v1
mcpServers:
  - name: mcp-router
    type: stdio
    command: /usr/bin/mcp-router
    args:
      - connect
    env:
      MCPR_TOKEN: T
`
	if got != want {
		t.Errorf("continue stdio:\n%s\nwant:\n%s", got, want)
	}
}

// geminiSchema is Gemini CLI's own schema of an mcpServers entry, taken
// from its 0.61.0 bundle (see the file's $comment).
func geminiSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "clients", "gemini-mcpserverconfig.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("gemini.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("gemini.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// opencodeKeys are the keys opencode's config schema allows in an mcp
// entry of each type (its McpLocalConfig and McpRemoteConfig have
// additionalProperties false; "type" and "command" or "url" required).
var opencodeKeys = map[string][]string{
	"local":  {"type", "command", "environment", "enabled", "timeout"},
	"remote": {"type", "url", "enabled", "headers", "oauth", "timeout"},
}

// The snippet of every new client parses as that client's config format
// (JSON; Zed's JSONC; Continue's YAML), has the shape the client's schema
// wants, and imports back (ParseClientConfigFor) as the router's endpoint
// with its token, in both modes, with upstream credentials too.
func TestNewClientSnippetsParseAsTheClientsFormat(t *testing.T) {
	gemini := geminiSchema(t)
	opts := []SnippetOptions{
		{Token: testToken, BinaryPath: testBin},
		{BinaryPath: testBin, URL: "http://127.0.0.1:4000/mcp/work?a=1&b=<2>", Name: "mcp-router-work"},
		{Token: testToken, BinaryPath: testBin, UpstreamAuth: map[string]string{"gh": "Bearer up"}},
	}
	for _, client := range []string{ClientGemini, ClientWindsurf, ClientCline, ClientLMStudio, ClientZed, ClientOpencode, ClientContinue} {
		for _, mode := range SnippetModes {
			for _, o := range opts {
				text, err := Snippet(client, mode, o)
				if err != nil {
					t.Fatalf("%s %s: %v", client, mode, err)
				}
				name := o.Name
				if name == "" {
					name = SnippetServerName
				}
				var entry map[string]any
				switch client {
				case ClientContinue:
					var block struct {
						Name, Version, Schema string
						MCPServers            []map[string]any `yaml:"mcpServers"`
					}
					if err := yaml.UnmarshalWithOptions([]byte(text), &block, yaml.Strict()); err != nil {
						t.Fatalf("continue: not YAML: %v\n%s", err, text)
					}
					if block.Schema != "v1" || block.Name == "" || block.Version == "" || len(block.MCPServers) != 1 {
						t.Fatalf("continue: not a block file:\n%s", text)
					}
					entry = block.MCPServers[0]
					if entry["name"] != name {
						t.Errorf("continue: name %v", entry["name"])
					}
				default:
					src := []byte(text)
					if client == ClientZed {
						if src, err = hujson.Standardize(src); err != nil {
							t.Fatalf("zed: not JSONC: %v", err)
						}
					}
					var doc map[string]map[string]map[string]any
					if err := json.Unmarshal(src, &doc); err != nil {
						t.Fatalf("%s: not JSON: %v\n%s", client, err, text)
					}
					entry = doc[JSONTopKey(client)][name]
					if len(doc) != 1 || entry == nil {
						t.Fatalf("%s: want {%q: {%q: …}}:\n%s", client, JSONTopKey(client), name, text)
					}
				}
				switch client {
				case ClientGemini:
					b, _ := json.Marshal(entry)
					inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
					if err := gemini.Validate(inst); err != nil {
						t.Errorf("gemini: the entry fails Gemini CLI's schema: %v\n%s", err, text)
					}
					if mode == ModeHTTP && entry["url"] != nil {
						t.Errorf("gemini: url means SSE there; want httpUrl:\n%s", text)
					}
				case ClientOpencode:
					typ, _ := entry["type"].(string)
					allowed, ok := opencodeKeys[typ]
					if !ok {
						t.Fatalf("opencode: type %q", typ)
					}
					for k := range entry {
						if !slices.Contains(allowed, k) {
							t.Errorf("opencode: key %q is not allowed in a %s entry", k, typ)
						}
					}
					if typ == "local" {
						if _, ok := entry["command"].([]any); !ok {
							t.Errorf("opencode: command must be an array:\n%s", text)
						}
					}
				}

				servers, err := ParseClientConfigFor(client, []byte(text))
				if err != nil || len(servers) != 1 {
					t.Fatalf("%s %s: the snippet does not import back: %v\n%s", client, mode, err, text)
				}
				s := servers[0]
				wantURL := orDefault(o.URL)
				if s.Name != name {
					t.Errorf("%s: imported name %q", client, s.Name)
				}
				if mode == ModeHTTP {
					if s.Transport != spec.HTTP || s.URL != wantURL {
						t.Errorf("%s http: imported %s %q, want streamable HTTP to %q", client, s.Transport, s.URL, wantURL)
					}
					if o.Token != "" && s.Headers["Authorization"] != "Bearer "+o.Token {
						t.Errorf("%s http: headers %v", client, s.Headers)
					}
					if o.UpstreamAuth != nil && s.Headers["X-Upstream-Authorization-For"] != `{"gh":"Bearer up"}` {
						t.Errorf("%s http: no upstream auth header in %v", client, s.Headers)
					}
				} else {
					if s.Transport != spec.Stdio || s.Command != testBin || !reflect.DeepEqual(s.Args, connectArgs(wantURL)) {
						t.Errorf("%s stdio: imported %s %q %q", client, s.Transport, s.Command, s.Args)
					}
					if o.Token != "" && s.Env[TokenEnv] != o.Token {
						t.Errorf("%s stdio: env %v", client, s.Env)
					}
					if o.UpstreamAuth != nil && s.Env[UpstreamAuthEnv] == "" {
						t.Errorf("%s stdio: no %s in %v", client, UpstreamAuthEnv, s.Env)
					}
				}
			}
		}
	}
}
