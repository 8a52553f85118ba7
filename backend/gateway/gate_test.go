package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

const gateMessage = "Load the /ev skill first, then call ev__activate."

// upstreamInstructionsMark is in server-everything's own instructions.
const upstreamInstructionsMark = "Everything Server – Server Instructions"

// gatedEverything is server-everything as server "ev" with the gate on.
// Its processes carry MCPR_TEST_MARKER=mark so a test can count them.
func gatedEverything(t *testing.T, mark string, gate spec.Gate) spec.Server {
	s := everything(t, "ev", spec.PrefixAlways)
	s.Env = map[string]string{"MCPR_TEST_MARKER": mark}
	gate.Enabled = true
	s.Gate = gate
	return s
}

// wiredEverything runs server-everything behind `tee`, which appends every
// byte the router sends it to the returned file: proof of what the
// upstream saw.
func wiredEverything(t *testing.T, mark string, gate spec.Gate) (spec.Server, string) {
	s := gatedEverything(t, mark, gate)
	wire := filepath.Join(t.TempDir(), "wire.log")
	s.Command, s.Args = "/bin/sh", []string{"-c", `tee -a "$MCPR_WIRE_LOG" | exec "$MCPR_EVERYTHING" stdio`}
	s.Env["MCPR_WIRE_LOG"] = wire
	s.Env["MCPR_EVERYTHING"] = testpeers.Everything(t)
	return s, wire
}

// waitTool waits until the gateway publishes a tool: a gated server's
// activate tool is published before the server runs, so waiting for the
// server's name is not enough.
func waitTool(t *testing.T, r *rig, name string) {
	t.Helper()
	testpeers.Eventually(t, 30*time.Second, name+" in the gateway", func() bool {
		r.gw.mu.RLock()
		defer r.gw.mu.RUnlock()
		_, ok := r.gw.tools[name]
		return ok
	})
}

func wireSaw(t *testing.T, wire, what string) bool {
	t.Helper()
	b, err := os.ReadFile(wire)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), what)
}

// wireGets waits for what to reach the wire log: tee passes a message on
// to the upstream before it appends it to the file, so the upstream can
// answer first. tee keeps the order, so once a message is in the log,
// everything sent before it is too.
func wireGets(t *testing.T, wire, what string) bool {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if wireSaw(t, wire, what) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// connectFull is connect that also returns the initialize result.
func connectFull(t *testing.T, url string, onNote func(mcp.JSONRPCNotification)) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if onNote != nil {
		c.OnNotification(onNote)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "test", Version: "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, init
}

func activate(t *testing.T, c *client.Client) string {
	t.Helper()
	res, err := call(c, "ev__activate", nil)
	if err != nil {
		t.Fatalf("activate: %v", err)
	}
	if res.IsError {
		t.Fatalf("activate failed: %s", text(res))
	}
	return text(res)
}

func echoOK(t *testing.T, c *client.Client, msg string) {
	t.Helper()
	res, err := call(c, "ev__echo", map[string]any{"message": msg})
	if err != nil || res.IsError || !strings.Contains(text(res), msg) {
		t.Fatalf("echo %q: %v, %v", msg, res, err)
	}
}

func refusedWith(t *testing.T, c *client.Client, tool, want string) {
	t.Helper()
	res, err := call(c, tool, map[string]any{"message": "x"})
	if err != nil {
		t.Fatalf("%s: a locked call is a tool error, not a protocol error: %v", tool, err)
	}
	if !res.IsError || text(res) != want {
		t.Fatalf("%s: isError=%v text %q, want the tool error %q", tool, res.IsError, text(res), want)
	}
}

func TestGateLocksEachSessionUntilActivate(t *testing.T) {
	initFile := filepath.Join(t.TempDir(), "ev-init.js")
	if err := os.WriteFile(initFile, []byte("init-script-v1"), 0o600); err != nil {
		t.Fatal(err)
	}
	mark := fmt.Sprintf("gate-lock-%d", time.Now().UnixNano())
	def, wire := wiredEverything(t, mark, spec.Gate{Message: gateMessage, InitTool: "echo",
		InitArgFiles: map[string]string{"message": initFile}, OverviewTool: "get-env"})
	r := newRig(t, []spec.Server{def}, rigOptions{})
	waitTool(t, r, "ev__echo")
	if st, _ := r.ups.Status("ev"); !strings.Contains(st.Instructions, upstreamInstructionsMark) {
		t.Fatalf("server-everything sent no instructions to hide: %q", st.Instructions)
	}

	a, initA := connectFull(t, r.url, nil)
	// Short instructions: the gate message, never the upstream's text.
	if !strings.Contains(initA.Instructions, gateMessage) || strings.Contains(initA.Instructions, upstreamInstructionsMark) {
		t.Errorf("initialize instructions = %q", initA.Instructions)
	}
	list, err := a.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var sawActivate, sawEcho bool
	for _, tool := range list.Tools {
		switch tool.Name {
		case "ev__activate":
			sawActivate = tool.Description == gateMessage
		case "ev__echo":
			sawEcho = true
		}
	}
	if !sawActivate || !sawEcho {
		t.Fatalf("listed tools lack ev__activate (described by the gate message) or ev__echo: %+v", list.Tools)
	}

	// Locked: refused with the gate message, and nothing reaches the upstream.
	refusedWith(t, a, "ev__echo", gateMessage)
	refusedWith(t, a, "ev__get-env", gateMessage) // the overview stays gated
	if !wireGets(t, wire, `"initialize"`) {
		t.Fatal("the wire log does not record what the router sent; the next check would prove nothing")
	}
	if wireSaw(t, wire, `"message":"x"`) || wireSaw(t, wire, "get-env") {
		t.Fatal("a locked call reached the upstream")
	}
	testpeers.Eventually(t, 2*time.Second, "the refused call in the log as blocked", func() bool {
		e, ok := r.log.find("tools/call", "ev__echo")
		return ok && e.Status == store.StatusBlocked && e.Error == gateMessage && e.Server == "ev"
	})

	// Activate runs the init tool with the file's content, unlocks, and
	// brings the upstream's instructions.
	summary := activate(t, a)
	cat, _ := r.ups.Catalog("ev")
	tools := fmt.Sprintf("Tools: %d.", len(cat.Tools))
	for _, want := range []string{"init-script-v1", "Connected: yes", tools, "ev__get-env", upstreamInstructionsMark} {
		if !strings.Contains(summary, want) {
			t.Errorf("activate summary lacks %q:\n%s", want, summary)
		}
	}
	if !wireGets(t, wire, "init-script-v1") {
		t.Error("the init tool's file argument never reached the upstream")
	}
	echoOK(t, a, "unlocked-call")
	if !wireGets(t, wire, "unlocked-call") {
		t.Error("the unlocked call is not in the wire log")
	} else if wireSaw(t, wire, `"message":"x"`) {
		t.Error("a locked call reached the upstream") // it would be in the log by now
	}
	if res, err := call(a, "ev__get-env", nil); err != nil || res.IsError || !strings.Contains(text(res), mark) {
		t.Errorf("overview after activation: %v, %v", res, err)
	}
	// Activate is idempotent.
	activate(t, a)
	echoOK(t, a, "still unlocked")

	// Another session starts locked; the first is not affected.
	b, _ := connectFull(t, r.url, nil)
	refusedWith(t, b, "ev__echo", gateMessage)
	echoOK(t, a, "a unaffected")

	// The init file is read at each activation.
	if err := os.WriteFile(initFile, []byte("init-script-v2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s := activate(t, b); !strings.Contains(s, "init-script-v2") {
		t.Errorf("second activation did not read the edited file:\n%s", s)
	}
	echoOK(t, b, "b unlocked")
}

func TestGateAfterUpstreamLossAsksForActivateAgain(t *testing.T) {
	mark := fmt.Sprintf("gate-loss-%d", time.Now().UnixNano())
	r := newRig(t, []spec.Server{gatedEverything(t, mark, spec.Gate{Message: gateMessage})}, rigOptions{})
	waitTool(t, r, "ev__echo")
	perServer := len(testpeers.ProcessesWithMarker(mark))
	a, _ := connectFull(t, r.url, nil)
	activate(t, a)
	echoOK(t, a, "before the loss")

	st, _ := r.ups.Status("ev")
	_ = testpeers.KillProcess(st.PID)
	// [unlocked, disconnected], whether the supervisor has reconnected yet
	// or not: the new connection has not been activated.
	refusedWith(t, a, "ev__echo", "upstream disconnected — call ev__activate again")
	testpeers.Eventually(t, 30*time.Second, "the supervisor's reconnect", func() bool {
		now, _ := r.ups.Status("ev")
		return now.State == upstream.StateRunning && now.Connection == 2
	})
	refusedWith(t, a, "ev__echo", "upstream disconnected — call ev__activate again")
	if s := activate(t, a); !strings.Contains(s, "connection 2") {
		t.Errorf("activate after the loss:\n%s", s)
	}
	echoOK(t, a, "recovered")
	if n := len(testpeers.ProcessesWithMarker(mark)); n != perServer {
		t.Errorf("%d upstream processes after recovery, want %d", n, perServer)
	}
}

func TestGateHiddenToolsAppearWithListChanged(t *testing.T) {
	mark := fmt.Sprintf("gate-hide-%d", time.Now().UnixNano())
	r := newRig(t, []spec.Server{gatedEverything(t, mark, spec.Gate{Message: gateMessage, HideTools: true})}, rigOptions{})
	waitTool(t, r, "ev__echo")
	changed := make(chan struct{}, 8)
	a, _ := connectFull(t, r.url, func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			changed <- struct{}{}
		}
	})
	b, _ := connectFull(t, r.url, nil)
	evTools := func(c *client.Client) []string {
		var out []string
		for _, n := range toolNames(t, c) {
			if strings.HasPrefix(n, "ev__") {
				out = append(out, n)
			}
		}
		return out
	}
	if got := evTools(a); len(got) != 1 || got[0] != "ev__activate" {
		t.Fatalf("locked session sees %v, want only ev__activate", got)
	}
	refusedWith(t, a, "ev__echo", gateMessage) // hidden is still refused
	activate(t, a)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed after activation")
	}
	cat, _ := r.ups.Catalog("ev")
	if got := evTools(a); len(got) != len(cat.Tools)+1 || !contains(got, "ev__echo") {
		t.Errorf("after activation the session sees %v", got)
	}
	echoOK(t, a, "visible now")
	if got := evTools(b); len(got) != 1 {
		t.Errorf("the other session sees %v, want only ev__activate", got)
	}
}

// activateAll activates ev from every client at once.
func activateAll(t *testing.T, clients []*client.Client) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]string, len(clients))
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := call(c, "ev__activate", nil)
			switch {
			case err != nil:
				errs[i] = err.Error()
			case res.IsError:
				errs[i] = text(res)
			}
		}()
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("session %d: activate failed: %s", i, e)
		}
	}
}

func TestGateConcurrentActivationsShareOneConnection(t *testing.T) {
	mark := fmt.Sprintf("gate-many-%d", time.Now().UnixNano())
	r := newRig(t, []spec.Server{gatedEverything(t, mark, spec.Gate{Message: gateMessage, InitTool: "echo",
		InitArgs: []byte(`{"message":"init"}`)})}, rigOptions{})
	waitTool(t, r, "ev__echo")
	perServer := len(testpeers.ProcessesWithMarker(mark))
	if perServer == 0 {
		t.Fatal("no upstream process carries the marker")
	}
	clients := make([]*client.Client, 10)
	for i := range clients {
		clients[i], _ = connectFull(t, r.url, nil)
	}

	// Ten at once on a running server.
	activateAll(t, clients)
	for i, c := range clients {
		echoOK(t, c, fmt.Sprintf("session %d", i))
	}
	if st, _ := r.ups.Status("ev"); st.Connection != 1 || len(testpeers.ProcessesWithMarker(mark)) != perServer {
		t.Errorf("after 10 activations: connection %d, %d processes; want 1 and %d", st.Connection, len(testpeers.ProcessesWithMarker(mark)), perServer)
	}

	// Ten at once racing the supervisor's own reconnect after a loss.
	st, _ := r.ups.Status("ev")
	_ = testpeers.KillProcess(st.PID)
	testpeers.Eventually(t, 10*time.Second, "the killed upstream to be gone", func() bool {
		for _, pid := range testpeers.ProcessesWithMarker(mark) {
			if pid == st.PID {
				return false
			}
		}
		return true
	})
	activateAll(t, clients)
	for i, c := range clients {
		echoOK(t, c, fmt.Sprintf("session %d after the loss", i))
	}
	now, _ := r.ups.Status("ev")
	if now.Connection != 2 {
		t.Errorf("connection %d after one loss, want 2 (exactly one reconnect)", now.Connection)
	}
	if n := len(testpeers.ProcessesWithMarker(mark)); n != perServer {
		t.Errorf("%d upstream processes, want %d", n, perServer)
	}

	// Ten at once racing a reconnect the user asked for (Restart).
	if err := r.ups.Restart("ev"); err != nil {
		t.Fatal(err)
	}
	activateAll(t, clients)
	for i, c := range clients {
		echoOK(t, c, fmt.Sprintf("session %d after the restart", i))
	}
	if now, _ := r.ups.Status("ev"); now.Connection != 3 {
		t.Errorf("connection %d after one restart, want 3", now.Connection)
	}
	testpeers.Eventually(t, 10*time.Second, "one server's processes after the restart", func() bool {
		return len(testpeers.ProcessesWithMarker(mark)) == perServer
	})
}

func TestGateOffServersKeepTheirInstructions(t *testing.T) {
	plain := everything(t, "plain", spec.PrefixAlways)
	gated := gatedEverything(t, "gate-instr", spec.Gate{Message: gateMessage})
	r := newRig(t, []spec.Server{plain, gated}, rigOptions{})
	waitTool(t, r, "ev__echo")
	c, init := connectFull(t, r.url, nil)
	if !strings.Contains(init.Instructions, "## plain\n\n# "+upstreamInstructionsMark) {
		t.Errorf("the ungated server's instructions are missing or unlabelled: %q", init.Instructions)
	}
	if !strings.Contains(init.Instructions, "## ev\n\n"+gateMessage) || strings.Count(init.Instructions, upstreamInstructionsMark) != 1 {
		t.Errorf("the gated server should contribute only its message: %q", init.Instructions)
	}
	res, err := call(c, "plain__echo", map[string]any{"message": "ungated"})
	if err != nil || res.IsError {
		t.Errorf("ungated call: %v %v", res, err)
	}
}

// statelessCall sends one tools/call of the 2026-07-28 revision: no
// initialize, no session, the version and client identity in _meta.
func statelessCall(t *testing.T, url, clientName, tool string, args map[string]any) (isError bool, text string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args, "_meta": map[string]any{
			mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
			mcp.MetaKeyClientInfo:         map[string]any{"name": clientName, "version": "1"},
			mcp.MetaKeyClientCapabilities: map[string]any{},
		}}})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
	req.Header.Set(mcp.HeaderMethod, "tools/call")
	req.Header.Set(mcp.HeaderName, tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Result == nil {
		t.Fatalf("%s: status %d, body %s", tool, resp.StatusCode, raw)
	}
	var parts []string
	for _, c := range out.Result.Content {
		parts = append(parts, c.Text)
	}
	return out.Result.IsError, strings.Join(parts, "\n")
}

// Without a session the gate state keys on the token and the client
// identity each request carries.
func TestGateStatelessClientsKeyOnTheirIdentity(t *testing.T) {
	r := newRig(t, []spec.Server{gatedEverything(t, "gate-stateless", spec.Gate{Message: gateMessage})}, rigOptions{})
	waitTool(t, r, "ev__echo")
	if isErr, got := statelessCall(t, r.url, "client-a", "ev__echo", map[string]any{"message": "x"}); !isErr || got != gateMessage {
		t.Fatalf("locked stateless call: isError=%v %q", isErr, got)
	}
	if isErr, got := statelessCall(t, r.url, "client-a", "ev__activate", nil); isErr || !strings.Contains(got, "ev activated") {
		t.Fatalf("stateless activate: isError=%v %q", isErr, got)
	}
	if isErr, got := statelessCall(t, r.url, "client-a", "ev__echo", map[string]any{"message": "stateless open"}); isErr || !strings.Contains(got, "stateless open") {
		t.Fatalf("activated stateless call: isError=%v %q", isErr, got)
	}
	if isErr, got := statelessCall(t, r.url, "client-b", "ev__echo", map[string]any{"message": "x"}); !isErr || got != gateMessage {
		t.Fatalf("another stateless client: isError=%v %q", isErr, got)
	}
}

// While a gated server is down its tools stay listed and answer with the
// disconnected message; activate does not wait out the supervisor's
// backoff (a minute here) but connects at once.
func TestGateActivateReconnectsADownServerAtOnce(t *testing.T) {
	mark := fmt.Sprintf("gate-down-%d", time.Now().UnixNano())
	r := newRig(t, []spec.Server{gatedEverything(t, mark, spec.Gate{Message: gateMessage})}, rigOptions{backoffBase: time.Minute})
	waitTool(t, r, "ev__echo")
	a, _ := connectFull(t, r.url, nil)
	activate(t, a)
	st, _ := r.ups.Status("ev")
	_ = testpeers.KillProcess(st.PID)
	testpeers.Eventually(t, 10*time.Second, "ev to wait out its backoff", func() bool {
		now, _ := r.ups.Status("ev")
		return now.State == upstream.StateRestarting
	})
	r.gw.Rebuild()
	if names := toolNames(t, a); !contains(names, "ev__echo") || !contains(names, "ev__activate") {
		t.Fatalf("a down gated server's tools left the list: %v", names)
	}
	refusedWith(t, a, "ev__echo", "upstream disconnected — call ev__activate again")
	start := time.Now()
	if s := activate(t, a); !strings.Contains(s, "connection 2") {
		t.Errorf("activate on a down server:\n%s", s)
	}
	if waited := time.Since(start); waited > 30*time.Second {
		t.Errorf("activate took %s: it waited for the backoff", waited)
	}
	echoOK(t, a, "back")
}

// Prompts and resources of a locked server are refused too.
func TestGateLocksPromptsAndResources(t *testing.T) {
	r := newRig(t, []spec.Server{gatedEverything(t, "gate-prompts", spec.Gate{Message: gateMessage})}, rigOptions{})
	waitTool(t, r, "ev__echo")
	c, _ := connectFull(t, r.url, nil)
	ctx := context.Background()
	prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(prompts.Prompts) == 0 {
		t.Fatalf("prompts: %v %v", prompts, err)
	}
	var simple string
	for _, p := range prompts.Prompts {
		if len(p.Arguments) == 0 {
			simple = p.Name
		}
	}
	resources, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil || len(resources.Resources) == 0 {
		t.Fatalf("resources: %v %v", resources, err)
	}
	uri := resources.Resources[0].URI
	if _, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: simple}}); err == nil || !strings.Contains(err.Error(), gateMessage) {
		t.Errorf("locked prompts/get %s: %v", simple, err)
	}
	if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}}); err == nil || !strings.Contains(err.Error(), gateMessage) {
		t.Errorf("locked resources/read %s: %v", uri, err)
	}
	activate(t, c)
	if _, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: simple}}); err != nil {
		t.Errorf("prompts/get after activation: %v", err)
	}
	if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}}); err != nil {
		t.Errorf("resources/read after activation: %v", err)
	}

	// The refusal is a routing error in the one format: code, message, data.
	raw := newRawHTTP(t, r.url)
	_, _, body := raw.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":%q}}`, simple))
	checkError(t, "locked prompts/get", errorOf(t, body), simple, pipeline.CodeLocked, "ev: "+gateMessage, pipeline.ReasonLocked, nil)
}

// The gate's summary counts a server's own tools and names its overview
// tool by the router's name, never by an ability routed to it.
func TestToolsOfLeavesAbilitiesOut(t *testing.T) {
	g := &Gateway{
		tools: map[string]upstreamName{
			"ev__get-env":    {Server: "ev", Item: "get-env"},
			"ev__echo":       {Server: "ev", Item: "echo"},
			"ev__activate":   {Server: "ev", Item: gate.ActivateItem},
			"read_env":       {Server: "ev", Item: "get-env"},
			"other__get-env": {Server: "other", Item: "get-env"},
		},
		abilities: map[string]Ability{"read_env": {}},
	}
	for range 50 { // map order is random: one pass could pick right by chance
		got := g.toolsOf("ev")
		if len(got) != 2 || got["get-env"] != "ev__get-env" || got["echo"] != "ev__echo" {
			t.Fatalf("toolsOf(ev) = %v, want get-env → ev__get-env and echo → ev__echo", got)
		}
	}
}

// A go-sdk client hears a locked prompt as the router's error, not as its
// own connection closing: go-sdk v1.8.0 turns any -32003 or -32004 answer
// into ErrConnectionClosed, so the router's codes avoid both. Before, this
// call failed with "connection closed: calling \"prompts/get\"".
func TestGoSDKClientReadsLockedAsTheRoutersError(t *testing.T) {
	r := newRig(t, []spec.Server{gatedEverything(t, "gate-gosdk", spec.Gate{Message: gateMessage})}, rigOptions{})
	waitTool(t, r, "ev__echo")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-2025", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: r.url, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) == 0 {
		t.Fatalf("prompts: %v %v", prompts, err)
	}
	name := prompts.Prompts[0].Name // refused before its arguments are looked at
	_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name})
	var wire *jsonrpc.Error
	switch {
	case err == nil:
		t.Fatalf("locked prompts/get %s answered", name)
	case errors.Is(err, sdk.ErrConnectionClosed):
		t.Fatalf("locked prompts/get read as the connection closing: %v", err)
	case !errors.As(err, &wire) || wire.Code != pipeline.CodeLocked || !strings.Contains(wire.Message, gateMessage):
		t.Fatalf("locked prompts/get: %v, want code %d with the gate's message", err, pipeline.CodeLocked)
	}
	// The session is as good as before: the client activates and calls.
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ev__activate"}); err != nil || res.IsError {
		t.Fatalf("activate: %+v %v", res, err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ev__echo", Arguments: map[string]any{"message": "still here"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "still here") {
		t.Fatalf("echo after activation: %+v %v", res, err)
	}
}
