package core

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/metrics"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The charts' series moves with real calls: calls through the router to a
// real go-sdk upstream over HTTP appear under that server with their
// latency and its state, the session is counted, and a client's calls of
// unknown tools add no server of their own (their refusals are counted under no server).
func TestChartsSeriesMovesWithRealCalls(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t)
	def := spec.Server{Name: "gosdk", Transport: spec.HTTP, URL: "http://" + addr + "/mcp", Enabled: true}
	ep := serve(t, t.TempDir(), []spec.Server{def}, true)
	ctx := context.Background()
	c, err := mcpClient(t, ep.url, "")
	if err != nil {
		t.Fatal(err)
	}
	tool := ""
	for _, n := range listTools(t, c) {
		if strings.HasSuffix(n, "test_simple_text") {
			tool = n
		}
	}
	if tool == "" {
		t.Fatalf("no test_simple_text among %v", listTools(t, c))
	}
	// A pre hook runs on every call: its time is counted.
	if _, err := ep.core.Hooks.Create(ctx, store.Hook{Name: "tag", Enabled: true, ExecutionOrder: 1, HookType: "pre",
		Script: `return { continue: true };`}); err != nil {
		t.Fatal(err)
	}
	if err := ep.core.Hooks.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	ep.core.Charts.Sample(time.Now()) // what came before: the list
	const calls = 7
	for i := 0; i < calls; i++ {
		if _, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 30; i++ {
		_, _ = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: fmt.Sprintf("no-such-%d", i)}})
	}
	// The request log is written in the background; its entries are
	// counted as they are handed to it, so the figures are there now.
	ep.core.Charts.Sample(time.Now())

	v := ep.core.Charts.View()
	if v.Capacity != metrics.SeriesPoints || v.IntervalSeconds != metrics.SeriesInterval.Seconds() {
		t.Errorf("view: capacity %d interval %v", v.Capacity, v.IntervalSeconds)
	}
	// The sampler of Run may have taken a point in between: add up the
	// points after the first manual one.
	var sum, gosdk, router metrics.ServerPoint
	var hookRuns uint64
	var last metrics.Point
	seen := map[string]bool{}
	for _, p := range v.Points {
		last = p
		for _, s := range p.Servers {
			seen[s.Server] = true
		}
	}
	for _, p := range v.Points[len(v.Points)-2:] {
		sum.Calls += p.Calls
		sum.Errors += p.Errors
		hookRuns += p.HookRuns
		for _, s := range p.Servers {
			switch s.Server {
			case "gosdk":
				gosdk.Calls += s.Calls
				gosdk.Errors += s.Errors
				if s.P95Ms > gosdk.P95Ms {
					gosdk.P95Ms = s.P95Ms
				}
				gosdk.State = s.State
			case "": // the request log names no server for an unknown tool
				router.Calls += s.Calls
				router.Errors += s.Errors
			}
		}
	}
	if gosdk.Calls != calls || gosdk.Errors != 0 || gosdk.P95Ms <= 0 || gosdk.State != "running" {
		t.Errorf("gosdk's calls: %+v", gosdk)
	}
	if router.Calls != 30 || router.Errors != 30 {
		t.Errorf("the router's refusals of unknown tools: %+v", router)
	}
	if sum.Calls != calls+30 || sum.Errors != 30 {
		t.Errorf("all calls: %+v", sum)
	}
	if len(seen) != 2 || !seen["gosdk"] || !seen[""] {
		t.Errorf("servers named: %v (unknown tools must add none)", seen)
	}
	// Every call ran the pre hook, the unknown tools' too unless refused
	// before hooks: at least the 7 real calls.
	if hookRuns < calls {
		t.Errorf("hook runs counted: %d, want at least %d", hookRuns, calls)
	}
	if last.Sessions < 1 {
		t.Errorf("sessions at the last sample: %d", last.Sessions)
	}
}
