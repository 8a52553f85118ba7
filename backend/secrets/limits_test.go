package secrets

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/filelimit"

	"github.com/mcp-router/mcp-router/internal/testbombs"
)

// A FIFO in place of the secrets file is refused at once (os.ReadFile
// waited for a writer forever, holding the store's lock).
func TestSecretsFileThatIsAFIFOIsRefused(t *testing.T) {
	t.Setenv(EnvStore, InFile)
	dir := t.TempDir()
	if err := testbombs.MakeFIFO(filepath.Join(dir, "keys.json")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	s := New(dir, "keys.json", "k-", "API key")
	done := make(chan error, 1)
	go func() { _, err := s.Get("openai"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, filelimit.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Get blocked on a FIFO")
	}
}
