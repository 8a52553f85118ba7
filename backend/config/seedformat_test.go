package config

import (
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Seed 003's config: "transport" instead of "type", and the chat panel's
// per-server instructions.
const seed003 = `{
  "mcpServers": {
    "weather": {
      "transport": "stdio",
      "command": "build/bin/weather-mcp",
      "args": ["--base-url", "https://www.jma.go.jp/bosai"],
      "env": {"LANG": "ja_JP.UTF-8"},
      "system_instruction": "天気の質問には weather ツールを使うこと。",
      "response_instruction": "予報の発表時刻を添えて答えること。",
      "auto_context_tool": "list_areas"
    },
    "rag": {"transport": "stdio", "command": "rag-server", "auto_context_tool": "search"}
  }
}`

func TestParseSeed003Format(t *testing.T) {
	servers, err := ParseClientConfig([]byte(seed003))
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[1].Name != "weather" {
		t.Fatalf("%+v", servers)
	}
	w := servers[1]
	want := spec.Chat{SystemInstruction: "天気の質問には weather ツールを使うこと。", ResponseInstruction: "予報の発表時刻を添えて答えること。",
		AutoContextTool: "list_areas"}
	if w.Transport != spec.Stdio || w.Command != "build/bin/weather-mcp" || w.Env["LANG"] != "ja_JP.UTF-8" || w.Chat.SystemInstruction != want.SystemInstruction ||
		w.Chat.ResponseInstruction != want.ResponseInstruction || w.Chat.AutoContextTool != want.AutoContextTool {
		t.Fatalf("weather %+v", w)
	}
	if servers[0].Chat.AutoContextTool != "search" || servers[0].Chat.SystemInstruction != "" {
		t.Fatalf("rag %+v", servers[0].Chat)
	}
}

func TestParseSeed003FormatErrors(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{`{"mcpServers":{"w":{"transport":"stdio","type":"http","command":"x"}}}`, `type "http" and transport "stdio" disagree`},
		{`{"mcpServers":{"w":{"transport":"carrier-pigeon","command":"x"}}}`, `unknown type "carrier-pigeon"`},
		{`{"mcpServers":{"w":{"command":"x","auto_context_tool":"two words"}}}`, `auto-context tool "two words" is not a tool name`},
		{`{"mcpServers":{"w":{"command":"x","system_instruction":` + `"` + strings.Repeat("a", spec.MaxInstructionBytes+1) + `"}}}`, "longer than"},
		{`{"mcpServers":{"w":{"command":"x","response_instruction":42}}}`, `"response_instruction" must be a string`},
	} {
		_, err := ParseClientConfig([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%.80s: %v, want %q", tt.doc, err, tt.want)
		}
	}
}
