package core_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/cli"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// envCLI makes the test binary run the mcp-router CLI on its arguments:
// a real second process writing to the database, as a user's shell does.
const envCLI = "MCPR_CORE_TEST_RUN_CLI"

// The test binary doubles as an upstream MCP server (testmcp), as the
// CLI in another process (envCLI) and as a router serving HTTP on a data
// dir (MCPR_STATEGATE_ROUTER, for the state_gate crash tests).
func TestMain(m *testing.M) {
	testmcp.ServeIfAsked()
	if os.Getenv(envCLI) == "1" {
		os.Exit(cli.Main(context.Background(), os.Args[1:], cli.Options{}))
	}
	if dir := os.Getenv("MCPR_STATEGATE_ROUTER"); dir != "" {
		serveStategateRouter(dir)
	}
	os.Exit(m.Run())
}

// runCLI runs `mcp-router ARGS…` in another process.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envCLI+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcp-router %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// mcpPost sends one JSON-RPC message with the bearer token and returns the
// body and the session id.
func mcpPost(client *http.Client, url, token, sid, body string) (string, string, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return "", "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	return string(b), resp.Header.Get("Mcp-Session-Id"), err
}

// Under load the router's own writes (the request log's batches, a token's
// last use) reload nothing; a change made with the CLI in another process
// reloads within a second.
func TestReloadsOnConfigurationChangesOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10-second load run")
	}
	dir := t.TempDir()
	c, err := core.Open(dir, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Store.Servers().Create(ctx, spec.Server{Name: "everything", Command: testpeers.Everything(t),
		Args: []string{"stdio"}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	secret, _, err := c.Auth.Create(ctx, "load", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx, 0); err != nil { // the real poll interval
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	ready, served := make(chan string, 1), make(chan error, 1)
	go func() {
		served <- c.Serve(sctx, core.ServeOptions{Addr: "127.0.0.1:0", Ready: func(a string) { ready <- a }})
	}()
	defer func() { stop(); <-served }()
	url := "http://" + <-ready + "/mcp"
	testpeers.Eventually(t, 30*time.Second, "everything to run", func() bool {
		st, err := c.Servers.Status("everything")
		return err == nil && st.State == "running"
	})
	c.Gateway.Rebuild()
	base := c.Reloads()

	// 10 s of calls from 4 sessions. The token is new, so its first use is
	// recorded (then at most once per auth.TouchInterval).
	const sessions = 4
	var calls, failures atomic.Int64
	var firstErr atomic.Value
	deadline := time.Now().Add(10 * time.Second)
	var wg sync.WaitGroup
	for i := 0; i < sessions; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			hc := &http.Client{Timeout: 10 * time.Second}
			_, sid, err := mcpPost(hc, url, secret, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}`)
			if err == nil {
				_, _, err = mcpPost(hc, url, secret, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			for id := 1; err == nil && time.Now().Before(deadline); id++ {
				var body string
				body, _, err = mcpPost(hc, url, secret, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"m%d"}}}`, id, i))
				if err == nil && !strings.Contains(body, fmt.Sprintf("Echo: m%d", i)) {
					err = fmt.Errorf("unexpected answer %s", body)
				}
				if err == nil {
					calls.Add(1)
				}
			}
			if err != nil {
				failures.Add(1)
				firstErr.CompareAndSwap(nil, err)
			}
		}(i)
	}
	wg.Wait()
	if failures.Load() > 0 {
		t.Fatalf("%d sessions failed: %v", failures.Load(), firstErr.Load())
	}
	// The run did write: request log rows and the token's last use.
	testpeers.Eventually(t, 5*time.Second, "the request log to hold the calls", func() bool {
		id, err := c.Store.Logs().MaxID(ctx)
		return err == nil && id > 0
	})
	testpeers.Eventually(t, 5*time.Second, "the token's last use to be recorded", func() bool {
		tok, err := c.Store.Tokens().Get(ctx, "load")
		return err == nil && tok.LastUsedAt != nil
	})
	time.Sleep(time.Second) // two poll intervals, for the last writes to be seen
	if got := c.Reloads() - base; got != 0 {
		t.Fatalf("%d reloads during %d calls in 10 s; want 0", got, calls.Load())
	}
	t.Logf("%d calls in 10 s, 0 reloads", calls.Load())

	// A configuration change from the CLI in another process.
	runCLI(t, "--data-dir", dir, "settings", "set", "timeout", "7")
	changed := time.Now()
	testpeers.Eventually(t, time.Second, "a reload after the CLI's change", func() bool { return c.Reloads() > base })
	t.Logf("reloaded %v after the CLI's change", time.Since(changed).Round(time.Millisecond))
	if got := c.Settings.TimeoutSeconds(ctx); got != 7 {
		t.Errorf("timeout setting after the reload = %d, want 7", got)
	}
	runCLI(t, "--data-dir", dir, "servers", "disable", "everything")
	testpeers.Eventually(t, 6*time.Second, "the disabled server to stop", func() bool {
		st, err := c.Servers.Status("everything")
		return err == nil && st.State == "stopped"
	})
}
