package toolsearch

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

var benchWords = []string{"read", "write", "list", "search", "create", "delete", "update", "fetch", "send", "get",
	"file", "issue", "message", "calendar", "event", "weather", "forecast", "repository", "commit", "branch",
	"user", "channel", "document", "page", "table", "row", "image", "invoice", "ticket", "note"}

// catalogOf is servers × perServer tools with names, descriptions and
// parameters drawn from benchWords, and a Japanese description on every
// tenth tool.
func catalogOf(servers, perServer int) []Tool {
	out := make([]Tool, 0, servers*perServer)
	for s := range servers {
		for i := range perServer {
			w := func(k int) string { return benchWords[(s*7+i*3+k)%len(benchWords)] }
			desc := fmt.Sprintf("%s the %s of a %s in %s", w(0), w(1), w(2), w(3))
			if i%10 == 0 {
				desc += " 東京の天気予報を取得します"
			}
			out = append(out, tool(fmt.Sprintf("srv%03d", s), fmt.Sprintf("%s_%s_%d", w(0), w(1), i), desc,
				map[string]string{w(4): "the " + w(5), w(6) + "_id": "which " + w(6)}))
		}
	}
	return out
}

// BenchmarkSearch10k is search_tools' ranking over 10,000 tools (100
// servers × 100): p50 and p99 of one query, and the build (make
// bench-profiles; docs/profiles.md has the figures).
func BenchmarkSearch10k(b *testing.B) {
	tools := catalogOf(100, 100)
	start := time.Now()
	x, err := Build(tools)
	if err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	defer x.Close()
	queries := []string{"weather forecast", "delete file", "send message to channel", "create calendar event", "天気予報", "commit branch"}
	keep := func(names []string) map[string]bool {
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := x.Search(context.Background(), queries[i%len(queries)], 10, keep); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(durations)
	pct := func(p float64) float64 {
		return float64(durations[int(p*float64(len(durations)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(build.Milliseconds()), "build-ms")
}
