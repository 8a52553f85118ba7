package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// --database (or $MCP_ROUTER_DATABASE) that is not a PostgreSQL URL is a
// usage error naming the flag, and never echoes the password.
func TestDatabaseFlagRefusesOtherURLs(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "", "--database", "mysql://reg:hunter22@db.example/x", "servers", "list")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--database") || !strings.Contains(r.stderr, "want postgres://") ||
		strings.Contains(r.stderr, "hunter22") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	t.Setenv(databaseEnv, "sqlite:///tmp/x.db")
	if r := run(t, dir, "", "servers", "list"); r.code != ExitUsage || !strings.Contains(r.stderr, databaseEnv) {
		t.Errorf("env: exit %d, stderr %q", r.code, r.stderr)
	}
}

// With --database two data dirs (two replicas) share one PostgreSQL
// database: a server added through one is listed by the other, and no
// SQLite file is created in either.
func TestDatabaseFlagSharesPostgres(t *testing.T) {
	url := testpeers.StartPostgres(t)
	a, b := t.TempDir(), t.TempDir()
	t.Setenv(databaseEnv, "mysql://not-this-one") // the flag wins
	mustRun(t, a, "--database", url, "servers", "add", "remote", "--url", "http://127.0.0.1:3001/mcp")
	t.Setenv(databaseEnv, url)
	if out := mustRun(t, b, "servers", "list"); !strings.Contains(out, "remote") {
		t.Errorf("the other replica lists %q", out)
	}
	for _, dir := range []string{a, b} {
		if _, err := os.Stat(config.DBPath(dir)); !os.IsNotExist(err) {
			t.Errorf("%s: SQLite file exists (%v)", filepath.Base(config.DBPath(dir)), err)
		}
	}
}
