package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/chat/anthropic"
	"github.com/mcp-router/mcp-router/backend/chat/chattest"
)

func provider(s *chattest.Server, key string) *anthropic.Provider {
	return anthropic.New(anthropic.Options{BaseURL: s.URL, APIKey: key, MaxRetries: -1})
}

func TestStreamsTextAndToolUseBlocks(t *testing.T) {
	srv := chattest.Anthropic(t, chattest.Step{
		Text:        []string{"Checking ", "the sky."},
		Calls:       []chattest.Call{{ID: "toolu_1", Name: "w__get", Args: []string{`{"area":`, `"Osaka"}`}}, {ID: "toolu_2", Name: "w__list", Args: nil}},
		InputTokens: 20, OutputTokens: 9,
	})
	var texts, started []string
	reply, err := provider(srv, "sk-ant-test").Stream(context.Background(), chat.Request{Model: "claude-x",
		Messages: []chat.Message{{Role: chat.RoleUser, Text: "weather?"}}}, func(d chat.Delta) {
		if d.Text != "" {
			texts = append(texts, d.Text)
		}
		if d.ToolCall != nil {
			started = append(started, d.ToolCall.ID)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(texts, "|") != "Checking |the sky." || reply.Text != "Checking the sky." {
		t.Fatalf("texts %q reply %q", texts, reply.Text)
	}
	if strings.Join(started, ",") != "toolu_1,toolu_2" {
		t.Fatalf("starts %v", started)
	}
	if len(reply.ToolCalls) != 2 || string(reply.ToolCalls[0].Args) != `{"area":"Osaka"}` || string(reply.ToolCalls[1].Args) != `{}` {
		t.Fatalf("calls %+v", reply.ToolCalls)
	}
	if reply.Usage != (chat.Usage{Input: 20, Output: 9}) || reply.Stop != "tool_use" {
		t.Fatalf("usage %+v stop %q", reply.Usage, reply.Stop)
	}
	h := srv.Headers()[0]
	// API version 2026-10-21: the SDK sends the key as a bearer token.
	if h.Get("Authorization") != "Bearer sk-ant-test" || h.Get("Anthropic-Version") != "2026-10-21" {
		t.Fatalf("headers %v", h)
	}
}

func TestRequestBody(t *testing.T) {
	srv := chattest.Anthropic(t, chattest.Step{Text: []string{"ok"}})
	req := chat.Request{Model: "m", System: "SYS", ToolChoice: chat.ToolChoiceNone,
		Messages: []chat.Message{
			{Role: chat.RoleUser, Text: "q"},
			{Role: chat.RoleAssistant, Text: "calling", ToolCalls: []chat.ToolCall{{ID: "t1", Name: "x", Args: json.RawMessage(`{"a":1}`)}}},
			{Role: chat.RoleTool, Results: []chat.ToolResult{{CallID: "t1", Name: "x", Content: "failed", IsError: true}}},
			{Role: chat.RoleUser, Text: "note"},
		},
		Tools: []chat.Tool{{Name: "x", Description: "d", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"required":["a"],"additionalProperties":false}`)}}}
	if _, err := provider(srv, "k").Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		System     any              `json:"system"`
		Messages   []map[string]any `json:"messages"`
		Tools      []map[string]any `json:"tools"`
		ToolChoice any              `json:"tool_choice"`
		MaxTokens  int              `json:"max_tokens"`
		Stream     bool             `json:"stream"`
	}
	if err := json.Unmarshal(srv.Requests()[0], &got); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(got.System); string(b) != `[{"text":"SYS","type":"text"}]` {
		t.Fatalf("system %s", b)
	}
	want := `[{"content":[{"text":"q","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"calling","type":"text"},{"id":"t1","input":{"a":1},"name":"x","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":[{"text":"failed","type":"text"}],"is_error":true,"tool_use_id":"t1","type":"tool_result"},{"text":"note","type":"text"}],"role":"user"}]`
	if b, _ := json.Marshal(got.Messages); string(b) != want {
		t.Fatalf("messages\n got %s\nwant %s", b, want)
	}
	wantTools := `[{"description":"d","input_schema":{"additionalProperties":false,"properties":{"a":{"type":"number"}},"required":["a"],"type":"object"},"name":"x"}]`
	if b, _ := json.Marshal(got.Tools); string(b) != wantTools {
		t.Fatalf("tools\n got %s\nwant %s", b, wantTools)
	}
	if b, _ := json.Marshal(got.ToolChoice); string(b) != `{"type":"none"}` {
		t.Fatalf("tool_choice %s", b)
	}
	if got.MaxTokens != anthropic.DefaultMaxTokens || !got.Stream {
		t.Fatalf("max_tokens %d stream %v", got.MaxTokens, got.Stream)
	}
}

func TestErrors(t *testing.T) {
	srv := chattest.Anthropic(t, chattest.Step{Status: 401, ErrorMessage: "invalid x-api-key"})
	_, err := provider(srv, "bad").Stream(context.Background(), chat.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Text: "x"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "401 invalid x-api-key") || errors.Is(err, chat.ErrToolsUnsupported) {
		t.Fatalf("%v", err)
	}
	srv = chattest.Anthropic(t, chattest.Step{Status: 400, ErrorMessage: "this model does not support tools"})
	_, err = provider(srv, "k").Stream(context.Background(), chat.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Text: "x"}}}, nil)
	if !errors.Is(err, chat.ErrToolsUnsupported) {
		t.Fatalf("%v", err)
	}
}

func TestModels(t *testing.T) {
	srv := chattest.Anthropic(t)
	got, err := provider(srv, "k").Models(context.Background())
	if err != nil || strings.Join(got, ",") != "model-a,model-b" {
		t.Fatalf("%v %v", got, err)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := chattest.Anthropic(t, chattest.Step{Text: []string{"partial"}, Hang: true})
	chattest.CheckCancelMidStream(t, srv, provider(srv, "k"))
}

func TestEnvironmentIgnored(t *testing.T) {
	srv := chattest.Anthropic(t, chattest.Step{Text: []string{"ok"}})
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "tok-env")
	if _, err := provider(srv, "sk-ant-mine").Stream(context.Background(), chat.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Text: "x"}}}, nil); err != nil {
		t.Fatal(err)
	}
	h := srv.Headers()[0]
	if h.Get("Authorization") != "Bearer sk-ant-mine" || h.Get("X-Api-Key") != "" {
		t.Fatalf("headers %v", h)
	}
}
