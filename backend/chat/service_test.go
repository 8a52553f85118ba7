package chat

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/store"
)

func newService(t *testing.T) (*Service, *store.Store) {
	t.Helper()
	t.Setenv(EnvKeyStore, KeysInFile)
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := NewService(ServiceOptions{Repo: st.Chat(), Keys: NewKeys(dir), Router: noRouter{}, MCPEnabled: true,
		Providers: func(p store.ChatProvider, key string) (Provider, error) {
			return nil, errors.New("no network in this test")
		}})
	return s, st
}

type noRouter struct{}

func (noRouter) ListTools(context.Context) ([]mcp.Tool, error) { return nil, nil }
func (noRouter) CallTool(context.Context, string, json.RawMessage) (*mcp.CallToolResult, error) {
	return nil, errors.New("no tools")
}
func (noRouter) ToolRoute(string) (string, string, bool) { return "", "", false }

func TestProviderInputValidation(t *testing.T) {
	key := func(s string) *string { return &s }
	tests := []struct {
		in   ProviderInput
		want string // "" ok
	}{
		{ProviderInput{Name: "openai", Kind: "openai"}, ""},
		{ProviderInput{Name: "ollama", Kind: "OpenAI", BaseURL: "http://127.0.0.1:11434/v1", Tools: "off"}, ""},
		{ProviderInput{Name: "claude", Kind: "anthropic", APIKey: key(" sk-ant-x \n")}, ""},
		{ProviderInput{Name: "", Kind: "openai"}, "provider name"},
		{ProviderInput{Name: "bad name", Kind: "openai"}, "provider name"},
		{ProviderInput{Name: "x", Kind: "gemini"}, `kind "gemini" must be openai`},
		{ProviderInput{Name: "x", Kind: "openai", BaseURL: "ftp://h"}, "base URL"},
		{ProviderInput{Name: "x", Kind: "openai", BaseURL: "https://user:pw@h/v1"}, "not in the base URL"},
		{ProviderInput{Name: "x", Kind: "openai", Tools: "maybe"}, "tools \"maybe\""},
		{ProviderInput{Name: "x", Kind: "openai", DefaultModel: "a\nb"}, "one line"},
		{ProviderInput{Name: "x", Kind: "openai", APIKey: key("two words")}, "one word"},
	}
	for _, tt := range tests {
		err := tt.in.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestProvidersKeepKeysOutOfTheDatabaseAndMasked(t *testing.T) {
	s, st := newService(t)
	ctx := context.Background()
	secret := "sk-proj-0123456789abcdef"
	v, err := s.SaveProvider(ctx, ProviderInput{Name: "openai", Kind: "openai", DefaultModel: "gpt-x", APIKey: &secret})
	if err != nil {
		t.Fatal(err)
	}
	if !v.HasKey || v.KeyMask != "sk-…cdef" {
		t.Fatalf("view %+v", v)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), secret) {
		t.Fatalf("the view carries the key: %s", b)
	}
	var n int64
	st.DB().Raw("SELECT COUNT(*) FROM chat_providers WHERE base_url LIKE ? OR default_model LIKE ? OR name LIKE ?",
		"%"+secret+"%", "%"+secret+"%", "%"+secret+"%").Scan(&n)
	if n != 0 {
		t.Fatal("the key is in the database")
	}
	// Saved again without a key: the key stays.
	if v, _ = s.SaveProvider(ctx, ProviderInput{Name: "openai", Kind: "openai", DefaultModel: "gpt-y"}); !v.HasKey || v.DefaultModel != "gpt-y" {
		t.Fatalf("resaved %+v", v)
	}
	if err := s.DeleteProvider(ctx, "openai"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.o.Keys.Get("openai"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("key after delete: %v", err)
	}
	if err := s.DeleteProvider(ctx, "openai"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
}

func TestNoProviderSaysHowToConfigureOne(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	st, err := s.Status(ctx)
	if err != nil || st.Configured || !strings.Contains(st.Hint, "Settings → Chat") || st.KeyStore != KeysInFile || st.MaxRounds != 20 || st.ToolTimeout != 60 {
		t.Fatalf("status %+v %v", st, err)
	}
	if _, err := s.Ask(ctx, "", "", "hi", nil, nil); !errors.Is(err, ErrNoProvider) || !strings.Contains(err.Error(), "chat providers add") {
		t.Fatalf("ask: %v", err)
	}
	c, err := s.NewConversation(ctx, ConversationInput{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, c.ID, "  "); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty message: %v", err)
	}
	if err := s.Approve(c.ID, "x", AllowOnce); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("approve with nothing running: %v", err)
	}
	if _, err := s.UpdateConversation(ctx, c.ID, ConversationInput{Provider: "nope"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown provider: %v", err)
	}
	if _, err := s.Conversation(ctx, 999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown conversation: %v", err)
	}
}
