package appapi

import "github.com/mcp-router/mcp-router/backend/metrics"

// MetricsSeries is the figures of the last minutes for the Servers and
// Logs pages' charts: a point every few seconds, oldest first, the same
// counters /metrics serves (docs/metrics.md "In the app").
func (a *API) MetricsSeries() (metrics.SeriesView, error) {
	return a.core.Charts.View(), nil
}
