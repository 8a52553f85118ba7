package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// CallerName is the identity of the chat's tool calls in the pipeline: what
// hooks, policies and the request log see as the client.
const CallerName = "chat"

// Defaults of the loop's limits (seed 003's safety valves).
const (
	DefaultMaxRounds   = 20
	DefaultToolTimeout = 60 * time.Second
	// MaxResultBytes bounds what one tool result sends back to the model.
	MaxResultBytes = 64 << 10
)

// Router is what the loop needs of the router: the tools a caller sees and
// calls, through the forwarding pipeline (the gateway's in-process front
// end), and which server a tool name belongs to.
type Router interface {
	ListTools(ctx context.Context) ([]mcp.Tool, error)
	CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error)
	ToolRoute(name string) (server, tool string, ok bool)
}

// Limits are the loop's safety valves.
type Limits struct {
	MaxRounds   int           // tool rounds before a text answer is forced; default 20
	ToolTimeout time.Duration // one tool call; default 60 s
}

func (l Limits) withDefaults() Limits {
	if l.MaxRounds <= 0 {
		l.MaxRounds = DefaultMaxRounds
	}
	if l.ToolTimeout <= 0 {
		l.ToolTimeout = DefaultToolTimeout
	}
	return l
}

// Decision is the user's answer to a tool call that waits for approval.
type Decision string

const (
	AllowOnce   Decision = "once"   // run this call
	AllowAlways Decision = "always" // run it, and the tool's later calls in this conversation
	Deny        Decision = "deny"   // do not run it: the model gets a tool error
)

// Card statuses.
const (
	CardApproval = "approval" // waiting for the user
	CardRunning  = "running"
	CardDone     = "done"
	CardError    = "error"  // the tool failed, timed out or was refused
	CardDenied   = "denied" // the user said no
)

// Card is one tool call as the panel shows it.
type Card struct {
	ID          string  `json:"id"`
	Server      string  `json:"server"`
	Tool        string  `json:"tool"` // the server's own name of the tool
	Name        string  `json:"name"` // the router's name
	Args        string  `json:"args"` // JSON
	Status      string  `json:"status"`
	Result      string  `json:"result,omitempty"`
	IsError     bool    `json:"isError"`
	AutoContext bool    `json:"autoContext,omitempty"`
	StartedAt   int64   `json:"startedAt"` // ms since the epoch
	DurationMs  float64 `json:"durationMs"`
}

// Event types a turn emits as it goes.
const (
	EventText   = "text"   // Text: a piece of the answer
	EventCard   = "card"   // Card: a tool call started, waits, or ended
	EventNotice = "notice" // Notice: tools off, the loop limit, a tool list failure
	EventUsage  = "usage"  // Usage: the turn's tokens so far
	EventRound  = "round"  // a new model call starts (the text before it was a preamble to tool calls)
)

// Notice codes, for the UI to translate.
const (
	NoticeToolsOff      = "tools_off"      // the model or server does not take tools; this turn has none
	NoticeToolsDisabled = "tools_disabled" // MCP_ENABLED=false or the chatTools setting is off
	NoticeLoopLimit     = "loop_limit"     // the tool round limit was reached; the model was told to answer
	NoticeNoTools       = "no_tools"       // the router's tool list failed; the turn goes on without tools
	NoticeProviderEnv   = "provider_env"   // no provider is configured: the key came from the environment
)

// Notice is something the panel should say about the turn.
type Notice struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// Event is what Turn.Emit receives.
type Event struct {
	Type   string  `json:"type"`
	Text   string  `json:"text,omitempty"`
	Card   *Card   `json:"card,omitempty"`
	Notice *Notice `json:"notice,omitempty"`
	Usage  *Usage  `json:"usage,omitempty"`
}

// Turn is one user message and everything needed to answer it.
type Turn struct {
	Provider Provider
	Model    string
	History  []Message // earlier user and assistant texts
	Input    string    // the user's message
	// Tools offers the router's tools; false sends plain requests and says
	// so with NoTools (default: NoticeToolsDisabled).
	Tools   bool
	NoTools *Notice
	// ServerOff reports the servers whose tools are off in this conversation.
	ServerOff func(server string) bool
	// Approve is asked before a call that waits for approval; nil allows.
	Approve Approver
	// Approved reports a tool the user already allowed "always" in this
	// conversation: its calls run without asking.
	Approved func(name string) bool
	// Notices are said at the start of the turn (which provider it uses,
	// when that came from the environment).
	Notices []Notice
	// Emit receives the turn's events; nil drops them.
	Emit      func(Event)
	MaxTokens int64
}

// Approver registers c as waiting for the user's decision and returns the
// wait for it. The loop emits the approval card between the two, so a
// client that answers as soon as it sees the card finds the call waiting.
type Approver func(c Card) (wait func(ctx context.Context) (Decision, error))

// Outcome is the result of a turn.
type Outcome struct {
	Text      string   `json:"text"`
	Usage     Usage    `json:"usage"`
	ToolCalls int      `json:"toolCalls"`
	Cards     []Card   `json:"cards"`
	Notices   []Notice `json:"notices"`
	Rounds    int      `json:"rounds"`
}

// Engine runs turns against the router.
type Engine struct {
	router  Router
	servers func(ctx context.Context) map[string]spec.Chat
	limits  func() Limits
	now     func() time.Time
}

// EngineOptions configure NewEngine.
type EngineOptions struct {
	// Servers returns each server's chat settings (instructions, approvals).
	Servers func(ctx context.Context) map[string]spec.Chat
	// Limits returns the limits in force; nil: the defaults.
	Limits func() Limits
}

// NewEngine returns an engine whose tool calls go through r.
func NewEngine(r Router, o EngineOptions) *Engine {
	if o.Servers == nil {
		o.Servers = func(context.Context) map[string]spec.Chat { return nil }
	}
	if o.Limits == nil {
		o.Limits = func() Limits { return Limits{} }
	}
	return &Engine{router: r, servers: o.Servers, limits: o.Limits, now: time.Now}
}

// offered is a tool the turn offers, with where it goes.
type offered struct {
	mcp    mcp.Tool
	server string
	tool   string
}

// run is one turn in progress.
type run struct {
	e       *Engine
	t       Turn
	limits  Limits
	chat    map[string]spec.Chat
	tools   map[string]offered // router name → tool
	names   *Names
	wire    []Tool
	out     Outcome
	prompt  prompt
	callSeq int
}

// prompt is the system prompt, built in seed 003's order: (1) every
// offered server's system_instruction; (2) each auto-context result with
// its server's response_instruction; (3) the response_instruction of a
// server whose tool ran in the loop, once.
type prompt struct {
	system    []string
	context   []string
	responses []string
	responded map[string]bool
}

func (p *prompt) String() string {
	var parts []string
	for _, group := range [][]string{p.system, p.context, p.responses} {
		for _, s := range group {
			if s != "" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// respond adds server's response instruction unless it was added before.
func (p *prompt) respond(server, instruction string, to *[]string) {
	if instruction == "" || p.responded[server] {
		return
	}
	p.responded[server] = true
	*to = append(*to, instruction)
}

// Run answers one user message: the history and the tools go to the model,
// every tool call it makes runs through the router, and the results go back
// until it answers in text or the round limit forces it to. Cancelling ctx
// stops the model request and the running tool; Run then returns ctx's
// error with the outcome so far.
func (e *Engine) Run(ctx context.Context, t Turn) (Outcome, error) {
	r := &run{e: e, t: t, limits: e.limits().withDefaults(), prompt: prompt{responded: map[string]bool{}}}
	if r.t.Emit == nil {
		r.t.Emit = func(Event) {}
	}
	if r.t.ServerOff == nil {
		r.t.ServerOff = func(string) bool { return false }
	}
	ctx = pipeline.WithCaller(ctx, pipeline.Caller{Name: CallerName})
	r.out.Cards = []Card{}
	r.out.Notices = []Notice{}
	for _, n := range t.Notices {
		r.notice(n.Code, n.Text)
	}
	if t.Tools {
		r.loadTools(ctx)
	} else if t.NoTools != nil {
		r.notice(t.NoTools.Code, t.NoTools.Text)
	} else {
		r.notice(NoticeToolsDisabled, "MCP tools are off for the chat (MCP_ENABLED=false or the chatTools setting)")
	}
	if err := ctx.Err(); err != nil {
		return r.out, err
	}
	r.autoContext(ctx)
	if err := ctx.Err(); err != nil {
		return r.out, err
	}
	msgs := append(append([]Message(nil), t.History...), Message{Role: RoleUser, Text: t.Input})
	for round := 0; ; round++ {
		forced := round >= r.limits.MaxRounds
		if forced {
			note := fmt.Sprintf("The limit of %d tool rounds for one answer was reached. Do not call any more tools: "+
				"answer the user now in text, from the results you have, and say that the tool limit was reached.", r.limits.MaxRounds)
			msgs = append(msgs, Message{Role: RoleUser, Text: note})
			r.notice(NoticeLoopLimit, fmt.Sprintf("the limit of %d tool rounds was reached; the model was asked to answer in text", r.limits.MaxRounds))
		}
		reply, err := r.call(ctx, msgs, forced)
		if err != nil {
			return r.out, err
		}
		r.out.Rounds++
		calls := reply.ToolCalls
		if forced || len(r.wire) == 0 {
			calls = nil // none offered, or told not to: a server that ignores tool_choice gets no more rounds
		}
		if len(calls) == 0 {
			r.out.Text = reply.Text
			return r.out, nil
		}
		msgs = append(msgs, Message{Role: RoleAssistant, Text: reply.Text, ToolCalls: calls})
		results := make([]ToolResult, 0, len(calls))
		for _, c := range calls {
			res, err := r.runTool(ctx, c)
			if err != nil {
				return r.out, err
			}
			results = append(results, res)
		}
		msgs = append(msgs, Message{Role: RoleTool, Results: results})
		r.t.Emit(Event{Type: EventRound})
	}
}

// call makes one model request, streaming its text to the panel; a model
// that refuses tools gets the request again without them.
func (r *run) call(ctx context.Context, msgs []Message, forced bool) (Reply, error) {
	req := Request{Model: r.t.Model, System: r.prompt.String(), MaxTokens: r.t.MaxTokens}
	if len(r.wire) > 0 {
		req.Tools = r.wire
		if forced {
			req.ToolChoice = ToolChoiceNone
		}
	}
	req.Messages = r.toWire(msgs)
	var streamed strings.Builder
	onDelta := func(d Delta) {
		if d.Text != "" {
			streamed.WriteString(d.Text)
			r.t.Emit(Event{Type: EventText, Text: d.Text})
		}
	}
	reply, err := r.t.Provider.Stream(ctx, req, onDelta)
	if err != nil && errors.Is(err, ErrToolsUnsupported) && req.Tools != nil && !hasToolSteps(msgs) {
		r.notice(NoticeToolsOff, fmt.Sprintf("the model %q does not take tools; answering without them (%v)", r.t.Model, err))
		r.wire, r.tools = nil, map[string]offered{}
		req.Tools, req.ToolChoice = nil, ToolChoiceAuto
		reply, err = r.t.Provider.Stream(ctx, req, onDelta)
	}
	if err != nil {
		// What was streamed of this answer before it broke off is kept.
		r.out.Text = streamed.String()
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Reply{}, ctxErr
		}
		return Reply{}, err
	}
	r.out.Usage = r.out.Usage.Add(reply.Usage)
	u := r.out.Usage
	r.t.Emit(Event{Type: EventUsage, Usage: &u})
	for i, c := range reply.ToolCalls {
		if name, ok := r.names.Router(c.Name); ok {
			reply.ToolCalls[i].Name = name
		} else {
			reply.ToolCalls[i].Name = unknownPrefix + c.Name // never offered: answered with an error
		}
	}
	return reply, nil
}

const unknownPrefix = "\x00unknown:"

func hasToolSteps(msgs []Message) bool {
	for _, m := range msgs {
		if len(m.ToolCalls) > 0 || len(m.Results) > 0 {
			return true
		}
	}
	return false
}

// toWire renames the tools in the history to the names the provider saw.
func (r *run) toWire(msgs []Message) []Message {
	if r.names == nil {
		return msgs
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		if len(m.ToolCalls) > 0 {
			calls := make([]ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Name = r.wireName(c.Name)
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		if len(m.Results) > 0 {
			res := make([]ToolResult, len(m.Results))
			for j, x := range m.Results {
				x.Name = r.wireName(x.Name)
				res[j] = x
			}
			m.Results = res
		}
		out[i] = m
	}
	return out
}

func (r *run) wireName(name string) string {
	if strings.HasPrefix(name, unknownPrefix) {
		return strings.TrimPrefix(name, unknownPrefix)
	}
	return r.names.Wire(name)
}

func (r *run) notice(code, text string) {
	n := Notice{Code: code, Text: text}
	r.out.Notices = append(r.out.Notices, n)
	r.t.Emit(Event{Type: EventNotice, Notice: &n})
}

// loadTools lists the tools the chat may use (the pipeline narrows the
// list for the caller "chat"), less the servers switched off for the
// conversation, and the servers' system instructions.
func (r *run) loadTools(ctx context.Context) {
	r.tools = map[string]offered{}
	r.chat = r.e.servers(ctx)
	list, err := r.e.router.ListTools(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.notice(NoticeNoTools, "the router's tool list failed: "+err.Error())
		}
		return
	}
	var names []string
	servers := map[string]bool{}
	for _, tl := range list {
		server, tool, _ := r.e.router.ToolRoute(tl.Name)
		if server == "" || r.t.ServerOff(server) {
			continue
		}
		r.tools[tl.Name] = offered{mcp: tl, server: server, tool: tool}
		names = append(names, tl.Name)
		servers[server] = true
	}
	sort.Strings(names)
	r.names = NewNames(names)
	for _, name := range names {
		o := r.tools[name]
		r.wire = append(r.wire, Tool{Name: r.names.Wire(name), Description: o.mcp.Description, Schema: inputSchema(o.mcp)})
	}
	for _, s := range sortedKeys(servers) {
		r.prompt.system = append(r.prompt.system, r.chat[s].SystemInstruction)
	}
}

// autoContext calls each offered server's auto_context_tool with the user's
// message and puts the result, with that server's response_instruction,
// into the system prompt before the first model call.
func (r *run) autoContext(ctx context.Context) {
	servers := map[string]bool{}
	for _, o := range r.tools {
		servers[o.server] = true
	}
	for _, s := range sortedKeys(servers) {
		tool := r.chat[s].AutoContextTool
		if tool == "" {
			continue
		}
		name, ok := r.find(s, tool)
		if !ok {
			continue // not offered (disabled, or the server's tools are off)
		}
		args, _ := json.Marshal(map[string]string{queryParam(r.tools[name].mcp): r.t.Input})
		card := r.newCard(ToolCall{Name: name, Args: args})
		card.AutoContext = true
		res := r.execute(ctx, &card, args)
		if ctx.Err() != nil || res.IsError {
			continue
		}
		r.prompt.context = append(r.prompt.context,
			fmt.Sprintf("Context from the %s server (%s) for the user's message:\n%s", s, tool, res.Content))
		r.prompt.respond(s, r.chat[s].ResponseInstruction, &r.prompt.context)
	}
}

// find is the router's name of server's tool among the offered ones.
func (r *run) find(server, tool string) (string, bool) {
	for name, o := range r.tools {
		if o.server == server && o.tool == tool {
			return name, true
		}
	}
	return "", false
}

func (r *run) newCard(c ToolCall) Card {
	r.callSeq++
	id := c.ID
	if id == "" {
		id = fmt.Sprintf("auto-%d", r.callSeq)
	}
	args := string(c.Args)
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	card := Card{ID: id, Name: c.Name, Args: args, StartedAt: r.e.now().UnixMilli()}
	if o, ok := r.tools[c.Name]; ok {
		card.Server, card.Tool = o.server, o.tool
	}
	return card
}

// runTool answers one of the model's tool calls: approval when the server
// or tool asks for it, then the call through the router with the per-tool
// timeout. Only a cancelled turn is an error; everything else is a result
// the model sees.
func (r *run) runTool(ctx context.Context, c ToolCall) (ToolResult, error) {
	if strings.HasPrefix(c.Name, unknownPrefix) {
		name := strings.TrimPrefix(c.Name, unknownPrefix)
		card := r.newCard(ToolCall{ID: c.ID, Name: name, Args: c.Args})
		r.finish(&card, fmt.Sprintf("unknown tool %q: it is not among the tools offered", name), true, CardError)
		return ToolResult{CallID: c.ID, Name: c.Name, Content: card.Result, IsError: true}, nil
	}
	card := r.newCard(c)
	args := c.Args
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage(`{}`)
	}
	if !json.Valid(args) || !isObject(args) {
		r.finish(&card, "the arguments are not a JSON object: "+truncate(string(args), 200), true, CardError)
		return ToolResult{CallID: c.ID, Name: c.Name, Content: card.Result, IsError: true}, nil
	}
	if r.needsApproval(card) && r.t.Approve != nil && (r.t.Approved == nil || !r.t.Approved(card.Name)) {
		card.Status = CardApproval
		wait := r.t.Approve(card)
		r.emitCard(card)
		d, err := wait(ctx)
		if err != nil {
			if ctx.Err() != nil {
				r.finish(&card, "stopped", true, CardError)
				return ToolResult{}, ctx.Err()
			}
			d = Deny
		}
		if d != AllowOnce && d != AllowAlways {
			r.finish(&card, fmt.Sprintf("The user denied this call of %s; it did not run.", c.Name), true, CardDenied)
			r.out.ToolCalls++
			return ToolResult{CallID: c.ID, Name: c.Name, Content: card.Result, IsError: true}, nil
		}
	}
	res := r.execute(ctx, &card, args)
	if err := ctx.Err(); err != nil {
		return ToolResult{}, err
	}
	r.prompt.respond(card.Server, r.chat[card.Server].ResponseInstruction, &r.prompt.responses)
	return ToolResult{CallID: c.ID, Name: c.Name, Content: res.Content, IsError: res.IsError}, nil
}

// needsApproval: the server's chat settings ask for it, for all its tools
// or for this one. (Tool annotations cannot decide it: MCP's
// destructiveHint defaults to true, and SDKs such as mcp-go send it on
// every tool.)
func (r *run) needsApproval(c Card) bool {
	return r.chat[c.Server].NeedsApproval(c.Tool)
}

// execute calls the tool through the router and fills the card.
func (r *run) execute(ctx context.Context, card *Card, args json.RawMessage) ToolResult {
	card.Status = CardRunning
	card.StartedAt = r.e.now().UnixMilli()
	r.emitCard(*card)
	r.out.ToolCalls++
	start := time.Now()
	tctx, cancel := context.WithTimeout(ctx, r.limits.ToolTimeout)
	res, err := r.e.router.CallTool(tctx, card.Name, args)
	timedOut := tctx.Err() == context.DeadlineExceeded && ctx.Err() == nil
	cancel()
	card.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	var text string
	var isErr bool
	switch {
	case ctx.Err() != nil:
		text, isErr = "stopped", true
	case timedOut:
		text, isErr = fmt.Sprintf("The tool %s timed out after %s and was cancelled.", card.Name, r.limits.ToolTimeout), true
	case err != nil:
		text, isErr = "The tool call failed: "+err.Error(), true
	default:
		text, isErr = ResultText(res), res.IsError
	}
	status := CardDone
	if isErr {
		status = CardError
	}
	r.finish(card, text, isErr, status)
	return ToolResult{CallID: card.ID, Name: card.Name, Content: text, IsError: isErr}
}

func (r *run) finish(card *Card, text string, isErr bool, status string) {
	card.Result, card.IsError, card.Status = truncate(text, MaxResultBytes), isErr, status
	r.out.Cards = append(r.out.Cards, *card)
	r.emitCard(*card)
}

func (r *run) emitCard(c Card) { r.t.Emit(Event{Type: EventCard, Card: &c}) }

// ResultText is what the model reads of a tool result: its text content,
// other content described or as JSON, the structured content when there is
// nothing else.
func ResultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var parts []string
	for _, c := range res.Content {
		switch v := c.(type) {
		case mcp.TextContent:
			parts = append(parts, v.Text)
		case *mcp.TextContent:
			parts = append(parts, v.Text)
		case mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image, %s, %d bytes base64]", v.MIMEType, len(v.Data)))
		case mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio, %s, %d bytes base64]", v.MIMEType, len(v.Data)))
		case mcp.EmbeddedResource:
			if t, ok := v.Resource.(mcp.TextResourceContents); ok {
				parts = append(parts, t.Text)
				continue
			}
			b, _ := json.Marshal(v)
			parts = append(parts, string(b))
		default:
			b, _ := json.Marshal(v)
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, "\n")
}

// inputSchema is a tool's argument schema as JSON, an empty object schema
// when it has none.
func inputSchema(t mcp.Tool) json.RawMessage {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil || string(b) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return b
}

// queryParam is the argument that carries the user's message to an
// auto-context tool: its first required string property, else its first
// string property, else "query".
func queryParam(t mcp.Tool) string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(inputSchema(t), &s)
	isString := func(name string) bool {
		p, ok := s.Properties[name]
		return ok && (p.Type == "string" || p.Type == nil)
	}
	for _, name := range s.Required {
		if isString(name) {
			return name
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		if isString(name) {
			return name
		}
	}
	return "query"
}

func isObject(b json.RawMessage) bool {
	s := strings.TrimSpace(string(b))
	return strings.HasPrefix(s, "{")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… %d more bytes cut]", len(s)-cut)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
