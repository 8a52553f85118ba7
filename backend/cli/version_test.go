package cli

import (
	"os"
	"testing"

	"github.com/mcp-router/mcp-router/backend/core"
)

// `mcp-router --version` and `mcp-router version` print the version the
// build stamped into core.Version (make dist: git describe), and touch no
// data dir.
func TestVersionFlagAndCommand(t *testing.T) {
	old := core.Version
	core.Version = "v9.8.7-3-gabcdef0"
	t.Cleanup(func() { core.Version = old })
	dir := t.TempDir() + "/never-created"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if got := mustRun(t, dir, args...); got != "mcp-router v9.8.7-3-gabcdef0\n" {
			t.Fatalf("%v printed %q", args, got)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("printing the version created the data dir: %v", err)
	}
}
