package core

import (
	"context"
	"net/http"

	"github.com/mcp-router/mcp-router/backend/tracing"
)

// openTracer starts the trace exporter when the otelEndpoint setting or
// the standard OTEL_EXPORTER_OTLP_* variables name a collector; nil
// otherwise. A collector the exporter cannot be made for is logged, and
// the router runs without traces rather than not at all.
func (c *Core) openTracer() *tracing.Tracer {
	ctx := context.Background()
	t, err := tracing.Open(ctx, tracing.Config{Endpoint: c.Settings.OTelEndpoint(ctx),
		SampleRatio: c.Settings.OTelSampleRatio(ctx), Service: "mcp-router", Version: Version})
	if err != nil {
		c.Log.Warnf("traces are off: %v", err)
		return nil
	}
	if t != nil {
		c.Log.Infof("traces go to %s", t.Endpoint())
	}
	return t
}

// traceHeaders continues the trace context of an HTTP request's
// traceparent header (a request's _meta, read by the pipeline, wins over
// it). Without a tracer the handler is returned as is.
func traceHeaders(t *tracing.Tracer, next http.Handler) http.Handler {
	if t == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(tracing.KeyTraceparent) != "" {
			r = r.WithContext(tracing.FromHeader(r.Context(), r.Header))
		}
		next.ServeHTTP(w, r)
	})
}
