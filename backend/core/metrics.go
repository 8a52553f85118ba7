package core

import (
	"context"
	"net/http"

	"github.com/mcp-router/mcp-router/backend/gateway"
	"github.com/mcp-router/mcp-router/backend/metrics"
	"github.com/mcp-router/mcp-router/backend/reqlog"
	"github.com/mcp-router/mcp-router/backend/store"
)

// PathMetrics is where the endpoint serves the Prometheus metrics.
const PathMetrics = "/metrics"

// newMetrics reads the router's services at each scrape; the gateway and
// the upstream service are made after it, so each source checks for them.
func (c *Core) newMetrics() *metrics.Metrics {
	return metrics.New(metrics.Sources{
		Upstreams: func() []metrics.Upstream {
			if c.Servers == nil {
				return nil
			}
			var out []metrics.Upstream
			for _, st := range c.Servers.Statuses() {
				out = append(out, metrics.Upstream{Name: st.Name, State: string(st.State)})
			}
			return out
		},
		Sessions: func() int {
			if c.Gateway == nil {
				return 0
			}
			return c.Gateway.SessionCount()
		},
		ApprovalsWaiting: func() int {
			if c.Approvals == nil {
				return 0
			}
			return len(c.Approvals.Pending())
		},
		LogDropped: func() uint64 { return c.Requests.Dropped() },
		ConnectionsOpen: func() int {
			if l := c.conns.Load(); l != nil {
				return l.Open()
			}
			return 0
		},
		ConnectionsRefused: func() uint64 {
			if l := c.conns.Load(); l != nil {
				return l.Refused()
			}
			return 0
		},
		KnownTool: func(name string) bool {
			if c.Gateway == nil {
				return false
			}
			_, _, ok := c.Gateway.ToolRoute(name)
			return ok
		},
	})
}

// countedLog is the gateway's request log: each entry is counted, then
// written.
type countedLog struct {
	log     *reqlog.Writer
	metrics *metrics.Metrics
}

func (l countedLog) Log(e store.RequestLog) {
	l.metrics.Observe(e)
	l.log.Log(e)
}

// metricsHandler is /metrics: an admin token when tokens are on (the
// metrics name every server and tool), open like /mcp when they are off;
// behind the same Host/Origin guard either way.
func (c *Core) metricsHandler(authOn func(context.Context) bool) http.Handler {
	open := c.Metrics.Handler()
	admin := c.Auth.RequireAdmin(open)
	return gateway.GuardLocal(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if authOn(r.Context()) {
			admin.ServeHTTP(w, r)
			return
		}
		open.ServeHTTP(w, r)
	}))
}

// startCharts samples the figures for the app's charts until ctx ends
// (Close waits for it).
func (c *Core) startCharts(ctx context.Context) {
	c.chartsDone = make(chan struct{})
	go func() {
		defer close(c.chartsDone)
		c.Charts.Run(ctx)
	}()
}
