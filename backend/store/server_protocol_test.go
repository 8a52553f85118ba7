package store

import (
	"context"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// A server's protocol setting round-trips through the servers table
// (1400_server_protocol), "" (auto) unless set, survives a reopen, and a
// bad value is not stored.
func TestServerProtocolColumn(t *testing.T) {
	ctx := context.Background()
	s2 := reopenedWith(t, spec.Server{Name: "modern", Command: "srv", Protocol: spec.Protocol20260728, Enabled: true},
		spec.Server{Name: "plain", Command: "srv", Enabled: true})
	modern, err1 := s2.Servers().Get(ctx, "modern")
	plain, err2 := s2.Servers().Get(ctx, "plain")
	if err1 != nil || err2 != nil || modern.Protocol != spec.Protocol20260728 || plain.Protocol != spec.ProtocolAuto {
		t.Fatalf("modern %q %v, plain %q %v", modern.Protocol, err1, plain.Protocol, err2)
	}
	if _, err := s2.Servers().Create(ctx, spec.Server{Name: "bad", Command: "srv", Protocol: "2099-01-01", Enabled: true}); err == nil {
		t.Error("an unknown protocol was stored")
	}
}
