package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/mcp-router/mcp-router/backend/approval"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
)

// uiWatch is a UI attached to the broker: it hears every change of the
// pending list.
type uiWatch struct{ ch chan []approval.Pending }

func attachUI(t *testing.T, b *approval.Broker) *uiWatch {
	w := &uiWatch{ch: make(chan []approval.Pending, 64)}
	t.Cleanup(b.Subscribe(func(l []approval.Pending) { w.ch <- l }))
	t.Cleanup(b.AttachUI())
	return w
}

// next waits for the pending list to have n entries.
func (w *uiWatch) next(t *testing.T, n int) []approval.Pending {
	t.Helper()
	for {
		select {
		case l := <-w.ch:
			if len(l) == n {
				return l
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("the pending list never had %d entries", n)
		}
	}
}

func approvalClient(t *testing.T, url string, el client.ClientOption, caps mcp.ClientCapabilities) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url)
	if err != nil {
		t.Fatal(err)
	}
	var c *client.Client
	if el != nil {
		c = client.NewClient(tr, el)
	} else {
		c = client.NewClient(tr)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.ProtocolVersion20251125,
		ClientInfo: mcp.Implementation{Name: "t", Version: "1"}, Capabilities: caps}}); err != nil {
		t.Fatal(err)
	}
	return c
}

type callResult struct {
	res *mcp.CallToolResult
	err error
}

func callAsync(ctx context.Context, c *client.Client, tool string, args map[string]any) chan callResult {
	out := make(chan callResult, 1)
	go func() {
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
		out <- callResult{res, err}
	}()
	return out
}

// Human approval in the UI, through the endpoint: with a UI attached, the
// UI is asked (before a client that declared elicitation), and its
// approve runs the call, deny refuses it, always lets the next call of the
// tool by the client run without asking; nobody answering refuses it when
// the timeout ends; the client cancelling withdraws the question. Without a
// UI and without elicitation: approval_unavailable.
func TestApprovalInTheUI(t *testing.T) {
	dir := t.TempDir()
	src := "policies:\n  - name: guard\n    match: {tools: [\"delete_*\"]}\n    require: {human_approval: true, approval_timeout_seconds: 30}\n"
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	logger, logs := logtest.NewNullLogger()
	ep := serveWith(t, dir, []spec.Server{testmcp.Server("notes")}, true, Options{Logger: logger})
	b := ep.core.Approvals

	// No UI, a client without elicitation: nobody can be asked.
	plain := approvalClient(t, ep.url, nil, mcp.ClientCapabilities{})
	ctx := context.Background()
	r := <-callAsync(ctx, plain, "notes__delete_note", map[string]any{"id": "x"})
	if r.err == nil || !strings.Contains(r.err.Error(), "nobody can be asked") {
		t.Fatalf("no UI, no elicitation: %+v %v", r.res, r.err)
	}

	ui := attachUI(t, b)
	el := &elicitor{action: mcp.ElicitationResponseActionDecline}
	eliciting := approvalClient(t, ep.url, client.WithElicitationHandler(el), mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}})

	// Approve: the UI is asked (not the client, which would decline), the
	// upstream runs the call.
	got := callAsync(ctx, eliciting, "notes__delete_note", map[string]any{"id": "a1"})
	p := ui.next(t, 1)[0]
	if p.Server != "notes" || p.Tool != "delete_note" || p.Target != "notes__delete_note" || p.Rule != "guard" ||
		string(p.Arguments) != `{"id":"a1"}` || p.Deadline.Sub(p.AskedAt) > 30*time.Second || p.Deadline.Sub(p.AskedAt) < 20*time.Second {
		t.Errorf("pending %+v", p)
	}
	if err := b.Decide(p.ID, approval.Approve); err != nil {
		t.Fatal(err)
	}
	r = <-got
	if r.err != nil || r.res.IsError || r.res.Content[0].(mcp.TextContent).Text != "deleted a1" {
		t.Fatalf("approved: %+v %v", r.res, r.err)
	}
	el.mu.Lock()
	if len(el.asked) != 0 {
		t.Errorf("the client was asked although a UI is attached: %q", el.asked)
	}
	el.mu.Unlock()
	ui.next(t, 0)

	// Deny: approval_denied, decided by the UI.
	got = callAsync(ctx, plain, "notes__delete_note", map[string]any{"id": "d1"})
	p = ui.next(t, 1)[0]
	if err := b.Decide(p.ID, approval.Deny); err != nil {
		t.Fatal(err)
	}
	if r = <-got; r.err == nil || !strings.Contains(r.err.Error(), "was denied by the UI") {
		t.Fatalf("denied: %+v %v", r.res, r.err)
	}
	ui.next(t, 0)

	// The client cancels: the entry disappears from the list.
	cctx, cancel := context.WithCancel(ctx)
	got = callAsync(cctx, eliciting, "notes__delete_note", map[string]any{"id": "c1"})
	ui.next(t, 1)
	cancel()
	ui.next(t, 0)
	if r = <-got; r.err == nil {
		t.Errorf("cancelled call: %+v", r.res)
	}

	// Nobody answers: approval_timeout when the rule's time ends; the
	// entry goes too.
	if err := ep.core.Policy.Save([]byte(strings.Replace(src, "30", "1", 1))); err != nil {
		t.Fatal(err)
	}
	plain2 := httpSession(t, ep.url)
	done := make(chan jsonrpcError, 1)
	go func() {
		done <- errorIn(t, plain2(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"notes__delete_note","arguments":{"id":"t1"}}}`))
	}()
	ui.next(t, 1)
	ui.next(t, 0)
	if e := <-done; e.Code != pipeline.CodeApprovalTimeout || e.Data["reason"] != "approval_timeout" {
		t.Errorf("timeout: %+v", e)
	}
	if err := ep.core.Policy.Save([]byte(src)); err != nil {
		t.Fatal(err)
	}

	// Always: this call and the next of the same tool by the same client
	// run; the next is not listed. (Without tokens every client is
	// "anonymous": always is per client name and subject.)
	got = callAsync(ctx, plain, "notes__delete_note", map[string]any{"id": "w1"})
	p = ui.next(t, 1)[0]
	if err := b.Decide(p.ID, approval.Always); err != nil {
		t.Fatal(err)
	}
	if r = <-got; r.err != nil || r.res.Content[0].(mcp.TextContent).Text != "deleted w1" {
		t.Fatalf("always: %+v %v", r.res, r.err)
	}
	ui.next(t, 0)
	if r = <-callAsync(ctx, plain, "notes__delete_note", map[string]any{"id": "w2"}); r.err != nil || r.res.Content[0].(mcp.TextContent).Text != "deleted w2" {
		t.Fatalf("after always: %+v %v", r.res, r.err)
	}
	select {
	case l := <-ui.ch:
		t.Errorf("the UI was asked after always: %+v", l)
	default:
	}

	if err := b.Decide("gone", approval.Approve); !errors.Is(err, approval.ErrUnknown) {
		t.Errorf("decide an unknown id: %v", err)
	}
	// Every decision is in the router's log with who decided.
	var decided []string
	for _, e := range logs.AllEntries() {
		for _, who := range []string{"approved by the UI", "denied by the UI", "withdrawn: the client cancelled", "denied by timeout",
			"approved by the always-allow rule (set in the UI)"} {
			if strings.Contains(e.Message, who) {
				decided = append(decided, who)
			}
		}
	}
	want := []string{"approved by the UI", "denied by the UI", "withdrawn: the client cancelled", "denied by timeout",
		"approved by the UI", "approved by the always-allow rule (set in the UI)"}
	if strings.Join(decided, "|") != strings.Join(want, "|") {
		t.Errorf("logged decisions %q, want %q", decided, want)
	}
}
