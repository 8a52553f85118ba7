package distcheck

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func TestCallOverHTTP(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t)
	url := "http://" + addr + "/mcp"
	got, err := CallOverHTTP(context.Background(), url, "test_simple_text", nil, 20*time.Second)
	if err != nil || got != "This is a simple text response for testing." {
		t.Fatalf("test_simple_text: %q, %v", got, err)
	}
	// A tool the server never lists, a tool error and no server at all
	// each fail, naming what happened.
	if _, err := CallOverHTTP(context.Background(), url, "no_such_tool", nil, 2*time.Second); err == nil || !strings.Contains(err.Error(), "no_such_tool not listed") {
		t.Errorf("unlisted tool: %v", err)
	}
	if _, err := CallOverHTTP(context.Background(), url, "test_error_handling", nil, 10*time.Second); err == nil || !strings.Contains(err.Error(), "answered an error") {
		t.Errorf("tool error: %v", err)
	}
	dead := "http://127.0.0.1:1/mcp" // port 1: nothing listens
	if _, err := CallOverHTTP(context.Background(), dead, "test_simple_text", nil, time.Second); err == nil || !strings.Contains(err.Error(), "connecting to") {
		t.Errorf("no server: %v", err)
	}
}
