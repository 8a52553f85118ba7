package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// AuditRecord is one call a log_level: audit rule matched, as it ended.
type AuditRecord struct {
	Time            time.Time
	Client, Subject string
	Server          string
	Tool, Target    string   // the upstream's own name; the name the client called
	Policies        []string // the audit rules that matched
	Arguments       json.RawMessage
	Status          string // ok, error (the call failed or the tool answered isError: see Result), blocked
	Result          json.RawMessage
	Error           string
}

var _ pipeline.Step = (*Policy)(nil)

// DefaultProfile is the name match.profiles knows plain /mcp by (no profile
// may take it: backend/profile reserves it).
const DefaultProfile = "default"

func profileName(p string) string {
	if p == "" {
		return DefaultProfile
	}
	return p
}

// input is what rules are matched against.
type input struct {
	client, subject      string // the token's name (or "local", "chat"); a JWT's subject
	profile              string // the profile the request came through; DefaultProfile for plain /mcp
	server, item, target string // the upstream; its own name of the tool; the router's name
	permission           string // an ability's permission; "" for other requests
}

// applies reports whether the rule's match covers the request. A rule
// that matches tools covers tool calls (and the tools of tools/list) only.
func (r *rule) applies(in *input, isTool bool) bool {
	if r.hasClients && !r.clients.Match(in.client) && (in.subject == "" || !r.clients.Match(in.subject)) {
		return false
	}
	if r.hasProfiles && !r.profiles.Match(profileName(in.profile)) {
		return false
	}
	if r.hasServers && !r.servers.Match(in.server) {
		return false
	}
	if r.hasPermissions && (!isTool || !r.permissions[in.permission]) {
		return false
	}
	if r.hasTools && (!isTool || !r.tools.Match(in.item) && !r.tools.Match(in.target)) {
		return false
	}
	return true
}

// deniesServer reports whether the rule's servers: refuses server: a server
// in allow passes; else one in deny is refused; with allow alone, every
// server not in it is refused.
func (r *rule) deniesServer(server string) bool {
	if !r.hasServerList || r.allow.Match(server) {
		return false
	}
	if r.Servers.Deny == nil {
		return r.Servers.Allow != nil
	}
	return r.deny.Match(server)
}

func (r *rule) hides(in *input) bool {
	return r.hasHide && (r.hide.Match(in.item) || r.hide.Match(in.target))
}

// Serve implements pipeline.Step: lists lose what the policy denies or
// hides; a routed request to a denied server, a call to a hidden tool,
// a call that needs approval and a call over a rate limit are refused;
// the rest go on, a limited call spending its tokens as it is sent.
func (p *Policy) Serve(ctx context.Context, r *pipeline.Request, next pipeline.Handler) (pipeline.Result, error) {
	in := input{client: r.Caller.Name, subject: r.Caller.Subject, profile: r.Caller.Profile}
	if r.List != nil {
		isTools := r.Method == pipeline.MethodToolsList
		if p.anyServers || isTools && p.anyHide {
			r.List.Keep(func(it pipeline.ListItem) bool {
				in.server, in.item, in.target, in.permission = it.Server, it.Item, it.Name, it.Permission
				return p.listed(&in, isTools)
			})
		}
		return next(ctx, r)
	}
	isTool := r.Method == pipeline.MethodToolsCall
	in.server, in.item, in.target, in.permission = r.Server, r.Item, r.Target, r.Permission
	var limitedBuf [4]*rule
	limited := limitedBuf[:0]
	var approval *rule
	var audits []string
	var refusal *pipeline.RouteError
	for _, ru := range p.rules {
		if !ru.applies(&in, isTool) {
			continue
		}
		if refusal == nil && ru.deniesServer(in.server) {
			refusal = deniedServer(r, ru)
		}
		if !isTool {
			if refusal != nil {
				break
			}
			continue
		}
		if refusal == nil && ru.hides(&in) {
			refusal = deniedTool(r, ru)
		}
		if ru.approval && approval == nil {
			approval = ru
		}
		if ru.buckets != nil {
			limited = append(limited, ru)
		}
		if ru.audit {
			audits = append(audits, ru.Name)
		}
	}
	if refusal == nil && len(limited) > 0 {
		// Refuse at once when a bucket is empty; spend the tokens only as
		// the call is sent (pipeline.WithAdmit), after the hooks, so a call
		// a hook refuses costs none.
		if p.shared != nil {
			refusal = p.sharedCheck(ctx, r, limited, &in, false)
			if refusal == nil {
				admitCtx := ctx
				ctx = pipeline.WithAdmit(ctx, func() error {
					if re := p.sharedCheck(admitCtx, r, limited, &in, true); re != nil {
						return re
					}
					return nil
				})
			}
		} else {
			now := p.now()
			for _, ru := range limited {
				if wait := ru.buckets.wait(bucketKey(ru.per, &in), now); wait > 0 {
					refusal = rateLimited(r, ru, wait)
					break
				}
			}
			if refusal == nil {
				ctx = pipeline.WithAdmit(ctx, func() error { return p.spend(r, limited, &in) })
			}
		}
	}
	// A person is asked last: never about a call the policy refuses anyway.
	// The wait comes before the upstream request, so it does not count
	// against the upstream's timeout.
	if refusal == nil && approval != nil {
		if err := p.approve(ctx, r, approval); err != nil {
			var re *pipeline.RouteError
			if !errors.As(err, &re) {
				return pipeline.Result{}, err
			}
			refusal = re
		}
	}
	if audits == nil || p.audit == nil {
		if refusal != nil {
			return pipeline.Result{}, refusal
		}
		return next(ctx, r)
	}
	// An audited call: recorded with what it got, refused or not.
	rec := AuditRecord{Time: time.Now(), Client: r.Caller.Name, Subject: r.Caller.Subject, Server: r.Server, Tool: r.Item,
		Target: r.Target, Policies: audits, Arguments: append(json.RawMessage(nil), r.Args...)}
	var res pipeline.Result
	var err error
	if refusal != nil {
		err = refusal
	} else {
		res, err = next(ctx, r)
	}
	rec.Status = "ok"
	var re *pipeline.RouteError
	var b *hook.Block
	switch {
	case err != nil && (errors.As(err, &b) || errors.As(err, &re) && pipeline.PolicyRefusal(re.Reason)):
		rec.Status, rec.Error = "blocked", err.Error()
	case err != nil:
		rec.Status, rec.Error = "error", err.Error()
	case res.Refusal != "":
		rec.Status, rec.Error = "blocked", res.Refusal
	default:
		raw, jerr := res.JSON()
		if jerr != nil {
			rec.Status, rec.Error = "error", jerr.Error()
		}
		rec.Result = raw
	}
	if aerr := p.audit(context.WithoutCancel(ctx), rec); aerr != nil {
		p.log.Errorf("policy: the audit record of %s by %q was not written: %v", r.Target, r.Caller.Name, aerr)
	}
	return res, err
}

// spend takes one token from each limited rule's bucket, all or none.
func (p *Policy) spend(r *pipeline.Request, limited []*rule, in *input) error {
	now := p.now()
	var resBuf [4]*rate.Reservation
	res := resBuf[:0]
	for _, ru := range limited {
		rv := ru.buckets.get(bucketKey(ru.per, in), now).ReserveN(now, 1)
		if d := rv.DelayFrom(now); !rv.OK() || d > 0 {
			rv.CancelAt(now)
			for _, prev := range res {
				prev.CancelAt(now)
			}
			return rateLimited(r, ru, d)
		}
		res = append(res, rv)
	}
	return nil
}

// listed reports whether a list candidate stays: its server is not denied
// and, for a tool, no rule hides it.
func (p *Policy) listed(in *input, isTool bool) bool {
	for _, ru := range p.rules {
		if (ru.hasServerList || isTool && ru.hasHide) && ru.applies(in, isTool) {
			if ru.deniesServer(in.server) || isTool && ru.hides(in) {
				return false
			}
		}
	}
	return true
}

func deniedServer(r *pipeline.Request, ru *rule) *pipeline.RouteError {
	return &pipeline.RouteError{Server: r.Server, Reason: pipeline.ReasonDenied, Code: pipeline.CodeDenied,
		What:  fmt.Sprintf("denied by policy %q: this server is not allowed", ru.Name),
		Extra: map[string]any{"policy": ru.Name}}
}

func deniedTool(r *pipeline.Request, ru *rule) *pipeline.RouteError {
	return &pipeline.RouteError{Server: r.Server, Reason: pipeline.ReasonDenied, Code: pipeline.CodeDenied,
		What:  fmt.Sprintf("denied by policy %q: tool '%s' is hidden", ru.Name, r.Target),
		Extra: map[string]any{"policy": ru.Name}}
}

func approvalUnavailable(r *pipeline.Request, ru *rule) *pipeline.RouteError {
	return &pipeline.RouteError{Server: r.Server, Reason: pipeline.ReasonApprovalUnavailable, Code: pipeline.CodeApproval,
		What:  fmt.Sprintf("policy %q requires a person's approval for '%s', and nobody can be asked (no UI is open and the client did not declare elicitation)", ru.Name, r.Target),
		Extra: map[string]any{"policy": ru.Name}}
}

func rateLimited(r *pipeline.Request, ru *rule, wait time.Duration) *pipeline.RouteError {
	ms := (wait + time.Millisecond - 1) / time.Millisecond
	if ms < 1 {
		ms = 1
	}
	return &pipeline.RouteError{Server: r.Server, Reason: pipeline.ReasonRateLimited, Code: pipeline.CodeRateLimited,
		What: fmt.Sprintf("rate limited by policy %q (%d calls a minute per %s); retry in %d ms",
			ru.Name, ru.Limit.RequestsPerMinute, ru.per, ms),
		Extra: map[string]any{"policy": ru.Name, "retryAfterMs": int64(ms)}}
}
