//go:build unix

package filemode

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// withUmask runs the test under umask m (process-wide: the tests of this
// package do not run in parallel).
func withUmask(t *testing.T, m int) {
	old := syscall.Umask(m)
	t.Cleanup(func() { syscall.Umask(old) })
}

func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestMakeDir(t *testing.T) {
	withUmask(t, 0)
	base := t.TempDir()
	fresh := filepath.Join(base, "a", "b")
	if c, err := MakeDir(fresh); err != nil || c != nil {
		t.Fatalf("a new dir: %v %v", c, err)
	}
	if got := perm(t, fresh); got != Dir {
		t.Errorf("a new dir under umask 0 is %04o", got)
	}
	// An empty 0755 dir is made 0700 with nothing to report: nothing was
	// exposed.
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if c, err := MakeDir(empty); err != nil || c != nil {
		t.Errorf("an empty 0755 dir: %v %v", c, err)
	}
	if got := perm(t, empty); got != Dir {
		t.Errorf("the empty 0755 dir is now %04o", got)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(open, "mcp-router.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := MakeDir(open)
	if err != nil || c == nil || c.Was != 0o755 || c.Now != Dir || c.Path != open {
		t.Fatalf("a 0755 dir: %+v %v", c, err)
	}
	if got := perm(t, open); got != Dir {
		t.Errorf("the 0755 dir is now %04o", got)
	}
	if want := open + " was mode 0755: made it 0700 (readable by its owner only)"; c.String() != want {
		t.Errorf("change says %q, want %q", c, want)
	}
	if c, err := MakeDir(open); err != nil || c != nil {
		t.Errorf("a 0700 dir again: %v %v", c, err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := MakeDir(file); err == nil {
		t.Error("a file taken for a dir")
	}
}

func TestProtectAndCreate(t *testing.T) {
	withUmask(t, 0)
	dir := t.TempDir()
	if c, err := Protect(filepath.Join(dir, "missing")); err != nil || c != nil {
		t.Errorf("a missing file: %v %v", c, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Protect created the file: %v", err)
	}
	keys := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(keys, []byte(`{"a":"sk-1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := Protect(keys); err != nil || c == nil || c.Was != 0o644 || c.Now != Secret {
		t.Fatalf("a 0644 file: %+v %v", c, err)
	}
	if got := perm(t, keys); got != Secret {
		t.Errorf("the 0644 file is now %04o", got)
	}
	if _, err := Protect(dir); err == nil {
		t.Error("a dir taken for a file")
	}

	// Create: a new file is 0600 under umask 0, with no change reported;
	// an existing one keeps its content and is reported when it was not
	// 0600.
	db := filepath.Join(dir, "new.db")
	if c, err := Create(db); err != nil || c != nil {
		t.Fatalf("a new file: %v %v", c, err)
	}
	if got := perm(t, db); got != Secret {
		t.Errorf("a new file under umask 0 is %04o", got)
	}
	old := filepath.Join(dir, "old.db")
	if err := os.WriteFile(old, []byte("SQLite format 3\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := Create(old); err != nil || c == nil || c.Was != 0o644 {
		t.Fatalf("an existing 0644 file: %+v %v", c, err)
	}
	if b, _ := os.ReadFile(old); string(b) != "SQLite format 3\x00" {
		t.Errorf("Create changed the content: %q", b)
	}
	if got := perm(t, old); got != Secret {
		t.Errorf("the existing file is now %04o", got)
	}
}
