// Package looptest runs the chat's tool loop end to end: a real router
// (core.Open: store, gateway, pipeline, hooks, request log) with real
// upstream subprocesses (this test binary as an MCP server), and a model
// server that speaks each provider's wire format, scripted per test. The
// tests assert what the model server received, byte for byte where it
// matters, and what the upstream saw.
package looptest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/chat/anthropic"
	"github.com/mcp-router/mcp-router/backend/chat/chattest"
	"github.com/mcp-router/mcp-router/backend/chat/openai"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func TestMain(m *testing.M) {
	if os.Getenv("MCPR_CHAT_FAKE") != "" {
		fakeServer()
		return
	}
	os.Exit(m.Run())
}

// fakeServer is an upstream MCP server on stdio; it appends what it sees
// to $MCPR_CHAT_LOG ("call <tool> <args>", "cancelled <tool>").
func fakeServer() {
	logf := func(line string) {
		f, err := os.OpenFile(os.Getenv("MCPR_CHAT_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			f.WriteString(line + "\n")
			f.Close()
		}
	}
	s := server.NewMCPServer("fake", "1")
	record := func(name string, h server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(req.GetArguments())
			logf("call " + name + " " + string(b))
			return h(ctx, req)
		}
	}
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("echoes text"), mcp.WithString("text")),
		record("echo", func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
		}))
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("always fails")),
		record("fail", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("it broke"), nil
		}))
	s.AddTool(mcp.NewTool("slow", mcp.WithDescription("takes ms milliseconds"), mcp.WithNumber("ms")),
		record("slow", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(time.Duration(req.GetFloat("ms", 0)) * time.Millisecond):
				return mcp.NewToolResultText("slept"), nil
			case <-ctx.Done():
				logf("cancelled slow")
				return nil, ctx.Err()
			}
		}))
	s.AddTool(mcp.NewTool("search", mcp.WithDescription("searches notes"), mcp.WithString("query", mcp.Required())),
		record("search", func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("found: " + req.GetString("query", "")), nil
		}))
	s.AddTool(mcp.NewTool("danger", mcp.WithDescription("deletes things"), mcp.WithDestructiveHintAnnotation(true)),
		record("danger", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("deleted"), nil
		}))
	_ = server.ServeStdio(s)
}

type rig struct {
	c     *core.Core
	model *chattest.Server
	log   string // what the upstreams saw
}

type rigOptions struct {
	kind     string // openai (default) or anthropic
	servers  []spec.Server
	settings map[string]string
	skipWait []string // servers not expected to come up
	// noProvider configures none: the chat takes the key from the
	// environment (the test sets it).
	noProvider bool
}

func fake(name string, ch spec.Chat) spec.Server {
	return spec.Server{Name: name, Command: os.Args[0], Enabled: true, Env: map[string]string{"MCPR_CHAT_FAKE": "1"}, Chat: ch}
}

func newRig(t *testing.T, o rigOptions, steps ...chattest.Step) *rig {
	t.Helper()
	t.Setenv(chat.EnvKeyStore, chat.KeysInFile)
	dir := t.TempDir()
	r := &rig{log: filepath.Join(dir, "upstream.log")}
	if o.kind == "anthropic" {
		r.model = chattest.Anthropic(t, steps...)
	} else {
		r.model = chattest.OpenAI(t, steps...)
	}
	c, err := core.Open(dir, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.c = c
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	for _, s := range o.servers {
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env["MCPR_CHAT_LOG"] = r.log
		if _, err := c.Store.Servers().Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range o.settings {
		if err := c.Settings.Set(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	in := chat.ProviderInput{Name: "test", Kind: "openai", BaseURL: r.model.URL + "/v1", DefaultModel: "m1"}
	if o.kind == "anthropic" {
		in.Kind, in.BaseURL = "anthropic", r.model.URL
	}
	if !o.noProvider {
		if _, err := c.Chat.SaveProvider(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Run(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c.WaitStarted(wctx)
	c.Gateway.Rebuild()
	for _, s := range o.servers {
		if slices.Contains(o.skipWait, s.Name) {
			continue
		}
		name := s.Name + "__echo"
		testpeers.Eventually(t, 30*time.Second, s.Name+"'s tools", func() bool {
			_, _, ok := c.Gateway.ToolRoute(name)
			return ok
		})
	}
	return r
}

func (r *rig) ask(t *testing.T, q string) (chat.Outcome, []chat.Event) {
	t.Helper()
	var mu sync.Mutex
	var evs []chat.Event
	out, err := r.c.Chat.Ask(context.Background(), "", "", q, func(e chat.Event) {
		mu.Lock()
		evs = append(evs, e)
		mu.Unlock()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out, evs
}

func (r *rig) upstreamSaw(t *testing.T) []string {
	t.Helper()
	b, _ := os.ReadFile(r.log)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// messages returns the messages of the i-th request as compact JSON.
func (r *rig) messages(t *testing.T, i int) string {
	t.Helper()
	b, _ := json.Marshal(r.model.Request(i)["messages"])
	return string(b)
}

func call(id, name, args string) chattest.Call {
	return chattest.Call{ID: id, Name: name, Args: []string{args}}
}

func TestSeveralToolCallsInOneTurn(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{})}},
		chattest.Step{Text: []string{"Let me check."}, Calls: []chattest.Call{call("c1", "a__echo", `{"text":"one"}`), call("c2", "a__echo", `{"text":"two"}`)}, InputTokens: 10, OutputTokens: 4},
		chattest.Step{Text: []string{"Both ", "echoed."}, InputTokens: 30, OutputTokens: 3})
	out, evs := r.ask(t, "echo one and two")
	if out.Text != "Both echoed." || out.ToolCalls != 2 || out.Usage != (chat.Usage{Input: 40, Output: 7}) || out.Rounds != 2 {
		t.Fatalf("outcome %+v", out)
	}
	if len(out.Cards) != 2 || out.Cards[0].Result != "echo: one" || out.Cards[1].Result != "echo: two" ||
		out.Cards[0].Server != "a" || out.Cards[0].Tool != "echo" || out.Cards[0].Status != chat.CardDone {
		t.Fatalf("cards %+v", out.Cards)
	}
	want := `[{"content":"echo one and two","role":"user"},` +
		`{"content":"Let me check.","role":"assistant","tool_calls":[{"function":{"arguments":"{\"text\":\"one\"}","name":"a__echo"},"id":"c1","type":"function"},{"function":{"arguments":"{\"text\":\"two\"}","name":"a__echo"},"id":"c2","type":"function"}]},` +
		`{"content":"echo: one","role":"tool","tool_call_id":"c1"},{"content":"echo: two","role":"tool","tool_call_id":"c2"}]`
	if got := r.messages(t, 1); got != want {
		t.Fatalf("second request's messages\n got %s\nwant %s", got, want)
	}
	tools, _ := json.Marshal(r.model.Request(0)["tools"])
	for _, name := range []string{"a__echo", "a__fail", "a__slow", "a__search", "a__danger"} {
		if !strings.Contains(string(tools), `"name":"`+name+`"`) {
			t.Errorf("tool %s not offered: %s", name, tools)
		}
	}
	// Text streamed in one pass: the deltas arrived as events.
	var text []string
	for _, e := range evs {
		if e.Type == chat.EventText {
			text = append(text, e.Text)
		}
	}
	if strings.Join(text, "|") != "Let me check.|Both |echoed." {
		t.Fatalf("streamed text %q", text)
	}
	// The calls went through the pipeline as client "chat".
	testpeers.Eventually(t, 10*time.Second, "request log entries of chat", func() bool {
		_ = r.c.Requests.Flush(context.Background())
		rows, err := r.c.Store.Logs().List(context.Background(), store.LogFilter{Client: chat.CallerName, Method: "tools/call"})
		return err == nil && len(rows) == 2
	})
}

func TestToolErrorGoesBackAsAToolResult(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic"} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t, rigOptions{kind: kind, servers: []spec.Server{fake("a", spec.Chat{})}},
				chattest.Step{Calls: []chattest.Call{call("c1", "a__fail", `{}`)}},
				chattest.Step{Text: []string{"The tool failed."}})
			out, _ := r.ask(t, "try")
			if out.Text != "The tool failed." || len(out.Cards) != 1 || !out.Cards[0].IsError || out.Cards[0].Result != "it broke" {
				t.Fatalf("%+v", out)
			}
			msgs := r.messages(t, 1)
			if kind == "openai" && !strings.Contains(msgs, `{"content":"[tool error] it broke","role":"tool","tool_call_id":"c1"}`) {
				t.Fatalf("messages %s", msgs)
			}
			if kind == "anthropic" && !strings.Contains(msgs, `{"content":[{"text":"it broke","type":"text"}],"is_error":true,"tool_use_id":"c1","type":"tool_result"}`) {
				t.Fatalf("messages %s", msgs)
			}
		})
	}
}

func TestToolTimeoutIsAnErrorTheModelSees(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{})}, settings: map[string]string{settings.KeyChatToolTimeout: "1"}},
		chattest.Step{Calls: []chattest.Call{call("c1", "a__slow", `{"ms":20000}`)}},
		chattest.Step{Text: []string{"It timed out."}})
	start := time.Now()
	out, _ := r.ask(t, "slow please")
	if time.Since(start) > 15*time.Second {
		t.Fatalf("the turn took %s", time.Since(start))
	}
	if out.Text != "It timed out." || !out.Cards[0].IsError || !strings.Contains(out.Cards[0].Result, "timed out after 1s") {
		t.Fatalf("%+v", out)
	}
	if !strings.Contains(r.messages(t, 1), `[tool error] The tool a__slow timed out after 1s and was cancelled.`) {
		t.Fatalf("messages %s", r.messages(t, 1))
	}
	testpeers.Eventually(t, 10*time.Second, "the upstream to see the cancellation", func() bool {
		return slices.Contains(r.upstreamSaw(t), "cancelled slow")
	})
}

// At the limit the model is asked once more, tools still defined but
// tool_choice none, with a note; its text is the answer.
func TestLoopLimitForcesATextAnswer(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic"} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t, rigOptions{kind: kind, servers: []spec.Server{fake("a", spec.Chat{})}, settings: map[string]string{settings.KeyChatMaxToolRounds: "2"}},
				chattest.Step{Calls: []chattest.Call{call("c1", "a__echo", `{"text":"1"}`)}},
				chattest.Step{Calls: []chattest.Call{call("c2", "a__echo", `{"text":"2"}`)}},
				chattest.Step{Text: []string{"I stopped after two rounds: 1, 2."}, Calls: []chattest.Call{call("c3", "a__echo", `{"text":"3"}`)}})
			out, _ := r.ask(t, "loop")
			if out.Text != "I stopped after two rounds: 1, 2." || out.ToolCalls != 2 || out.Rounds != 3 {
				t.Fatalf("%+v", out)
			}
			if !slices.ContainsFunc(out.Notices, func(n chat.Notice) bool { return n.Code == chat.NoticeLoopLimit }) {
				t.Fatalf("notices %+v", out.Notices)
			}
			if len(r.model.Requests()) != 3 {
				t.Fatalf("%d requests", len(r.model.Requests()))
			}
			last := r.model.Request(2)
			choice, _ := json.Marshal(last["tool_choice"])
			if kind == "openai" && string(choice) != `"none"` || kind == "anthropic" && string(choice) != `{"type":"none"}` {
				t.Fatalf("tool_choice %s", choice)
			}
			if last["tools"] == nil {
				t.Fatal("the forced request dropped the tools (the history has tool calls)")
			}
			if !strings.Contains(r.messages(t, 2), "The limit of 2 tool rounds for one answer was reached") {
				t.Fatalf("no note: %s", r.messages(t, 2))
			}
			if slices.Contains(r.upstreamSaw(t), `call echo {"text":"3"}`) {
				t.Fatal("a tool call after the limit ran")
			}
		})
	}
}

// Seed 003's order: (1) system_instruction of every server, (2) the
// auto-context result with its server's response_instruction, (3) the
// response_instruction of a server whose tool ran, once.
func TestInstructionsAndAutoContextOrder(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic"} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t, rigOptions{kind: kind, servers: []spec.Server{
				fake("a", spec.Chat{SystemInstruction: "SYS-A", ResponseInstruction: "RESP-A", AutoContextTool: "search"}),
				fake("b", spec.Chat{SystemInstruction: "SYS-B", ResponseInstruction: "RESP-B"}),
			}},
				chattest.Step{Calls: []chattest.Call{call("c1", "b__echo", `{"text":"x"}`)}},
				chattest.Step{Calls: []chattest.Call{call("c2", "b__echo", `{"text":"y"}`), call("c3", "a__echo", `{"text":"z"}`)}},
				chattest.Step{Text: []string{"done"}})
			out, _ := r.ask(t, "what about x?")
			if out.Text != "done" {
				t.Fatalf("%+v", out)
			}
			auto := "Context from the a server (search) for the user's message:\nfound: what about x?"
			want := []string{
				"SYS-A\n\nSYS-B\n\n" + auto + "\n\nRESP-A",
				"SYS-A\n\nSYS-B\n\n" + auto + "\n\nRESP-A\n\nRESP-B",
				"SYS-A\n\nSYS-B\n\n" + auto + "\n\nRESP-A\n\nRESP-B",
			}
			for i, w := range want {
				if got := system(t, kind, r.model.Request(i)); got != w {
					t.Errorf("request %d system\n got %q\nwant %q", i, got, w)
				}
			}
			// The auto-context call ran before the first model call, with the
			// user's message in the tool's required string argument.
			if saw := r.upstreamSaw(t); len(saw) == 0 || saw[0] != `call search {"query":"what about x?"}` {
				t.Fatalf("upstream saw %q", saw)
			}
			if !out.Cards[0].AutoContext || out.Cards[0].Name != "a__search" {
				t.Fatalf("cards %+v", out.Cards)
			}
		})
	}
}

func system(t *testing.T, kind string, body map[string]any) string {
	t.Helper()
	if kind == "anthropic" {
		blocks, _ := body["system"].([]any)
		if len(blocks) != 1 {
			return ""
		}
		return blocks[0].(map[string]any)["text"].(string)
	}
	msgs := body["messages"].([]any)
	first := msgs[0].(map[string]any)
	if first["role"] != "system" {
		return ""
	}
	return first["content"].(string)
}

// A model or server that refuses tools gets a plain request; the turn
// says tools are off.
func TestModelWithoutTools(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{SystemInstruction: "SYS-A"})}},
		chattest.Step{Status: 400, ErrorMessage: "registry.ollama.ai/library/gemma:2b does not support tools"},
		chattest.Step{Text: []string{"plain answer"}})
	out, _ := r.ask(t, "hi")
	if out.Text != "plain answer" || !slices.ContainsFunc(out.Notices, func(n chat.Notice) bool { return n.Code == chat.NoticeToolsOff }) {
		t.Fatalf("%+v", out)
	}
	if r.model.Request(0)["tools"] == nil || r.model.Request(1)["tools"] != nil || r.model.Request(1)["tool_choice"] != nil {
		t.Fatalf("first has tools %v, second %v", r.model.Request(0)["tools"] != nil, r.model.Request(1)["tools"])
	}
}

// MCP_ENABLED=false: no tools, no instructions, the upstreams untouched.
func TestMCPDisabled(t *testing.T) {
	t.Setenv(core.EnvMCPEnabled, "false")
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{SystemInstruction: "SYS-A", AutoContextTool: "search"})}},
		chattest.Step{Text: []string{"no tools here"}})
	out, _ := r.ask(t, "hi")
	if out.Text != "no tools here" || out.Notices[0].Code != chat.NoticeToolsDisabled {
		t.Fatalf("%+v", out)
	}
	body := r.model.Request(0)
	if body["tools"] != nil || system(t, "openai", body) != "" {
		t.Fatalf("request %v", body)
	}
	if _, err := os.Stat(r.log); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the upstream was called: %q", r.upstreamSaw(t))
	}
}

func TestToolsSettingOff(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{})}, settings: map[string]string{settings.KeyChatTools: "off"}},
		chattest.Step{Text: []string{"ok"}})
	out, _ := r.ask(t, "hi")
	if r.model.Request(0)["tools"] != nil || out.Notices[0].Code != chat.NoticeToolsDisabled {
		t.Fatalf("%+v %v", out, r.model.Request(0))
	}
}

// A hook that blocks the model's call: the model gets the hook's message as
// a tool error, the upstream never sees the call, the log says blocked.
func TestHookBlocksTheModelsToolCall(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{})}},
		chattest.Step{Calls: []chattest.Call{call("c1", "a__echo", `{"text":"secret"}`)}},
		chattest.Step{Text: []string{"Blocked."}})
	if _, err := r.c.Store.Hooks().Create(context.Background(), store.Hook{Name: "no-secrets", Enabled: true, ExecutionOrder: 1, HookType: store.HookPre,
		Script: `if (context.requestType === 'CallTool' && String(context.arguments.text).includes('secret')) return { continue: false, error: { message: 'no secrets for ' + context.client.tokenName } };`}); err != nil {
		t.Fatal(err)
	}
	if err := r.c.Hooks.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, _ := r.ask(t, "say secret")
	if !out.Cards[0].IsError || !strings.Contains(out.Cards[0].Result, "no secrets for chat") {
		t.Fatalf("card %+v", out.Cards[0])
	}
	if !strings.Contains(r.messages(t, 1), "no secrets for chat") {
		t.Fatalf("messages %s", r.messages(t, 1))
	}
	if _, err := os.Stat(r.log); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the upstream was called: %q", r.upstreamSaw(t))
	}
	testpeers.Eventually(t, 10*time.Second, "a blocked log entry for chat", func() bool {
		_ = r.c.Requests.Flush(context.Background())
		rows, err := r.c.Store.Logs().List(context.Background(), store.LogFilter{Client: chat.CallerName, Status: store.StatusBlocked})
		return err == nil && len(rows) == 1
	})
}

// ---- conversations: Stop, approval, storage ---------------------------------

// events collects the service's events of one conversation.
type events struct {
	mu  sync.Mutex
	all []chat.TurnEvent
	ch  chan chat.TurnEvent
}

func listen(t *testing.T, s *chat.Service) *events {
	ev := &events{ch: make(chan chat.TurnEvent, 256)}
	t.Cleanup(s.Subscribe(func(e chat.TurnEvent) {
		ev.mu.Lock()
		ev.all = append(ev.all, e)
		ev.mu.Unlock()
		ev.ch <- e
	}))
	return ev
}

// wait returns the first event that matches, failing after 20 s.
func (ev *events) wait(t *testing.T, what string, match func(chat.TurnEvent) bool) chat.TurnEvent {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-ev.ch:
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event", what)
		}
	}
}

func isDone(e chat.TurnEvent) bool { return e.Type == chat.EventDone }

func (r *rig) conversation(t *testing.T) uint {
	t.Helper()
	c, err := r.c.Chat.NewConversation(context.Background(), chat.ConversationInput{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Provider != "test" || c.Model != "m1" {
		t.Fatalf("conversation %+v", c)
	}
	return c.ID
}

func TestStopMidStream(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{})}},
		chattest.Step{Text: []string{"Once upon"}, Hang: true})
	ev := listen(t, r.c.Chat)
	id := r.conversation(t)
	if err := r.c.Chat.Send(context.Background(), id, "tell a story"); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, "text", func(e chat.TurnEvent) bool { return e.Type == chat.EventText })
	if err := r.c.Chat.Stop(id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.model.Cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the model server never saw the request cancelled")
	}
	done := ev.wait(t, "done", isDone)
	if done.Error != chat.StoppedError {
		t.Fatalf("done %+v", done)
	}
	view, err := r.c.Chat.Conversation(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if view.Running || len(view.Messages) != 2 || view.Messages[1].Error != chat.StoppedError || view.Messages[1].Content != "Once upon" {
		t.Fatalf("stored %+v", view)
	}
	if err := r.c.Chat.Stop(id); !errors.Is(err, chat.ErrNotRunning) {
		t.Fatalf("second stop: %v", err)
	}
}

func TestStopMidTool(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{})}},
		chattest.Step{Calls: []chattest.Call{call("c1", "a__slow", `{"ms":30000}`)}})
	ev := listen(t, r.c.Chat)
	id := r.conversation(t)
	if err := r.c.Chat.Send(context.Background(), id, "be slow"); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, "running card", func(e chat.TurnEvent) bool { return e.Card != nil && e.Card.Status == chat.CardRunning })
	testpeers.Eventually(t, 10*time.Second, "the upstream to get the call", func() bool {
		return slices.Contains(r.upstreamSaw(t), `call slow {"ms":30000}`)
	})
	start := time.Now()
	if err := r.c.Chat.Stop(id); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("Stop took %s", time.Since(start))
	}
	if done := ev.wait(t, "done", isDone); done.Error != chat.StoppedError {
		t.Fatalf("done %+v", done)
	}
	testpeers.Eventually(t, 10*time.Second, "the upstream to see the cancellation", func() bool {
		return slices.Contains(r.upstreamSaw(t), "cancelled slow")
	})
	if n := len(r.model.Requests()); n != 1 {
		t.Fatalf("%d model requests after a stop mid-tool", n)
	}
}

// A server that asks for approval: deny is a tool error the model sees and
// the upstream never gets the call; "always" lets later calls through
// without asking and is remembered in the conversation.
func TestApproval(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{ApproveTools: []string{"danger"}})}},
		chattest.Step{Calls: []chattest.Call{call("c1", "a__danger", `{}`)}},
		chattest.Step{Text: []string{"You said no."}},
		chattest.Step{Calls: []chattest.Call{call("c2", "a__danger", `{}`)}},
		chattest.Step{Calls: []chattest.Call{call("c3", "a__danger", `{}`), call("c4", "a__echo", `{"text":"free"}`)}},
		chattest.Step{Text: []string{"Deleted twice."}})
	ev := listen(t, r.c.Chat)
	id := r.conversation(t)
	ctx := context.Background()
	if err := r.c.Chat.Send(ctx, id, "delete"); err != nil {
		t.Fatal(err)
	}
	ask := ev.wait(t, "approval", func(e chat.TurnEvent) bool { return e.Card != nil && e.Card.Status == chat.CardApproval })
	if ask.Card.ID != "c1" || ask.Card.Server != "a" || ask.Card.Tool != "danger" {
		t.Fatalf("approval card %+v", ask.Card)
	}
	if err := r.c.Chat.Approve(id, "c1", "maybe"); !errors.Is(err, chat.ErrInvalid) {
		t.Fatalf("bad decision: %v", err)
	}
	if err := r.c.Chat.Approve(id, "c1", chat.Deny); err != nil {
		t.Fatal(err)
	}
	if done := ev.wait(t, "done", isDone); done.Message.Content != "You said no." {
		t.Fatalf("done %+v", done)
	}
	if !strings.Contains(r.messages(t, 1), `[tool error] The user denied this call of a__danger; it did not run.`) {
		t.Fatalf("messages %s", r.messages(t, 1))
	}
	if _, err := os.Stat(r.log); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the upstream got a denied call: %q", r.upstreamSaw(t))
	}
	// Second turn: allow always; the next call of the tool goes through
	// without asking, echo never asks.
	if err := r.c.Chat.Send(ctx, id, "delete, really"); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, "approval", func(e chat.TurnEvent) bool {
		return e.Card != nil && e.Card.Status == chat.CardApproval && e.Card.ID == "c2"
	})
	if err := r.c.Chat.Approve(id, "c2", chat.AllowAlways); err != nil {
		t.Fatal(err)
	}
	done := ev.wait(t, "done", isDone)
	if done.Message.Content != "Deleted twice." || done.Message.ToolCalls != 3 {
		t.Fatalf("done %+v", done.Message)
	}
	ev.mu.Lock()
	asked := 0
	for _, e := range ev.all {
		if e.Card != nil && e.Card.Status == chat.CardApproval {
			asked++
		}
	}
	ev.mu.Unlock()
	if asked != 2 {
		t.Fatalf("asked %d times, want 2", asked)
	}
	if saw := r.upstreamSaw(t); !slices.Equal(saw, []string{"call danger {}", "call danger {}", `call echo {"text":"free"}`}) {
		t.Fatalf("upstream saw %q", saw)
	}
	conv, _ := r.c.Store.Chat().Conversation(ctx, id)
	if !slices.Equal(conv.ApprovedTools, []string{"a__danger"}) {
		t.Fatalf("approved %v", conv.ApprovedTools)
	}
}

// A client that answers the approval card as soon as the card event
// arrives (here: in the same goroutine, inside the event callback) finds
// the call waiting: the call is registered before its card goes out.
func TestApproveOnTheApprovalCardEvent(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{ApproveTools: []string{"danger"}})}},
		chattest.Step{Calls: []chattest.Call{call("c1", "a__danger", `{}`)}},
		chattest.Step{Text: []string{"Deleted."}})
	id := r.conversation(t)
	approveErr := make(chan error, 1)
	t.Cleanup(r.c.Chat.Subscribe(func(e chat.TurnEvent) {
		if e.Conversation == id && e.Card != nil && e.Card.Status == chat.CardApproval {
			approveErr <- r.c.Chat.Approve(id, e.Card.ID, chat.AllowOnce)
		}
	}))
	ev := listen(t, r.c.Chat)
	if err := r.c.Chat.Send(context.Background(), id, "delete"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-approveErr:
		if err != nil {
			t.Fatalf("approving on the card event: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no approval card")
	}
	if done := ev.wait(t, "done", isDone); done.Message == nil || done.Message.Content != "Deleted." || done.Message.ToolCalls != 1 {
		t.Fatalf("done %+v", done)
	}
	if saw := r.upstreamSaw(t); !slices.Equal(saw, []string{"call danger {}"}) {
		t.Fatalf("upstream saw %q", saw)
	}
}

// The Chat page without setup: no provider configured, the key and base
// URL in the router's environment (as a GUI launch gets them from the login
// shell). The status names the provider without the key, a conversation
// runs a tool-using turn with it and says where the provider came from, and
// the key is in no file of the data directory and in no event.
func TestConversationWithTheEnvironmentsKey(t *testing.T) {
	const secret = "sk-env-conversation-93be1d"
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	r := newRig(t, rigOptions{kind: "anthropic", noProvider: true, servers: []spec.Server{fake("a", spec.Chat{})}},
		chattest.Step{Calls: []chattest.Call{call("c1", "a__echo", `{"text":"hi"}`)}},
		chattest.Step{Text: []string{"It echoed hi."}})
	t.Setenv("ANTHROPIC_API_KEY", secret)
	t.Setenv("ANTHROPIC_BASE_URL", r.model.URL)
	ctx := context.Background()
	st, err := r.c.Chat.Status(ctx)
	if err != nil || st.Configured || st.Environment == nil || st.Environment.Label != "Anthropic" || st.Environment.Model != anthropic.DefaultModel {
		t.Fatalf("status %+v %v", st, err)
	}
	if b, _ := json.Marshal(st); strings.Contains(string(b), secret) {
		t.Fatalf("the status carries the key: %s", b)
	}
	ev := listen(t, r.c.Chat)
	c, err := r.c.Chat.NewConversation(ctx, chat.ConversationInput{})
	if err != nil || c.Provider != "" || c.Model != anthropic.DefaultModel {
		t.Fatalf("conversation %+v %v", c, err)
	}
	if err := r.c.Chat.Send(ctx, c.ID, "echo hi"); err != nil {
		t.Fatal(err)
	}
	done := ev.wait(t, "done", isDone)
	if done.Message == nil || done.Message.Content != "It echoed hi." || done.Message.ToolCalls != 1 || done.Error != "" {
		t.Fatalf("done %+v", done)
	}
	if saw := r.upstreamSaw(t); !slices.Equal(saw, []string{`call echo {"text":"hi"}`}) {
		t.Fatalf("upstream saw %q", saw)
	}
	if m := r.model.Request(0)["model"]; m != anthropic.DefaultModel {
		t.Fatalf("model %v", m)
	}
	ev.mu.Lock()
	all, _ := json.Marshal(ev.all)
	var notice string
	for _, e := range ev.all {
		if e.Notice != nil && e.Notice.Code == chat.NoticeProviderEnv {
			notice = e.Notice.Text
		}
	}
	ev.mu.Unlock()
	if strings.Contains(string(all), secret) {
		t.Fatal("an event carries the key")
	}
	if !strings.HasPrefix(notice, "using ANTHROPIC_API_KEY from the environment (no provider is configured), ANTHROPIC_BASE_URL=") {
		t.Fatalf("notice %q", notice)
	}
	r.c.Close()
	var hits []string
	_ = filepath.WalkDir(filepath.Dir(r.log), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), secret) {
				hits = append(hits, p)
			}
		}
		return nil
	})
	if len(hits) > 0 {
		t.Fatalf("the key from the environment was written to %v", hits)
	}
}

// The database keeps user and assistant texts only (seed 003), the last
// turn's cards are there for a reloaded page, history goes back to the
// model on the next turn, and retry replaces the last answer.
func TestConversationStorageAndRetry(t *testing.T) {
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{})}},
		chattest.Step{Calls: []chattest.Call{call("c1", "a__echo", `{"text":"hi"}`)}, InputTokens: 5, OutputTokens: 2},
		chattest.Step{Text: []string{"It said hi."}, InputTokens: 9, OutputTokens: 4},
		chattest.Step{Text: []string{"Second answer."}, InputTokens: 20, OutputTokens: 3})
	ev := listen(t, r.c.Chat)
	id := r.conversation(t)
	ctx := context.Background()
	if err := r.c.Chat.Send(ctx, id, "echo hi"); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, "done", isDone)
	view, err := r.c.Chat.Conversation(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if view.Title != "echo hi" || len(view.Messages) != 2 || view.Messages[1].Content != "It said hi." ||
		view.Messages[1].ToolCalls != 1 || view.InputTokens != 14 || view.OutputTokens != 6 {
		t.Fatalf("view %+v", view)
	}
	if len(view.Cards) != 1 || view.Cards[0].Result != "echo: hi" {
		t.Fatalf("cards %+v", view.Cards)
	}
	if err := r.c.Chat.Send(ctx, id, "and now?"); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, "done", isDone)
	want := `[{"content":"echo hi","role":"user"},{"content":"It said hi.","role":"assistant"},{"content":"and now?","role":"user"}]`
	if got := r.messages(t, 2); got != want {
		t.Fatalf("resumed history\n got %s\nwant %s", got, want)
	}
	if err := r.c.Chat.Send(ctx, id, "too soon"); err != nil {
		t.Fatal(err) // the previous turn ended
	}
	// ^ that turn has no script step left: it fails, and is stored as failed.
	failed := ev.wait(t, "done", isDone)
	if failed.Error == "" {
		t.Fatalf("expected a failed turn, got %+v", failed)
	}
	r.model.Add(chattest.Step{Text: []string{"Answer to too soon."}})
	if err := r.c.Chat.Retry(ctx, id); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, "done", isDone)
	msgs, _ := r.c.Store.Chat().Messages(ctx, id)
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role+":"+m.Content)
	}
	if strings.Join(got, "|") != "user:echo hi|assistant:It said hi.|user:and now?|assistant:Second answer.|user:too soon|assistant:Answer to too soon." {
		t.Fatalf("stored %q", got)
	}
	// Nothing of the tool steps is in the database.
	var n int64
	r.c.Store.DB().Raw(`SELECT COUNT(*) FROM chat_messages WHERE content LIKE '%echo: hi%' OR content LIKE '%tool_call%'`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d stored messages hold tool steps", n)
	}
}

// A server that fails to start is skipped: the chat goes on with the
// others' tools.
func TestServerThatFailsToStartIsSkipped(t *testing.T) {
	broken := spec.Server{Name: "broken", Command: filepath.Join(t.TempDir(), "no-such-server"), Enabled: true, Env: map[string]string{}}
	r := newRig(t, rigOptions{servers: []spec.Server{fake("a", spec.Chat{}), broken}, skipWait: []string{"broken"}},
		chattest.Step{Calls: []chattest.Call{call("c1", "a__echo", `{"text":"still here"}`)}},
		chattest.Step{Text: []string{"fine"}})
	out, _ := r.ask(t, "go on")
	if out.Text != "fine" || out.Cards[0].Result != "echo: still here" {
		t.Fatalf("%+v", out)
	}
	tools, _ := json.Marshal(r.model.Request(0)["tools"])
	if strings.Contains(string(tools), "broken__") {
		t.Fatalf("a broken server's tools were offered: %s", tools)
	}
}

// The router already gives every tool a name the providers accept
// (gateway.legalName); should a name reach the loop that they refuse, it goes
// out mapped and comes back to the right tool.
func TestRefusedToolNamesAreMapped(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic"} {
		t.Run(kind, func(t *testing.T) {
			var wire string
			step := chattest.Step{Func: func(body map[string]any) chattest.Step {
				for _, tl := range body["tools"].([]any) {
					m := tl.(map[string]any)
					name, _ := m["name"].(string)
					if fn, ok := m["function"].(map[string]any); ok {
						name, _ = fn["name"].(string)
					}
					wire = name
				}
				return chattest.Step{Calls: []chattest.Call{call("c1", wire, `{"path":"/x"}`)}}
			}}
			var p chat.Provider
			var srv *chattest.Server
			if kind == "anthropic" {
				srv = chattest.Anthropic(t, step, chattest.Step{Text: []string{"mapped"}})
				p = anthropic.New(anthropic.Options{BaseURL: srv.URL, MaxRetries: -1})
			} else {
				srv = chattest.OpenAI(t, step, chattest.Step{Text: []string{"mapped"}})
				p = openai.New(openai.Options{BaseURL: srv.URL + "/v1", MaxRetries: -1})
			}
			fr := &fakeRouter{name: "fs.read file/über"}
			out, err := chat.NewEngine(fr, chat.EngineOptions{}).Run(context.Background(), chat.Turn{Provider: p, Model: "m", Input: "read", Tools: true})
			if err != nil {
				t.Fatal(err)
			}
			if wire == "" || wire == fr.name || out.Text != "mapped" || fr.called != fr.name || out.Cards[0].Name != fr.name {
				t.Fatalf("wire %q, called %q, %+v", wire, fr.called, out)
			}
			b, _ := json.Marshal(srv.Request(1)["messages"])
			if !strings.Contains(string(b), wire) || strings.Contains(string(b), "über") {
				t.Fatalf("the history did not use the mapped name: %s", b)
			}
		})
	}
}

type fakeRouter struct {
	name, called string
}

func (f *fakeRouter) ListTools(context.Context) ([]mcp.Tool, error) {
	return []mcp.Tool{mcp.NewTool(f.name, mcp.WithString("path"))}, nil
}

func (f *fakeRouter) CallTool(_ context.Context, name string, _ json.RawMessage) (*mcp.CallToolResult, error) {
	f.called = name
	return mcp.NewToolResultText("contents"), nil
}

func (f *fakeRouter) ToolRoute(name string) (string, string, bool) {
	return "fs", strings.TrimPrefix(name, "fs."), name == f.name
}

// When the done event goes out the conversation is free: a UI that sends
// the next message as soon as it sees done is never told a turn is running.
func TestDoneMeansTheConversationIsFree(t *testing.T) {
	r := newRig(t, rigOptions{}, chattest.Step{Text: []string{"first"}})
	id := r.conversation(t)
	runningAtDone := make(chan bool, 1)
	t.Cleanup(r.c.Chat.Subscribe(func(e chat.TurnEvent) {
		if e.Type == chat.EventDone && e.Conversation == id {
			v, err := r.c.Chat.Conversation(context.Background(), id)
			runningAtDone <- err != nil || v.Running
		}
	}))
	if err := r.c.Chat.Send(context.Background(), id, "hello"); err != nil {
		t.Fatal(err)
	}
	select {
	case running := <-runningAtDone:
		if running {
			t.Fatal("the conversation still had a running turn when its done event went out")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no done event")
	}
}
