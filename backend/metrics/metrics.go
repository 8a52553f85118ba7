// Package metrics serves the router's Prometheus metrics (docs/metrics.md):
// requests by server, method, tool and status with their latency, upstream
// states, sessions, approvals waiting and the request log's losses, from a
// private registry. The labels are bounded whatever clients send: a tool
// label only for a tool the router publishes, a method label only for MCP's
// own methods, and a cap on label sets past which new ones are counted
// under "(other)".
package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcp-router/mcp-router/backend/store"
)

// MaxSeries caps the request label sets (server, method, tool, status)
// kept; later new ones are counted under tool "(other)".
const MaxSeries = 5000

// latencyBuckets are the request histogram's upper bounds in seconds.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// Other is the label of what is not named: a method that is not MCP's, a
// tool past MaxSeries.
const Other = "(other)"

// Upstream is one upstream server's state for the scrape.
type Upstream struct {
	Name  string
	State string
}

// Sources are read at each scrape; nil ones are left out.
type Sources struct {
	Upstreams        func() []Upstream
	Sessions         func() int
	ApprovalsWaiting func() int
	LogDropped       func() uint64
	// ConnectionsOpen and ConnectionsRefused: the endpoint's connections
	// open now, and refused at its cap (backend/connlimit).
	ConnectionsOpen    func() int
	ConnectionsRefused func() uint64
	// KnownTool reports whether the router publishes a tool by this name
	// (the client's name of it): only those get a tool label.
	KnownTool func(name string) bool
}

// Metrics counts the router's requests and serves every metric.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	hooks    *prometheus.HistogramVec
	known    func(string) bool
	src      Sources
	chartReg *prometheus.Registry // requests and latency only, for Series

	mu     sync.Mutex
	series map[[4]string]observers
}

// observers are the series' counter and latency histogram of a key of
// Observe, found once: WithLabelValues hashes the labels and looks the
// child up under the vector's lock at every call.
type observers struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// New makes the metrics with their own registry.
func New(src Sources) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpr_requests_total",
			Help: "Requests through the router's endpoint, as the request log records them.",
		}, []string{"server", "method", "tool", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcpr_request_duration_seconds",
			Help:    "Time from a request's arrival to its answer, by server and method.",
			Buckets: latencyBuckets,
		}, []string{"server", "method"}),
		hooks: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcpr_hook_duration_seconds",
			Help:    "Time one hook took on a request, by phase (pre, post).",
			Buckets: latencyBuckets,
		}, []string{"phase"}),
		known:  src.KnownTool,
		src:    src,
		series: map[[4]string]observers{},
	}
	m.chartReg = chartRegistry(m.requests, m.latency, m.hooks)
	m.reg.MustRegister(m.requests, m.latency, m.hooks,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if src.Upstreams != nil {
		m.reg.MustRegister(upstreamCollector{list: src.Upstreams, desc: prometheus.NewDesc("mcpr_upstream_state",
			"1 for each upstream server's current state (starting, running, errored, stopped, …).", []string{"server", "state"}, nil)})
	}
	if src.Sessions != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mcpr_sessions",
			Help: "Client sessions open at the endpoint."}, func() float64 { return float64(src.Sessions()) }))
	}
	if src.ApprovalsWaiting != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mcpr_approvals_waiting",
			Help: "Calls waiting for a person's approval."}, func() float64 { return float64(src.ApprovalsWaiting()) }))
	}
	if src.LogDropped != nil {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mcpr_request_log_dropped_total",
			Help: "Request log entries dropped because the log's buffer was full."}, func() float64 { return float64(src.LogDropped()) }))
	}
	if src.ConnectionsOpen != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mcpr_connections_open",
			Help: "TCP connections open at the endpoint."}, func() float64 { return float64(src.ConnectionsOpen()) }))
	}
	if src.ConnectionsRefused != nil {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mcpr_connections_refused_total",
			Help: "Connections refused (HTTP 503) because the endpoint held as many as it may (MCPR_MAX_CONNECTIONS)."},
			func() float64 { return float64(src.ConnectionsRefused()) }))
	}
	return m
}

// Observe counts one request log entry. It is on the call path: a map
// lookup under a lock and two vector updates.
func (m *Metrics) Observe(e store.RequestLog) {
	method := e.Method
	if !mcpMethods[method] {
		method = Other
	}
	tool := ""
	if method == "tools/call" && m.known != nil && m.known(e.Target) {
		tool = e.Target
	}
	key := [4]string{e.Server, method, tool, e.Status}
	m.mu.Lock()
	o, ok := m.series[key]
	if !ok {
		if len(m.series) >= MaxSeries {
			key[2] = Other
		}
		if o, ok = m.series[key]; !ok {
			o = observers{requests: m.requests.WithLabelValues(key[:]...),
				latency: m.latency.WithLabelValues(key[0], key[1])}
			m.series[key] = o
		}
	}
	m.mu.Unlock()
	o.requests.Inc()
	o.latency.Observe(e.DurationMs / 1000)
}

// ObserveHook counts one live run of a hook and its time; the phase is
// the hook package's pre or post (anything else is counted as Other).
func (m *Metrics) ObserveHook(phase string, d time.Duration) {
	if phase != "pre" && phase != "post" {
		phase = Other
	}
	m.hooks.WithLabelValues(phase).Observe(d.Seconds())
}

// Handler serves the metrics in Prometheus' text format; at most two
// scrapes run at once (a scrape reads every upstream's state).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{MaxRequestsInFlight: 2})
}

// Registry is the private registry (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

type upstreamCollector struct {
	list func() []Upstream
	desc *prometheus.Desc
}

func (c upstreamCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c upstreamCollector) Collect(ch chan<- prometheus.Metric) {
	for _, u := range c.list() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 1, u.Name, u.State)
	}
}

// mcpMethods are the methods that get their own label: MCP's (both
// revisions) and the router's task methods. Anything else a client sends
// is counted as Other, so junk methods cannot grow the series.
var mcpMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"prompts/list": true, "prompts/get": true,
	"completion/complete": true, "logging/setLevel": true,
	"tasks/get": true, "tasks/result": true, "tasks/cancel": true, "tasks/list": true,
	"subscriptions/listen": true,
}
