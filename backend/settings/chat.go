package settings

import (
	"context"
	"sort"
	"strconv"
	"time"
)

// The chat panel's settings (docs/chat.md).
const (
	KeyChatTools         = "chatTools"         // on: the chat offers the router's tools to the model
	KeyChatMaxToolRounds = "chatMaxToolRounds" // tool rounds in one answer before a text answer is forced
	KeyChatToolTimeout   = "chatToolTimeout"   // seconds one tool call of the chat may take
	// KeyChatEnvProvider: with no provider configured, which vendor's key
	// from the environment the chat uses (auto: OPENAI_API_KEY first).
	KeyChatEnvProvider = "chatEnvProvider"
)

// Defaults of the chat settings.
const (
	DefaultChatMaxToolRounds = 20
	DefaultChatToolTimeout   = 60
)

func init() {
	defs = append(defs,
		Def{Key: KeyChatTools, Default: "on", Allowed: "on or off",
			Help: "the chat panel offers the router's tools to the model", check: checkOnOff},
		Def{Key: KeyChatMaxToolRounds, Default: strconv.Itoa(DefaultChatMaxToolRounds), Allowed: "a whole number from 1 to 100",
			Help: "tool rounds in one chat answer before the model must answer in text", check: intRange(1, 100)},
		Def{Key: KeyChatToolTimeout, Default: strconv.Itoa(DefaultChatToolTimeout), Allowed: "a whole number of seconds from 1 to 3600",
			Help: "seconds one tool call of the chat may take", check: intRange(1, 3600)},
		Def{Key: KeyChatEnvProvider, Default: "auto", Allowed: "auto, openai, anthropic or off",
			Help:  "with no chat provider configured: whose key from the environment the chat uses (auto: OPENAI_API_KEY, else ANTHROPIC_API_KEY; off: none)",
			check: oneOf("auto", "openai", "anthropic", "off")},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// ChatTools reports whether the chat offers tools.
func (s *Settings) ChatTools(ctx context.Context) bool { return s.valid(ctx, KeyChatTools) == "on" }

// ChatMaxToolRounds is the chat's tool round limit.
func (s *Settings) ChatMaxToolRounds(ctx context.Context) int {
	return s.validInt(ctx, KeyChatMaxToolRounds)
}

// ChatToolTimeout bounds one tool call of the chat.
func (s *Settings) ChatToolTimeout(ctx context.Context) time.Duration {
	return time.Duration(s.validInt(ctx, KeyChatToolTimeout)) * time.Second
}

// ChatEnvProvider is whose key from the environment a chat without a
// configured provider uses: auto, openai, anthropic or off.
func (s *Settings) ChatEnvProvider(ctx context.Context) string {
	return s.valid(ctx, KeyChatEnvProvider)
}
