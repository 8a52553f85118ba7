//go:build unix

package core

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/oauthclient"
	secretstore "github.com/mcp-router/mcp-router/backend/secrets"
)

// TestOpenMakesTheDataDirPrivate: a data dir made 0755 by hand (or
// Docker's /data) with the login and key files left 0644 is, once the
// router has opened it, 0700 with every file holding secrets 0600, and the
// log says what was changed.
func TestOpenMakesTheDataDirPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	secrets := []string{filepath.Join(dir, chat.KeyFileName), filepath.Join(dir, oauthclient.FileName), filepath.Join(dir, secretstore.ServerFileName)}
	for _, p := range secrets {
		if err := os.WriteFile(p, []byte(`{"x": "sk-secret"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log, hook := logtest.NewNullLogger()
	c, err := Open(dir, Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := c.Auth.CreateAdmin(t.Context(), "me"); err != nil { // a write: the -wal holds it
		t.Fatal(err)
	}
	db := config.DBPath(dir)
	want := map[string]os.FileMode{dir: 0o700, db: 0o600, db + "-wal": 0o600, db + "-shm": 0o600}
	for _, p := range secrets {
		want[p] = 0o600
	}
	for p, m := range want {
		st, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if st.Mode().Perm() != m {
			t.Errorf("%s is %04o, want %04o", filepath.Base(p), st.Mode().Perm(), m)
		}
	}
	said := ""
	for _, e := range hook.AllEntries() {
		said += e.Message + "\n"
	}
	for _, w := range []string{dir + " was mode 0755: made it 0700", secrets[0] + " was mode 0644: made it 0600", secrets[1] + " was mode 0644: made it 0600"} {
		if !strings.Contains(said, w) {
			t.Errorf("the log lacks %q:\n%s", w, said)
		}
	}
}
