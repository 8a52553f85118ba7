package appapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// uiStream is a browser tab of the UI: the event stream of /ui/api,
// attached until close.
type uiStream struct {
	lists chan []PendingApproval
	close func()
}

func openUIStream(t *testing.T, h *httpFixture) *uiStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.base+PathEvents+"?token="+h.token, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &uiStream{lists: make(chan []PendingApproval, 100)}
	connected := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == ": connected":
				close(connected)
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && name == EventApprovalsChanged:
				var l []PendingApproval
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &l); err != nil {
					t.Errorf("approvals:changed data %s: %v", line, err)
				}
				s.lists <- l
			}
		}
	}()
	var once sync.Once
	s.close = func() { once.Do(func() { cancel(); resp.Body.Close(); <-done }) }
	t.Cleanup(s.close)
	select {
	case <-connected:
	case <-time.After(30 * time.Second):
		t.Fatal("the event stream never attached")
	}
	return s
}

// wait waits for the pending list to have n entries.
func (s *uiStream) wait(t *testing.T, n int, explain func()) []PendingApproval {
	t.Helper()
	for {
		select {
		case l := <-s.lists:
			if len(l) == n {
				return l
			}
		case <-time.After(30 * time.Second):
			explain()
			t.Fatalf("the UI never listed %d pending calls", n)
		}
	}
}

// acceptor answers every elicitation with accept and keeps the messages.
type acceptor struct {
	mu    sync.Mutex
	asked []string
}

func (a *acceptor) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Params.Message)
	a.mu.Unlock()
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}, nil
}

func (a *acceptor) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// secondsLeft reads the time the question gives the client to answer.
func secondsLeft(t *testing.T, question string) int {
	t.Helper()
	var n int
	i := strings.LastIndex(question, "within ")
	if i < 0 {
		t.Fatalf("the question says no time left: %q", question)
	}
	if _, err := fmt.Sscanf(question[i:], "within %d s", &n); err != nil {
		t.Fatalf("the question's time left %q: %v", question[i:], err)
	}
	return n
}

// rawMCP is a client of /mcp over plain HTTP (no elicitation declared),
// so the test reads the error's data.reason as sent.
func rawMCP(t *testing.T, url, token string) func(ctx context.Context, body string) ([]byte, error) {
	t.Helper()
	post := func(ctx context.Context, sid, body string) (http.Header, []byte, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.Header, b, err
	}
	ctx := context.Background()
	hdr, b, err := post(ctx, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if err != nil || hdr.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %v %s", err, b)
	}
	sid := hdr.Get("Mcp-Session-Id")
	if _, _, err := post(ctx, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, body string) ([]byte, error) {
		_, b, err := post(ctx, sid, body)
		return b, err
	}
}

type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

func rpcErrorIn(t *testing.T, body []byte) rpcError {
	t.Helper()
	// An answer may come as an SSE stream: the answer is its last event.
	if i := strings.LastIndex(string(body), "data: "); i >= 0 {
		body = body[i+len("data: "):]
	}
	var resp struct {
		Error *rpcError `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.Error == nil {
		t.Fatalf("not a JSON-RPC error: %s", body)
	}
	return *resp.Error
}

// The UI that was asked goes away (its browser tab closed: the event
// stream ends) while two calls wait in it, with a timeout of 120 s: once
// the grace is over, the call of a client without elicitation is refused
// with approval_unavailable saying the UI went away, and the client that
// declared elicitation is asked and its accept runs the call — both well
// before the timeout (the test's own deadline is 60 s). Every outcome is
// in the router's log with who decided.
func TestApprovalFallsBackWhenTheUIGoesAway(t *testing.T) {
	logger, logs := logtest.NewNullLogger()
	h := newHTTPFixtureWith(t, nil, core.Options{Logger: logger})
	src := "policies:\n  - name: ask\n    match: {tools: [\"echo\"]}\n    require: {human_approval: true, approval_timeout_seconds: 120}\n"
	arg, _ := json.Marshal([]string{src})
	if r := h.call(t, "SavePolicy", h.token, string(arg)); r.code != 200 {
		t.Fatalf("SavePolicy: %d %s", r.code, r.body)
	}
	h.waitState(t, "everything", "running")
	testpeers.Eventually(t, 30*time.Second, "the echo tool", func() bool {
		tools, _ := h.api.ListTools()
		return slices.ContainsFunc(tools, func(x AggregatedTool) bool { return x.Name == "everything__echo" })
	})
	ct, err := h.api.CreateToken("laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	url := h.base + "/mcp"

	// A client that declared elicitation (mcp-go, no GET stream).
	el := &acceptor{}
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + ct.Token}))
	if err != nil {
		t.Fatal(err)
	}
	eliciting := client.NewClient(tr, client.WithElicitationHandler(el))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // the test's deadline, half the timeout
	defer cancel()
	if err := eliciting.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eliciting.Close() })
	if _, err := eliciting.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.ProtocolVersion20251125,
		ClientInfo: mcp.Implementation{Name: "eliciting", Version: "1"}, Capabilities: mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}}}); err != nil {
		t.Fatal(err)
	}
	// A client that did not.
	plain := rawMCP(t, url, ct.Token)

	ui := openUIStream(t, h)
	type plainResult struct {
		body []byte
		err  error
	}
	plainDone := make(chan plainResult, 1)
	go func() {
		b, err := plain(ctx, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"from plain"}}}`)
		plainDone <- plainResult{b, err}
	}()
	type elResult struct {
		res *mcp.CallToolResult
		err error
	}
	elDone := make(chan elResult, 1)
	go func() {
		res, err := eliciting.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "everything__echo",
			Arguments: map[string]any{"message": "from eliciting"}}})
		elDone <- elResult{res, err}
	}()
	ui.wait(t, 2, func() {
		for _, entry := range logs.AllEntries() {
			t.Log(entry.Message)
		}
		select {
		case p := <-plainDone:
			t.Logf("plain: %s %v", p.body, p.err)
		default:
		}
		select {
		case r := <-elDone:
			t.Logf("eliciting: %+v %v", r.res, r.err)
		default:
		}
	})
	if q := el.questions(); len(q) != 0 {
		t.Fatalf("the client was asked while the UI was attached: %q", q)
	}

	ui.close() // the tab is closed

	p := <-plainDone
	if p.err != nil {
		t.Fatalf("the call of the client without elicitation did not return before the test's deadline (timeout 120 s): %v", p.err)
	}
	e := rpcErrorIn(t, p.body)
	if e.Code != pipeline.CodeApproval || e.Data["reason"] != pipeline.ReasonApprovalUnavailable || !strings.Contains(e.Message, "the UI that was asked went away") {
		t.Errorf("without elicitation: %+v", e)
	}
	r := <-elDone
	if r.err != nil || r.res.IsError || len(r.res.Content) == 0 || !strings.Contains(r.res.Content[0].(mcp.TextContent).Text, "from eliciting") {
		t.Fatalf("with elicitation, accepted: %+v %v", r.res, r.err)
	}
	q := el.questions()
	if len(q) != 1 || !strings.Contains(q[0], `policy "ask"`) || !strings.Contains(q[0], "from eliciting") {
		t.Fatalf("the client was asked %q", q)
	}
	// What is left of the 120 s, not a fresh 120 s: the grace alone took
	// 5 s of it (the timer cannot fire earlier), so at most 115 s are left.
	if left := secondsLeft(t, q[0]); left > 120-5 || left < 0 {
		t.Errorf("the client was given %d s to answer, want what is left of the 120 s after the 5 s grace", left)
	}
	if h.api.core.Approvals.UIAttached() || len(h.api.core.Approvals.Pending()) != 0 {
		t.Errorf("after the fallback: UI attached %v, %d pending", h.api.core.Approvals.UIAttached(), len(h.api.core.Approvals.Pending()))
	}
	// Who decided, in the log.
	var all []string
	for _, entry := range logs.AllEntries() {
		all = append(all, entry.Message)
	}
	log := strings.Join(all, "\n")
	for _, want := range []string{
		`everything__echo for "laptop" (policy "ask") refused after`,
		"the UI that was asked went away and the client cannot be asked by elicitation",
		`everything__echo for "laptop" (policy "ask") approved by the client (elicitation)`,
		`approval: the UI asked about everything__echo for "laptop" (policy "ask") went away`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}
