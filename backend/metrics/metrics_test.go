package metrics

import (
	"fmt"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/mcp-router/mcp-router/backend/store"
)

func gather(t *testing.T, m *Metrics, name string) []*dto.Metric {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f.GetMetric()
		}
	}
	return nil
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// Labels stay bounded whatever clients send: unknown tools and junk
// methods get no label of their own, and label sets stop at MaxSeries.
func TestLabelsAreBounded(t *testing.T) {
	known := map[string]bool{"echo": true}
	for i := 0; i < MaxSeries+500; i++ {
		known[fmt.Sprintf("tool-%d", i)] = true
	}
	m := New(Sources{KnownTool: func(n string) bool { return known[n] }})
	m.Observe(store.RequestLog{Server: "one", Method: "tools/call", Target: "echo", Status: store.StatusOK, DurationMs: 3})
	for i := 0; i < 1000; i++ {
		m.Observe(store.RequestLog{Server: "mcp-router", Method: "tools/call", Target: fmt.Sprintf("junk-%d", i), Status: store.StatusError})
		m.Observe(store.RequestLog{Server: "mcp-router", Method: fmt.Sprintf("junk/%d", i), Status: store.StatusError})
	}
	got := gather(t, m, "mcpr_requests_total")
	var junkTool, junkMethod float64
	for _, s := range got {
		l := labels(s)
		if strings.HasPrefix(l["tool"], "junk") || strings.HasPrefix(l["method"], "junk") {
			t.Fatalf("a client's junk got a label: %v", l)
		}
		if l["server"] == "mcp-router" && l["method"] == "tools/call" && l["tool"] == "" {
			junkTool = s.GetCounter().GetValue()
		}
		if l["method"] == Other {
			junkMethod = s.GetCounter().GetValue()
		}
	}
	if junkTool != 1000 || junkMethod != 1000 {
		t.Errorf("unknown tools counted %v, junk methods %v; want 1000 each", junkTool, junkMethod)
	}
	for i := 0; i < MaxSeries+500; i++ {
		m.Observe(store.RequestLog{Server: "one", Method: "tools/call", Target: fmt.Sprintf("tool-%d", i), Status: store.StatusOK})
	}
	got = gather(t, m, "mcpr_requests_total")
	if len(got) > MaxSeries+1 {
		t.Errorf("%d label sets, over the cap of %d (+ the (other) one)", len(got), MaxSeries)
	}
	var other float64
	for _, s := range got {
		if labels(s)["tool"] == Other {
			other = s.GetCounter().GetValue()
		}
	}
	if other < 500 {
		t.Errorf("past the cap, %v calls counted under (other), want at least 500", other)
	}
	if h := gather(t, m, "mcpr_request_duration_seconds"); len(h) == 0 || h[0].GetHistogram().GetSampleCount() == 0 {
		t.Error("no latency recorded")
	}
}

// Each series counts its own requests and the latency histogram of its
// server and method gets every one of them, whichever series it came in.
func TestObserveCountsEverySeries(t *testing.T) {
	m := New(Sources{KnownTool: func(string) bool { return true }})
	for i := 0; i < 3; i++ {
		m.Observe(store.RequestLog{Server: "a", Method: "tools/call", Target: "x", Status: store.StatusOK, DurationMs: 2})
		m.Observe(store.RequestLog{Server: "a", Method: "tools/call", Target: "y", Status: store.StatusError, DurationMs: 2})
	}
	m.Observe(store.RequestLog{Server: "b", Method: "tools/list", Status: store.StatusOK, DurationMs: 2})
	want := map[string]float64{"a tools/call x ok": 3, "a tools/call y error": 3, "b tools/list  ok": 1}
	got := map[string]float64{}
	for _, s := range gather(t, m, "mcpr_requests_total") {
		l := labels(s)
		got[l["server"]+" "+l["method"]+" "+l["tool"]+" "+l["status"]] = s.GetCounter().GetValue()
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	hist := map[string]uint64{}
	for _, s := range gather(t, m, "mcpr_request_duration_seconds") {
		l := labels(s)
		hist[l["server"]+" "+l["method"]] = s.GetHistogram().GetSampleCount()
	}
	if hist["a tools/call"] != 6 || hist["b tools/list"] != 1 || len(hist) != 2 {
		t.Errorf("latency counts %v", hist)
	}
}

func BenchmarkObserve(b *testing.B) {
	m := New(Sources{KnownTool: func(string) bool { return true }})
	e := store.RequestLog{Server: "everything", Method: "tools/call", Target: "everything__echo", Status: store.StatusOK, DurationMs: 0.4}
	b.ReportAllocs()
	for b.Loop() {
		m.Observe(e)
	}
}
