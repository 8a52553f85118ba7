// Package anthropic is the chat's provider for Anthropic's Messages API,
// through the official SDK (github.com/anthropics/anthropic-sdk-go/v2,
// API version 2026-10-21): tool use for tools, one streamed request per
// model call whose tool_use blocks (input_json_delta) the SDK's
// Message.Accumulate assembles. The SDK's own tool runner is
// Anthropic-only; the loop stays in package chat, provider-neutral.
//
// API version 2026-10-21 answers 400 to temperature, top_p and top_k, so
// none is sent.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/mcp-router/mcp-router/backend/chat"
)

// DefaultMaxTokens is sent when the request names none (the API requires
// max_tokens).
const DefaultMaxTokens = 4096

// DefaultModel is the model a chat without a configured provider uses with
// ANTHROPIC_API_KEY: the newest Sonnet the SDK names.
const DefaultModel = string(sdk.ModelClaudeSonnet5_5)

// Options configure New.
type Options struct {
	BaseURL    string // "" for Anthropic's API
	APIKey     string
	HTTPClient *http.Client
	MaxRetries int // default 2
}

// Provider talks to Anthropic's Messages API.
type Provider struct{ client sdk.Client }

var _ chat.Provider = (*Provider)(nil)

// New returns a provider. It ignores ANTHROPIC_* variables in the
// router's environment (WithoutEnvironmentDefaults): the key and base URL
// are the ones the user configured.
func New(o Options) *Provider {
	retries := o.MaxRetries
	if retries == 0 {
		retries = 2
	}
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithAPIKey(o.APIKey),
		option.WithMaxRetries(max(retries, 0))}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	return &Provider{client: sdk.NewClient(opts...)}
}

// Models lists the models the key may use (GET /v1/models), sorted.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	iter := p.client.Models.ListAutoPaging(ctx, sdk.ModelListParams{})
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

// Stream sends one streamed Messages request and reads text and tool_use
// blocks from the same stream.
func (p *Provider) Stream(ctx context.Context, req chat.Request, onDelta func(chat.Delta)) (chat.Reply, error) {
	params, err := Params(req)
	if err != nil {
		return chat.Reply{}, err
	}
	stream := p.client.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	var msg sdk.Message
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return chat.Reply{}, fmt.Errorf("anthropic: %w", err)
		}
		if onDelta == nil {
			continue
		}
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				onDelta(chat.Delta{ToolCall: &chat.ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}})
			}
		case "content_block_delta":
			if ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
				onDelta(chat.Delta{Text: ev.Delta.Text})
			}
		}
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return chat.Reply{}, ctx.Err()
		}
		return chat.Reply{}, describe(err)
	}
	reply := chat.Reply{Usage: chat.Usage{Input: msg.Usage.InputTokens, Output: msg.Usage.OutputTokens},
		Stop: string(msg.StopReason)}
	var text strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			args := b.Input
			if len(args) == 0 || !json.Valid(args) {
				args = json.RawMessage(`{}`)
			}
			reply.ToolCalls = append(reply.ToolCalls, chat.ToolCall{ID: b.ID, Name: b.Name, Args: args})
		}
	}
	reply.Text = text.String()
	return reply, nil
}

// Params converts a provider-neutral request to the SDK's parameters.
// Tool results and a user text that follows them (the loop limit's note)
// share one user message, as the API wants turns to alternate.
func Params(req chat.Request) (sdk.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	params := sdk.MessageNewParams{Model: sdk.Model(req.Model), MaxTokens: maxTokens}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	// add appends blocks to the last message when it has the same role.
	add := func(user bool, blocks ...sdk.ContentBlockParamUnion) {
		if n := len(params.Messages); n > 0 {
			last := &params.Messages[n-1]
			if user && last.OfUser != nil {
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
				return
			}
			if !user && last.OfAssistant != nil {
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
				return
			}
		}
		if user {
			params.Messages = append(params.Messages, sdk.NewUserMessage(blocks...))
		} else {
			params.Messages = append(params.Messages, sdk.NewAssistantMessage(blocks...))
		}
	}
	for _, m := range req.Messages {
		switch m.Role {
		case chat.RoleUser:
			add(true, sdk.NewTextBlock(m.Text))
		case chat.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if m.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(m.Text))
			}
			for _, c := range m.ToolCalls {
				args := c.Args
				if len(strings.TrimSpace(string(args))) == 0 {
					args = json.RawMessage(`{}`)
				}
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, args, c.Name))
			}
			if len(blocks) == 0 {
				blocks = append(blocks, sdk.NewTextBlock(""))
			}
			add(false, blocks...)
		case chat.RoleTool:
			blocks := make([]sdk.ContentBlockParamUnion, 0, len(m.Results))
			for _, r := range m.Results {
				blocks = append(blocks, sdk.NewToolResultBlock(r.CallID, r.Content, r.IsError))
			}
			add(true, blocks...)
		default:
			return params, fmt.Errorf("anthropic: unknown message role %q", m.Role)
		}
	}
	for _, t := range req.Tools {
		tp := sdk.ToolParam{Name: t.Name, InputSchema: inputSchema(t.Schema)}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tp})
	}
	if len(req.Tools) > 0 && req.ToolChoice == chat.ToolChoiceNone {
		params.ToolChoice = sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
	}
	return params, nil
}

// inputSchema carries an MCP tool's JSON Schema over whole: properties and
// required in their fields, every other keyword as an extra field.
func inputSchema(raw json.RawMessage) sdk.ToolInputSchemaParam {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		m = map[string]any{}
	}
	s := sdk.ToolInputSchemaParam{Properties: m["properties"]}
	if s.Properties == nil {
		s.Properties = map[string]any{}
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	extra := map[string]any{}
	for k, v := range m {
		switch k {
		case "type", "properties", "required":
		default:
			extra[k] = v
		}
	}
	if len(extra) > 0 {
		s.ExtraFields = extra
	}
	return s
}

// describe turns the SDK's error into one line; a refusal of tools by an
// Anthropic-compatible server is marked with chat.ErrToolsUnsupported.
func describe(err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("anthropic: %w", err)
	}
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(apiErr.RawJSON()), &body)
	msg := body.Error.Message
	if msg == "" {
		msg = http.StatusText(apiErr.StatusCode)
	}
	if apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 && refusesTools(msg) {
		return fmt.Errorf("anthropic: %d %s: %w", apiErr.StatusCode, msg, chat.ErrToolsUnsupported)
	}
	return fmt.Errorf("anthropic: %d %s", apiErr.StatusCode, msg)
}

func refusesTools(msg string) bool {
	m := strings.ToLower(msg)
	if !strings.Contains(m, "tool") {
		return false
	}
	for _, s := range []string{"does not support", "not support", "unsupported", "not enabled"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
