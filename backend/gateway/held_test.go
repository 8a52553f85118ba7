package gateway

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A tool the catalog holds is not listed, and nothing reaches it: not a
// client naming it (tool_held), and not a handler published before the
// hold (send refuses it: a call already routed, a held multi-round-trip
// call). The other tools keep their names.
func TestHeldToolIsNotListedNorCalled(t *testing.T) {
	var hold atomic.Bool
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{
		heldTools: func(server string) map[string]bool {
			if server == "everything" && hold.Load() {
				return map[string]bool{"echo": true}
			}
			return nil
		},
	})
	c := connect(t, r.url, clientOptions{})
	if res, err := call(c, "everything__echo", map[string]any{"message": "before"}); err != nil || !strings.Contains(text(res), "before") {
		t.Fatalf("before the hold: %v %v", res, err)
	}
	stale := r.gw.Server().ListTools()["everything__echo"].Handler
	names := toolNames(t, c)

	hold.Store(true)
	r.gw.Refresh()
	testpeers.Eventually(t, 10*time.Second, "everything__echo withheld", func() bool {
		return !contains(toolNames(t, c), "everything__echo")
	})
	if now := toolNames(t, c); len(now) != len(names)-1 {
		t.Fatalf("tools %v, were %v", now, names)
	}
	_, err := call(c, "everything__echo", map[string]any{"message": "after"})
	if err == nil || !strings.Contains(err.Error(), "is held") || !strings.Contains(err.Error(), "mcp-router tools accept everything echo") {
		t.Fatalf("a client calling the held tool: %v", err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "everything__echo", map[string]any{"message": "stale"}
	res, err := stale(context.Background(), req)
	var re *pipeline.RouteError
	if !errors.As(err, &re) || re.Reason != pipeline.ReasonToolHeld {
		t.Fatalf("a handler published before the hold: %v, %v", res, err)
	}

	hold.Store(false)
	r.gw.Refresh()
	testpeers.Eventually(t, 10*time.Second, "everything__echo back", func() bool {
		return contains(toolNames(t, c), "everything__echo")
	})
}
