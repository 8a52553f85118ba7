package metrics

import (
	"context"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/mcp-router/mcp-router/backend/store"
)

// The app's charts (docs/metrics.md "In the app") read a bounded series of
// points sampled from the same counters and histograms /metrics serves, so
// the pages and a Prometheus scrape never disagree.
const (
	// SeriesInterval is how often a point is taken.
	SeriesInterval = 5 * time.Second
	// SeriesPoints is how many points are kept (10 minutes at 5 s); the
	// oldest goes first.
	SeriesPoints = 120
	// MaxChartServers caps the servers one point names (configured
	// upstreams first, then names only the log knows, by name).
	MaxChartServers = 100
)

// ServerPoint is one server's figures over one interval.
type ServerPoint struct {
	Server string `json:"server"`
	// Calls are tools/call requests answered in the interval, Errors and
	// Blocked the part of them that failed or a rule refused.
	Calls   uint64 `json:"calls"`
	Errors  uint64 `json:"errors"`
	Blocked uint64 `json:"blocked"`
	// P50Ms and P95Ms: the calls' latency, estimated from the histogram's
	// buckets as Prometheus' histogram_quantile does; 0 without calls.
	P50Ms float64 `json:"p50Ms"`
	P95Ms float64 `json:"p95Ms"`
	// State is the upstream's state at the sample ("" for a name only the
	// request log knows, such as the router's own refusals).
	State string `json:"state,omitempty"`
}

// Point is the router's figures over one interval ending at At.
type Point struct {
	At       int64   `json:"at"` // ms since the epoch
	Seconds  float64 `json:"seconds"`
	Requests uint64  `json:"requests"` // every request the log records
	Calls    uint64  `json:"calls"`
	Errors   uint64  `json:"errors"`
	Blocked  uint64  `json:"blocked"`
	P50Ms    float64 `json:"p50Ms"`
	P95Ms    float64 `json:"p95Ms"`
	// Sessions and ApprovalsWaiting are read at the sample.
	Sessions         int `json:"sessions"`
	ApprovalsWaiting int `json:"approvalsWaiting"`
	// HookRuns are the live runs of hooks in the interval (one request
	// runs each active hook once a phase), HookP95Ms their p95 time.
	HookRuns  uint64        `json:"hookRuns"`
	HookP95Ms float64       `json:"hookP95Ms"`
	Servers   []ServerPoint `json:"servers"`
}

// SeriesView is what the UI gets: the points, oldest first.
type SeriesView struct {
	IntervalSeconds float64 `json:"intervalSeconds"`
	Capacity        int     `json:"capacity"`
	Points          []Point `json:"points"`
}

// Series keeps the last points in a ring.
type Series struct {
	m        *Metrics
	interval time.Duration
	capacity int

	mu        sync.Mutex
	ring      []Point
	next      int // where the next point goes once the ring is full
	prev      map[string]serverTotals
	prevHooks serverTotals
	prevAt    time.Time
}

// serverTotals are one server's counters since the start.
type serverTotals struct {
	requests, calls, errors, blocked uint64
	buckets                          []uint64 // cumulative, the calls' histogram
	count                            uint64
}

// NewSeries keeps capacity points (at least 1) taken every interval by Run.
func (m *Metrics) NewSeries(interval time.Duration, capacity int) *Series {
	if capacity < 1 {
		capacity = 1
	}
	return &Series{m: m, interval: interval, capacity: capacity, prev: map[string]serverTotals{}, prevAt: time.Now()}
}

// Run samples every interval until ctx ends.
func (s *Series) Run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.Sample(now)
		}
	}
}

// View copies the points, oldest first.
func (s *Series) View() SeriesView {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Point, 0, len(s.ring))
	out = append(out, s.ring[s.next:]...)
	out = append(out, s.ring[:s.next]...)
	return SeriesView{IntervalSeconds: s.interval.Seconds(), Capacity: s.capacity, Points: out}
}

// Sample adds the point of the interval since the last sample.
func (s *Series) Sample(now time.Time) {
	totals, hooks := s.m.totals()
	states := map[string]string{}
	var configured []string
	if s.m.src.Upstreams != nil {
		for _, u := range s.m.src.Upstreams() {
			if _, dup := states[u.Name]; !dup {
				configured = append(configured, u.Name)
			}
			states[u.Name] = u.State
		}
	}
	sort.Strings(configured)
	var logOnly []string
	for name := range totals {
		if _, ok := states[name]; !ok {
			logOnly = append(logOnly, name)
		}
	}
	sort.Strings(logOnly)

	s.mu.Lock()
	defer s.mu.Unlock()
	p := Point{At: now.UnixMilli(), Seconds: now.Sub(s.prevAt).Seconds()}
	var all serverTotals
	for name, cur := range totals {
		d := cur.minus(s.prev[name])
		all.add(d)
	}
	p.Requests, p.Calls, p.Errors, p.Blocked = all.requests, all.calls, all.errors, all.blocked
	p.P50Ms, p.P95Ms = quantileMs(0.5, all), quantileMs(0.95, all)
	for _, name := range append(configured, logOnly...) {
		if len(p.Servers) == MaxChartServers {
			break
		}
		d := totals[name].minus(s.prev[name])
		p.Servers = append(p.Servers, ServerPoint{Server: name, Calls: d.calls, Errors: d.errors, Blocked: d.blocked,
			P50Ms: quantileMs(0.5, d), P95Ms: quantileMs(0.95, d), State: states[name]})
	}
	h := hooks.minus(s.prevHooks)
	p.HookRuns, p.HookP95Ms = h.count, quantileMs(0.95, h)
	if s.m.src.Sessions != nil {
		p.Sessions = s.m.src.Sessions()
	}
	if s.m.src.ApprovalsWaiting != nil {
		p.ApprovalsWaiting = s.m.src.ApprovalsWaiting()
	}
	// Only the servers the counters name now are kept, so the map is
	// bounded by the label sets.
	s.prev, s.prevHooks, s.prevAt = totals, hooks, now
	if len(s.ring) < s.capacity {
		s.ring = append(s.ring, p)
		return
	}
	s.ring[s.next] = p
	s.next = (s.next + 1) % s.capacity
}

// totals reads the request counters and the calls' latency histograms by
// server, and the hooks' histogram (all phases).
func (m *Metrics) totals() (map[string]serverTotals, serverTotals) {
	out := map[string]serverTotals{}
	hooks := serverTotals{buckets: make([]uint64, len(latencyBuckets))}
	fams, err := m.chartReg.Gather()
	if err != nil {
		return out, hooks // vectors of fixed labels cannot fail to gather
	}
	for _, f := range fams {
		for _, mt := range f.GetMetric() {
			if f.GetName() == "mcpr_hook_duration_seconds" {
				hooks.addHistogram(mt.GetHistogram())
				continue
			}
			l := labelMap(mt)
			t := out[l["server"]]
			switch f.GetName() {
			case "mcpr_requests_total":
				n := uint64(mt.GetCounter().GetValue())
				t.requests += n
				if l["method"] == "tools/call" {
					t.calls += n
					switch l["status"] {
					case store.StatusError:
						t.errors += n
					case store.StatusBlocked:
						t.blocked += n
					}
				}
			case "mcpr_request_duration_seconds":
				if l["method"] != "tools/call" {
					continue
				}
				t.addHistogram(mt.GetHistogram())
			}
			out[l["server"]] = t
		}
	}
	return out, hooks
}

// addHistogram adds a histogram of latencyBuckets' bounds.
func (t *serverTotals) addHistogram(h *dto.Histogram) {
	if t.buckets == nil {
		t.buckets = make([]uint64, len(latencyBuckets))
	}
	for i, b := range h.GetBucket() {
		if i < len(t.buckets) {
			t.buckets[i] += b.GetCumulativeCount()
		}
	}
	t.count += h.GetSampleCount()
}

func labelMap(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func (t serverTotals) minus(o serverTotals) serverTotals {
	d := serverTotals{requests: t.requests - o.requests, calls: t.calls - o.calls, errors: t.errors - o.errors,
		blocked: t.blocked - o.blocked, count: t.count - o.count}
	if t.buckets != nil {
		d.buckets = make([]uint64, len(t.buckets))
		for i := range t.buckets {
			d.buckets[i] = t.buckets[i]
			if i < len(o.buckets) {
				d.buckets[i] -= o.buckets[i]
			}
		}
	}
	return d
}

func (t *serverTotals) add(o serverTotals) {
	t.requests += o.requests
	t.calls += o.calls
	t.errors += o.errors
	t.blocked += o.blocked
	t.count += o.count
	if o.buckets != nil {
		if t.buckets == nil {
			t.buckets = make([]uint64, len(o.buckets))
		}
		for i := range o.buckets {
			t.buckets[i] += o.buckets[i]
		}
	}
}

// quantileMs estimates the q-quantile in milliseconds by linear
// interpolation inside the bucket that holds it (histogram_quantile's
// method); past the last finite bucket it is that bucket's bound.
func quantileMs(q float64, t serverTotals) float64 {
	if t.count == 0 || t.buckets == nil {
		return 0
	}
	rank := q * float64(t.count)
	lower, below := 0.0, uint64(0)
	for i, upper := range latencyBuckets {
		c := t.buckets[i]
		if float64(c) >= rank {
			in := c - below
			if in == 0 {
				return upper * 1000
			}
			v := lower + (upper-lower)*(rank-float64(below))/float64(in)
			return math.Round(v*1e6) / 1e3 // ms, to the µs
		}
		lower, below = upper, c
	}
	return latencyBuckets[len(latencyBuckets)-1] * 1000
}

// chartRegistry holds only the collectors Series reads (a second, private
// registry: gathering the Go and process collectors every few seconds
// would be wasted work).
func chartRegistry(cs ...prometheus.Collector) *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(cs...)
	return r
}
