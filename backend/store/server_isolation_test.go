package store

import (
	"context"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// A server's isolation round-trips through the servers table
// (1000_server_isolation), "" (shared) unless set, and survives a reopen.
func TestServerIsolationColumn(t *testing.T) {
	ctx := context.Background()
	s2 := reopenedWith(t, spec.Server{Name: "mine", Command: "srv", Args: []string{"${client.root}"}, Isolation: spec.PerClient, Enabled: true},
		spec.Server{Name: "ours", Command: "srv", Enabled: true})
	mine, err1 := s2.Servers().Get(ctx, "mine")
	ours, err2 := s2.Servers().Get(ctx, "ours")
	if err1 != nil || err2 != nil || !mine.IsPerClient() || ours.IsPerClient() || mine.Args[0] != "${client.root}" {
		t.Fatalf("mine %+v %v, ours %+v %v", mine, err1, ours, err2)
	}
	if _, err := s2.Servers().Create(ctx, spec.Server{Name: "bad", Command: "srv", Args: []string{"${client.root}"}, Enabled: true}); err == nil {
		t.Error("a shared server with a client template was stored")
	}
}
