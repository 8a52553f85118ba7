package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// Approval is a call waiting for a person's answer.
type Approval struct {
	Rule            string
	Client, Subject string
	Server          string
	Tool, Target    string // the upstream's own name; the name the client called
	Arguments       json.RawMessage
	// Session is the calling client's session (nil for a sessionless
	// client): the one asked by elicitation.
	Session server.ClientSession
}

// Answer is a person's decision.
type Answer struct {
	Approved bool
	By       string // who decided, for the log: "the client (elicitation)", …
}

// ErrCannotAsk: no way to ask a person about this call (no UI attached,
// and a client that did not declare elicitation).
var ErrCannotAsk = errors.New("nobody can be asked")

// ErrUIGone: the call waited in a UI that went away (no UI attached
// again in time), and the client cannot be asked instead (it did not
// declare elicitation). Refused as approval_unavailable, saying so.
var ErrUIGone = errors.New("the UI that was asked went away, and the client did not declare elicitation")

// approve asks for the approval ru wants, within its timeout. nil: approved.
func (p *Policy) approve(ctx context.Context, r *pipeline.Request, ru *rule) error {
	if p.ask == nil {
		return approvalUnavailable(r, ru)
	}
	timeout := ru.approvalTimeout
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
		if p.approvalTimeout != nil {
			if t := p.approvalTimeout(); t > 0 {
				timeout = t
			}
		}
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	ans, err := p.ask(actx, Approval{Rule: ru.Name, Client: r.Caller.Name, Subject: r.Caller.Subject, Server: r.Server,
		Tool: r.Item, Target: r.Target, Arguments: r.Args, Session: r.Client.Session})
	switch {
	case errors.Is(err, ErrCannotAsk):
		return approvalUnavailable(r, ru)
	case errors.Is(err, ErrUIGone) && ctx.Err() == nil:
		p.log.Infof("policy: %s for %q (policy %q) refused after %v: the UI that was asked went away and the client cannot be asked by elicitation",
			r.Target, r.Caller.Name, ru.Name, time.Since(start).Round(time.Millisecond))
		return &pipeline.RouteError{Server: r.Server, Reason: pipeline.ReasonApprovalUnavailable, Code: pipeline.CodeApproval,
			What:  fmt.Sprintf("policy %q requires a person's approval for '%s', and nobody can be asked any more: the UI that was asked went away (closed before anyone answered) and the client did not declare elicitation", ru.Name, r.Target),
			Extra: map[string]any{"policy": ru.Name}}
	case ctx.Err() != nil:
		// The client cancelled the call: the request is withdrawn.
		p.log.Infof("policy: approval of %s for %q withdrawn: the client cancelled the call", r.Target, r.Caller.Name)
		return pipeline.Upstream(r.Server, ctx.Err())
	case actx.Err() != nil:
		p.log.Infof("policy: %s for %q (policy %q) denied by timeout: nobody answered within %v", r.Target, r.Caller.Name, ru.Name, timeout)
		return &pipeline.RouteError{Server: r.Server, Reason: pipeline.ReasonApprovalTimeout, Code: pipeline.CodeApprovalTimeout,
			What:  fmt.Sprintf("policy %q: nobody approved '%s' within %v", ru.Name, r.Target, timeout),
			Extra: map[string]any{"policy": ru.Name}}
	case err != nil:
		p.log.Warnf("policy: could not ask for the approval of %s for %q: %v", r.Target, r.Caller.Name, err)
		return approvalUnavailable(r, ru)
	}
	verdict := "denied"
	if ans.Approved {
		verdict = "approved"
	}
	p.log.Infof("policy: %s for %q (policy %q) %s by %s after %v", r.Target, r.Caller.Name, ru.Name, verdict, ans.By,
		time.Since(start).Round(time.Millisecond))
	if !ans.Approved {
		return &pipeline.RouteError{Server: r.Server, Reason: pipeline.ReasonApprovalDenied, Code: pipeline.CodeApprovalDenied,
			What:  fmt.Sprintf("policy %q: '%s' was denied by %s", ru.Name, r.Target, ans.By),
			Extra: map[string]any{"policy": ru.Name, "decidedBy": ans.By}}
	}
	return nil
}

// MayAsk reports whether a call of the tool by c would wait for a person
// under the policy in force (a human_approval rule matches it).
func (s *Service) MayAsk(c pipeline.Caller, server, item, target string) bool {
	p := s.cur.Load()
	if p == nil {
		return false
	}
	in := input{client: c.Name, subject: c.Subject, profile: c.Profile, server: server, item: item, target: target}
	for _, ru := range p.rules {
		if ru.approval && ru.applies(&in, true) {
			return true
		}
	}
	return false
}
