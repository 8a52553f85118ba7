package gateway

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/teamstate"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func redisClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Two replicas on one Redis: a 2026-07-28 client that activated a gated
// server on replica A finds it unlocked on replica B, whose own upstream
// connection B activates for it; another client stays locked on both. On
// the old code B answered the gate's message (locked).
func TestGateUnlockSeenOnAnotherReplica(t *testing.T) {
	rs := testpeers.StartRedisServer(t)
	url := rs.URL
	gated := func() spec.Server {
		s := testmcp.Server("ev")
		s.Gate = spec.Gate{Enabled: true, Message: gateMessage}
		s.Normalize()
		return s
	}
	a := newRig(t, []spec.Server{gated()}, rigOptions{gateUnlocks: teamstate.NewUnlocks(redisClient(t, url))})
	b := newRig(t, []spec.Server{gated()}, rigOptions{gateUnlocks: teamstate.NewUnlocks(redisClient(t, url))})
	waitTool(t, a, "ev__show")
	waitTool(t, b, "ev__show")
	for _, r := range []*rig{a, b} {
		if isErr, got := statelessCall(t, r.url, "client-a", "ev__show", nil); !isErr || got != gateMessage {
			t.Fatalf("locked: isError=%v %q", isErr, got)
		}
	}
	if isErr, got := statelessCall(t, a.url, "client-a", "ev__activate", nil); isErr || !strings.Contains(got, "ev activated") {
		t.Fatalf("activate on A: isError=%v %q", isErr, got)
	}
	if isErr, got := statelessCall(t, b.url, "client-a", "ev__show", nil); isErr || !strings.Contains(got, `"args"`) {
		t.Fatalf("the retry on B: isError=%v %q", isErr, got)
	}
	for _, r := range []*rig{a, b} {
		if isErr, got := statelessCall(t, r.url, "client-b", "ev__show", nil); !isErr || got != gateMessage {
			t.Errorf("another client: isError=%v %q", isErr, got)
		}
	}
	// Every key is mcpr:gate: and a hash of the client's identity.
	keys, err := redisClient(t, url).Keys(t.Context(), "*").Result()
	if err != nil || len(keys) != 1 || !strings.HasPrefix(keys[0], teamstate.GatePrefix) || len(keys[0]) != len(teamstate.GatePrefix)+32 {
		t.Errorf("keys %q %v", keys, err)
	}
	// Redis gone: an activation still unlocks the client where it ran;
	// elsewhere the client is locked (fail closed), answered at once.
	rs.Stop()
	if isErr, got := statelessCall(t, a.url, "client-c", "ev__activate", nil); isErr || !strings.Contains(got, "ev activated") {
		t.Fatalf("activate on A without Redis: isError=%v %q", isErr, got)
	}
	if isErr, _ := statelessCall(t, a.url, "client-c", "ev__show", nil); isErr {
		t.Errorf("on A without Redis: refused")
	}
	start := time.Now()
	if isErr, got := statelessCall(t, b.url, "client-c", "ev__show", nil); !isErr || got != gateMessage {
		t.Errorf("on B without Redis: isError=%v %q", isErr, got)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("on B without Redis: %v", took)
	}
}
