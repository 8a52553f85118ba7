package testpeers

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// postgresBin finds PostgreSQL's server binaries (Debian keeps them in
// /usr/lib/postgresql/N/bin, off PATH).
func postgresBin(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "postgres")); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	missing(t, "PostgreSQL (apt package postgresql, scripts/install-system-deps.sh)")
	return ""
}

// StartPostgres runs a throwaway cluster (trust auth, user "reg", no fsync)
// on a free loopback port until the test ends, and returns its database
// URL.
func StartPostgres(t testing.TB) string {
	t.Helper()
	bin := postgresBin(t)
	dir, err := os.MkdirTemp("", "mcpr-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "reg", "--no-sync", "-E", "UTF8")
	if uid, gid := asPostgresUser(t, initdb); uid >= 0 {
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := FreePort(t)
	var log SyncBuffer
	pg := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=40")
	asPostgresUser(t, pg)
	pg.Dir = dir
	pg.Stdout, pg.Stderr = &log, &log
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = pg.Wait(); close(exited) }()
	t.Cleanup(func() {
		// SIGINT: fast shutdown, the postmaster ends its children first.
		_ = pg.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = pg.Process.Kill()
			<-exited
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	Eventually(t, 30*time.Second, "PostgreSQL to listen", func() bool {
		select {
		case <-exited:
			t.Fatalf("postgres exited: %s", log.String())
		default:
		}
		nc, err := net.Dial("tcp", addr)
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
	return "postgres://reg@" + addr + "/postgres?sslmode=disable"
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
