package stategate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testbombs"
)

// Issue 24: the ladder in a process definition crashed the router at the
// first create_run, and `stategate process check` grew to 23 GB. It is
// refused at the alias that passes the cap, with its line and column.
func TestProcessLadderIsRefused(t *testing.T) {
	src := []byte(testbombs.Process())
	var err error
	start := time.Now()
	alloc := testbombs.Allocated(func() { _, err = Parse(src, CompileOptions{}) })
	took := time.Since(start)
	var de *DefinitionError
	if !errors.As(err, &de) || len(de.Problems) != 1 {
		t.Fatalf("err = %v", err)
	}
	p := de.Problems[0]
	if p.Line < 11 || p.Column == 0 || !strings.Contains(p.Message, "aliases expand the document past") {
		t.Errorf("problem %+v", p)
	}
	t.Logf("%d-byte ladder refused in %s, %d KB allocated: %s", len(src), took, alloc>>10, p)
	if took > 5*time.Second || alloc > 64<<20 {
		t.Errorf("refusing it took %s and %d MB", took, alloc>>20)
	}
}

// The ladder in processes/ is refused by the registry: the other
// processes are served, and create_run of it answers with an error that
// says why.
func TestRegistryRefusesTheLadder(t *testing.T) {
	r := newRig(t)
	dir := ProcessesDir(r.dir)
	if err := os.WriteFile(filepath.Join(dir, "lol.yaml"), []byte(testbombs.Process()), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	raw, isErr := r.call(ctx, "create_run", map[string]any{"process_id": "lol"})
	if !isErr || !strings.Contains(string(raw), CodeProcessNotFound) || !strings.Contains(string(raw), "lol.yaml does not load") ||
		!strings.Contains(string(raw), "aliases expand") {
		t.Errorf("create_run: %s", raw)
	}
	r.createRun(ctx) // the example process is served
	files, err := r.svc.Processes()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, f := range files {
		if f.File == "lol.yaml" {
			found = f.Err != nil && strings.Contains(f.Err.Error(), "aliases expand")
		}
	}
	if !found {
		t.Errorf("lol.yaml not listed with its problem: %+v", files)
	}
}

// A FIFO named *.yaml in processes/ is refused at once (it was read with
// os.ReadFile, which waits for a writer forever, under the registry's
// lock).
func TestRegistryRefusesAFIFO(t *testing.T) {
	r := newRig(t)
	fifo := filepath.Join(ProcessesDir(r.dir), "pipe.yaml")
	if err := testbombs.MakeFIFO(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan []ProcessFile, 1)
	go func() {
		files, _ := r.svc.Processes()
		done <- files
	}()
	select {
	case files := <-done:
		for _, f := range files {
			if f.File == "pipe.yaml" && (f.Err == nil || !strings.Contains(f.Err.Error(), "named pipe")) {
				t.Errorf("pipe.yaml: %v", f.Err)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the registry blocked on a FIFO")
	}
	r.createRun(context.Background())
}
