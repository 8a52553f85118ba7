package tracing

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

const validParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

var strictParent = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// A valid traceparent from _meta goes on as it came; tracestate with it.
func TestMetaRoundTrip(t *testing.T) {
	ctx := FromMeta(context.Background(), map[string]any{KeyTraceparent: validParent, KeyTracestate: "congo=t61rcWkgMzE", "other": 1})
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || !sc.IsRemote() || sc.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("span context %+v", sc)
	}
	out := map[string]any{KeyTraceparent: "stale", KeyTracestate: "stale", "keep": true}
	ToMeta(ctx, out)
	if out[KeyTraceparent] != validParent || out[KeyTracestate] != "congo=t61rcWkgMzE" || out["keep"] != true {
		t.Fatalf("out %v", out)
	}
	if got := string(HeaderLines(ctx)); got != "traceparent: "+validParent+"\r\ntracestate: congo=t61rcWkgMzE\r\n" {
		t.Fatalf("header lines %q", got)
	}
}

// Attack: what a client may put in _meta or a header that is not a valid
// trace context within the caps leaves no span context, and ToMeta then
// removes the keys rather than passing them on.
func TestHostileTraceContextIsDropped(t *testing.T) {
	for _, v := range []any{
		"", "junk", validParent + "-" + strings.Repeat("x", 1<<20),
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-" + strings.Repeat("y", MaxTraceparentLen),
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\nX-Evil: 1",
		42, map[string]any{"a": 1}, []any{validParent},
	} {
		ctx := FromMeta(context.Background(), map[string]any{KeyTraceparent: v, KeyTracestate: "a=b"})
		if HasParent(ctx) {
			t.Errorf("%.80v: took as a parent", v)
		}
		out := map[string]any{KeyTraceparent: v, KeyTracestate: "a=b"}
		ToMeta(ctx, out)
		if len(out) != 0 {
			t.Errorf("%.80v: left %v", v, out)
		}
		h := http.Header{}
		if s, ok := v.(string); ok {
			h.Set(KeyTraceparent, s)
		}
		if HasParent(FromHeader(context.Background(), h)) {
			t.Errorf("%.80v: took as a parent from a header", v)
		}
	}
	// A tracestate over the cap is dropped; the traceparent stays.
	ctx := FromMeta(context.Background(), map[string]any{KeyTraceparent: validParent, KeyTracestate: "a=" + strings.Repeat("b", MaxTracestateLen)})
	out := map[string]any{}
	ToMeta(ctx, out)
	if out[KeyTraceparent] != validParent || out[KeyTracestate] != nil {
		t.Errorf("huge tracestate: %v", out)
	}
}

// FuzzTraceContext: whatever a client sends, what goes on to an upstream
// is nothing or a strict version-00 traceparent, and a tracestate within
// the cap, with no line breaks.
func FuzzTraceContext(f *testing.F) {
	f.Add(validParent, "congo=t61rcWkgMzE")
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "a=b,c=d")
	f.Add("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", "")
	f.Add("junk", "=,=")
	f.Fuzz(func(t *testing.T, parent, state string) {
		ctx := FromMeta(context.Background(), map[string]any{KeyTraceparent: parent, KeyTracestate: state})
		out := map[string]any{}
		ToMeta(ctx, out)
		if p, ok := out[KeyTraceparent]; ok && !strictParent.MatchString(p.(string)) {
			t.Fatalf("traceparent %q went on", p)
		}
		if s, ok := out[KeyTracestate].(string); ok && (len(s) > MaxTracestateLen || strings.ContainsAny(s, "\r\n")) {
			t.Fatalf("tracestate %q went on", s)
		}
		if _, ok := out[KeyTracestate]; ok {
			if _, ok := out[KeyTraceparent]; !ok {
				t.Fatal("a tracestate without a traceparent")
			}
		}
		if h := HeaderLines(ctx); strings.Count(string(h), "\r\n") > 2 {
			t.Fatalf("header lines %q", h)
		}
	})
}
