package cli

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testbombs"
)

// runMeasured runs the CLI and says how long it took and what it
// allocated (MemStats.TotalAlloc).
func runMeasured(t *testing.T, dir string, args ...string) (result, time.Duration, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	r := run(t, dir, "", args...)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return r, took, after.TotalAlloc - before.TotalAlloc
}

// Issue 24: `policy check` on the ladder died of "out of memory" and
// `stategate process check` grew to 23 GB. Both now exit 1 at once with
// the problem at its line and column, naming the cap.
func TestChecksRefuseTheLadder(t *testing.T) {
	dir, files := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		args []string
		out  func(result) string
		want string
	}{
		{[]string{"policy", "check", writeFile(t, files, "policy.yaml", testbombs.Policy())},
			func(r result) string { return r.stdout }, ":13:18: aliases expand the document past 10000 nodes"},
		{[]string{"stategate", "process", "check", writeFile(t, files, "lol.yaml", testbombs.Process())},
			func(r result) string { return r.stderr }, "lol.yaml:15:18: aliases expand the document past 10000 nodes"},
	} {
		r, took, alloc := runMeasured(t, dir, tc.args...)
		t.Logf("%s: exit %d in %s, %d KB allocated: %s", strings.Join(tc.args[:2], " "), r.code, took, alloc>>10, strings.TrimSpace(tc.out(r)))
		if r.code != ExitError || !strings.Contains(tc.out(r), tc.want) || !strings.Contains(tc.out(r), "docs/limits.md") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, r.code, r.stdout, r.stderr)
		}
		if took > 10*time.Second || alloc > 128<<20 {
			t.Errorf("%v took %s and %d MB", tc.args, took, alloc>>20)
		}
	}
}

// The files the CLI reads are refused at once when they are FIFOs (a
// plain open waits for a writer forever).
func TestCommandsRefuseAFIFO(t *testing.T) {
	dir, files := t.TempDir(), t.TempDir()
	fifo := filepath.Join(files, "input")
	if err := testbombs.MakeFIFO(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, args := range [][]string{
		{"policy", "check", fifo},
		{"stategate", "process", "check", fifo},
		{"stategate", "process", "add", fifo},
		{"servers", "import", fifo},
		{"hooks", "add", "h", "--type", "pre", "--file", fifo},
		{"hooks", "test", "h", "--context", fifo},
	} {
		done := make(chan result, 1)
		go func() { done <- run(t, dir, "", args...) }()
		select {
		case r := <-done:
			if r.code != ExitError || !strings.Contains(r.stderr, "named pipe (FIFO), not a regular file") {
				t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v blocked on a FIFO", args)
		}
	}
}
