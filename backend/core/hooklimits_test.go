package core

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A hook whose returned or thrown value runs script when the router reads
// it, through the real endpoint: the request ends within the hook time
// limit set with `settings set hookTimeout` (no restart), the failure is in
// the hook's log under its name, and the request goes on — or is refused
// when the hook is fail-closed. No upstream is needed: tools/list runs the
// pre hooks before the router answers.
func TestHostileHookReadsThroughTheEndpoint(t *testing.T) {
	dir := t.TempDir()
	ep := serve(t, dir, nil, true)
	cli, err := store.Open(config.DBPath(dir)) // the CLI's handle
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	c, err := mcpClient(t, ep.url, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// The default limit is 5 s; 1 s set by the CLI reaches the running
	// router within its settings refresh.
	if err := settings.New(cli).Set(ctx, settings.KeyHookTimeout, "1"); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 3*time.Second, "the router to see hookTimeout=1", func() bool {
		return ep.core.Settings.HookTimeout(ctx) == time.Second
	})

	scripts := []struct{ name, script, want string }{
		{"spin-getter", `if (context.requestType === 'ListTools') return { get continue() { for (;;) {} } };`, "timed out"},
		{"hostile-throw", `if (context.requestType === 'ListTools') throw { toString() { throw new Error('unreadable'); } };`, "Error: unreadable"},
		{"proxy-result", `if (context.requestType === 'ListTools') return new Proxy({}, { get() { throw new Error('trap'); } });`, "Error: trap"},
	}
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			if _, err := cli.Hooks().Create(ctx, store.Hook{Name: sc.name, Enabled: true, HookType: store.HookPre, Script: sc.script}); err != nil {
				t.Fatal(err)
			}
			if err := ep.core.Hooks.Reload(ctx); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
				t.Errorf("fail-open hook: tools/list failed: %v", err)
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("fail-open: tools/list took %v with a 1 s hook limit", d)
			}
			logs := ep.core.Hooks.Logs(sc.name)
			if len(logs) == 0 || !strings.Contains(logs[len(logs)-1].Message, sc.want) {
				t.Errorf("hook log = %+v, want %q", logs, sc.want)
			}

			h, err := cli.Hooks().Get(ctx, sc.name)
			if err != nil {
				t.Fatal(err)
			}
			h.FailClosed = true
			if _, err := cli.Hooks().Update(ctx, h); err != nil {
				t.Fatal(err)
			}
			if err := ep.core.Hooks.Reload(ctx); err != nil {
				t.Fatal(err)
			}
			_, err = c.ListTools(ctx, mcp.ListToolsRequest{})
			if err == nil || !strings.Contains(err.Error(), `blocked by hook "`+sc.name+`": hook failed: `) || !strings.Contains(err.Error(), sc.want) || strings.Contains(err.Error(), "panic") {
				t.Errorf("fail-closed: tools/list error = %v", err)
			}
			if err := cli.Hooks().Delete(ctx, sc.name); err != nil {
				t.Fatal(err)
			}
			if err := ep.core.Hooks.Reload(ctx); err != nil {
				t.Fatal(err)
			}
			// The endpoint still answers normally afterwards.
			if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
				t.Errorf("after removal: %v", err)
			}
		})
	}
}
