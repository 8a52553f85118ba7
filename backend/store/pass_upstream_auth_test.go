package store

import (
	"context"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// A server's passUpstreamAuth round-trips through the servers table
// (0400_server_pass_upstream_auth), off unless set, and survives a reopen.
func TestServerPassUpstreamAuthColumn(t *testing.T) {
	ctx := context.Background()
	s2 := reopenedWith(t, spec.Server{Name: "on", URL: "http://127.0.0.1:1/mcp", PassUpstreamAuth: true, Enabled: true},
		spec.Server{Name: "off", URL: "http://127.0.0.1:1/mcp", Enabled: true})
	on, err1 := s2.Servers().Get(ctx, "on")
	off, err2 := s2.Servers().Get(ctx, "off")
	if err1 != nil || err2 != nil || !on.PassUpstreamAuth || off.PassUpstreamAuth {
		t.Fatalf("on %+v %v, off %+v %v", on.PassUpstreamAuth, err1, off.PassUpstreamAuth, err2)
	}
	if _, err := s2.Servers().Create(ctx, spec.Server{Name: "bad", Command: "x", PassUpstreamAuth: true, Enabled: true}); err == nil {
		t.Error("a stdio server with passUpstreamAuth was stored")
	}
}

// reopenedWith creates servers in a new store file, closes it, and returns
// the file opened again (closed with the test): what a column keeps across
// a restart.
func reopenedWith(t *testing.T, servers ...spec.Server) *Store {
	t.Helper()
	s, path := openTest(t)
	for _, def := range servers {
		if _, err := s.Servers().Create(context.Background(), def); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}
