package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

func TestChatRepo(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Chat()
		if _, err := r.SaveProvider(ctx, ChatProvider{Name: "ollama", Kind: ProviderOpenAI, BaseURL: "http://127.0.0.1:11434/v1", Tools: "auto"}); err != nil {
			t.Fatal(err)
		}
		p, err := r.SaveProvider(ctx, ChatProvider{Name: "ollama", Kind: ProviderOpenAI, DefaultModel: "llama3.2", Tools: "off"})
		if err != nil || p.DefaultModel != "llama3.2" || p.BaseURL != "" {
			t.Fatalf("replace %+v %v", p, err)
		}
		if ps, _ := r.Providers(ctx); len(ps) != 1 {
			t.Fatalf("providers %+v", ps)
		}
		if _, err := r.Provider(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing provider: %v", err)
		}

		c, err := r.CreateConversation(ctx, ChatConversation{Title: "  weather\n in  Tokyo ", Provider: "ollama", DisabledServers: []string{"fs"}})
		if err != nil || c.Title != "weather in Tokyo" {
			t.Fatalf("create %+v %v", c, err)
		}
		if _, err := r.AddMessage(ctx, ChatMessage{ConversationID: c.ID, Role: ChatRoleUser, Content: "q"}); err != nil {
			t.Fatal(err)
		}
		a, err := r.AddMessage(ctx, ChatMessage{ConversationID: c.ID, Role: ChatRoleAssistant, Content: "a", InputTokens: 10, OutputTokens: 3})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.AddMessage(ctx, ChatMessage{ConversationID: 999, Role: ChatRoleUser}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("message to a missing conversation: %v", err)
		}
		got, _ := r.Conversation(ctx, c.ID)
		if got.InputTokens != 10 || got.OutputTokens != 3 || len(got.DisabledServers) != 1 {
			t.Fatalf("totals %+v", got)
		}
		if err := r.DeleteMessagesFrom(ctx, c.ID, a.ID); err != nil {
			t.Fatal(err)
		}
		got, _ = r.Conversation(ctx, c.ID)
		msgs, _ := r.Messages(ctx, c.ID)
		if got.InputTokens != 0 || len(msgs) != 1 {
			t.Fatalf("after retry delete: %+v %d", got, len(msgs))
		}
		got.Title, got.Model, got.ApprovedTools = strings.Repeat("t", MaxChatTitle+10), "m2", []string{"a__x"}
		up, err := r.UpdateConversation(ctx, got)
		if err != nil || len([]rune(up.Title)) != MaxChatTitle || up.Model != "m2" || up.ApprovedTools[0] != "a__x" {
			t.Fatalf("update %+v %v", up, err)
		}
		if err := r.DeleteConversation(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		if msgs, _ := r.Messages(ctx, c.ID); len(msgs) != 0 {
			t.Fatal("messages outlived their conversation")
		}
		if err := r.DeleteConversation(ctx, c.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("delete twice: %v", err)
		}
	})
}

// A server's chat settings round-trip through the servers table (0200_chat).
func TestServerChatColumn(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		def := spec.Server{Name: "w", Command: "weather-mcp", Enabled: true,
			Chat: spec.Chat{SystemInstruction: "use it", ResponseInstruction: "cite", AutoContextTool: "list_areas", ApproveTools: []string{"x"}}}
		if _, err := s.Servers().Create(ctx, def); err != nil {
			t.Fatal(err)
		}
		got, err := s.Servers().Get(ctx, "w")
		if err != nil || got.Chat.SystemInstruction != "use it" || got.Chat.AutoContextTool != "list_areas" || got.Chat.ApproveTools[0] != "x" {
			t.Fatalf("%+v %v", got.Chat, err)
		}
	})
}
