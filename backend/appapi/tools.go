package appapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/core"
)

// UIClient is the client name the request log and hooks see for calls made
// from the UI (CallTool).
const UIClient = "ui"

// AggregatedTool is one tool as clients of the router see it.
type AggregatedTool struct {
	Name        string `json:"name"` // final, aggregated name
	Server      string `json:"server"`
	Tool        string `json:"tool"` // the upstream's own name
	Description string `json:"description"`
	InputSchema any    `json:"inputSchema"` // JSON Schema object, as the upstream sent it
}

// ToolCallResult is what a tool call from the UI returned.
// Content and StructuredContent hold the JSON exactly as the gateway sent
// it (json.RawMessage values; typed any so the generated TypeScript says
// any rather than number[]).
type ToolCallResult struct {
	Content           []any   `json:"content"` // MCP content blocks as sent
	IsError           bool    `json:"isError"`
	StructuredContent any     `json:"structuredContent,omitempty"`
	DurationMs        float64 `json:"durationMs"`
	Error             string  `json:"error,omitempty"` // protocol error message
}

// ListTools returns the aggregated tool list, sorted by final name: the
// list a client with access to every server gets.
func (a *API) ListTools() ([]AggregatedTool, error) {
	published := a.core.Gateway.Server().ListTools()
	out := make([]AggregatedTool, 0, len(published))
	for name, st := range published {
		if a.core.Gateway.UnlistedAbility(name) || a.core.Gateway.ProfileOnly(name) {
			continue // not a tool any client of plain /mcp is offered
		}
		server, tool, _ := a.core.Gateway.ToolRoute(name)
		raw, err := json.Marshal(st.Tool)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", name, err)
		}
		var parts struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		_ = json.Unmarshal(raw, &parts)
		if len(parts.InputSchema) == 0 {
			parts.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, AggregatedTool{Name: name, Server: server, Tool: tool,
			Description: st.Tool.Description, InputSchema: parts.InputSchema})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CallTool calls a tool by its final name with arguments given as a JSON
// object (empty means {}), through the gateway exactly as a client's call
// goes: hooks run and the request log records it with client "ui".
func (a *API) CallTool(name, argumentsJSON string) (ToolCallResult, error) {
	if strings.TrimSpace(name) == "" {
		return ToolCallResult{}, fmt.Errorf("which tool? the name is empty")
	}
	args := map[string]any{}
	if strings.TrimSpace(argumentsJSON) != "" {
		if err := json.Unmarshal([]byte(argumentsJSON), &args); err != nil {
			return ToolCallResult{}, fmt.Errorf("the arguments must be a JSON object: %v", err)
		}
		if args == nil {
			args = map[string]any{}
		}
	}
	tr, err := a.inproc.ensure(a)
	if err != nil {
		return ToolCallResult{}, err
	}
	start := time.Now()
	resp, err := tr.SendRequest(uiContext(context.Background()), transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(fmt.Sprintf("ui-%d", a.inproc.nextID.Add(1))),
		Method:  string(mcp.MethodToolsCall),
		Params:  map[string]any{"name": name, "arguments": args},
	})
	res := ToolCallResult{Content: []any{}}
	res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		return ToolCallResult{}, fmt.Errorf("call %s: %w", name, err)
	}
	if resp.Error != nil {
		res.Error = resp.Error.Message
		return res, nil
	}
	var body struct {
		Content           []json.RawMessage `json:"content"`
		IsError           bool              `json:"isError"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}
	if err := json.Unmarshal(resp.Result, &body); err != nil {
		return ToolCallResult{}, fmt.Errorf("call %s: the result is not a tool result: %v", name, err)
	}
	for _, c := range body.Content {
		res.Content = append(res.Content, c)
	}
	res.IsError = body.IsError
	if len(body.StructuredContent) > 0 && string(body.StructuredContent) != "null" {
		res.StructuredContent = body.StructuredContent
	}
	return res, nil
}

// uiContext marks a request as the UI's: the gateway names its caller
// after the identity, so the request log and hooks see client "ui".
func uiContext(ctx context.Context) context.Context {
	return auth.WithIdentity(ctx, auth.Identity{TokenName: UIClient})
}

// inprocClient is the UI's own MCP session with the gateway, initialized
// once: tool calls go through it, and it hears tools/list_changed.
type inprocClient struct {
	mu      sync.Mutex
	tr      *transport.InProcessTransport
	cl      *client.Client
	onTools atomic.Pointer[func()] // not under mu: a notification may arrive while ensure holds it
	nextID  atomic.Int64
}

func (p *inprocClient) start(a *API, onTools func()) error {
	p.onToolsChanged(onTools)
	_, err := p.ensure(a)
	return err
}

func (p *inprocClient) onToolsChanged(fn func()) {
	if fn == nil {
		p.onTools.Store(nil)
		return
	}
	p.onTools.Store(&fn)
}

func (p *inprocClient) ensure(a *API) (*transport.InProcessTransport, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tr != nil {
		return p.tr, nil
	}
	tr := transport.NewInProcessTransport(a.core.Gateway.Server())
	cl := client.NewClient(tr)
	cl.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != string(mcp.MethodNotificationToolsListChanged) {
			return
		}
		if fn := p.onTools.Load(); fn != nil {
			(*fn)()
		}
	})
	ctx, cancel := context.WithTimeout(uiContext(context.Background()), 10*time.Second)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		return nil, fmt.Errorf("connect to the router: %w", err)
	}
	_, err := cl.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, // as upstream conns: no server/discover probe
		ClientInfo:      mcp.Implementation{Name: "mcp-router-ui", Version: core.Version},
	}})
	if err != nil {
		_ = cl.Close()
		return nil, fmt.Errorf("connect to the router: %w", err)
	}
	p.tr, p.cl = tr, cl
	return tr, nil
}

func (p *inprocClient) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cl != nil {
		_ = p.cl.Close()
	}
	p.tr, p.cl = nil, nil
	p.onTools.Store(nil)
}
