package gateway

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The test binary doubles as a stdio upstream when MCPR_FAKE_MODE is set
// (go-sdk's mcp/cmd_test.go pattern).
func TestMain(m *testing.M) {
	if os.Getenv("MCPR_FAKE_MODE") == "blocker" {
		s := server.NewMCPServer("blocker", "1", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("block"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "block: started")
			select {
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "block: cancelled by the client")
				return nil, ctx.Err()
			case <-time.After(20 * time.Second):
				return mcp.NewToolResultText("finished"), nil
			}
		})
		_ = server.ServeStdio(s)
		os.Exit(0)
	}
	os.Exit(m.Run())
}
