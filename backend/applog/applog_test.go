package applog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The log is written under <data dir>/logs and rotated past MaxSizeMB;
// rotated files are compressed.
func TestLogFileIsWrittenAndRotated(t *testing.T) {
	data := t.TempDir()
	w, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(Dir(data)); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("log folder: %v %v", info, err)
	}
	line := bytes.Repeat([]byte("x"), 1023)
	line = append(line, '\n')
	for i := 0; i < (MaxSizeMB+1)*1024; i++ { // a little over MaxSizeMB
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Write([]byte("after rotation\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cur, err := os.ReadFile(Path(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) >= MaxSizeMB<<20 || !strings.HasSuffix(string(cur), "after rotation\n") {
		t.Errorf("current log holds %d bytes ending %q", len(cur), cur[max(0, len(cur)-20):])
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		gz, _ := filepath.Glob(filepath.Join(Dir(data), "mcp-router-*.log.gz"))
		if len(gz) == 1 {
			break
		}
		if time.Now().After(deadline) {
			all, _ := os.ReadDir(Dir(data))
			t.Fatalf("no compressed rotated file: %v", all)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
