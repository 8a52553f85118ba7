package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-router/mcp-router/backend/approval"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
)

// ErrCannotElicit: the calling client cannot be asked (no session, or it
// did not declare elicitation).
var ErrCannotElicit = errors.New("the client did not declare elicitation")

// ByClient is who decided when the client answered the approval question
// (the log, the audit trail, the error's data.decidedBy).
const ByClient = "the client (elicitation)"

// ApprovalRequest is what a person is asked to approve.
type ApprovalRequest struct {
	Rule, Client, Server, Tool, Target string
	Arguments                          string // JSON
}

// maxShownArguments bounds the arguments quoted in the question.
const maxShownArguments = 2000

// Approve is the policy's Ask (policy.Options.Ask; core wires it to the
// router's approval panel): who is asked about a call a human_approval
// rule matched. The panel first, when a UI is attached (it decides alone;
// a call always-allowed there passes at once). Else the calling client by
// elicitation, when it declared it: a client with a session gets an
// elicitation/create request during the call; a 2026-07-28 client gets
// the question in an input_required result, and the call is listed in the
// panel as well, where a UI opened meanwhile may decide it (the first
// answer counts; approveAlongside). Else nobody (policy.ErrCannotAsk). A
// call that waited in a UI that went away falls back the same way, within
// what is left of its timeout (ctx keeps the deadline).
func (g *Gateway) Approve(ctx context.Context, panel *approval.Broker, a policy.Approval) (ans policy.Answer, err error) {
	if g.o.Tracer != nil {
		// The wait for a person, inside the policy step's span.
		var span trace.Span
		ctx, span = g.o.Tracer.Start(ctx, pipeline.SpanApprovalWait, trace.SpanKindInternal,
			attribute.String(pipeline.AttrPolicyRule, a.Rule))
		defer func() {
			span.SetAttributes(attribute.Bool(pipeline.AttrApproved, err == nil && ans.Approved))
			span.End()
		}()
	}
	return g.approve(ctx, panel, a)
}

func (g *Gateway) approve(ctx context.Context, panel *approval.Broker, a policy.Approval) (policy.Answer, error) {
	req := approval.Request{Rule: a.Rule, Client: a.Client, Subject: a.Subject, Server: a.Server,
		Tool: a.Tool, Target: a.Target, Arguments: a.Arguments}
	ans, err := panel.Ask(ctx, req)
	uiGone := errors.Is(err, approval.ErrUIGone)
	if !errors.Is(err, approval.ErrNoUI) && !uiGone {
		return policy.Answer{Approved: ans.Approved, By: ans.By}, err
	}
	if uiGone {
		g.log.Infof("approval: the UI asked about %s for %q (policy %q) went away; the client is asked instead if it declared elicitation",
			a.Target, a.Client, a.Rule)
	}
	q := ApprovalRequest{Rule: a.Rule, Client: a.Client, Server: a.Server, Tool: a.Tool, Target: a.Target, Arguments: string(a.Arguments)}
	if held := heldCallFrom(ctx); held != nil && a.Session != nil && declares(a.Session, "elicitation") {
		return g.approveAlongside(ctx, panel, held, req, q)
	}
	ok, err := g.AskApproval(ctx, a.Session, q)
	if errors.Is(err, ErrCannotElicit) {
		if uiGone {
			return policy.Answer{}, policy.ErrUIGone
		}
		return policy.Answer{}, policy.ErrCannotAsk
	}
	return policy.Answer{Approved: ok, By: ByClient}, err
}

// approveAlongside asks a 2026-07-28 client (its call held, mrtr.go) and
// the panel at once: the client by an input_required result carrying the
// question, the panel by listing the call (shown by a UI attached later).
// The first answer counts and the other question is withdrawn: the panel's
// entry leaves the list (deciding it then fails), and the client's
// question is dropped from the held call, so its retry — whatever it
// answers — gets what the call did next (the result, or the refusal). The
// question waits until ctx's deadline (the approval timeout), and the held
// call with it.
func (g *Gateway) approveAlongside(ctx context.Context, panel *approval.Broker, held *heldCall, req approval.Request, q ApprovalRequest) (policy.Answer, error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		ans policy.Answer
		err error
	}
	out := make(chan outcome, 2)
	go func() {
		a, err := panel.AskAlongside(actx, req)
		out <- outcome{policy.Answer{Approved: a.Approved, By: a.By}, err}
	}()
	go func() {
		until, _ := ctx.Deadline()
		raw, err := held.askUntil(actx, string(mcp.MethodElicitationCreate), approvalQuestion(ctx, q), until)
		if err != nil {
			out <- outcome{err: err}
			return
		}
		var res mcp.ElicitationResult
		if err := json.Unmarshal(raw, &res); err != nil {
			out <- outcome{err: fmt.Errorf("the client's answer to the approval question: %w", err)}
			return
		}
		out <- outcome{ans: policy.Answer{Approved: res.Action == mcp.ElicitationResponseActionAccept, By: ByClient}}
	}()
	first := <-out
	cancel()
	<-out // the other is withdrawn before the call goes on
	if first.err != nil && ctx.Err() != nil {
		return policy.Answer{}, ctx.Err()
	}
	return first.ans, first.err
}

// AskApproval asks the client of session, with elicitation/create, whether
// the call may go ahead: accept approves, decline and cancel deny. It
// waits until the client answers or ctx ends; the question says how long
// that leaves (whole seconds, rounded down) when ctx has a deadline.
func (g *Gateway) AskApproval(ctx context.Context, session server.ClientSession, a ApprovalRequest) (bool, error) {
	if session == nil || !declares(session, "elicitation") {
		return false, ErrCannotElicit
	}
	res, err := g.srv.RequestElicitation(g.srv.WithContext(ctx, session), mcp.ElicitationRequest{Params: approvalQuestion(ctx, a)})
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, err
	}
	return res.Action == mcp.ElicitationResponseActionAccept, nil
}

// approvalQuestion is the elicitation a client is asked to approve a call
// with: which rule, client, server, tool and arguments, and the seconds
// left when ctx has a deadline.
func approvalQuestion(ctx context.Context, a ApprovalRequest) mcp.ElicitationParams {
	args := a.Arguments
	if len(args) > maxShownArguments {
		args = args[:maxShownArguments] + "…"
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	msg := fmt.Sprintf("MCP Router: policy %q asks you to approve a tool call.\n\nClient: %s\nServer: %s\nTool: %s (%s)\nArguments: %s\n\nAccept to let it run; decline to refuse it.",
		a.Rule, a.Client, a.Server, a.Tool, a.Target, args)
	if d, ok := ctx.Deadline(); ok {
		msg += fmt.Sprintf(" Without an answer within %d s it is refused.", max(int(time.Until(d)/time.Second), 0))
	}
	return mcp.ElicitationParams{Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}
}
