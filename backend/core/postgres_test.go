package core_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Two replicas (two data dirs) on one PostgreSQL database: a server added
// through one is loaded by the other within a second (LISTEN/NOTIFY feeds
// the other's watcher; it polls every 500 ms).
func TestPostgresReplicaSeesAnothersChangeWithinASecond(t *testing.T) {
	url := testpeers.StartPostgres(t)
	ctx := context.Background()
	open := func() *core.Core {
		c, err := core.Open(t.TempDir(), core.Options{Database: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if err := c.Run(ctx, 0); err != nil { // the real poll interval
			t.Fatal(err)
		}
		return c
	}
	a, b := open(), open()
	if _, err := b.Servers.Status("remote"); err == nil {
		t.Fatal("remote exists before it was added")
	}
	base := b.Reloads()
	if _, err := a.Store.Servers().Create(ctx, spec.Server{Name: "remote", URL: "http://127.0.0.1:1/mcp"}); err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	testpeers.Eventually(t, time.Second, "the other replica to load the new server", func() bool {
		_, err := b.Servers.Status("remote")
		return err == nil && b.Reloads() > base
	})
	t.Logf("loaded after %s", time.Since(written))
}

// With --database the data dir holds no database but still the secret
// files: it is made 0700 at open, as the SQLite store makes it.
func TestPostgresDataDirStaysPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are a Unix matter")
	}
	url := testpeers.StartPostgres(t)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server-secrets.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := core.Open(dir, core.Options{Database: url})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
}
