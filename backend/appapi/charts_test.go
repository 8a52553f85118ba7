package appapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/metrics"
	"github.com/mcp-router/mcp-router/backend/store"
)

// The pages read the charts' series over the UI API: an admin token gets
// the points in the JSON the frontend's types name, a client token nothing
// (the figures name every server).
func TestMetricsSeriesOverHTTP(t *testing.T) {
	h := newHTTPFixture(t, nil)
	h.c.Metrics.Observe(store.RequestLog{Server: "everything", Method: "tools/call", Target: "echo", Status: store.StatusError, DurationMs: 40})
	h.c.Charts.Sample(time.Now())

	r := h.call(t, "MetricsSeries", h.token, "[]")
	if r.code != 200 {
		t.Fatalf("admin: %d %s", r.code, r.body)
	}
	var v metrics.SeriesView
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatal(err)
	}
	if v.Capacity != metrics.SeriesPoints || v.IntervalSeconds != 5 || len(v.Points) == 0 {
		t.Fatalf("series: %s", r.body)
	}
	var calls, errors uint64
	var everything *metrics.ServerPoint
	for _, p := range v.Points {
		calls += p.Calls
		errors += p.Errors
		for i, s := range p.Servers {
			if s.Server == "everything" {
				everything = &p.Servers[i]
			}
		}
	}
	if calls < 1 || errors < 1 || everything == nil || everything.State == "" {
		t.Errorf("the call is not in the series: %s", r.body)
	}
	for _, key := range []string{`"intervalSeconds"`, `"capacity"`, `"at"`, `"p95Ms"`, `"approvalsWaiting"`, `"servers"`} {
		if !json.Valid([]byte(r.body)) || !strings.Contains(r.body, key) {
			t.Errorf("the JSON lacks %s: %s", key, r.body)
		}
	}

	client, err := h.api.CreateToken("laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := h.call(t, "MetricsSeries", client.Token, "[]"); r.code != 403 {
		t.Errorf("a client token: %d %s", r.code, r.body)
	}
}
