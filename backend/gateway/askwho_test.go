package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Issue 26, item 1: a request an upstream sends (elicitation, sampling,
// roots) reaches the client whose call caused it, or nobody. Two clients
// call one shared upstream at once; the upstream's "ask" tool waits until
// both calls are in it, asks its client a question naming the caller, and
// waits until both have asked before it answers, so that both calls are in
// flight at the router whenever either asks.

// askerServer is the upstream of these tests, over stdio (MCPR_FAKE_MODE
// "asker", see TestMain) and over streamable HTTP in the test process.
// Its tool ask takes who (put in the question), round (the barrier's key),
// together (how many calls of the round meet), kind (elicitation,
// sampling or roots; sleep: ask nothing, answer after a second) and via ("get": ask outside the POST's context, so
// that an HTTP server sends the request on its GET stream).
func askerServer() *server.MCPServer {
	s := server.NewMCPServer("asker", "1", server.WithToolCapabilities(false))
	b := &barrier{count: map[string]int{}, open: map[string]chan struct{}{}}
	s.AddTool(mcp.NewTool("ask", mcp.WithString("who"), mcp.WithString("round"), mcp.WithNumber("together"),
		mcp.WithString("kind"), mcp.WithString("via")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			who, round, n := req.GetString("who", ""), req.GetString("round", ""), req.GetInt("together", 1)
			if req.GetString("kind", "") == "sleep" { // ask nothing; stay in flight a while
				select {
				case <-time.After(time.Second):
					return mcp.NewToolResultText("slept"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			if err := b.wait(ctx, round+"/in", n); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			askCtx := ctx
			if req.GetString("via", "") == "get" {
				c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				askCtx = s.WithContext(c, server.ClientSessionFromContext(ctx))
			}
			answer, err := askClient(askCtx, s, req.GetString("kind", "elicitation"), who)
			if werr := b.wait(ctx, round+"/asked", n); werr != nil {
				return mcp.NewToolResultError(werr.Error()), nil
			}
			if err != nil {
				return mcp.NewToolResultText("refused: " + err.Error()), nil
			}
			return mcp.NewToolResultText("answer: " + answer), nil
		})
	return s
}

func askClient(ctx context.Context, s *server.MCPServer, kind, who string) (string, error) {
	switch kind {
	case "sampling":
		res, err := s.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: "prompt of " + who}}},
			MaxTokens: 10}})
		if err != nil {
			return "", err
		}
		if tc, ok := res.Content.(mcp.TextContent); ok {
			return tc.Text, nil
		}
		return fmt.Sprint(res.Content), nil
	case "roots":
		res, err := s.RequestRoots(ctx, mcp.ListRootsRequest{})
		if err != nil {
			return "", err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return strings.Join(uris, " "), nil
	}
	res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
		Message: "question of " + who,
		RequestedSchema: map[string]any{"type": "object",
			"properties": map[string]any{"answer": map[string]any{"type": "string"}}}}})
	if err != nil {
		return "", err
	}
	return fmt.Sprint(res.Content.(map[string]any)["answer"]), nil
}

// barrier lets n calls of one key through together.
type barrier struct {
	mu    sync.Mutex
	count map[string]int
	open  map[string]chan struct{}
}

func (b *barrier) wait(ctx context.Context, key string, n int) error {
	b.mu.Lock()
	ch := b.open[key]
	if ch == nil {
		ch = make(chan struct{})
		b.open[key] = ch
	}
	b.count[key]++
	if b.count[key] == n {
		close(ch)
	}
	b.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(15 * time.Second):
		return errors.New("barrier " + key + ": the other calls never came")
	}
}

func serveAsker() {
	if err := server.ServeStdio(askerServer()); err != nil {
		fmt.Fprintln(os.Stderr, "asker:", err)
		os.Exit(1)
	}
}

// asked is a client of the router that answers every kind of request with
// its own name and records what it was asked.
type asked struct {
	who   string
	mu    sync.Mutex
	got   []string // the elicitation messages and sampling prompts
	roots atomic.Int32
}

func (a *asked) record(q string) {
	a.mu.Lock()
	a.got = append(a.got, q)
	a.mu.Unlock()
}

func (a *asked) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.got...)
}

func (a *asked) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.record(req.Params.Message)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"answer": "answer from " + a.who}}}, nil
}

func (a *asked) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	for _, m := range req.Messages {
		if tc, ok := m.Content.(mcp.TextContent); ok {
			a.record(tc.Text)
		}
	}
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.TextContent{Type: "text", Text: "answer from " + a.who}},
		Model:           "test-model", StopReason: "endTurn"}, nil
}

func (a *asked) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	a.roots.Add(1)
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///projects/" + a.who, Name: a.who}}}, nil
}

// onlyOwn fails the test if a client was asked anything not its own.
func (a *asked) onlyOwn(t *testing.T) {
	t.Helper()
	for _, q := range a.questions() {
		if !strings.HasSuffix(q, " of "+a.who) {
			t.Errorf("client %s was asked %q", a.who, q)
		}
	}
}

func askerStdio(name string) spec.Server {
	return spec.Server{Name: name, Transport: spec.Stdio, PrefixMode: spec.PrefixAlways, Command: os.Args[0], Enabled: true,
		Env: map[string]string{"MCPR_FAKE_MODE": "asker"}}
}

// askerHTTP serves askerServer over stateful HTTP on the handshake's
// revisions only: its tool asks mid-call, which mcp-go refuses on
// 2026-07-28, the revision the router would use with a server that names
// it (upstream/modern.go). These tests are about those mid-call requests.
func askerHTTP(t *testing.T, name string) spec.Server {
	srv := httptest.NewServer(server.NewStreamableHTTPServer(askerServer(),
		server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125, "2025-06-18")))
	t.Cleanup(srv.Close)
	return spec.Server{Name: name, Transport: spec.HTTP, URL: srv.URL + "/mcp", Enabled: true, PrefixMode: spec.PrefixAlways}
}

// twoClients connects alice and bob to the router.
func twoClients(t *testing.T, r *rig) ([2]*asked, [2]func(args map[string]any) (string, error)) {
	var who [2]*asked
	var calls [2]func(map[string]any) (string, error)
	for i, name := range []string{"alice", "bob"} {
		a := &asked{who: name}
		c := connect(t, r.url, clientOptions{elicitation: a, sampling: a, roots: a})
		who[i] = a
		calls[i] = func(args map[string]any) (string, error) {
			args["who"] = name
			res, err := call(c, "up__ask", args)
			if err != nil {
				return "", err
			}
			if res.IsError {
				return "", errors.New(text(res))
			}
			return text(res), nil
		}
	}
	return who, calls
}

// together runs one round: both clients call ask at once, each its own
// question; it returns their answers.
func together(calls [2]func(map[string]any) (string, error), args map[string]any) ([2]string, [2]error) {
	var out [2]string
	var errs [2]error
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := make(map[string]any, len(args)+1)
			for k, v := range args {
				a[k] = v
			}
			out[i], errs[i] = calls[i](a)
		}()
	}
	wg.Wait()
	return out, errs
}

// A shared streamable HTTP upstream whose tool elicits with the caller's
// name in the question, two clients calling at once for 100 rounds: the
// upstream sends each question on the stream of the call that caused it,
// so each client gets its own question and nobody else's, although two
// clients are in flight every time (the rule for requests outside a call
// would refuse them all).
// Both on the fast path and on mcp-go's.
func TestTwoClientsEachGetOnlyTheirOwnQuestionsFromAnHTTPUpstream(t *testing.T) {
	for _, fast := range []bool{true, false} {
		t.Run(fmt.Sprintf("fast=%v", fast), func(t *testing.T) {
			r := newRig(t, []spec.Server{askerHTTP(t, "up")}, rigOptions{allClientSide: true})
			r.gw.SetFastPath(fast)
			who, calls := twoClients(t, r)
			before := r.gw.fast.served.Load()
			for round := 0; round < 100; round++ {
				out, errs := together(calls, map[string]any{"round": fmt.Sprint(round), "together": 2, "kind": "elicitation"})
				for i, a := range who {
					if errs[i] != nil || out[i] != "answer: answer from "+a.who {
						t.Fatalf("round %d: %s got %q, %v", round, a.who, out[i], errs[i])
					}
				}
			}
			for _, a := range who {
				a.onlyOwn(t)
				if n := len(a.questions()); n != 100 {
					t.Errorf("%s was asked %d questions, want 100", a.who, n)
				}
			}
			if served := r.gw.fast.served.Load() - before; fast && served == 0 || !fast && served != 0 {
				t.Errorf("fast path %v: it served %d of the calls", fast, served)
			}
		})
	}
}

// The same upstream asking on its GET stream (mcp-go's HTTP server puts
// sampling and roots there, and elicitation asked outside the POST): no
// link to a call, so with two clients in flight the router refuses; with
// one it asks that one.
func TestAnHTTPUpstreamsRequestOnItsGETStreamGoesToTheOnlyClientInFlight(t *testing.T) {
	r := newRig(t, []spec.Server{askerHTTP(t, "up")}, rigOptions{allClientSide: true})
	who, calls := twoClients(t, r)
	for _, kind := range []string{"elicitation", "sampling", "roots"} {
		for round := 0; round < 10; round++ {
			key := kind + fmt.Sprint(round)
			out, errs := together(calls, map[string]any{"round": key, "together": 2, "kind": kind, "via": "get"})
			for i, a := range who {
				if errs[i] != nil || !strings.HasPrefix(out[i], "refused: ") || !strings.Contains(out[i], "2 clients have calls in flight") {
					t.Fatalf("%s round %d: %s got %q, %v; want the request refused", kind, round, a.who, out[i], errs[i])
				}
			}
			res, err := calls[round%2](map[string]any{"round": key + "/alone", "together": 1, "kind": kind, "via": "get"})
			if a := who[round%2]; err != nil || !strings.Contains(res, "answer from "+a.who) && !strings.Contains(res, "file:///projects/"+a.who) {
				t.Fatalf("%s round %d alone: %s got %q, %v", kind, round, a.who, res, err)
			}
		}
	}
	for _, a := range who {
		a.onlyOwn(t)
	}
}

// A shared stdio upstream has no link from its request to a call: with
// two clients in flight, 100 rounds, the router refuses every elicitation
// (and sampling and roots) rather than ask a client another's question;
// with one client in flight it still asks that one.
// Each refusal is logged as a warning naming the server and how many
// clients were in flight.
func TestAStdioUpstreamsRequestWithTwoClientsInFlightIsRefused(t *testing.T) {
	logger, logs := logtest.NewNullLogger()
	r := newRig(t, []spec.Server{askerStdio("up")}, rigOptions{allClientSide: true, logger: logger})
	who, calls := twoClients(t, r)
	rounds := map[string]int{"elicitation": 100, "sampling": 20, "roots": 20}
	for _, kind := range []string{"elicitation", "sampling", "roots"} {
		for round := 0; round < rounds[kind]; round++ {
			key := kind + fmt.Sprint(round)
			out, errs := together(calls, map[string]any{"round": key, "together": 2, "kind": kind})
			for i, a := range who {
				if errs[i] != nil || !strings.HasPrefix(out[i], "refused: ") || !strings.Contains(out[i], "2 clients have calls in flight") {
					t.Fatalf("%s round %d: %s got %q, %v; want the request refused", kind, round, a.who, out[i], errs[i])
				}
			}
		}
		for _, a := range who {
			if q := a.questions(); len(q) != 0 || a.roots.Load() != 0 {
				t.Fatalf("%s: %s was asked %q and %d times for roots while two clients were in flight", kind, a.who, q, a.roots.Load())
			}
		}
	}
	warned := 0
	for _, e := range logs.AllEntries() {
		if e.Level == logrus.WarnLevel && e.Data["server"] == "up" && e.Data["clients"] == 2 &&
			strings.Contains(e.Message, "2 clients had calls in flight") {
			warned++
		}
	}
	if warned != 2*(100+20+20) {
		t.Errorf("%d warnings of a refused request, want one per refusal (%d)", warned, 2*(100+20+20))
	}
	// One client in flight: asked, each its own.
	for round := 0; round < 10; round++ {
		for i, a := range who {
			for _, kind := range []string{"elicitation", "sampling", "roots"} {
				res, err := calls[i](map[string]any{"round": fmt.Sprintf("alone%d-%d-%s", round, i, kind), "together": 1, "kind": kind})
				want := "answer: answer from " + a.who
				if kind == "roots" {
					want = "answer: file:///projects/" + a.who
				}
				if err != nil || res != want {
					t.Fatalf("%s alone, %s: got %q, %v; want %q", a.who, kind, res, err, want)
				}
			}
		}
	}
	for _, a := range who {
		a.onlyOwn(t)
		if n := len(a.questions()); n != 20 {
			t.Errorf("%s was asked %d questions alone, want 20", a.who, n)
		}
	}
}

// With no client in flight (an upstream asking on its own) the router asks
// nobody: not the last client that called it.
func TestAnUpstreamsRequestOutsideAnyCallIsRefused(t *testing.T) {
	r := newRig(t, []spec.Server{askerHTTP(t, "up")}, rigOptions{allClientSide: true})
	who, calls := twoClients(t, r)
	if _, err := calls[0](map[string]any{"round": "first", "together": 1, "kind": "elicitation"}); err != nil {
		t.Fatal(err)
	}
	_, err := r.gw.ClientSide().Elicitation(context.Background(), "up", mcp.ElicitationRequest{Params: mcp.ElicitationParams{
		Message: "question of nobody", RequestedSchema: map[string]any{"type": "object"}}})
	if err == nil || !errors.Is(err, errAmbiguousAsk) || !strings.Contains(err.Error(), "0 clients have calls in flight") {
		t.Errorf("a request outside any call: %v, want it refused", err)
	}
	for _, a := range who {
		a.onlyOwn(t)
	}
}

// inFlight is how many calls the router has in flight on server.
func (r *rig) inFlight(server string) int {
	r.gw.call.mu.Lock()
	defer r.gw.call.mu.Unlock()
	return len(r.gw.call.byServer[server])
}

// With the real server-everything over stdio: while client A's long call
// is in it, client B's elicitation and sampling are refused (neither
// client is asked); once A's call is over, B's are asked of B.
func TestServerEverythingAsksNobodyWhileTwoClientsAreInIt(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{allClientSide: true})
	a, b := &asked{who: "alice"}, &asked{who: "bob"}
	ca := connect(t, r.url, clientOptions{elicitation: a, sampling: a, roots: a})
	cb := connect(t, r.url, clientOptions{elicitation: b, sampling: b, roots: b})
	long := make(chan error, 1)
	go func() {
		_, err := call(ca, "everything__trigger-long-running-operation", map[string]any{"duration": 4, "steps": 2})
		long <- err
	}()
	testpeers.Eventually(t, 10*time.Second, "alice's call in flight", func() bool { return r.inFlight("everything") == 1 })
	refused := func(res *mcp.CallToolResult, err error) bool {
		msg := ""
		if err != nil {
			msg = err.Error()
		} else if res.IsError {
			msg = text(res)
		}
		return strings.Contains(msg, "refused the") && strings.Contains(msg, "2 clients have calls in flight")
	}
	res, err := call(cb, "everything__trigger-elicitation-request", map[string]any{})
	if !refused(res, err) {
		t.Errorf("bob's elicitation while alice's call is in flight: %v %v, want it refused", err, res)
	}
	res, err = call(cb, "everything__trigger-sampling-request", map[string]any{"prompt": "prompt of bob", "maxTokens": 10})
	if !refused(res, err) {
		t.Errorf("bob's sampling while alice's call is in flight: %v %v, want it refused", err, res)
	}
	if r.inFlight("everything") != 1 {
		t.Fatal("alice's call ended before bob's were refused: the test proves nothing")
	}
	if q := append(a.questions(), b.questions()...); len(q) != 0 {
		t.Errorf("asked %q while two clients were in flight", q)
	}
	if err := <-long; err != nil {
		t.Fatal(err)
	}
	res, err = call(cb, "everything__trigger-elicitation-request", map[string]any{})
	if err != nil || res.IsError || !strings.Contains(text(res), "answer from bob") {
		t.Errorf("bob's elicitation alone: %v %v", err, res)
	}
	res, err = call(cb, "everything__trigger-sampling-request", map[string]any{"prompt": "prompt of bob", "maxTokens": 10})
	if err != nil || res.IsError || !strings.Contains(text(res), "answer from bob") {
		t.Errorf("bob's sampling alone: %v %v", err, res)
	}
	if q := b.questions(); len(a.questions()) != 0 || len(q) != 2 || !strings.Contains(q[1], "prompt of bob") {
		t.Errorf("alice was asked %q, bob %q; want bob asked his elicitation and his sampling prompt", a.questions(), q)
	}
}

// A call made inside the router (the chat panel) has no client to ask: an
// upstream's request during it goes to nobody, never to the last client
// that called that server.
func TestAnInProcessCallsRequestGoesToNoClient(t *testing.T) {
	r := newRig(t, []spec.Server{askerStdio("up")}, rigOptions{allClientSide: true})
	who, calls := twoClients(t, r)
	if res, err := calls[0](map[string]any{"round": "alice", "together": 1, "kind": "elicitation"}); err != nil || res != "answer: answer from alice" {
		t.Fatalf("alice alone: %q %v", res, err)
	}
	ctx := pipeline.WithCaller(context.Background(), Caller{Name: "chat"})
	for _, kind := range []string{"elicitation", "sampling", "roots"} {
		res, err := r.gw.CallTool(ctx, "up__ask", json.RawMessage(`{"who":"chat","round":"chat-`+kind+`","together":1,"kind":"`+kind+`"}`))
		if err != nil || !strings.HasPrefix(text(res), "refused: ") {
			t.Errorf("%s during the chat's call: %v %v, want it refused", kind, err, res)
		}
	}
	for _, a := range who {
		a.onlyOwn(t)
		if a.roots.Load() != 0 {
			t.Errorf("%s was asked for its roots during the chat's call", a.who)
		}
	}
}

// A 2026-07-28 client has no session: its calls are one client by its
// credential and the client name it declares. Two of its calls in flight
// on a stdio upstream are one client (soleClient picks its oldest call);
// calls that declare another name, come with another credential, or come
// from a session are other clients.
func TestStatelessCallsAreOneClientByCredentialAndName(t *testing.T) {
	r := newRig(t, []spec.Server{askerStdio("up")}, rigOptions{allClientSide: true, callerFrom: callerFromHeader})
	sleep := func(name string, done chan<- struct{}) {
		go func() {
			defer close(done)
			args := map[string]any{"kind": "sleep"}
			modernRequest(t, r.url, "tools/call", "up__ask", map[string]any{"name": "up__ask", "arguments": args},
				map[string]any{mcp.MetaKeyClientInfo: map[string]any{"name": name, "version": "1"}})
		}()
	}
	for _, tc := range []struct {
		names   [2]string
		clients int
	}{{[2]string{"app", "app"}, 1}, {[2]string{"app", "other-app"}, 2}} {
		var done [2]chan struct{}
		for i, name := range tc.names {
			done[i] = make(chan struct{})
			sleep(name, done[i])
		}
		testpeers.Eventually(t, 10*time.Second, "two calls in flight", func() bool { return r.inFlight("up") == 2 })
		f, n := r.gw.call.soleClient("up")
		if n != tc.clients || (n == 1) != (f != nil) {
			t.Errorf("stateless calls declaring %q: %d clients (call %v), want %d", tc.names, n, f != nil, tc.clients)
		}
		<-done[0]
		<-done[1]
	}
	ctx := func(caller string) context.Context {
		return context.WithValue(context.Background(), callerKey{}, caller)
	}
	app := pipeline.Client{Modern: true, Name: "app"}
	if a, b := r.gw.askerKey(ctx("tok-a"), app), r.gw.askerKey(ctx("tok-a"), app); a != b || a == "" {
		t.Errorf("one credential and name: keys %q and %q, want one", a, b)
	}
	if a, b := r.gw.askerKey(ctx("tok-a"), app), r.gw.askerKey(ctx("tok-b"), app); a == b {
		t.Errorf("two credentials: both %q", a)
	}
	if k := r.gw.askerKey(ctx("tok-a"), pipeline.Client{}); k != "" {
		t.Errorf("a call made inside the router: key %q, want none (a client of its own)", k)
	}
}
