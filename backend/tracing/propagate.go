package tracing

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The W3C trace context's keys, in HTTP headers and in an MCP request's
// params._meta.
const (
	KeyTraceparent = "traceparent"
	KeyTracestate  = "tracestate"
)

// Caps on what a client's trace context may be: a version-00 traceparent
// is 55 bytes; W3C asks vendors to keep at least 512 bytes of tracestate.
// Longer values are ignored, never parsed or passed on.
const (
	MaxTraceparentLen = 128
	MaxTracestateLen  = 512
)

// w3c is the SDK's W3C trace-context propagator: it checks a traceparent
// (version, 32+16 hex digits, not all zero, flags) and a tracestate (at
// most 32 well-formed members) and drops what fails.
var w3c = propagation.TraceContext{}

// boundedCarrier hides values over the caps, so the propagator never sees
// them.
type boundedCarrier struct{ get func(string) string }

func (c boundedCarrier) Get(key string) string {
	v := c.get(key)
	switch key {
	case KeyTraceparent:
		if len(v) > MaxTraceparentLen {
			return ""
		}
	case KeyTracestate:
		if len(v) > MaxTracestateLen {
			return ""
		}
	}
	return v
}
func (boundedCarrier) Set(string, string) {}
func (boundedCarrier) Keys() []string     { return []string{KeyTraceparent, KeyTracestate} }

// Extract returns ctx with the remote span context get names (nil get, or
// none valid: ctx unchanged). get reads one key (traceparent, tracestate).
func Extract(ctx context.Context, get func(key string) string) context.Context {
	if get == nil {
		return ctx
	}
	return w3c.Extract(ctx, boundedCarrier{get: get})
}

// FromMeta reads a trace context from an MCP request's params._meta
// fields (string values only).
func FromMeta(ctx context.Context, meta map[string]any) context.Context {
	if len(meta) == 0 {
		return ctx
	}
	if _, ok := meta[KeyTraceparent]; !ok {
		return ctx
	}
	return Extract(ctx, func(k string) string {
		s, _ := meta[k].(string)
		return s
	})
}

// FromHeader reads a trace context from HTTP headers.
func FromHeader(ctx context.Context, h http.Header) context.Context {
	if h.Get(KeyTraceparent) == "" {
		return ctx
	}
	return Extract(ctx, h.Get)
}

// HasParent reports whether ctx carries a valid span context (a local span
// or a remote parent).
func HasParent(ctx context.Context) bool { return trace.SpanContextFromContext(ctx).IsValid() }

// ToMeta writes ctx's span context into an upstream request's _meta
// (traceparent, and tracestate when not empty), replacing what was there;
// without a valid one it removes both keys, so nothing a client sent goes
// on unchecked.
func ToMeta(ctx context.Context, meta map[string]any) {
	delete(meta, KeyTraceparent)
	delete(meta, KeyTracestate)
	if !HasParent(ctx) {
		return
	}
	w3c.Inject(ctx, metaCarrier(meta))
}

// metaCarrier adapts a _meta map to the propagator's string map.
type metaCarrier map[string]any

func (m metaCarrier) Get(k string) string { s, _ := m[k].(string); return s }
func (m metaCarrier) Set(k, v string)     { m[k] = v }
func (m metaCarrier) Keys() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// HeaderLines are the HTTP header lines ("traceparent: …\r\n", and
// tracestate's) of ctx's span context for an upstream request; nil without
// a valid one.
func HeaderLines(ctx context.Context) []byte {
	if !HasParent(ctx) {
		return nil
	}
	c := propagation.MapCarrier{}
	w3c.Inject(ctx, c)
	var b []byte
	for _, k := range []string{KeyTraceparent, KeyTracestate} {
		if v := c[k]; v != "" {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	return b
}

// ToHeaders writes ctx's span context as HTTP header values (traceparent,
// tracestate) into h; nothing without a valid one.
func ToHeaders(ctx context.Context, h map[string]string) {
	if !HasParent(ctx) {
		return
	}
	w3c.Inject(ctx, propagation.MapCarrier(h))
}
