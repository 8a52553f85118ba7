package core

// startRedis is a copy of the contract's testpeers.StartRedis (the redis
// part writes it in internal/testpeers/redis.go; this branch predates that
// merge): a throwaway redis-server on a free loopback port.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func startRedis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("MCPR_REQUIRE_PEERS") == "1" {
			t.Fatal("redis-server is not installed; run `make test-deps`")
		}
		t.Skip("redis-server is not installed; run `make test-deps`")
	}
	port := testpeers.FreePort(t)
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	u := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	opt, _ := redis.ParseURL(u)
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	testpeers.Eventually(t, 10*time.Second, "redis-server answering", func() bool {
		return rdb.Ping(context.Background()).Err() == nil
	})
	return u
}

func itoa(n int) string { return strconv.Itoa(n) }
