package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/chat/chattest"
	"github.com/mcp-router/mcp-router/backend/chat/openai"
)

func provider(s *chattest.Server, key string) *openai.Provider {
	return openai.New(openai.Options{BaseURL: s.URL + "/v1", APIKey: key, MaxRetries: -1})
}

func TestStreamsTextAndSeveralToolCallsInOnePass(t *testing.T) {
	srv := chattest.OpenAI(t, chattest.Step{
		Text:        []string{"Let me ", "look."},
		Calls:       []chattest.Call{{ID: "call_a", Name: "w__get", Args: []string{`{"ar`, `ea":"Tokyo"}`}}, {ID: "call_b", Name: "w__list", Args: []string{`{}`}}},
		InputTokens: 11, OutputTokens: 7,
	})
	var texts []string
	var started []string
	reply, err := provider(srv, "sk-test").Stream(context.Background(), chat.Request{Model: "gpt-x", Messages: []chat.Message{{Role: chat.RoleUser, Text: "hi"}},
		Tools: []chat.Tool{{Name: "w__get", Schema: json.RawMessage(`{"type":"object","properties":{"area":{"type":"string"}}}`)}}},
		func(d chat.Delta) {
			if d.Text != "" {
				texts = append(texts, d.Text)
			}
			if d.ToolCall != nil {
				started = append(started, d.ToolCall.Name)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(texts, "|") != "Let me |look." || reply.Text != "Let me look." {
		t.Fatalf("text deltas %q, reply %q", texts, reply.Text)
	}
	if len(started) != 2 || started[0] != "w__get" || started[1] != "w__list" {
		t.Fatalf("tool call starts %v", started)
	}
	if len(reply.ToolCalls) != 2 || reply.ToolCalls[0].ID != "call_a" || string(reply.ToolCalls[0].Args) != `{"area":"Tokyo"}` ||
		reply.ToolCalls[1].Name != "w__list" {
		t.Fatalf("tool calls %+v", reply.ToolCalls)
	}
	if reply.Usage != (chat.Usage{Input: 11, Output: 7}) || reply.Stop != "tool_calls" {
		t.Fatalf("usage %+v stop %q", reply.Usage, reply.Stop)
	}
	body := srv.Request(0)
	if body["stream"] != true || body["model"] != "gpt-x" {
		t.Fatalf("request %v", body)
	}
	if h := srv.Headers()[0].Get("Authorization"); h != "Bearer sk-test" {
		t.Fatalf("Authorization %q", h)
	}
}

// The exact request body: system first, the assistant's tool calls, tool
// results (an error marked), the tools, tool_choice none when forced.
func TestRequestBody(t *testing.T) {
	srv := chattest.OpenAI(t, chattest.Step{Text: []string{"ok"}})
	req := chat.Request{Model: "m", System: "SYS", ToolChoice: chat.ToolChoiceNone,
		Messages: []chat.Message{
			{Role: chat.RoleUser, Text: "q"},
			{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "t1", Args: json.RawMessage(`{"a":1}`)}}},
			{Role: chat.RoleTool, Results: []chat.ToolResult{{CallID: "c1", Name: "t1", Content: "boom", IsError: true}}},
			{Role: chat.RoleUser, Text: "note"},
		},
		Tools: []chat.Tool{{Name: "t1", Description: "d", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`)}}}
	if _, err := provider(srv, "k").Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages   []map[string]any `json:"messages"`
		Tools      []map[string]any `json:"tools"`
		ToolChoice any              `json:"tool_choice"`
	}
	if err := json.Unmarshal(srv.Requests()[0], &got); err != nil {
		t.Fatal(err)
	}
	want := `[{"content":"SYS","role":"system"},{"content":"q","role":"user"},` +
		`{"role":"assistant","tool_calls":[{"function":{"arguments":"{\"a\":1}","name":"t1"},"id":"c1","type":"function"}]},` +
		`{"content":"[tool error] boom","role":"tool","tool_call_id":"c1"},{"content":"note","role":"user"}]`
	if b, _ := json.Marshal(got.Messages); string(b) != want {
		t.Fatalf("messages\n got %s\nwant %s", b, want)
	}
	wantTools := `[{"function":{"description":"d","name":"t1","parameters":{"properties":{"a":{"type":"number"}},"required":["a"],"type":"object"}},"type":"function"}]`
	if b, _ := json.Marshal(got.Tools); string(b) != wantTools {
		t.Fatalf("tools\n got %s\nwant %s", b, wantTools)
	}
	if got.ToolChoice != "none" {
		t.Fatalf("tool_choice %v", got.ToolChoice)
	}
}

func TestRefusedToolsAreMarked(t *testing.T) {
	for _, msg := range []string{"registry.ollama.ai/library/gemma:2b does not support tools",
		`"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`} {
		srv := chattest.OpenAI(t, chattest.Step{Status: 400, ErrorMessage: msg})
		_, err := provider(srv, "").Stream(context.Background(), chat.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Text: "x"}}}, nil)
		if !errors.Is(err, chat.ErrToolsUnsupported) || !strings.Contains(err.Error(), "400") {
			t.Fatalf("%q: %v", msg, err)
		}
	}
	srv := chattest.OpenAI(t, chattest.Step{Status: 401, ErrorMessage: "Incorrect API key provided"})
	_, err := provider(srv, "bad").Stream(context.Background(), chat.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Text: "x"}}}, nil)
	if err == nil || errors.Is(err, chat.ErrToolsUnsupported) || !strings.Contains(err.Error(), "401 Incorrect API key provided") {
		t.Fatalf("401: %v", err)
	}
}

func TestModels(t *testing.T) {
	srv := chattest.OpenAI(t)
	got, err := provider(srv, "").Models(context.Background())
	if err != nil || strings.Join(got, ",") != "model-a,model-b" {
		t.Fatalf("%v %v", got, err)
	}
}

// Stop mid-stream: cancelling the context closes the request, and the
// server sees its client go away.
func TestCancelMidStream(t *testing.T) {
	srv := chattest.OpenAI(t, chattest.Step{Text: []string{"partial"}, Hang: true})
	chattest.CheckCancelMidStream(t, srv, provider(srv, ""))
}

// OPENAI_* in the environment never redirect or authenticate a provider.
func TestEnvironmentIgnored(t *testing.T) {
	srv := chattest.OpenAI(t, chattest.Step{Text: []string{"ok"}})
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	if _, err := provider(srv, "").Stream(context.Background(), chat.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Text: "x"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if h := srv.Headers()[0].Get("Authorization"); strings.Contains(h, "sk-from-env") {
		t.Fatalf("the environment's key was sent: %q", h)
	}
}
