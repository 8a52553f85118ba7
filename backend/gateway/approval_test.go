package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-router/mcp-router/backend/approval"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// approvalRig is a gateway in front of testmcp's notes server with a
// policy that wants a person's approval for delete_* (timeout seconds),
// audited, asked as core asks (Gateway.Approve with an approval panel).
type approvalRig struct {
	*rig
	panel *approval.Broker
	pol   *policy.Service

	mu    sync.Mutex
	audit []policy.AuditRecord
}

const approvalPolicy = "policies:\n  - name: guard\n    match: {tools: [\"delete_*\", \"test_elicitation\"]}\n    require: {human_approval: true, approval_timeout_seconds: %d, log_level: audit}\n"

func newApprovalRig(t *testing.T, timeoutSeconds int, ro rigOptions) *approvalRig {
	return newApprovalRigWith(t, timeoutSeconds, ro, testmcp.Server("notes"), "notes__delete_note")
}

// newApprovalRigWith is newApprovalRig with upstream up, whose tool
// waitFor is offered once it runs.
func newApprovalRigWith(t *testing.T, timeoutSeconds int, ro rigOptions, up spec.Server, waitFor string) *approvalRig {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), fmt.Appendf(nil, approvalPolicy, timeoutSeconds), 0o600); err != nil {
		t.Fatal(err)
	}
	ar := &approvalRig{panel: approval.New()}
	var gw *Gateway
	ar.pol = policy.NewService(filepath.Join(dir, policy.FileName), policy.Options{
		Ask: func(ctx context.Context, a policy.Approval) (policy.Answer, error) {
			return gw.Approve(ctx, ar.panel, a)
		},
		Audit: func(_ context.Context, rec policy.AuditRecord) error {
			ar.mu.Lock()
			ar.audit = append(ar.audit, rec)
			ar.mu.Unlock()
			return nil
		},
	})
	if err := ar.pol.Reload(); err != nil {
		t.Fatal(err)
	}
	ro.policy, ro.asksClient = ar.pol.Current, ar.pol.MayAsk
	ar.rig = newRig(t, []spec.Server{up}, ro)
	gw = ar.gw
	waitTool(t, ar.rig, waitFor)
	return ar
}

// lastAudit waits for the audit record of the call of id.
func (ar *approvalRig) lastAudit(t *testing.T, id string) policy.AuditRecord {
	t.Helper()
	var rec policy.AuditRecord
	testpeers.Eventually(t, 10*time.Second, "the audit record of "+id, func() bool {
		ar.mu.Lock()
		defer ar.mu.Unlock()
		for _, r := range ar.audit {
			if strings.Contains(string(r.Arguments), `"`+id+`"`) {
				rec = r
				return true
			}
		}
		return false
	})
	return rec
}

func (ar *approvalRig) held() int {
	ar.gw.held.mu.Lock()
	defer ar.gw.held.mu.Unlock()
	return len(ar.gw.held.m)
}

// TestModernClientIsAskedForApprovalByInputRequired: the official go-sdk
// client (v1.8.0) on 2026-07-28 with an elicitation handler calls a tool
// the policy wants approved, with no UI open. It gets the router's
// question (the rule, the client, the tool and the arguments) as an
// input_required result, answers, and its retry completes the call:
// accepted, the tool runs; declined, approval_denied by the client. Both
// are audited as a session client's are. Before, the router tried to send a
// stateless client an elicitation/create request, which mcp-go refuses,
// and the call failed with approval_unavailable.
func TestModernClientIsAskedForApprovalByInputRequired(t *testing.T) {
	ar := newApprovalRig(t, 30, rigOptions{})
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			var asked []string
			var mu sync.Mutex
			c := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-modern", Version: "1"}, &sdk.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					mu.Lock()
					asked = append(asked, req.Params.Message)
					mu.Unlock()
					return &sdk.ElicitResult{Action: action}, nil
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ar.url, MaxRetries: -1},
				&sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			id := "m-" + action
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "notes__delete_note", Arguments: map[string]any{"id": id}})
			mu.Lock()
			if len(asked) != 1 || !strings.Contains(asked[0], `policy "guard" asks you to approve`) ||
				!strings.Contains(asked[0], "notes__delete_note") || !strings.Contains(asked[0], `{"id":"`+id+`"}`) ||
				!strings.Contains(asked[0], "Without an answer within") {
				t.Errorf("the client was asked %q", asked)
			}
			mu.Unlock()
			rec := ar.lastAudit(t, id)
			switch action {
			case "accept":
				if err != nil || res.IsError || len(res.Content) == 0 || res.Content[0].(*sdk.TextContent).Text != "deleted "+id {
					t.Fatalf("accepted: %+v %v", res, err)
				}
				if rec.Status != "ok" {
					t.Errorf("audit of an approved call: %+v", rec)
				}
			case "decline":
				if err == nil || !strings.Contains(err.Error(), `'notes__delete_note' was denied by the client (elicitation)`) {
					t.Fatalf("declined: want approval_denied by the client, got %+v %v", res, err)
				}
				if rec.Status != "blocked" || !strings.Contains(rec.Error, "denied by the client") {
					t.Errorf("audit of a denied call: %+v", rec)
				}
			}
			if n := ar.held(); n != 0 {
				t.Errorf("%d calls still held", n)
			}
		})
	}
}

// approvalAsked checks a stateless call's answer is the router's approval
// question as input_required, and returns its key and requestState.
func approvalAsked(t *testing.T, res, rpcErr map[string]any) (key, state string) {
	t.Helper()
	reqs, _ := res["inputRequests"].(map[string]any)
	state, _ = res["requestState"].(string)
	if rpcErr != nil || res["resultType"] != "input_required" || len(reqs) != 1 || state == "" {
		t.Fatalf("want the approval question as input_required, got %v / error %v", res, rpcErr)
	}
	for k, v := range reqs {
		q, _ := v.(map[string]any)
		params, _ := q["params"].(map[string]any)
		if q["method"] != "elicitation/create" || !strings.Contains(fmt.Sprint(params["message"]), `policy "guard"`) {
			t.Fatalf("not the approval question: %v", v)
		}
		key = k
	}
	return key, state
}

func answer(key, action string) map[string]any {
	return map[string]any{key: map[string]any{"action": action}}
}

func deleteNote(id string) map[string]any {
	return map[string]any{"name": "notes__delete_note", "arguments": map[string]any{"id": id}}
}

func withRetry(params map[string]any, state string, responses map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	out["requestState"], out["inputResponses"] = state, responses
	return out
}

func rpcReason(e map[string]any) string {
	data, _ := e["data"].(map[string]any)
	s, _ := data["reason"].(string)
	return s
}

// TestApprovalPanelAndInputRequiredRace: a stateless client that declared
// elicitation, with no UI open, gets the approval question as
// input_required, and the call is listed in the approval panel as well
// (a UI opened while the client thinks shows it). The first answer counts:
// the panel approving lets the client's retry through whatever the client
// answers (here: decline) and a panel denial refuses it; the client
// answering first takes the call out of the panel (deciding it there
// fails). Tampered and foreign requestStates are refused, and a retry
// carrying other arguments runs the call approved, not those; a client
// without elicitation gets approval_unavailable as before and nothing is
// listed; nobody answering within the rule's timeout refuses the call with
// approval_timeout, which the late retry gets; the held calls are bounded
// per credential.
func TestApprovalPanelAndInputRequiredRace(t *testing.T) {
	ar := newApprovalRig(t, 30, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	el := map[string]any{"elicitation": map[string]any{}}
	pendingOne := func() approval.Pending {
		t.Helper()
		var l []approval.Pending
		testpeers.Eventually(t, 10*time.Second, "one call in the approval panel", func() bool {
			l = ar.panel.Pending()
			return len(l) == 1
		})
		return l[0]
	}
	post := func(who string, params map[string]any, caps map[string]any) (map[string]any, map[string]any) {
		return mrtrPostAs(t, ar.url, who, "tools/call", "notes__delete_note", params, caps)
	}

	// The panel approves while the client thinks: its retry (declining!)
	// gets the tool's result.
	res, e := post("alice", deleteNote("p1"), el)
	key, state := approvalAsked(t, res, e)
	p := pendingOne()
	if p.Client != "alice" || p.Target != "notes__delete_note" || string(p.Arguments) != `{"id":"p1"}` {
		t.Errorf("listed %+v", p)
	}
	detach := ar.panel.AttachUI()
	if err := ar.panel.Decide(p.ID, approval.Approve); err != nil {
		t.Fatal(err)
	}
	detach()
	// A tampered state, and alice's state presented by bob, are refused
	// and leave the call waiting for alice.
	_, e = post("alice", withRetry(deleteNote("p1"), state+"x", answer(key, "decline")), el)
	if e == nil || e["code"].(float64) != mcp.INVALID_PARAMS || rpcReason(e) != pipeline.ReasonRequestState {
		t.Fatalf("tampered requestState: %v", e)
	}
	_, e = post("bob", withRetry(deleteNote("p1"), state, answer(key, "accept")), el)
	if e == nil || e["code"].(float64) != mcp.INVALID_PARAMS {
		t.Fatalf("bob with alice's requestState: %v", e)
	}
	res, e = post("alice", withRetry(deleteNote("p1"), state, answer(key, "decline")), el)
	if e != nil || !strings.Contains(fmt.Sprint(res["content"]), "deleted p1") {
		t.Fatalf("approved in the panel, the retry: %v / %v", res, e)
	}
	if rec := ar.lastAudit(t, "p1"); rec.Status != "ok" {
		t.Errorf("audit: %+v", rec)
	}

	// The panel denies: the retry gets approval_denied by the UI.
	res, e = post("alice", deleteNote("p2"), el)
	key, state = approvalAsked(t, res, e)
	if err := ar.panel.Decide(pendingOne().ID, approval.Deny); err != nil {
		t.Fatal(err)
	}
	_, e = post("alice", withRetry(deleteNote("p2"), state, answer(key, "accept")), el)
	if e == nil || e["code"].(float64) != pipeline.CodeApprovalDenied || !strings.Contains(fmt.Sprint(e["message"]), "denied by the UI") {
		t.Fatalf("denied in the panel, the retry: %v", e)
	}

	// The client answers first: the call leaves the panel.
	res, e = post("alice", deleteNote("c1"), el)
	key, state = approvalAsked(t, res, e)
	p = pendingOne()
	res, e = post("alice", withRetry(deleteNote("c1"), state, answer(key, "accept")), el)
	if e != nil || !strings.Contains(fmt.Sprint(res["content"]), "deleted c1") {
		t.Fatalf("accepted by the client: %v / %v", res, e)
	}
	if err := ar.panel.Decide(p.ID, approval.Deny); !errors.Is(err, approval.ErrUnknown) {
		t.Errorf("deciding in the panel after the client answered: %v", err)
	}
	if n := len(ar.panel.Pending()); n != 0 {
		t.Errorf("%d calls still in the panel", n)
	}

	// The retry cannot swap what was approved: the held call runs with
	// the arguments the question showed, whatever arguments the retry
	// carries.
	res, e = post("alice", deleteNote("shown"), el)
	key, state = approvalAsked(t, res, e)
	res, e = post("alice", withRetry(deleteNote("swapped"), state, answer(key, "accept")), el)
	if e != nil || !strings.Contains(fmt.Sprint(res["content"]), "deleted shown") {
		t.Fatalf("a retry with other arguments: %v / %v", res, e)
	}
	ar.mu.Lock()
	for _, rec := range ar.audit {
		if strings.Contains(string(rec.Arguments), "swapped") {
			t.Errorf("the swapped arguments reached the policy: %+v", rec)
		}
	}
	ar.mu.Unlock()

	// No elicitation declared: today's answer, and nothing listed.
	_, e = post("alice", deleteNote("n1"), map[string]any{})
	if e == nil || rpcReason(e) != pipeline.ReasonApprovalUnavailable {
		t.Fatalf("a client without elicitation: %v", e)
	}
	if n := len(ar.panel.Pending()); n != 0 {
		t.Errorf("a client without elicitation: %d calls listed", n)
	}

	// Held calls are bounded per credential: a second question while one
	// waits is past the cap; its call is cancelled and leaves the panel.
	ar.gw.held.perCredential = 1
	res, e = post("carol", deleteNote("b1"), el)
	key, state = approvalAsked(t, res, e)
	_, e = post("carol", deleteNote("b2"), el)
	if e == nil || rpcReason(e) != pipeline.ReasonHeldLimit {
		t.Fatalf("past the per-credential cap: %v", e)
	}
	pendingOne()
	res, e = post("carol", withRetry(deleteNote("b1"), state, answer(key, "accept")), el)
	if e != nil || !strings.Contains(fmt.Sprint(res["content"]), "deleted b1") {
		t.Fatalf("the call within the cap: %v / %v", res, e)
	}
	if n := ar.held(); n != 0 {
		t.Errorf("%d calls still held", n)
	}
}

// TestApprovalQuestionTimesOutForAStatelessClient: the rule's timeout
// bounds the input_required question as it bounds a session client's:
// nobody answering, the call is refused with approval_timeout, the late
// retry gets that refusal (the held call keeps the outcome past the
// timeout) and the panel's entry is gone. The held call waits the
// approval timeout, not mrtrHeldWait, when that is longer.
func TestApprovalQuestionTimesOutForAStatelessClient(t *testing.T) {
	ar := newApprovalRig(t, 1, rigOptions{})
	ar.gw.held.wait = 500 * time.Millisecond // shorter than the rule's 1 s
	el := map[string]any{"elicitation": map[string]any{}}
	res, e := mrtrPost(t, ar.url, "tools/call", "notes__delete_note", deleteNote("t1"), el)
	key, state := approvalAsked(t, res, e)
	time.Sleep(1300 * time.Millisecond)
	if n := len(ar.panel.Pending()); n != 0 {
		t.Errorf("after the timeout: %d calls in the panel", n)
	}
	_, e = mrtrPost(t, ar.url, "tools/call", "notes__delete_note", withRetry(deleteNote("t1"), state, answer(key, "accept")), el)
	if e == nil || e["code"].(float64) != pipeline.CodeApprovalTimeout {
		t.Fatalf("the retry after the approval timeout: want approval_timeout, got %v", e)
	}
	if rec := ar.lastAudit(t, "t1"); rec.Status != "blocked" || !strings.Contains(rec.Error, "nobody approved") {
		t.Errorf("audit: %+v", rec)
	}
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), "ttlMs") {
		t.Errorf("an input_required result carries cache hints: %s", raw)
	}
}

// A held call's question whose asker stops waiting (the panel decided the
// approval first; its timeout ended) is withdrawn: the next input_required
// answer does not carry it again.
func TestAWithdrawnQuestionIsNotAskedAgain(t *testing.T) {
	c := newHeldCall(func() {}, "o")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.askUntil(ctx, string(mcp.MethodElicitationCreate), mcp.ElicitationParams{Message: "ok?"}, time.Now().Add(time.Minute))
		done <- err
	}()
	open := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.pending)
	}
	testpeers.Eventually(t, 5*time.Second, "the question open", func() bool { return open() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("ask: %v", err)
	}
	if n := open(); n != 0 {
		t.Fatalf("%d questions still open after their asker stopped waiting", n)
	}
}

// TestAnOpenUIIsAskedBeforeAStatelessClient: with a UI open the panel
// alone decides, for a 2026-07-28 client as for a session client: the
// client that declared elicitation gets no question (its request waits
// for the UI's answer), so a client that accepts every elicitation cannot
// approve its own calls while someone watches the panel.
func TestAnOpenUIIsAskedBeforeAStatelessClient(t *testing.T) {
	ar := newApprovalRig(t, 30, rigOptions{})
	defer ar.panel.AttachUI()()
	el := map[string]any{"elicitation": map[string]any{}}
	type reply struct{ res, err map[string]any }
	got := make(chan reply, 1)
	go func() {
		res, e := mrtrPost(t, ar.url, "tools/call", "notes__delete_note", deleteNote("u1"), el)
		got <- reply{res, e}
	}()
	var l []approval.Pending
	testpeers.Eventually(t, 10*time.Second, "the call in the panel", func() bool {
		l = ar.panel.Pending()
		return len(l) == 1
	})
	select {
	case r := <-got:
		t.Fatalf("the client was answered while the UI decides: %v / %v", r.res, r.err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := ar.panel.Decide(l[0].ID, approval.Deny); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err == nil || !strings.Contains(fmt.Sprint(r.err["message"]), "denied by the UI") {
		t.Fatalf("denied in the UI: %v / %v", r.res, r.err)
	}
}

// TestApprovalThenTheUpstreamsOwnQuestion: the approval question and an
// upstream's own mid-call question are rounds of one multi-round trip.
// The go-sdk v1.8.0 client on 2026-07-28 calls the go-sdk everything
// server's test_elicitation (which asks the client itself) under a rule
// that wants approval: it is asked the router's question, then the
// upstream's, and gets the result. And when the panel approves while the
// client thinks, the client's retry gets only the upstream's question.
func TestApprovalThenTheUpstreamsOwnQuestion(t *testing.T) {
	ar := newApprovalRigWith(t, 30, rigOptions{allClientSide: true}, goEverythingUpstream(t, "goev", spec.Stdio), "goev__test_elicitation")
	var asked []string
	c := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-modern", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			if req.Params.Message == "who are you?" {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada"}}, nil
			}
			return &sdk.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ar.url, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "goev__test_elicitation", Arguments: map[string]any{"message": "who are you?"}})
	if err != nil || res.IsError || !strings.Contains(fmt.Sprint(res.Content[0].(*sdk.TextContent).Text), "ada") {
		t.Fatalf("approved, then answered: %+v %v", res, err)
	}
	if len(asked) != 2 || !strings.Contains(asked[0], `policy "guard"`) || asked[1] != "who are you?" {
		t.Fatalf("asked %q, want the approval, then the upstream's question", asked)
	}

	// The panel approves while the client thinks about the approval.
	el := map[string]any{"elicitation": map[string]any{}}
	params := map[string]any{"name": "goev__test_elicitation", "arguments": map[string]any{"message": "who are you?"}}
	r, e := mrtrPost(t, ar.url, "tools/call", "goev__test_elicitation", params, el)
	key, state := approvalAsked(t, r, e)
	var l []approval.Pending
	testpeers.Eventually(t, 10*time.Second, "the call in the panel", func() bool {
		l = ar.panel.Pending()
		return len(l) == 1
	})
	if err := ar.panel.Decide(l[0].ID, approval.Approve); err != nil {
		t.Fatal(err)
	}
	r, e = mrtrPost(t, ar.url, "tools/call", "goev__test_elicitation", withRetry(params, state, answer(key, "accept")), el)
	reqs, _ := r["inputRequests"].(map[string]any)
	if e != nil || r["resultType"] != "input_required" || len(reqs) != 1 || reqs[key] != nil ||
		!strings.Contains(fmt.Sprint(reqs), "who are you?") {
		t.Fatalf("after the panel approved: want only the upstream's question, got %v / %v", r, e)
	}
}
