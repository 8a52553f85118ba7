package core

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/chat/anthropic"
	"github.com/mcp-router/mcp-router/backend/chat/openai"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// EnvMCPEnabled turns the chat's tools off for the whole process when it
// says false (seed 003's switch); the chat then answers without tools.
const EnvMCPEnabled = "MCP_ENABLED"

// MCPEnabled reads MCP_ENABLED: false, 0, off or no disable the chat's
// tools; anything else, or nothing, leaves them on.
func MCPEnabled() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvMCPEnabled))) {
	case "false", "0", "off", "no":
		return false
	}
	return true
}

// openChat builds the chat service: its tool calls go through the
// gateway's in-process front end (the same pipeline as a client's, caller
// "chat"), its providers through the official SDKs.
func (c *Core) openChat() {
	c.ChatKeys = chat.NewKeys(c.DataDir)
	c.Chat = chat.NewService(chat.ServiceOptions{
		Repo:   c.Store.Chat(),
		Keys:   c.ChatKeys,
		Router: c.Gateway,
		Servers: func(ctx context.Context) []spec.Server {
			rows, err := c.Store.Servers().List(ctx)
			if err != nil {
				c.Log.Warnf("chat: read the servers' instructions: %v", err)
				return nil
			}
			out := make([]spec.Server, 0, len(rows))
			for _, r := range rows {
				out = append(out, r.Server)
			}
			return out
		},
		Providers:    NewChatProvider,
		MCPEnabled:   MCPEnabled(),
		ToolsSetting: c.Settings.ChatTools,
		Limits: func() chat.Limits {
			ctx := context.Background()
			return chat.Limits{MaxRounds: c.Settings.ChatMaxToolRounds(ctx), ToolTimeout: c.Settings.ChatToolTimeout(ctx)}
		},
		Logger: c.Log,
		// A first chat without setup: the vendors' keys from the
		// environment, with each SDK's current model as the default.
		EnvVendors: chat.EnvVendors(openai.DefaultModel, anthropic.DefaultModel),
		EnvPick:    c.Settings.ChatEnvProvider,
	})
}

// NewChatProvider builds a provider of the configured kind.
func NewChatProvider(p store.ChatProvider, key string) (chat.Provider, error) {
	switch p.Kind {
	case store.ProviderOpenAI:
		return openai.New(openai.Options{BaseURL: p.BaseURL, APIKey: key}), nil
	case store.ProviderAnthropic:
		return anthropic.New(anthropic.Options{BaseURL: p.BaseURL, APIKey: key}), nil
	}
	return nil, fmt.Errorf("chat provider %q: unknown kind %q (want openai or anthropic)", p.Name, p.Kind)
}
