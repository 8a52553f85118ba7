package cluster

// startRedis is a copy of the contract's testpeers.StartRedis (the redis
// part writes it in internal/testpeers/redis.go; this branch predates that
// merge): a throwaway redis-server on a free loopback port, ended by
// t.Cleanup.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	opt, _ := redis.ParseURL(url)
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for rdb.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not answer within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return url
}

func redisClient(t testing.TB, url string) *redis.Client {
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
