package pipeline

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-router/mcp-router/backend/tracing"
)

// Span attributes of the router's spans (docs/metrics.md, "Traces"). They
// name the request, never its arguments, results or credentials.
const (
	AttrMethod      = "mcp.method.name"
	AttrTool        = "mcp.tool.name" // the name the client used
	AttrServer      = "mcp.server"    // the upstream server
	AttrProfile     = "mcp.profile"
	AttrStatus      = "mcp.status" // ok, error or blocked, as the request log
	AttrErrorCode   = "rpc.jsonrpc.error_code"
	AttrErrorReason = "mcp.error.reason"
	AttrModern      = "mcp.stateless"   // a 2026-07-28 request
	AttrTransport   = "mcp.transport"   // the upstream's transport: stdio, http, sse
	AttrPolicyRule  = "mcp.policy.rule" // the rule that asked for an approval
	AttrApproved    = "mcp.approval.approved"
)

// Span names of the chain's parts.
const (
	SpanPrefix     = "mcp "                // + method: the client's request
	SpanStepPrefix = "mcp.step."           // + step role (identity, gate, policy, hooks, …)
	SpanHooksPost  = "mcp.step.hooks.post" // the post hooks, after the answer came back
	SpanUpstream   = "mcp.upstream"        // the request to the upstream server
	SpanListMerge  = "mcp.list.merge"      // a list answered from the servers' catalogs
	// SpanApprovalWait: the wait for a person's approval (the UI's or
	// the client's), a child of the policy step's span.
	SpanApprovalWait = "mcp.approval.wait"
)

// traced builds the chain with spans: the client's request (a server span,
// child of the trace context the client sent), one span per step for the
// step's own work (the policy's includes an approval wait), the upstream
// request or list merge, and the post hooks.
func traced(t *tracing.Tracer, s Steps, send Handler) Handler {
	h := tracedSend(t, admitted(send))
	roles := []struct {
		name string
		step Step
	}{{"hooks", s.Hooks}, {"policy", s.Policy}, {"gate", s.Gate}, {"prepare", prepare},
		{"discovery", s.Discovery}, {"identity", s.Identity}}
	for _, st := range roles {
		if st.step == nil {
			continue
		}
		h = tracedStep(t, st.name, st.step, h)
	}
	if s.Log != nil {
		h = link(s.Log, h)
	}
	return serverSpan(t, h)
}

// serverSpan is the span of the client's request. Its parent is the
// traceparent of the request's _meta, else the one of the HTTP request
// (put in ctx by the endpoint), else none; a request served inside
// another (a search profile's call_tool) is a child of that one.
func serverSpan(t *tracing.Tracer, next Handler) Handler {
	return func(ctx context.Context, r *Request) (Result, error) {
		kind := trace.SpanKindServer
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() && !sc.IsRemote() {
			kind = trace.SpanKindInternal
		} else if r.Meta != nil {
			ctx = tracing.FromMeta(ctx, r.Meta.AdditionalFields)
		}
		ctx, span := t.Start(ctx, SpanPrefix+r.Method, kind, attribute.String(AttrMethod, r.Method))
		defer span.End()
		res, err := next(ctx, r)
		if span.IsRecording() {
			endRequest(span, r, res, err)
		}
		return res, err
	}
}

func endRequest(span trace.Span, r *Request, res Result, err error) {
	attrs := make([]attribute.KeyValue, 0, 6)
	if r.Server != "" {
		attrs = append(attrs, attribute.String(AttrServer, r.Server))
	}
	if r.Method == MethodToolsCall && r.Target != "" {
		attrs = append(attrs, attribute.String(AttrTool, r.Target))
	}
	if r.Caller.Profile != "" {
		attrs = append(attrs, attribute.String(AttrProfile, r.Caller.Profile))
	}
	if r.Client.Modern {
		attrs = append(attrs, attribute.Bool(AttrModern, true))
	}
	status := "ok"
	switch {
	case err != nil:
		status = "error"
		var re *RouteError
		if errors.As(err, &re) {
			if PolicyRefusal(re.Reason) {
				status = "blocked"
			}
			attrs = append(attrs, attribute.Int(AttrErrorCode, re.Code), attribute.String(AttrErrorReason, re.Reason))
		}
		// The reason, not the message: an upstream's message may quote
		// the arguments.
		span.SetStatus(codes.Error, status)
	case res.Refusal != "":
		status = "blocked"
	}
	attrs = append(attrs, attribute.String(AttrStatus, status))
	span.SetAttributes(attrs...)
}

// tracedStep times a step's own work: its span ends when the step hands
// the request on, and the rest of the chain runs under the request's span
// again. The hooks' post hooks get a span of their own.
func tracedStep(t *tracing.Tracer, role string, s Step, next Handler) Handler {
	name := SpanStepPrefix + role
	return func(ctx context.Context, r *Request) (Result, error) {
		parent := trace.SpanFromContext(ctx)
		sctx, span := t.Start(ctx, name, trace.SpanKindInternal)
		handed := false
		var post trace.Span
		res, err := s.Serve(sctx, r, func(ctx context.Context, r *Request) (Result, error) {
			if !handed {
				handed = true
				span.End()
			}
			res, err := next(trace.ContextWithSpan(ctx, parent), r)
			if role == "hooks" && post == nil {
				_, post = t.Start(trace.ContextWithSpan(ctx, parent), SpanHooksPost, trace.SpanKindInternal)
			}
			return res, err
		})
		if post != nil {
			post.End()
		}
		if !handed {
			// The step answered or refused itself.
			if err != nil {
				span.SetStatus(codes.Error, "refused")
			}
			span.End()
		}
		return res, err
	}
}

// tracedSend is the upstream request's span (a client span: the upstream
// is a child of it, through the traceparent the send step passes on), or
// a list merge's.
func tracedSend(t *tracing.Tracer, send Handler) Handler {
	return func(ctx context.Context, r *Request) (Result, error) {
		name, kind := SpanUpstream, trace.SpanKindClient
		if r.List != nil {
			name, kind = SpanListMerge, trace.SpanKindInternal
		}
		ctx, span := t.Start(ctx, name, kind, attribute.String(AttrMethod, r.Method))
		defer span.End()
		if r.Server != "" {
			span.SetAttributes(attribute.String(AttrServer, r.Server))
		}
		res, err := send(ctx, r)
		if err != nil {
			span.SetStatus(codes.Error, "error")
		}
		return res, err
	}
}
