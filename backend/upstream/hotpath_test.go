package upstream

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/hotpath"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// A stdio server's pipes are read and written with raw system calls
// (package hotpath) where they are used, and calls work over them.
func TestStdioPipesUseRawIO(t *testing.T) {
	s := newTestService(t)
	_ = s.Sync([]spec.Server{fakeServer("dyn", "listchanged", marker(t))})
	waitState(t, s, "dyn", StateRunning, 10*time.Second)
	if _, err := s.Request(context.Background(), "dyn", "tools/call", map[string]any{"name": "grow"}); err != nil {
		t.Fatal(err)
	}
	m, err := s.get("dyn")
	if err != nil {
		t.Fatal(err)
	}
	m.mu.RLock()
	tr := m.conn.tr
	m.mu.RUnlock()
	pt, ok := tr.(*pipeTransport)
	if !ok {
		t.Fatalf("transport %T, want the pipe transport", tr)
	}
	if _, plain := pt.in.w.(*os.File); plain == hotpath.RawIO() {
		t.Fatalf("stdin writer is a %T with raw I/O %v", pt.in.w, hotpath.RawIO())
	}
}
