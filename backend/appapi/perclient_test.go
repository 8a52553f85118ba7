package appapi

import (
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// The Servers page gets a server's isolation, its per-client instances
// (client, pid, since, calls) and the suggestion to make a shared server
// that asks its clients per-client.
func TestServerViewPerClient(t *testing.T) {
	since := time.UnixMilli(1_700_000_000_000)
	st := upstream.Status{Name: "fs", State: upstream.StateRunning,
		Instances: []upstream.InstanceStatus{{ID: 2, Client: "claude-code (dev) a1b2c3", PID: 4242, Since: since, Calls: 7, State: upstream.StateRunning}}}
	v := makeView(spec.Server{Name: "fs", Transport: spec.Stdio, Command: "srv", Isolation: spec.PerClient}, st, false)
	if v.Isolation != "per-client" || len(v.Instances) != 1 || v.Instances[0] != (InstanceView{ID: 2, Client: "claude-code (dev) a1b2c3", PID: 4242,
		Since: since.UnixMilli(), Calls: 7, State: "running"}) || v.SuggestPerClient != nil {
		t.Errorf("per-client view %+v", v)
	}
	st = upstream.Status{Name: "fs", State: upstream.StateRunning, SuggestPerClient: &upstream.PerClientSuggestion{What: "roots", Clients: 2, At: since}}
	v = makeView(spec.Server{Name: "fs", Transport: spec.Stdio, Command: "srv"}, st, false)
	if v.Isolation != "shared" || v.Instances != nil || v.SuggestPerClient == nil || *v.SuggestPerClient != (PerClientSuggestionView{What: "roots", Clients: 2, At: since.UnixMilli()}) {
		t.Errorf("shared view %+v", v)
	}
}

// A lazy server's row says so (the page shows "stopped — starts on use").
func TestServerViewLazy(t *testing.T) {
	lazy := makeView(spec.Server{Name: "l", Transport: spec.Stdio, Command: "srv", Start: spec.StartLazy}, upstream.Status{State: upstream.StateStopped}, false)
	eager := makeView(spec.Server{Name: "e", Transport: spec.Stdio, Command: "srv"}, upstream.Status{State: upstream.StateStopped}, false)
	if !lazy.Lazy || eager.Lazy {
		t.Fatalf("lazy %v, eager %v", lazy.Lazy, eager.Lazy)
	}
}
