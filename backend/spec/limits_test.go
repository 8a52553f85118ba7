package spec

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/filelimit"

	"github.com/mcp-router/mcp-router/internal/testbombs"
)

// An init argument file that is a FIFO is refused at once: the activation
// that reads it waited for a writer forever.
func TestGateInitArgumentFIFOIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "code.js")
	if err := testbombs.MakeFIFO(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	g := Gate{Enabled: true, InitTool: "init", InitArgFiles: map[string]string{"code": fifo}}
	done := make(chan error, 1)
	go func() { _, err := g.InitArguments(); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, filelimit.ErrNotRegular) {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("InitArguments blocked on a FIFO")
	}
}
