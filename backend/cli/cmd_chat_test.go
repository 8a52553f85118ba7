package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/chat/anthropic"
	"github.com/mcp-router/mcp-router/backend/chat/chattest"
	"github.com/mcp-router/mcp-router/backend/chat/openai"
	"github.com/mcp-router/mcp-router/internal/testmcp"
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
	// No key in the environment either (a developer's shell may have one).
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
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

// routerProcess runs the test binary as mcp-router in a real subprocess
// whose environment is this one without any OPENAI_*, ANTHROPIC_* or MCPR_*
// variable, plus env.
func routerProcess(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testBinary(t), append([]string{"--data-dir", dir, "--log-level", "debug"}, args...)...)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "OPENAI_") && !strings.HasPrefix(k, "ANTHROPIC_") && !strings.HasPrefix(k, "MCPR_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append([]string{envAsRouter + "=1", chat.EnvKeyStore + "=" + chat.KeysInFile}, env...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, stdout.String(), stderr.String()}
}

// filesContaining lists the files under dir that contain s.
func filesContaining(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

// Issue 28 item 6: with no provider configured and only the vendor's key
// and base URL in a real process environment, `mcp-router chat` completes
// a tool-using turn against a model server of that vendor's wire, says
// which provider it took and why, and the key is in no file of the data
// directory and in none of the output (debug log included).
func TestChatWithoutSetupUsesTheEnvironment(t *testing.T) {
	for _, tc := range []struct {
		kind    string
		server  func(testing.TB, ...chattest.Step) *chattest.Server
		env     func(url, key string) []string
		args    []string
		note    string
		model   string
		keyHead string
	}{
		{kind: "openai", server: chattest.OpenAI,
			env: func(url, key string) []string {
				return []string{"OPENAI_API_KEY=" + key, "OPENAI_BASE_URL=" + url + "/v1"}
			},
			note: "note: using OPENAI_API_KEY from the environment (no provider is configured), OPENAI_BASE_URL=",
			// The SDK's current model, since none was given.
			model: openai.DefaultModel},
		{kind: "anthropic", server: chattest.Anthropic,
			// Both keys set; --env-provider picks Anthropic's.
			env: func(url, key string) []string {
				return []string{"ANTHROPIC_API_KEY=" + key, "ANTHROPIC_BASE_URL=" + url, "OPENAI_API_KEY=sk-not-this-one"}
			},
			args:  []string{"--env-provider", "anthropic"},
			note:  "note: using ANTHROPIC_API_KEY from the environment (Anthropic was asked for), ANTHROPIC_BASE_URL=",
			model: anthropic.DefaultModel},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			dir := t.TempDir()
			secret := "sk-env-" + tc.kind + "-5f0c2a9e7d4b"
			model := tc.server(t,
				chattest.Step{Text: []string{"Deleting."}, Calls: []chattest.Call{{ID: "c1", Name: "local__delete_note", Args: []string{`{"id":`, `"n1"}`}}}},
				chattest.Step{Text: []string{"Note n1 ", "is deleted."}})
			mustRun(t, dir, "servers", "add", "local", "--env", testmcp.EnvServe+"=1", "--", os.Args[0])
			r := routerProcess(t, dir, tc.env(model.URL, secret), append(tc.args, "chat", "delete note n1")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if r.stdout != "Deleting.\nNote n1 is deleted.\n" {
				t.Fatalf("stdout %q", r.stdout)
			}
			if !strings.Contains(r.stderr, tc.note+model.URL) || !strings.Contains(r.stderr, "; model "+tc.model+" (the default") ||
				!strings.Contains(r.stderr, `→ local__delete_note {"id":"n1"}`) || !strings.Contains(r.stderr, "← local__delete_note: deleted n1") {
				t.Fatalf("stderr %q", r.stderr)
			}
			if m := model.Request(0)["model"]; m != tc.model {
				t.Fatalf("model %v, want %s", m, tc.model)
			}
			sent := false
			for _, vs := range model.Headers()[0] {
				for _, v := range vs {
					sent = sent || strings.Contains(v, secret)
				}
			}
			if !sent {
				t.Fatalf("the key from the environment did not reach the model server: %v", model.Headers()[0])
			}
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Fatalf("the key is in the output: %q", r.stderr)
			}
			if out := mustRun(t, dir, "logs", "--json"); !strings.Contains(out, "local__delete_note") || strings.Contains(out, secret) {
				t.Fatalf("request log: %q", out)
			}
			if hits := filesContaining(t, dir, secret); len(hits) > 0 {
				t.Fatalf("the key from the environment was written to %v", hits)
			}
			if out := mustRun(t, dir, "chat", "providers", "list"); !strings.Contains(out, "no chat providers") {
				t.Fatalf("a provider was saved: %q", out)
			}
		})
	}
}

// Bad values in the environment are named, with how to fix them, and
// nothing is sent anywhere.
func TestChatWithoutSetupRefusesBadEnvironmentValues(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"OPENAI_API_KEY="}, nil, "OPENAI_API_KEY is set but empty"},
		{[]string{"OPENAI_API_KEY=sk-1", "OPENAI_BASE_URL=localhost:11434/v1"}, nil, "OPENAI_BASE_URL"},
		{[]string{"ANTHROPIC_API_KEY=sk-1", "ANTHROPIC_BASE_URL=https://me:hunter2@example.com"}, nil, "ANTHROPIC_BASE_URL must not carry a user or password"},
		{[]string{"ANTHROPIC_API_KEY=sk-1"}, []string{"--env-provider", "openai"}, "OpenAI was asked for, but OPENAI_API_KEY is not set"},
		{[]string{"OPENAI_API_KEY=sk-1"}, []string{"--env-provider", "gemini"}, `"gemini" must be auto, off, openai or anthropic`},
		{nil, nil, "set OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment"},
	} {
		r := routerProcess(t, t.TempDir(), tc.env, append(tc.args, "chat", "hello")...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "hunter2") {
			t.Errorf("%v %v: exit %d, stderr %q; want 2 and %q", tc.env, tc.args, r.code, r.stderr, tc.want)
		}
	}
}
