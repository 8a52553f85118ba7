//go:build !windows

package core

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// BenchmarkReload is what one configuration reload costs (servers, hooks,
// the catalog rebuild it asks for, the dropped settings cache) with two
// running servers and three hooks: the work that, before the configuration
// revision, ran twice a second under traffic because the request log's
// batches moved PRAGMA data_version.
func BenchmarkReload(b *testing.B) {
	c, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		if _, err := c.Store.Servers().Create(ctx, testmcp.Server(name)); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range []string{"h1", "h2", "h3"} {
		if _, err := c.Store.Hooks().Create(ctx, store.Hook{Name: name, HookType: store.HookPre, Enabled: true,
			Script: "if (context.toolName !== 'x') return;"}); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Run(ctx, time.Hour); err != nil {
		b.Fatal(err)
	}
	testpeers.Eventually(b, 15*time.Second, "both servers to run", func() bool {
		for _, st := range c.Servers.Statuses() {
			if st.State != "running" {
				return false
			}
		}
		return len(c.Servers.Statuses()) == 2
	})
	cpu0 := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.reload(ctx)
		c.Gateway.Rebuild() // what the Refresh it asked for does after the debounce
		_ = c.Settings.Port(ctx)
	}
	b.StopTimer()
	// CPU rather than wall time: on a busy machine the wall clock mostly
	// measures waiting for a core.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is this process's user + system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
