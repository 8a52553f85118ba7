package settings

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-router/mcp-router/backend/tracing"
)

// The OpenTelemetry trace settings (docs/metrics.md, "Traces"). Read when
// the router starts: a change applies at the next start.
const (
	// KeyOTelEndpoint: the OTLP/HTTP collector traces go to; empty: the
	// standard OTEL_EXPORTER_OTLP_* variables, and without them no traces.
	KeyOTelEndpoint = "otelEndpoint"
	// KeyOTelSampleRatio: the share of new traces recorded.
	KeyOTelSampleRatio = "otelSampleRatio"
)

func init() {
	defs = append(defs,
		Def{Key: KeyOTelEndpoint, Default: "", Allowed: "an http:// or https:// URL (the collector's OTLP/HTTP base URL, or its traces URL), or empty",
			Help: "where the router sends OpenTelemetry traces of its calls (empty: OTEL_EXPORTER_OTLP_ENDPOINT or none); read at start", check: checkOTelEndpoint},
		Def{Key: KeyOTelSampleRatio, Default: "1", Allowed: "a number from 0 to 1",
			Help: "the share of new traces recorded (a client's sampled traceparent is followed either way); read at start", check: checkRatio},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

func checkOTelEndpoint(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if _, err := tracing.EndpointURL(s); err != nil {
		return "", errors.New("not an http:// or https:// URL")
	}
	return s, nil
}

func checkRatio(s string) (string, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || f > 1 || f != f {
		return "", errors.New("not a number from 0 to 1")
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

// OTelEndpoint is the otelEndpoint setting, "" when unset.
func (s *Settings) OTelEndpoint(ctx context.Context) string { return s.valid(ctx, KeyOTelEndpoint) }

// OTelSampleRatio is the share of new traces recorded.
func (s *Settings) OTelSampleRatio(ctx context.Context) float64 {
	f, err := strconv.ParseFloat(s.valid(ctx, KeyOTelSampleRatio), 64)
	if err != nil {
		return 1
	}
	return f
}
