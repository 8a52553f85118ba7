package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/store"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

var testVendors = EnvVendors("gpt-default", "claude-default")

func TestEnvironmentProviderChoice(t *testing.T) {
	long := strings.Repeat("k", MaxAPIKeyLen+1)
	tests := []struct {
		name     string
		env      map[string]string
		pick     string
		kind     string // "" no provider
		baseURL  string
		reason   string // in Reason
		err      error
		errText  string
		notInErr string
	}{
		{name: "nothing set", env: nil},
		{name: "base URL alone offers nothing", env: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}},
		{name: "openai", env: map[string]string{"OPENAI_API_KEY": "sk-1"}, kind: "openai",
			reason: "using OPENAI_API_KEY from the environment (no provider is configured)"},
		{name: "anthropic with base URL", env: map[string]string{"ANTHROPIC_API_KEY": " sk-ant-1\n", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/"},
			kind: "anthropic", baseURL: "http://127.0.0.1:9/", reason: "using ANTHROPIC_API_KEY from the environment (no provider is configured), ANTHROPIC_BASE_URL=http://127.0.0.1:9/"},
		{name: "both: OpenAI first", env: map[string]string{"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-ant-1"}, kind: "openai",
			reason: "OPENAI_API_KEY and ANTHROPIC_API_KEY are both set; OPENAI_API_KEY comes first"},
		{name: "both, anthropic picked", env: map[string]string{"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-ant-1"}, pick: "Anthropic",
			kind: "anthropic", reason: "Anthropic was asked for"},
		{name: "off", env: map[string]string{"OPENAI_API_KEY": "sk-1"}, pick: "off"},
		{name: "picked but not set", env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1"}, pick: "openai", err: ErrNoProvider,
			errText: "OpenAI was asked for, but OPENAI_API_KEY is not set"},
		{name: "unknown pick", env: map[string]string{"OPENAI_API_KEY": "sk-1"}, pick: "gemini", err: ErrInvalid, errText: `"gemini" must be auto, off, openai or anthropic`},
		{name: "empty key", env: map[string]string{"OPENAI_API_KEY": "  "}, err: ErrInvalid, errText: "OPENAI_API_KEY is set but empty"},
		{name: "key of two words", env: map[string]string{"OPENAI_API_KEY": "sk-1 sk-2"}, err: ErrInvalid, errText: "OPENAI_API_KEY must be one word",
			notInErr: "sk-1"},
		{name: "key past the cap", env: map[string]string{"ANTHROPIC_API_KEY": long}, err: ErrInvalid, errText: "longer than 4096 characters"},
		{name: "empty base URL is unset", env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1", "ANTHROPIC_BASE_URL": ""}, kind: "anthropic"},
		{name: "base URL without scheme", env: map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "localhost:11434/v1"}, err: ErrInvalid,
			errText: "OPENAI_BASE_URL"},
		{name: "base URL not http", env: map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "ftp://h/v1"}, err: ErrInvalid,
			errText: `OPENAI_BASE_URL is not an http(s) URL`},
		// A key pasted into the base URL variable is not echoed (errors of a
		// conversation's turn are stored).
		{name: "key in the base URL variable", env: map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "sk-proj-pasted-here"}, err: ErrInvalid,
			errText: "OPENAI_BASE_URL is not an http(s) URL", notInErr: "sk-proj-pasted-here"},
		{name: "base URL query not shown", env: map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "https://gw.example/v1?token=t0ps3cret"},
			kind: "openai", baseURL: "https://gw.example/v1", reason: "OPENAI_BASE_URL=https://gw.example/v1"},
		{name: "base URL with a password", env: map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "https://u:hunter2@h/v1"}, err: ErrInvalid,
			errText: "must not carry a user or password", notInErr: "hunter2"},
		{name: "base URL past the cap", env: map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "https://h/" + strings.Repeat("a", MaxBaseURLLen)},
			err: ErrInvalid, errText: "longer than 2048 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := fromEnvironment(envOf(tt.env), testVendors, tt.pick)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.errText) || tt.notInErr != "" && strings.Contains(err.Error(), tt.notInErr) {
					t.Fatalf("err %v, want %v with %q", err, tt.err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.kind == "" {
				if p != nil {
					t.Fatalf("got %+v, want none", p)
				}
				return
			}
			if p == nil || p.Kind != tt.kind || p.BaseURL != tt.baseURL || !strings.Contains(p.Reason, tt.reason) {
				t.Fatalf("got %+v", p)
			}
			if want := map[string]string{"openai": "gpt-default", "anthropic": "claude-default"}[tt.kind]; p.Model != want {
				t.Fatalf("model %q, want %q", p.Model, want)
			}
			if p.key == "" || strings.ContainsAny(p.key, " \n") || strings.Contains(p.Reason, p.key) {
				t.Fatalf("key %q, reason %q", p.key, p.Reason)
			}
			// The provider gets the whole base URL; people see it without its query.
			if raw := tt.env[p.BaseURLVar]; p.BaseURLVar != "" && p.baseURL != strings.TrimSpace(raw) || strings.Contains(p.Reason, "t0ps3cret") {
				t.Fatalf("base URL %q from %q, reason %q", p.baseURL, raw, p.Reason)
			}
		})
	}
}

// With no provider configured the environment's key goes to the provider
// (and nowhere else: not the database, not the status); a configured
// provider wins over the environment.
func TestEnvironmentProviderOnlyWithoutConfiguredOnes(t *testing.T) {
	s, st := newService(t)
	const secret = "sk-env-0123456789abcdef"
	s.o.EnvVendors = testVendors
	s.o.LookupEnv = envOf(map[string]string{"OPENAI_API_KEY": secret, "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"})
	var gotCfg store.ChatProvider
	var gotKey string
	s.o.Providers = func(p store.ChatProvider, key string) (Provider, error) {
		gotCfg, gotKey = p, key
		return nil, nil
	}
	ctx := context.Background()
	status, err := s.Status(ctx)
	if err != nil || status.Configured || status.Environment == nil || status.Environment.Kind != "openai" || status.Environment.Label != "OpenAI" ||
		status.Environment.BaseURL != "http://127.0.0.1:1/v1" || status.Environment.Model != "gpt-default" || status.Hint != "" {
		t.Fatalf("status %+v %v", status, err)
	}
	cfg, _, env, err := s.provider(ctx, "")
	if err != nil || env == nil || gotKey != secret || gotCfg.Kind != "openai" || gotCfg.BaseURL != "http://127.0.0.1:1/v1" || cfg.DefaultModel != "gpt-default" {
		t.Fatalf("cfg %+v env %+v key %q err %v", cfg, env, gotKey, err)
	}
	conv, err := s.NewConversation(ctx, ConversationInput{})
	if err != nil || conv.Provider != "" || conv.Model != "gpt-default" {
		t.Fatalf("conversation %+v %v", conv, err)
	}
	var n int64
	if st.DB().Raw("SELECT COUNT(*) FROM chat_providers").Scan(&n); n != 0 {
		t.Fatalf("the environment's provider was stored: %d rows", n)
	}
	if _, err := s.o.Keys.Get(gotCfg.Name); !errors.Is(err, ErrNoKey) {
		t.Fatalf("the environment's key went to the key store: %v", err)
	}

	// Configured: it wins, and the status no longer offers the environment.
	cfgKey := "sk-configured-1"
	if _, err := s.SaveProvider(ctx, ProviderInput{Name: "mine", Kind: "anthropic", DefaultModel: "m", APIKey: &cfgKey}); err != nil {
		t.Fatal(err)
	}
	if cfg, _, env, err = s.provider(ctx, ""); err != nil || env != nil || cfg.Name != "mine" || gotKey != cfgKey {
		t.Fatalf("cfg %+v env %+v key %q err %v", cfg, env, gotKey, err)
	}
	if status, _ = s.Status(ctx); !status.Configured || status.Environment != nil {
		t.Fatalf("status %+v", status)
	}
}

// Off in the setting: the environment is never used, and the hint says
// how to configure a provider; a bad value is reported in the status.
func TestEnvironmentProviderOffAndBadValues(t *testing.T) {
	s, _ := newService(t)
	s.o.EnvVendors = testVendors
	s.o.LookupEnv = envOf(map[string]string{"OPENAI_API_KEY": "sk-1"})
	s.o.EnvPick = func(context.Context) string { return EnvOff }
	ctx := context.Background()
	if _, err := s.Ask(ctx, "", "", "hi", nil, nil); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("ask with the setting off: %v", err)
	}
	if st, _ := s.Status(ctx); st.Environment != nil || !strings.Contains(st.Hint, "OPENAI_API_KEY") {
		t.Fatalf("status %+v", st)
	}
	s.o.EnvPick = func(context.Context) string { return EnvAuto }
	s.o.LookupEnv = envOf(map[string]string{"OPENAI_API_KEY": ""})
	if _, err := s.Ask(ctx, "", "", "hi", nil, nil); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "OPENAI_API_KEY is set but empty") {
		t.Fatalf("ask with an empty key: %v", err)
	}
	if st, _ := s.Status(ctx); st.Environment != nil || !strings.Contains(st.EnvironmentError, "OPENAI_API_KEY is set but empty") {
		t.Fatalf("status %+v", st)
	}
	if _, err := s.AskWith(ctx, AskOptions{Provider: "x", EnvProvider: "openai", Input: "hi"}, nil, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("both: %v", err)
	}
}
