package cli

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
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

// `serve` on a port another process holds fails at once with one line
// naming that process (here: this test's own pid) and stores nothing new.
func TestServeOnABusyPortNamesTheHolder(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := run(t, t.TempDir(), "", "serve", "--no-auth", "--listen", ln.Addr().String())
	if r.code == 0 {
		t.Fatalf("serve on a busy port exited 0: %s", r.stdout)
	}
	want := "cannot listen on " + ln.Addr().String()
	if runtime.GOOS == "linux" {
		want = fmt.Sprintf("held by pid %d (", os.Getpid())
	}
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "already running?") {
		t.Fatalf("stderr %q lacks %q", r.stderr, want)
	}
}
