package core

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/stategate"
)

// BenchmarkStateGateEmit measures emit_event (an accepted event: one
// SQLite transaction with its fsync) through the router's HTTP endpoint,
// and the same engine called in-process without the router, and reports
// p50/p99 of each and the ratio. Figures, not a pass/fail:
//
//	go test -run '^$' -bench StateGateEmit -benchtime 2000x ./backend/core/
func BenchmarkStateGateEmit(b *testing.B) {
	dir := b.TempDir()
	writeProcess(b, dir, loopProcess)
	ep := serveBench(b, dir)
	c, err := benchClient(ep.url)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	run := createRun(b, c, "state_gate__create_run")

	routed := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		raw, err := callTool(context.Background(), c, "state_gate__emit_event", emitArgs(run, int64(i), fmt.Sprintf("r-%d", i)))
		routed = append(routed, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		var a stategate.EmitResponse
		if json.Unmarshal(raw, &a) != nil || !a.Success {
			b.Fatalf("emit %d: %s", i, raw)
		}
	}
	b.StopTimer()

	// The engine alone, on the same database.
	svc := ep.core.StateGate
	direct := make([]time.Duration, 0, b.N)
	info, err := svc.CreateRun(context.Background(), stategate.Actor{Name: "bench"}, "loop", nil, "")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		rev := int64(i)
		start := time.Now()
		a, err := svc.Emit(context.Background(), stategate.Actor{Name: "bench"}, stategate.EmitRequest{RunID: info.RunID, EventName: "tick",
			Payload: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), ExpectedRevision: &rev, IdempotencyKey: fmt.Sprintf("d-%d", i)})
		direct = append(direct, time.Since(start))
		if err != nil || !a.Success {
			b.Fatalf("direct emit %d: %v %+v", i, err, a)
		}
	}
	rp50, rp99 := percentiles(routed)
	dp50, dp99 := percentiles(direct)
	b.ReportMetric(ms(rp50), "p50-ms")
	b.ReportMetric(ms(rp99), "p99-ms")
	b.ReportMetric(ms(dp50), "direct-p50-ms")
	b.ReportMetric(ms(rp50)/ms(dp50), "routed/direct-p50")
	b.Logf("emit_event n=%d: through the router p50 %.3f ms p99 %.3f ms; engine alone p50 %.3f ms p99 %.3f ms; router adds %.3f ms at p50",
		b.N, ms(rp50), ms(rp99), ms(dp50), ms(dp99), ms(rp50)-ms(dp50))
}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2], s[len(s)*99/100]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func serveBench(b *testing.B, dir string) *endpoint {
	c, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Store.Servers().Create(ctx, spec.Server{Name: stategate.ServerName, Transport: spec.Builtin, Enabled: true}); err != nil {
		b.Fatal(err)
	}
	if err := c.Run(ctx, 500*time.Millisecond); err != nil {
		b.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- c.Serve(sctx, ServeOptions{Addr: "127.0.0.1:0", NoAuth: true, Ready: func(a string) { ready <- a }})
	}()
	addr := <-ready
	b.Cleanup(func() {
		cancel()
		<-done
		c.Close()
	})
	c.WaitStarted(ctx)
	c.Gateway.Rebuild()
	return &endpoint{core: c, url: "http://" + addr + "/mcp", addr: addr}
}

func benchClient(url string) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "bench", Version: "1"}}})
	return c, err
}
