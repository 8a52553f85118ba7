package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/chat/chattest"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func TestChatProviders(t *testing.T) {
	t.Setenv(chat.EnvKeyStore, chat.KeysInFile)
	dir := t.TempDir()
	t.Setenv("TEST_CHAT_KEY", "sk-test-0123456789abcdef")
	out := mustRun(t, dir, "chat", "providers", "add", "openai", "--kind", "openai", "--model", "gpt-x", "--api-key-env", "TEST_CHAT_KEY")
	if !strings.Contains(out, "saved provider openai (openai, key sk-…cdef in the file)") {
		t.Fatalf("add: %q", out)
	}
	r := run(t, dir, "sk-ant-from-stdin-000000\n", "chat", "providers", "add", "claude", "--kind", "anthropic", "--api-key-stdin")
	if r.code != 0 || !strings.Contains(r.stdout, "key sk-…0000") {
		t.Fatalf("stdin key: %+v", r)
	}
	out = mustRun(t, dir, "chat", "providers", "list")
	if !strings.Contains(out, "openai") || !strings.Contains(out, "sk-…cdef") || strings.Contains(out, "0123456789abcdef") {
		t.Fatalf("list: %q", out)
	}
	out = mustRun(t, dir, "chat", "providers", "list", "--json")
	var ps []map[string]any
	if err := json.Unmarshal([]byte(out), &ps); err != nil || len(ps) != 2 || strings.Contains(out, "0123456789abcdef") {
		t.Fatalf("list --json: %q %v", out, err)
	}
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"chat", "providers", "add", "x", "--kind", "gemini"}, 2, `kind "gemini" must be openai`},
		{[]string{"chat", "providers", "add", "x"}, 2, `required flag(s) "kind" not set`},
		{[]string{"chat", "providers", "add", "x", "--kind", "openai", "--api-key-env", "NOT_SET_ANYWHERE"}, 2, "--api-key-env NOT_SET_ANYWHERE: the variable is not set"},
		{[]string{"chat", "providers", "add", "x", "--kind", "openai", "--base-url", "nope"}, 2, "base URL"},
		{[]string{"chat", "providers", "remove", "nope"}, 1, `chat provider "nope": not found`},
		{[]string{"chat"}, 2, "chat takes one question"},
	} {
		r := run(t, dir, "", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.msg) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, r.code, r.stderr, tt.code, tt.msg)
		}
	}
	mustRun(t, dir, "chat", "providers", "remove", "claude")
	if out := mustRun(t, dir, "chat", "providers", "list"); strings.Contains(out, "claude") {
		t.Fatalf("after remove: %q", out)
	}
}

func TestChatWithoutProvider(t *testing.T) {
	t.Setenv(chat.EnvKeyStore, chat.KeysInFile)
	r := run(t, t.TempDir(), "", "chat", "hello")
	if r.code != 2 || !strings.Contains(r.stderr, "no chat provider is configured") || !strings.Contains(r.stderr, "chat providers add") {
		t.Fatalf("%+v", r)
	}
}

// One turn in the terminal with server-everything behind the router: the
// tool call is printed as it happens, the answer streams to stdout; --json
// prints one object.
func TestChatOneTurn(t *testing.T) {
	t.Setenv(chat.EnvKeyStore, chat.KeysInFile)
	everything := testpeers.Everything(t)
	dir := t.TempDir()
	model := chattest.OpenAI(t,
		chattest.Step{Text: []string{"Echoing."}, Calls: []chattest.Call{{ID: "c1", Name: "everything__echo", Args: []string{`{"message":`, `"hi"}`}}}, InputTokens: 7, OutputTokens: 2},
		chattest.Step{Text: []string{"The echo said ", "hi."}, InputTokens: 12, OutputTokens: 5},
		chattest.Step{Text: []string{"plain"}})
	mustRun(t, dir, "servers", "add", "everything", "--", everything, "stdio")
	mustRun(t, dir, "chat", "providers", "add", "mock", "--kind", "openai", "--base-url", model.URL+"/v1", "--model", "m1")
	r := run(t, dir, "", "chat", "please echo hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "Echoing.\nThe echo said hi.\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
	if !strings.Contains(r.stderr, `→ everything__echo {"message":"hi"}`) || !strings.Contains(r.stderr, "← everything__echo: Echo: hi") ||
		!strings.Contains(r.stderr, "(1 tool calls, 19 input + 7 output tokens)") {
		t.Fatalf("stderr %q", r.stderr)
	}
	var got chatJSON
	r = run(t, dir, "", "chat", "--json", "--model", "m2", "anything")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Answer != "plain" || got.ToolCalls == nil {
		t.Fatalf("--json: %+v", r)
	}
	if m := model.Request(2)["model"]; m != "m2" {
		t.Fatalf("--model: %v", m)
	}
}

func TestServersChat(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "weather", "--", "weather-mcp")
	out := mustRun(t, dir, "servers", "chat", "weather", "--system-instruction", "天気はこのサーバーで", "--response-instruction", "cite the time",
		"--auto-context-tool", "list_areas", "--approve-tool", "get_forecast")
	for _, w := range []string{"system instruction:    天気はこのサーバーで", "response instruction:  cite the time", "auto-context tool:     list_areas", "approval:              get_forecast"} {
		if !strings.Contains(out, w) {
			t.Fatalf("missing %q in %q", w, out)
		}
	}
	mustRun(t, dir, "servers", "chat", "weather", "--response-instruction", "", "--approve", "always")
	var s struct {
		Chat struct {
			SystemInstruction, ResponseInstruction, AutoContextTool, Approve string
		} `json:"chat"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "show", "weather", "--json")), &s); err != nil {
		t.Fatal(err)
	}
	if s.Chat.SystemInstruction != "天気はこのサーバーで" || s.Chat.ResponseInstruction != "" || s.Chat.AutoContextTool != "list_areas" || s.Chat.Approve != "always" {
		t.Fatalf("%+v", s.Chat)
	}
	if out := mustRun(t, dir, "servers", "show", "weather"); !strings.Contains(out, "approval:              every tool") {
		t.Fatalf("show: %q", out)
	}
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"servers", "chat", "weather"}, 2, "say what to change"},
		{[]string{"servers", "chat", "weather", "--approve", "sometimes"}, 2, `--approve "sometimes": want always or none`},
		{[]string{"servers", "chat", "weather", "--auto-context-tool", "two words"}, 1, "is not a tool name"},
		{[]string{"servers", "chat", "nope", "--approve", "always"}, 1, "nope"},
	} {
		r := run(t, dir, "", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, r.code, r.stderr)
		}
	}
}
