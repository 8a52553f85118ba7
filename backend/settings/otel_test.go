package settings

import (
	"context"
	"strings"
	"testing"
)

// otelEndpoint takes only http(s) URLs (a collector's base or traces URL)
// and otelSampleRatio only a number from 0 to 1; a refused value names the
// setting and what it allows, and the stored value stays.
func TestOTelSettings(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	for _, bad := range []string{"ftp://collector:4318", "collector:4318", "http://", "not a url", "file:///etc/passwd"} {
		err := s.Set(ctx, KeyOTelEndpoint, bad)
		if err == nil || !strings.Contains(err.Error(), KeyOTelEndpoint) {
			t.Errorf("otelEndpoint %q: %v", bad, err)
		}
	}
	if err := s.Set(ctx, KeyOTelEndpoint, " http://jaeger:4318 "); err != nil {
		t.Fatal(err)
	}
	if got := s.OTelEndpoint(ctx); got != "http://jaeger:4318" {
		t.Errorf("otelEndpoint = %q", got)
	}
	for _, bad := range []string{"-0.1", "1.5", "NaN", "half", ""} {
		if err := s.Set(ctx, KeyOTelSampleRatio, bad); err == nil {
			t.Errorf("otelSampleRatio %q accepted", bad)
		}
	}
	if got := s.OTelSampleRatio(ctx); got != 1 {
		t.Errorf("default otelSampleRatio = %v", got)
	}
	if err := s.Set(ctx, KeyOTelSampleRatio, "0.25"); err != nil {
		t.Fatal(err)
	}
	if got := s.OTelSampleRatio(ctx); got != 0.25 {
		t.Errorf("otelSampleRatio = %v", got)
	}
}
