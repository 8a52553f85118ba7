package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// --redis (or $MCP_ROUTER_REDIS) that is not a Redis URL is a usage error
// naming the flag; one that does not answer stops serve before it listens,
// naming the Redis without its password.
func TestRedisFlagIsCheckedAndItsPasswordNeverShown(t *testing.T) {
	t.Setenv(cluster.EnvSecret, strings.Repeat("s", 32)) // --redis needs one (backend/cluster)
	dir := t.TempDir()
	r := run(t, dir, "", "--redis", "ftp://:hunter2@host/0", "serve", "--no-auth", "--listen", "127.0.0.1:0")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--redis") || !strings.Contains(r.stderr, "redis://") || strings.Contains(r.stderr, "hunter2") {
		t.Errorf("ftp URL: exit %d: %s", r.code, r.stderr)
	}
	r = run(t, dir, "", "--redis", "redis://:hunter2@host:notaport/0", "serve", "--no-auth", "--listen", "127.0.0.1:0")
	if r.code != ExitUsage || strings.Contains(r.stderr, "hunter2") {
		t.Errorf("bad port: exit %d: %s", r.code, r.stderr)
	}
	t.Setenv(EnvRedis, fmt.Sprintf("redis://:hunter2@127.0.0.1:%d/0", testpeers.FreePort(t)))
	start := time.Now()
	r = run(t, dir, "", "serve", "--no-auth", "--listen", "127.0.0.1:0")
	if r.code != ExitError || !strings.Contains(r.stderr, "does not answer") || !strings.Contains(r.stderr, "xxxxx@127.0.0.1") ||
		strings.Contains(r.stderr, "hunter2") || strings.Contains(r.stderr, "listening on") {
		t.Errorf("redis down: exit %d: %s", r.code, r.stderr)
	}
	t.Logf("redis down: %s", r.stderr)
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("redis down: serve took %v to give up", took)
	}
}

// serve connects to the Redis of --redis, which wins over the environment.
func TestServeUsesTheRedisOfTheFlag(t *testing.T) {
	t.Setenv(cluster.EnvSecret, strings.Repeat("s", 32)) // --redis needs one (backend/cluster)
	url := testpeers.StartRedis(t)
	t.Setenv(EnvRedis, "ftp://not-this-one")
	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0")})
	defer rdb.Close()
	clients := func() int {
		list, err := rdb.ClientList(context.Background()).Result()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(list, "\n")
	}
	before := clients()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr testpeers.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--data-dir", t.TempDir(), "--redis", url, "serve", "--no-auth", "--listen", fmt.Sprintf("127.0.0.1:%d", testpeers.FreePort(t))},
			Options{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr})
	}()
	testpeers.Eventually(t, 20*time.Second, "serve to listen", func() bool {
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		default:
		}
		return strings.Contains(stderr.String(), "listening on")
	})
	if n := clients(); n <= before {
		t.Errorf("%d Redis clients while serve runs, %d before", n, before)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d: %s", code, stderr.String())
	}
	testpeers.Eventually(t, 5*time.Second, "serve's Redis connection to close", func() bool { return clients() <= before })
}
