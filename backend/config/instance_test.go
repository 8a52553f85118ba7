package config

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestInstanceID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // not there yet
	id, err := InstanceID(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !instanceRe.MatchString(id) {
		t.Fatalf("id %q is not 32 hex digits", id)
	}
	again, err := InstanceID(dir)
	if err != nil || again != id {
		t.Fatalf("second call = %q, %v; want %q", again, err, id)
	}
	other, err := InstanceID(t.TempDir())
	if err != nil || other == id {
		t.Fatalf("another data dir got %q, %v", other, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != InstanceFile {
		t.Errorf("data dir holds %v, want only %s (no temporary file left)", entries, InstanceFile)
	}
}

// The app and the CLI starting at once on a new data dir agree on one id.
func TestInstanceIDConcurrentFirstUse(t *testing.T) {
	dir := t.TempDir()
	const n = 16
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = InstanceID(dir)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("call %d: %q, %v; call 0: %q", i, ids[i], errs[i], ids[0])
		}
	}
}

func TestInstanceIDBadFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, InstanceFile), []byte("not an id\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := InstanceID(dir)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "delete it") {
		t.Fatalf("err = %v, want one line saying what to do", err)
	}
	if _, err := InstanceID("/proc/mcp-router-cannot-be-here"); err == nil {
		t.Fatal("an unwritable data dir gave an id")
	}
}
