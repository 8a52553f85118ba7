// Package chat is the built-in chat panel's engine (seed 003): a
// provider-neutral model of tools and messages, the providers that turn it
// into each vendor's API (subpackages openai and anthropic, through the
// official SDKs), and the tool loop that runs the model's tool calls
// through the router — the same forwarding pipeline as any client's calls,
// with the caller named "chat", so scope, gate, policy, hooks and the
// request log apply to them too. It has no Wails import and no HTTP client
// of its own.
package chat

import (
	"context"
	"encoding/json"
	"errors"
)

// Role of a message in the history sent to a model.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries tool results back to the model (OpenAI's "tool"
	// messages, Anthropic's tool_result blocks in a user message).
	RoleTool Role = "tool"
)

// ToolCall is a call the model asked for. Name is the router's tool name
// (providers map names the vendor refuses back and forth, see Names).
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	CallID  string `json:"callId"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"isError"`
}

// Message is one entry of the history: a user's or assistant's text, an
// assistant's tool calls, or the results of those calls.
type Message struct {
	Role      Role         `json:"role"`
	Text      string       `json:"text,omitempty"`
	ToolCalls []ToolCall   `json:"toolCalls,omitempty"`
	Results   []ToolResult `json:"results,omitempty"`
}

// Tool is a tool offered to the model: the router's name, a description
// and the JSON Schema of its arguments.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// ToolChoice says whether the model may call tools.
type ToolChoice string

const (
	ToolChoiceAuto ToolChoice = ""     // the model decides
	ToolChoiceNone ToolChoice = "none" // tools stay defined but must not be called: a text answer
)

// Request is one model call.
type Request struct {
	Model      string
	System     string // "" for none
	Messages   []Message
	Tools      []Tool // nil: a plain request without tools
	ToolChoice ToolChoice
	MaxTokens  int64 // 0: the provider's default
}

// Usage counts the tokens of one model call or of a whole turn.
type Usage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Add sums two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{Input: u.Input + o.Input, Output: u.Output + o.Output}
}

// Reply is what a model call answered: text, tool calls, or both.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
	Stop      string // the vendor's stop or finish reason
}

// Delta is a piece of a streamed reply: text as it arrives, or the start of
// a tool call (its name known, its arguments still coming).
type Delta struct {
	Text     string
	ToolCall *ToolCall
}

// Provider is one model vendor's API.
type Provider interface {
	// Stream sends req and calls onDelta as the reply streams in; it returns
	// the whole reply, assembled in the same pass. Cancelling ctx abandons
	// the request (the vendor sees the connection close).
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error)
	// Models lists the model IDs the provider offers.
	Models(ctx context.Context) ([]string, error)
}

// ErrToolsUnsupported is wrapped by a provider's error when the model or
// server refused the request because it does not support tools; the loop
// then asks again without tools (seed 003: fall back, don't fail).
var ErrToolsUnsupported = errors.New("the model does not support tools")
