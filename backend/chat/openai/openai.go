// Package openai is the chat's provider for OpenAI's Chat Completions API
// and every server that speaks it (Ollama, LM Studio, vLLM, OpenRouter, …),
// through the official SDK (github.com/openai/openai-go/v3): function
// calling for tools, one streamed request per model call whose tool calls
// the SDK's ChatCompletionAccumulator assembles from the deltas.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcp-router/mcp-router/backend/chat"
)

// DefaultBaseURL is OpenAI's own API.
const DefaultBaseURL = "https://api.openai.com/v1/"

// DefaultModel is the model a chat without a configured provider uses with
// OPENAI_API_KEY: the newest general GPT model the SDK names.
const DefaultModel = string(shared.ChatModelGPT5_5)

// Options configure New.
type Options struct {
	// BaseURL of the API ("" for OpenAI): http://127.0.0.1:11434/v1 for
	// Ollama, http://127.0.0.1:1234/v1 for LM Studio, …
	BaseURL string
	// APIKey; local servers usually need none.
	APIKey string
	// HTTPClient; nil: the SDK's.
	HTTPClient *http.Client
	// MaxRetries of a failed request (429, 5xx, a dropped connection);
	// default 2.
	MaxRetries int
}

// Provider talks to one OpenAI-compatible API.
type Provider struct{ client sdk.Client }

var _ chat.Provider = (*Provider)(nil)

// New returns a provider. The base URL and the key are always set from o,
// so OPENAI_BASE_URL and OPENAI_API_KEY in the router's environment never
// redirect or authenticate a configured provider.
func New(o Options) *Provider {
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	retries := o.MaxRetries
	if retries == 0 {
		retries = 2
	}
	opts := []option.RequestOption{option.WithBaseURL(base), option.WithAPIKey(o.APIKey), option.WithMaxRetries(max(retries, 0))}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	return &Provider{client: sdk.NewClient(opts...)}
}

// Models lists the server's models (GET /models), sorted.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	iter := p.client.Models.ListAutoPaging(ctx)
	var out []string
	for iter.Next() {
		out = append(out, iter.Current().ID)
	}
	if err := iter.Err(); err != nil {
		return nil, describe(err)
	}
	sort.Strings(out)
	return out, nil
}

// Stream sends one chat completion request with stream=true and reads
// text and tool calls from the same stream.
func (p *Provider) Stream(ctx context.Context, req chat.Request, onDelta func(chat.Delta)) (chat.Reply, error) {
	params, err := Params(req)
	if err != nil {
		return chat.Reply{}, err
	}
	stream := p.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc sdk.ChatCompletionAccumulator
	started := map[int64]bool{}
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.Delta.Content != "" && onDelta != nil {
				onDelta(chat.Delta{Text: ch.Delta.Content})
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Function.Name != "" && !started[tc.Index] {
					started[tc.Index] = true
					if onDelta != nil {
						onDelta(chat.Delta{ToolCall: &chat.ToolCall{ID: tc.ID, Name: tc.Function.Name}})
					}
				}
			}
		}
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return chat.Reply{}, ctx.Err()
		}
		return chat.Reply{}, describe(err)
	}
	reply := chat.Reply{Usage: chat.Usage{Input: acc.Usage.PromptTokens, Output: acc.Usage.CompletionTokens}}
	if len(acc.Choices) == 0 {
		return reply, nil
	}
	c := acc.Choices[0]
	reply.Text = c.Message.Content
	if reply.Text == "" && c.Message.Refusal != "" {
		reply.Text = c.Message.Refusal
	}
	reply.Stop = c.FinishReason
	for i, tc := range c.Message.ToolCalls {
		args := json.RawMessage(tc.Function.Arguments)
		if strings.TrimSpace(tc.Function.Arguments) == "" {
			args = json.RawMessage(`{}`)
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i) // some local servers send none
		}
		reply.ToolCalls = append(reply.ToolCalls, chat.ToolCall{ID: id, Name: tc.Function.Name, Args: args})
	}
	return reply, nil
}

// Params converts a provider-neutral request to the SDK's parameters.
func Params(req chat.Request) (sdk.ChatCompletionNewParams, error) {
	params := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = sdk.Int(req.MaxTokens)
	}
	if req.System != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case chat.RoleUser:
			params.Messages = append(params.Messages, sdk.UserMessage(m.Text))
		case chat.RoleAssistant:
			a := sdk.ChatCompletionAssistantMessageParam{}
			if m.Text != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = sdk.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				args := string(c.Args)
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{ID: c.ID,
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args}}})
			}
			params.Messages = append(params.Messages, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case chat.RoleTool:
			for _, r := range m.Results {
				content := r.Content
				if r.IsError {
					// The API has no error flag on tool messages: say it.
					content = "[tool error] " + content
				}
				params.Messages = append(params.Messages, sdk.ToolMessage(content, r.CallID))
			}
		default:
			return params, fmt.Errorf("openai: unknown message role %q", m.Role)
		}
	}
	for _, t := range req.Tools {
		var schema map[string]any
		if err := json.Unmarshal(t.Schema, &schema); err != nil || schema == nil {
			schema = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(schema)}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	if len(req.Tools) > 0 && req.ToolChoice == chat.ToolChoiceNone {
		params.ToolChoice = sdk.ChatCompletionToolChoiceOptionUnionParam{OfAuto: sdk.String("none")}
	}
	return params, nil
}

// describe turns the SDK's error into one line, and marks a server's
// refusal of tools (Ollama: "… does not support tools"; vLLM: "\"auto\"
// tool choice requires --enable-auto-tool-choice …") with
// chat.ErrToolsUnsupported.
func describe(err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("openai: %w", err)
	}
	msg := apiErr.Message
	if msg == "" {
		msg = strings.TrimSpace(apiErr.RawJSON())
	}
	if msg == "" {
		msg = http.StatusText(apiErr.StatusCode)
	}
	if apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 && refusesTools(msg) {
		return fmt.Errorf("openai: %d %s: %w", apiErr.StatusCode, msg, chat.ErrToolsUnsupported)
	}
	return fmt.Errorf("openai: %d %s", apiErr.StatusCode, msg)
}

func refusesTools(msg string) bool {
	m := strings.ToLower(msg)
	if !strings.Contains(m, "tool") {
		return false
	}
	for _, s := range []string{"does not support", "not support", "unsupported", "enable-auto-tool-choice", "not enabled"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
