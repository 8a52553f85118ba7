package testpeers

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The real MCP Registry service (github.com/modelcontextprotocol/registry,
// built by `make test-deps` into .tools/bin/mcp-registry with
// scripts/build-mcp-registry.sh) on a throwaway PostgreSQL cluster.

// RegistryBinary is the path of the registry service: $MCPR_REGISTRY_BIN,
// else .tools/bin/mcp-registry.
func RegistryBinary(t testing.TB) string {
	t.Helper()
	p := os.Getenv("MCPR_REGISTRY_BIN")
	if p == "" {
		p = filepath.Join(RepoRoot(t), ".tools", "bin", "mcp-registry")
	}
	if _, err := os.Stat(p); err != nil {
		missing(t, "the MCP Registry service ("+p+")")
	}
	return p
}

// postgresBin is PostgresBin, or skips (fails with MCPR_REQUIRE_PEERS=1)
// the test when PostgreSQL is not installed.
func postgresBin(t testing.TB) string {
	t.Helper()
	bin := PostgresBin()
	if bin == "" {
		missing(t, "PostgreSQL (apt package postgresql, scripts/install-system-deps.sh)")
	}
	return bin
}

// StartPostgres runs a throwaway cluster (trust auth, user "reg", no fsync)
// on a free loopback port until the test ends, and returns its database
// URL.
func StartPostgres(t testing.TB) string {
	t.Helper()
	bin := postgresBin(t)
	c, err := StartPostgresCluster(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c.URL
}

// StartRegistry runs the real MCP Registry service on a throwaway cluster,
// seeded from seed (a JSON array of server.json entries, the service's
// MCP_REGISTRY_SEED_FROM format), and returns its base URL. The service's
// publishing rules (namespace ownership, reachable remotes) are off for the
// seed, as for the service's own offline development seed.
func StartRegistry(t testing.TB, seed []byte) string {
	t.Helper()
	bin := RegistryBinary(t)
	dbURL := StartPostgres(t)
	seedFile := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
	var log SyncBuffer
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"MCP_REGISTRY_SERVER_ADDRESS="+addr,
		"MCP_REGISTRY_DATABASE_URL="+dbURL,
		"MCP_REGISTRY_DATABASE_MIN_CONNECTIONS=1",
		"MCP_REGISTRY_DATABASE_MAX_CONNECTIONS=8",
		"MCP_REGISTRY_SEED_FROM="+seedFile,
		"MCP_REGISTRY_ENABLE_REGISTRY_VALIDATION=false",
		// A fixed development key: the tests publish nothing.
		"MCP_REGISTRY_JWT_PRIVATE_KEY=bb2c6b424005acd5df47a9e2c87f446def86dd740c888ea3efb825b23f7ef47c",
	)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	base := "http://" + addr
	Eventually(t, 60*time.Second, "the MCP Registry to answer", func() bool {
		select {
		case <-exited:
			t.Fatalf("the registry exited: %s", log.String())
		default:
		}
		resp, err := http.Get(base + "/v0/servers?limit=1")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	t.Logf("MCP Registry at %s", base)
	return base
}
