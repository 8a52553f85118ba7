package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// The replica flags reach core: --redis without the secret is refused
// naming the variable, and a bad name from the environment is refused
// naming the flag; --replica wins over the environment.
func TestTeamFlagsReachTheRouter(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(cluster.EnvSecret, "")
	r := run(t, dir, "", "serve", "--listen", "127.0.0.1:0", "--redis", "redis://127.0.0.1:1/0")
	if r.code == 0 || !strings.Contains(r.stderr, cluster.EnvSecret) {
		t.Fatalf("--redis without a secret: exit %d, %s", r.code, r.stderr)
	}
	t.Setenv(cluster.EnvSecret, strings.Repeat("s", 32))
	t.Setenv(cluster.EnvReplica, "Not_Valid")
	r = run(t, dir, "", "serve", "--listen", "127.0.0.1:0")
	if r.code == 0 || !strings.Contains(r.stderr, "--replica") || !strings.Contains(r.stderr, "Not_Valid") {
		t.Fatalf("a bad %s: exit %d, %s", cluster.EnvReplica, r.code, r.stderr)
	}
	t.Setenv(cluster.EnvSecret, "short")
	r = run(t, dir, "", "serve", "--listen", "127.0.0.1:0", "--replica", "good")
	if r.code == 0 || !strings.Contains(r.stderr, "at least 32") {
		t.Fatalf("a short secret: exit %d, %s", r.code, r.stderr)
	}
	// The flag wins: with a good --replica the bad environment name is
	// not what fails (the short secret is).
	t.Setenv(cluster.EnvReplica, "Not_Valid")
	r = run(t, dir, "", "serve", "--listen", "127.0.0.1:0", "--replica", "good")
	if strings.Contains(r.stderr, "Not_Valid") {
		t.Fatalf("--replica did not win over %s: %s", cluster.EnvReplica, r.stderr)
	}
}

// The router's credentials read from its environment are the ones the
// upstream package keeps from stdio servers.
func TestTheRoutersCredentialsAreKeptFromStdioServers(t *testing.T) {
	for _, name := range []string{EnvRedis, databaseEnv, cluster.EnvSecret} {
		if !slices.Contains(upstream.RouterSecretEnv, name) {
			t.Errorf("$%s carries a credential but is not in upstream.RouterSecretEnv", name)
		}
	}
}
