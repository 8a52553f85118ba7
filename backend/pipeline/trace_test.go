package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-router/mcp-router/backend/tracing"
)

func memTracer(t *testing.T) (*tracing.Tracer, func() tracetest.SpanStubs) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tr := tracing.New(exp, tracing.Config{SampleRatio: 1})
	t.Cleanup(func() { _ = tr.Close() })
	return tr, func() tracetest.SpanStubs {
		if err := tr.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		return exp.GetSpans()
	}
}

func stub(spans tracetest.SpanStubs, name string) *tracetest.SpanStub {
	for i := range spans {
		if spans[i].Name == name {
			return &spans[i]
		}
	}
	return nil
}

func attr(s *tracetest.SpanStub, key string) attribute.Value {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value
		}
	}
	return attribute.Value{}
}

// A step's span covers its own work only: the policy's covers its wait
// (an approval), not the upstream call after it; the post hooks have their
// own span after the upstream's; each is a child of the request's span.
func TestStepSpansCoverTheStepsOwnWork(t *testing.T) {
	tr, spans := memTracer(t)
	const wait = 30 * time.Millisecond
	policy := StepFunc(func(ctx context.Context, r *Request, next Handler) (Result, error) {
		time.Sleep(wait) // an approval wait
		return next(ctx, r)
	})
	hooks := StepFunc(func(ctx context.Context, r *Request, next Handler) (Result, error) {
		res, err := next(ctx, r)
		time.Sleep(wait) // the post hooks
		return res, err
	})
	send := func(ctx context.Context, r *Request) (Result, error) {
		time.Sleep(2 * wait)
		return Result{Raw: json.RawMessage(`{"content":[]}`)}, nil
	}
	c := New(Steps{Identity: Identity{}, Policy: policy, Hooks: hooks, Tracer: tr}, send)
	if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "s", Item: "t", Target: "s__t",
		Args: json.RawMessage(`{"password":"hunter2"}`)}); err != nil {
		t.Fatal(err)
	}
	got := spans()
	req := stub(got, SpanPrefix+MethodToolsCall)
	pol, post, up := stub(got, SpanStepPrefix+"policy"), stub(got, SpanHooksPost), stub(got, SpanUpstream)
	if req == nil || pol == nil || post == nil || up == nil || stub(got, SpanStepPrefix+"identity") == nil {
		t.Fatalf("spans %v", names(got))
	}
	for _, s := range got {
		if s.Name != req.Name && s.Parent.SpanID() != req.SpanContext.SpanID() {
			t.Errorf("%s is not a child of the request's span", s.Name)
		}
	}
	if d := pol.EndTime.Sub(pol.StartTime); d < wait {
		t.Errorf("the policy span lasted %v, shorter than its own wait %v", d, wait)
	}
	if pol.EndTime.After(up.StartTime) || post.StartTime.Before(up.EndTime) {
		t.Error("the policy span overlaps the upstream's, or the post hooks' starts before it ended")
	}
	if d := post.EndTime.Sub(post.StartTime); d < wait {
		t.Errorf("the post hooks' span lasted %v", d)
	}
	if attr(req, AttrStatus).AsString() != "ok" || attr(req, AttrTool).AsString() != "s__t" || req.SpanKind != trace.SpanKindServer {
		t.Errorf("request span %v %v", req.SpanKind, req.Attributes)
	}
	for _, s := range got {
		for _, a := range s.Attributes {
			if strings.Contains(a.Value.Emit(), "hunter2") {
				t.Errorf("%s carries the arguments", s.Name)
			}
		}
	}
}

// A policy refusal marks the request's span blocked with its code and
// reason (not its message, which may quote the arguments); no upstream
// span.
func TestARefusedRequestsSpan(t *testing.T) {
	tr, spans := memTracer(t)
	deny := StepFunc(func(ctx context.Context, r *Request, next Handler) (Result, error) {
		return Result{}, &RouteError{Server: r.Server, What: "denied: arguments hunter2", Reason: ReasonDenied, Code: CodeDenied}
	})
	c := New(Steps{Policy: deny, Tracer: tr}, func(context.Context, *Request) (Result, error) {
		t.Fatal("sent")
		return Result{}, nil
	})
	if _, err := c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "s", Target: "s__t"}); err == nil {
		t.Fatal("not refused")
	}
	got := spans()
	req, pol := stub(got, SpanPrefix+MethodToolsCall), stub(got, SpanStepPrefix+"policy")
	if req == nil || pol == nil || stub(got, SpanUpstream) != nil {
		t.Fatalf("spans %v", names(got))
	}
	if attr(req, AttrStatus).AsString() != "blocked" || attr(req, AttrErrorReason).AsString() != ReasonDenied ||
		attr(req, AttrErrorCode).AsInt64() != CodeDenied || req.Status.Code != codes.Error || strings.Contains(req.Status.Description, "hunter2") {
		t.Errorf("request span %v %v", req.Status, req.Attributes)
	}
	if pol.Status.Code != codes.Error {
		t.Errorf("policy span status %v", pol.Status)
	}
}

// Without a tracer the chain has no span and no trace context of its own.
func TestNoTracerNoSpans(t *testing.T) {
	var seen trace.SpanContext
	c := New(Steps{Identity: Identity{}}, func(ctx context.Context, r *Request) (Result, error) {
		seen = trace.SpanContextFromContext(ctx)
		return Result{}, nil
	})
	_, _ = c.Serve(context.Background(), &Request{Method: MethodToolsCall, Server: "s"})
	if seen.IsValid() {
		t.Errorf("a span context %v without a tracer", seen)
	}
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}
