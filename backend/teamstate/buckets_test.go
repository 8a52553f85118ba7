package teamstate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/teamstate"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func client(t *testing.T, url string) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.ContextTimeoutEnabled, o.MaxRetries = time.Second, time.Second, time.Second, true, 1
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// replica is one router's policy step on its own Redis client: what a
// replica holds in process.
type replica struct {
	chain *pipeline.Chain
	sent  int
}

func newReplica(t *testing.T, redisURL, src string) *replica {
	t.Helper()
	path := filepath.Join(t.TempDir(), policy.FileName)
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := policy.NewService(path, policy.Options{SharedBuckets: teamstate.NewBuckets(client(t, redisURL))})
	if err := svc.Reload(); err != nil {
		t.Fatal(err)
	}
	rp := &replica{}
	rp.chain = pipeline.New(pipeline.Steps{Identity: pipeline.Identity{}, Policy: pipeline.PolicyStep{Current: svc.Current}},
		func(ctx context.Context, r *pipeline.Request) (pipeline.Result, error) {
			rp.sent++
			return pipeline.Result{}, nil
		})
	return rp
}

func (rp *replica) call(clientName, server, tool string) error {
	ctx := pipeline.WithCaller(context.Background(), pipeline.Caller{Name: clientName})
	_, err := rp.chain.Serve(ctx, &pipeline.Request{Method: pipeline.MethodToolsCall, Server: server, Item: tool, Target: server + "__" + tool})
	return err
}

func routeErr(t *testing.T, err error, reason string) *pipeline.RouteError {
	t.Helper()
	var re *pipeline.RouteError
	if !errors.As(err, &re) || re.Reason != reason {
		t.Fatalf("err = %v, want a %s RouteError", err, reason)
	}
	return re
}

const limit60 = "policies:\n  - name: team\n    limit: {requests_per_minute: 60, per: client}\n"

// A limit of 60 a minute holds across three replicas on one Redis: 60
// calls spread over them pass, the 61st is refused wherever it lands. With
// buckets in each process (the old code) each replica would pass 60.
func TestLimitHoldsAcrossReplicas(t *testing.T) {
	url := testpeers.StartRedis(t)
	rs := []*replica{newReplica(t, url, limit60), newReplica(t, url, limit60), newReplica(t, url, limit60)}
	for i := range 60 {
		if err := rs[i%3].call("alice", "s", "t"); err != nil {
			t.Fatalf("call %d on replica %d: %v", i+1, i%3, err)
		}
	}
	for i, rp := range rs {
		re := routeErr(t, rp.call("alice", "s", "t"), pipeline.ReasonRateLimited)
		ms, _ := re.Extra["retryAfterMs"].(int64)
		if ms < 1 || ms > 1000 || !strings.Contains(re.What, `rate limited by policy "team"`) {
			t.Errorf("replica %d: %v (retryAfterMs %d)", i, re, ms)
		}
		if rp.sent != 20 {
			t.Errorf("replica %d sent %d calls, want 20", i, rp.sent)
		}
	}
	// Another client has its own allowance.
	if err := rs[1].call("bob", "s", "t"); err != nil {
		t.Errorf("bob: %v", err)
	}
}

// A call two rules limit takes a token from both or from neither: the
// call the 1-a-minute rule refuses does not spend the other rule's.
func TestTakeIsAllOrNone(t *testing.T) {
	b := teamstate.NewBuckets(client(t, testpeers.StartRedis(t)))
	ctx := context.Background()
	one, three := policy.SharedBucket{ID: "one", PerMinute: 1}, policy.SharedBucket{ID: "three", PerMinute: 3}
	if refused, _, err := b.Take(ctx, []policy.SharedBucket{three, one}, true); err != nil || refused != -1 {
		t.Fatalf("first: %d %v", refused, err)
	}
	for range 3 {
		refused, wait, err := b.Take(ctx, []policy.SharedBucket{three, one}, true)
		if err != nil || refused != 1 || wait < 55*time.Second || wait > 60*time.Second {
			t.Fatalf("second: refused %d, wait %v, %v", refused, wait, err)
		}
	}
	// Peeking spends nothing either.
	for range 5 {
		if refused, _, err := b.Take(ctx, []policy.SharedBucket{three}, false); err != nil || refused != -1 {
			t.Fatalf("peek: %d %v", refused, err)
		}
	}
	for i := range 2 {
		if refused, _, err := b.Take(ctx, []policy.SharedBucket{three}, true); err != nil || refused != -1 {
			t.Fatalf("three, call %d: %d %v", i+2, refused, err)
		}
	}
	if refused, _, err := b.Take(ctx, []policy.SharedBucket{three}, true); err != nil || refused != 0 {
		t.Fatalf("three, 4th call: %d %v", refused, err)
	}
}

// Attack: a client whose name (or a tool whose name) is huge, or made to
// look like another key, cannot grow Redis's keys or write outside mcpr:.
// Every key is mcpr:rl: and a 32-character hash.
func TestBucketKeysAreBoundedAndPrefixed(t *testing.T) {
	url := testpeers.StartRedis(t)
	rp := newReplica(t, url, "policies:\n  - name: team\n    limit: {requests_per_minute: 5}\n")
	names := []string{strings.Repeat("x", 1<<20), "mcpr:approval:*", "*", "\x00", "a\r\nFLUSHALL\r\n", "日本語"}
	for _, n := range names {
		if err := rp.call(n, "s", n); err != nil {
			t.Fatalf("client %.20q: %v", n, err)
		}
	}
	keys, err := client(t, url).Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != len(names) {
		t.Errorf("%d keys for %d clients: %q", len(keys), len(names), keys)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, teamstate.BucketPrefix) || len(k) != len(teamstate.BucketPrefix)+32 {
			t.Errorf("key %.80q", k)
		}
	}
}

// Redis gone: a limited call is refused at once with an error naming
// Redis (fail closed: never let past the limit unchecked); a call no limit
// covers is not touched. Redis hanging (the process stopped, connections
// open): refused within the op timeout, never a hang.
func TestRedisGoneOrHungRefusesLimitedCalls(t *testing.T) {
	rs := testpeers.StartRedisServer(t)
	src := "policies:\n  - name: team\n    limit: {requests_per_minute: 60}\n    match: {servers: [limited]}\n"
	rp := newReplica(t, rs.URL, src)
	if err := rp.call("alice", "limited", "t"); err != nil {
		t.Fatal(err)
	}
	check := func(what string, within time.Duration) {
		t.Helper()
		start := time.Now()
		err := rp.call("alice", "limited", "t")
		took := time.Since(start)
		re := routeErr(t, err, pipeline.ReasonRateLimited)
		if !strings.Contains(re.What, "could not be checked") || !strings.Contains(re.What, "redis") || re.Code != pipeline.CodeRateLimited {
			t.Errorf("%s: %v", what, re)
		}
		if took > within {
			t.Errorf("%s: answered after %v", what, took)
		}
		t.Logf("%s: refused after %v: %v", what, took.Round(time.Millisecond), re)
		if err := rp.call("alice", "free", "t"); err != nil {
			t.Errorf("%s: a call no limit covers: %v", what, err)
		}
	}
	rs.Freeze()
	check("hung", 3*teamstate.OpTimeout)
	rs.Thaw()
	if err := rp.call("alice", "limited", "t"); err != nil {
		t.Fatalf("after thaw: %v", err)
	}
	rs.Stop()
	check("gone", teamstate.OpTimeout)
	if rp.sent != 2+2 {
		t.Errorf("%d calls sent, want 4 (2 limited before, 2 free)", rp.sent)
	}
}
