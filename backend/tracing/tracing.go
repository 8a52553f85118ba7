// Package tracing exports OpenTelemetry traces of the calls through the
// router's pipeline (docs/metrics.md, "Traces") to an OTLP/HTTP endpoint,
// and carries the W3C trace context (traceparent, tracestate) from a
// client's request to the upstreams it reaches.
//
// Without an endpoint Open returns a nil *Tracer: nothing is exported and
// the pipeline adds no span, so the call path costs what it did before.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// The standard OpenTelemetry environment variables the router reads when
// the otelEndpoint setting is empty.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"        // base URL; /v1/traces is appended
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" // full URL of the traces path
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"                  // "true": no traces whatever is configured
)

// ScopeName is the instrumentation scope of the router's spans.
const ScopeName = "github.com/mcp-router/mcp-router"

// Config says where traces go.
type Config struct {
	// Endpoint is the otelEndpoint setting: the OTLP/HTTP collector's base
	// URL (http://jaeger:4318; /v1/traces is appended when it has no
	// path) or its full traces URL. Empty: the standard environment
	// variables, and without them no traces.
	Endpoint string
	// SampleRatio is the share of new traces recorded (0…1). A client's
	// sampled flag in its traceparent is followed either way.
	SampleRatio float64
	// Service and Version name the router in the exported resource.
	Service, Version string
	// Getenv reads the environment (os.Getenv when nil; tests set it).
	Getenv func(string) string
}

// Tracer starts the router's spans and exports them. A nil *Tracer is
// valid: tracing is off.
type Tracer struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	endpoint string
}

// Open starts the exporter when an endpoint is configured; it returns nil,
// nil when none is (tracing off).
func Open(ctx context.Context, c Config) (*Tracer, error) {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if strings.EqualFold(strings.TrimSpace(getenv(EnvSDKDisabled)), "true") {
		return nil, nil
	}
	if c.SampleRatio < 0 || c.SampleRatio > 1 {
		return nil, fmt.Errorf("trace sample ratio %v is not between 0 and 1 (setting otelSampleRatio)", c.SampleRatio)
	}
	var opts []otlptracehttp.Option
	endpoint := strings.TrimSpace(c.Endpoint)
	switch {
	case endpoint != "":
		u, err := EndpointURL(endpoint)
		if err != nil {
			return nil, err
		}
		endpoint = u
		opts = append(opts, otlptracehttp.WithEndpointURL(u))
	case getenv(EnvTracesEndpoint) != "":
		endpoint = getenv(EnvTracesEndpoint)
	case getenv(EnvEndpoint) != "":
		endpoint = getenv(EnvEndpoint)
	default:
		return nil, nil
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot make the OTLP trace exporter for %s: %w", redact(endpoint), err)
	}
	t := New(exp, c)
	t.endpoint = redact(endpoint)
	return t, nil
}

// New makes a tracer that hands its spans to exp (Open's OTLP exporter;
// an in-memory one in tests), with c's service, version and sample ratio
// (checked by the caller).
func New(exp sdktrace.SpanExporter, c Config) *Tracer {
	service := c.Service
	if service == "" {
		service = "mcp-router"
	}
	res := resource.NewSchemaless(semconv.ServiceName(service), semconv.ServiceVersion(c.Version))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Second)),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(c.SampleRatio))),
		sdktrace.WithSpanLimits(spanLimits()),
	)
	return &Tracer{provider: tp, tracer: tp.Tracer(ScopeName)}
}

// spanLimits bound what one span may hold: the router sets a handful of
// short attributes, so anything beyond these is a bug, not data.
func spanLimits() sdktrace.SpanLimits {
	l := sdktrace.NewSpanLimits()
	l.AttributeValueLengthLimit = MaxAttributeLen
	l.AttributeCountLimit = 32
	l.EventCountLimit = 16
	l.LinkCountLimit = 4
	return l
}

// MaxAttributeLen caps a span attribute's value (bytes); longer values
// are cut by the SDK.
const MaxAttributeLen = 256

// EndpointURL checks the otelEndpoint setting and gives the traces URL:
// an http or https URL; with no path, /v1/traces.
func EndpointURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("otelEndpoint %q is not an http:// or https:// URL (setting otelEndpoint)", redact(s))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// redact drops a URL's user info (a collector's basic-auth password) for
// messages.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// Endpoint is where spans go (without user info); "" when off.
func (t *Tracer) Endpoint() string {
	if t == nil {
		return ""
	}
	return t.endpoint
}

// Start starts a span named name as a child of ctx's span (or of the
// remote parent in ctx).
func (t *Tracer) Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// Flush exports the spans ended so far (tests, shutdown).
func (t *Tracer) Flush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.ForceFlush(ctx)
}

// Close exports what is left, for at most 5 s, and stops the exporter.
func (t *Tracer) Close() error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.provider.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("closing the trace exporter: %w", err)
	}
	return nil
}
