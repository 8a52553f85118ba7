package gateway

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
)

func TestLegacySSETransport(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{})
	base := strings.TrimSuffix(r.url, PathMCP)
	c, err := client.NewSSEMCPClient(base + PathSSE)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: "2024-11-05", ClientInfo: mcp.Implementation{Name: "sse-client", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "everything__echo", Arguments: map[string]any{"message": "over sse"}}})
	if err != nil || !strings.Contains(text(res), "over sse") {
		t.Fatalf("echo over /sse: %v %v", res, err)
	}
}

// A client that gives up on a call makes the router cancel the upstream
// request too, so the upstream stops working on it.
func TestCancellationReachesTheUpstream(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	started := make(chan struct{}, 1)
	up := server.NewMCPServer("blocker", "1", server.WithToolCapabilities(false))
	up.AddTool(mcp.NewTool("block"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			cancelled <- struct{}{}
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
			return mcp.NewToolResultText("finished"), nil
		}
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(up, server.WithStateful(true)))
	// Registered before the rig, so it runs after the router let go of it.
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	def := spec.Server{Name: "blocker", URL: hs.URL + "/mcp", Enabled: true}
	def.Normalize()
	r := newRig(t, []spec.Server{def}, rigOptions{})
	c := connect(t, r.url, clientOptions{})

	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "blocker__block"}})
		errs <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream tool never started")
	}
	cancel()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream was not told the call was cancelled")
	}
	// Per the spec nobody answers a cancelled request; whether mcp-go's
	// client then returns is its own business, so this only waits briefly.
	select {
	case err := <-errs:
		if err == nil {
			t.Error("the cancelled call returned a result")
		}
	case <-time.After(2 * time.Second):
	}
}

// Over stdio nothing but the notifications/cancelled the router sends can
// stop the upstream's work.
func TestCancellationReachesAStdioUpstream(t *testing.T) {
	def := spec.Server{Name: "blocker", Command: os.Args[0], Env: map[string]string{"MCPR_FAKE_MODE": "blocker"}, Enabled: true}
	def.Normalize()
	r := newRig(t, []spec.Server{def}, rigOptions{})
	c := connect(t, r.url, clientOptions{})
	console := func() string {
		lines, _ := r.ups.Console("blocker")
		return strings.Join(lines, "\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "blocker__block"}})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(console(), "block: started") {
		if time.Now().After(deadline) {
			t.Fatalf("the tool never started: %q", console())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	deadline = time.Now().Add(5 * time.Second)
	for !strings.Contains(console(), "block: cancelled by the client") {
		if time.Now().After(deadline) {
			t.Fatalf("the stdio upstream was not told of the cancellation: %q", console())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
