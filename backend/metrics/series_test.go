package metrics

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/store"
)

func call(server, status string, ms float64) store.RequestLog {
	return store.RequestLog{Server: server, Method: "tools/call", Target: "echo", Status: status, DurationMs: ms}
}

// A point holds what happened in its interval only: the calls, errors and
// blocked calls by server, their latency quantiles from the histogram, the
// upstream states, the sessions and the approvals waiting.
func TestSeriesPointsAreIntervals(t *testing.T) {
	sessions, waiting := 3, 1
	m := New(Sources{
		Upstreams:        func() []Upstream { return []Upstream{{Name: "b", State: "errored"}, {Name: "a", State: "running"}} },
		Sessions:         func() int { return sessions },
		ApprovalsWaiting: func() int { return waiting },
	})
	s := m.NewSeries(time.Second, 10)
	t0 := time.Now()
	for i := 0; i < 100; i++ {
		m.Observe(call("a", store.StatusOK, 20)) // in the 10–25 ms bucket
	}
	m.Observe(call("a", store.StatusError, 3000))
	m.Observe(call("a", store.StatusBlocked, 0.5))
	m.Observe(store.RequestLog{Server: "a", Method: "tools/list", Status: store.StatusOK, DurationMs: 1})
	m.Observe(call("mcp-router", store.StatusError, 0.1))
	for i := 0; i < 4; i++ {
		m.ObserveHook("pre", 3*time.Millisecond) // the 2.5–5 ms bucket
	}
	s.Sample(t0.Add(time.Second))
	sessions, waiting = 0, 0
	m.Observe(call("b", store.StatusOK, 200))
	s.Sample(t0.Add(2 * time.Second))

	v := s.View()
	if len(v.Points) != 2 || v.Capacity != 10 || v.IntervalSeconds != 1 {
		t.Fatalf("view: %+v", v)
	}
	p := v.Points[0]
	if p.Requests != 104 || p.Calls != 103 || p.Errors != 2 || p.Blocked != 1 || p.Sessions != 3 || p.ApprovalsWaiting != 1 {
		t.Errorf("first point: %+v", p)
	}
	if p.HookRuns != 4 || p.HookP95Ms <= 2.5 || p.HookP95Ms > 5 {
		t.Errorf("hooks: %d runs, p95 %v ms", p.HookRuns, p.HookP95Ms)
	}
	// The hooks' histogram has no server label: it must not appear as a
	// server "" here.
	if len(p.Servers) != 3 || p.Servers[0].Server != "a" || p.Servers[1].Server != "b" || p.Servers[2].Server != "mcp-router" {
		t.Fatalf("servers: configured by name, then the log's: %+v", p.Servers)
	}
	a := p.Servers[0]
	if a.Calls != 102 || a.Errors != 1 || a.Blocked != 1 || a.State != "running" {
		t.Errorf("server a: %+v", a)
	}
	// 102 calls: 1 at 0.5 ms, 100 at 20 ms, 1 at 3 s. p50 (rank 51) lies in
	// the 10–25 ms bucket, p95 (rank 96.9) too; interpolated inside it.
	if a.P50Ms <= 10 || a.P50Ms > 25 || a.P95Ms <= a.P50Ms || a.P95Ms > 25 {
		t.Errorf("server a latency: p50 %v p95 %v", a.P50Ms, a.P95Ms)
	}
	if p.Servers[1].Calls != 0 || p.Servers[1].P95Ms != 0 || p.Servers[1].State != "errored" {
		t.Errorf("server b before its call: %+v", p.Servers[1])
	}
	q := v.Points[1]
	if q.Calls != 1 || q.Errors != 0 || q.Sessions != 0 || q.ApprovalsWaiting != 0 || q.Seconds != 1 || q.HookRuns != 0 || q.HookP95Ms != 0 {
		t.Errorf("second point holds only its interval: %+v", q)
	}
	if b := q.Servers[1]; b.Calls != 1 || b.P95Ms <= 100 || b.P95Ms > 250 {
		t.Errorf("server b's call: %+v", b)
	}
	if q.Servers[0].Calls != 0 {
		t.Errorf("server a in the second interval: %+v", q.Servers[0])
	}
}

// Memory stays bounded: the ring keeps its capacity whatever the run time,
// oldest out first, and a point names at most MaxChartServers servers.
func TestSeriesIsBounded(t *testing.T) {
	var ups []Upstream
	for i := 0; i < MaxChartServers+50; i++ {
		ups = append(ups, Upstream{Name: fmt.Sprintf("s%03d", i), State: "running"})
	}
	m := New(Sources{Upstreams: func() []Upstream { return ups }})
	s := m.NewSeries(time.Second, 5)
	t0 := time.Now()
	for i := 1; i <= 1000; i++ {
		m.Observe(call(fmt.Sprintf("log-only-%d", i%300), store.StatusOK, 1))
		s.Sample(t0.Add(time.Duration(i) * time.Second))
	}
	v := s.View()
	if len(v.Points) != 5 {
		t.Fatalf("%d points kept, want the capacity 5", len(v.Points))
	}
	for i, p := range v.Points {
		if want := t0.Add(time.Duration(996+i) * time.Second).UnixMilli(); p.At != want {
			t.Errorf("point %d at %d, want %d (oldest first)", i, p.At, want)
		}
		if len(p.Servers) != MaxChartServers || p.Servers[0].Server != "s000" {
			t.Errorf("point %d names %d servers, first %q", i, len(p.Servers), p.Servers[0].Server)
		}
		if p.Calls != 1 {
			t.Errorf("point %d: %d calls, want 1", i, p.Calls)
		}
	}
}

func TestQuantileFromBuckets(t *testing.T) {
	tot := serverTotals{buckets: make([]uint64, len(latencyBuckets))}
	if quantileMs(0.95, tot) != 0 {
		t.Error("no calls: want 0")
	}
	// 10 calls all in the 50–100 ms bucket (index 6).
	for i := 6; i < len(latencyBuckets); i++ {
		tot.buckets[i] = 10
	}
	tot.count = 10
	if got := quantileMs(0.5, tot); math.Abs(got-75) > 1e-9 {
		t.Errorf("p50 = %v, want 75 (the bucket's middle)", got)
	}
	// All past the last bound (the +Inf bucket): the last bound.
	over := serverTotals{buckets: make([]uint64, len(latencyBuckets)), count: 4}
	if got := quantileMs(0.95, over); got != 60000 {
		t.Errorf("past the last bucket: %v, want 60000", got)
	}
}
