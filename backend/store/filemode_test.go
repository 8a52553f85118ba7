//go:build unix

package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
)

// The question: does a database that holds servers' env and header values
// (API keys) ever end up readable by other users, when the data dir already
// exists with mode 0755 (a mkdir by hand, Docker's /data) or the files were
// left 0644 by an older version? Issue 24 saw mcp-router.db and its -wal
// created 0644 in that case.

func umask(t *testing.T, m int) {
	old := syscall.Umask(m)
	t.Cleanup(func() { syscall.Umask(old) })
}

func modeOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// writeSecret writes a row standing in for a server's API key, so the
// -wal and -shm exist and hold it.
func writeSecret(t *testing.T, s *Store, name string) {
	t.Helper()
	if err := s.DB().Exec(`INSERT INTO settings (key, value) VALUES (?, ?)`, name, "sk-secret").Error; err != nil {
		t.Fatal(err)
	}
}

func checkPrivate(t *testing.T, dir, db string) {
	t.Helper()
	if got := modeOf(t, dir); got != 0o700 {
		t.Errorf("data dir %04o, want 0700", got)
	}
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		if got := modeOf(t, p); got != 0o600 {
			t.Errorf("%s %04o, want 0600", filepath.Base(p), got)
		}
	}
}

func TestOpenInAnOpenDataDirMakesItPrivate(t *testing.T) {
	for _, mask := range []int{0o022, 0} {
		for _, held := range []string{"", "policy.yaml"} {
			t.Run(fmt.Sprintf("umask %04o, holding %q", mask, held), func(t *testing.T) {
				umask(t, mask)
				dir := filepath.Join(t.TempDir(), "data")
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if held != "" {
					if err := os.WriteFile(filepath.Join(dir, held), []byte("policies: []\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				db := filepath.Join(dir, "mcp-router.db")
				log, hook := logtest.NewNullLogger()
				s, err := OpenWith(db, Options{Logger: log})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				writeSecret(t, s, "k")
				checkPrivate(t, dir, db)
				// A dir that held something is said to have changed; an
				// empty one exposed nothing, and a new database has
				// nothing to say.
				var msgs []string
				for _, e := range hook.AllEntries() {
					if e.Level != logrus.WarnLevel {
						t.Errorf("logged at %s: %s", e.Level, e.Message)
					}
					msgs = append(msgs, e.Message)
				}
				switch {
				case held == "" && len(msgs) != 0:
					t.Errorf("warnings for an empty dir: %q", msgs)
				case held != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], dir+" was mode 0755: made it 0700")):
					t.Errorf("warnings: %q", msgs)
				}
			})
		}
	}
}

// TestOpenFixesFilesLeftOpen: the files an older version left 0644 (and a
// 0755 dir) are made private by the next open, the CLI's while the app
// holds the database, with a warning for each.
func TestOpenFixesFilesLeftOpen(t *testing.T) {
	umask(t, 0o022)
	dir := filepath.Join(t.TempDir(), "data")
	db := filepath.Join(dir, "mcp-router.db")
	app, err := Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	writeSecret(t, app, "a")
	for p, m := range map[string]fs.FileMode{dir: 0o755, db: 0o644, db + "-wal": 0o644, db + "-shm": 0o644} {
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	log, hook := logtest.NewNullLogger()
	cli, err := OpenWith(db, Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	writeSecret(t, cli, "b")
	checkPrivate(t, dir, db)
	said := ""
	for _, e := range hook.AllEntries() {
		said += e.Message + "\n"
	}
	for _, want := range []string{dir + " was mode 0755", db + " was mode 0644", db + "-wal was mode 0644", db + "-shm was mode 0644"} {
		if !strings.Contains(said, want) {
			t.Errorf("no warning %q in:\n%s", want, said)
		}
	}

	// A database closed 0644 (no -wal left) opens 0600, and the -wal and
	// -shm SQLite makes beside it follow.
	app.Close()
	cli.Close()
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{db + "-wal", db + "-shm"} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s is still there after the last close", p)
		}
	}
	again, err := Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	writeSecret(t, again, "c")
	checkPrivate(t, dir, db)
	var n int64
	if err := again.DB().Raw(`SELECT count(*) FROM settings WHERE value = 'sk-secret'`).Scan(&n).Error; err != nil || n != 3 {
		t.Errorf("rows after the reopen: %d %v", n, err)
	}
}
