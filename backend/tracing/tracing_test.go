package tracing

import (
	"context"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// No endpoint (setting or environment): no tracer. OTEL_SDK_DISABLED wins
// over both.
func TestOpenNeedsAnEndpoint(t *testing.T) {
	ctx := context.Background()
	for _, c := range []Config{
		{Getenv: env(nil)},
		{Endpoint: "http://collector:4318", Getenv: env(map[string]string{EnvSDKDisabled: "true"})},
	} {
		tr, err := Open(ctx, c)
		if err != nil || tr != nil {
			t.Errorf("%+v: %v %v", c, tr, err)
		}
	}
	var off *Tracer
	if off.Endpoint() != "" || off.Flush(ctx) != nil || off.Close() != nil {
		t.Error("a nil tracer is not quiet")
	}
	for _, c := range []Config{
		{Endpoint: "http://user:pw@collector:4318", Getenv: env(nil)},
		{Getenv: env(map[string]string{EnvEndpoint: "http://collector:4318"})},
		{Getenv: env(map[string]string{EnvTracesEndpoint: "http://collector:4318/v1/traces"})},
	} {
		tr, err := Open(ctx, c)
		if err != nil || tr == nil {
			t.Fatalf("%+v: %v %v", c, tr, err)
		}
		if strings.Contains(tr.Endpoint(), "pw") {
			t.Errorf("the endpoint %q shows the password", tr.Endpoint())
		}
		_ = tr.Close()
	}
	if _, err := Open(ctx, Config{Endpoint: "http://c:4318", SampleRatio: 2, Getenv: env(nil)}); err == nil || !strings.Contains(err.Error(), "otelSampleRatio") {
		t.Errorf("ratio 2: %v", err)
	}
}

func TestEndpointURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://jaeger:4318":               "http://jaeger:4318/v1/traces",
		"http://jaeger:4318/":              "http://jaeger:4318/v1/traces",
		"https://otel.example/custom/path": "https://otel.example/custom/path",
	} {
		if got, err := EndpointURL(in); err != nil || got != want {
			t.Errorf("%s: %q %v", in, got, err)
		}
	}
	for _, bad := range []string{"jaeger:4318", "grpc://x:4317", "http://", "::"} {
		if _, err := EndpointURL(bad); err == nil || !strings.Contains(err.Error(), "otelEndpoint") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
