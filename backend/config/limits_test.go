package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/filelimit"
	"github.com/mcp-router/mcp-router/internal/testbombs"
)

// configBombs are client configs that cost their parser far more than
// their size before the caps: deep nesting (hujson's tree of 500,000
// levels took 960 MB), with comments so that the JSONC path runs, and
// over the size cap.
var configBombs = []struct {
	name, src, want string
	cap             error
}{
	{"deep", `{"mcpServers": {"a": {"command": "x", "args": ` + testbombs.JSON(400_000) + `}}}`, "line 1, column 108: nested more than 64 levels deep", filelimit.ErrTooDeep},
	{"deep with comments", "// a comment\n{\"mcpServers\": " + testbombs.JSON(400_000) + ",}", "line 2, column 79: nested more than 64 levels deep", filelimit.ErrTooDeep},
	{"huge", `{"mcpServers": {}, "history": ` + testbombs.Scalar(MaxClientConfigBytes) + `}`, "over 16 MiB, the size cap of a client config", filelimit.ErrTooLarge},
}

func TestClientConfigBombsAreRefused(t *testing.T) {
	for _, tc := range configBombs {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			start := time.Now()
			alloc := testbombs.Allocated(func() { _, err = ParseClientConfig([]byte(tc.src)) })
			t.Logf("%d bytes refused in %s, %d KB allocated: %v", len(tc.src), time.Since(start), alloc>>10, err)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if alloc > 64<<20 {
				t.Errorf("refusing it allocated %d MB", alloc>>20)
			}
		})
	}
}

// A client config that is a FIFO is refused at once (it was read with
// os.ReadFile, which waits for a writer forever), and one over the cap is
// refused before it is read.
func TestReadClientConfigRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "mcp.json")
	if err := testbombs.MakeFIFO(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadClientConfig(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, filelimit.ErrNotRegular) || !strings.HasPrefix(err.Error(), fifo+": ") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadClientConfig blocked on a FIFO")
	}
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxClientConfigBytes + 1); err != nil { // sparse: nothing to read
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadClientConfig(big); !errors.Is(err, filelimit.ErrTooLarge) {
		t.Errorf("big: %v", err)
	}
}

// An instance-id that is a FIFO is refused at once: the read is on the
// way to every start (core.Open), and os.ReadFile waited for a writer
// forever.
func TestInstanceIDThatIsAFIFOIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := testbombs.MakeFIFO(filepath.Join(dir, InstanceFile)); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := InstanceID(dir); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, filelimit.ErrNotRegular) {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("InstanceID blocked on a FIFO")
	}
}
