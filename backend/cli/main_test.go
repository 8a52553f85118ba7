package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/mcp-router/mcp-router/internal/testmcp"
)

// envAsRouter makes the test binary run as mcp-router (as main.go does,
// without the desktop): tests start it as a real router process, the way a
// client or a wrapper script would (go-sdk's mcp/cmd_test.go pattern).
const envAsRouter = "MCPR_TEST_AS_ROUTER"

func TestMain(m *testing.M) {
	testmcp.ServeIfAsked() // the test binary as an upstream MCP server
	if os.Getenv(envAsRouter) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Main(ctx, os.Args[1:], Options{})
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
