package core

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Open refuses a cluster it cannot run, naming the setting to fix; an
// unreachable Redis is named without its password.
func TestOpenChecksClusterOptions(t *testing.T) {
	port := testpeers.FreePort(t)
	secret := []byte(strings.Repeat("s", 32))
	for _, tc := range []struct {
		o       Options
		want    string
		mustNot string
	}{
		{Options{Redis: "redis://127.0.0.1:" + itoa(port) + "/0"}, cluster.EnvSecret, ""},
		{Options{Redis: "redis://127.0.0.1:" + itoa(port) + "/0", ClusterSecret: secret}, "does not answer", ""},
		{Options{Redis: "redis://:hunter2secret@127.0.0.1:" + itoa(port) + "/0", ClusterSecret: secret}, "xxxxx", "hunter2secret"},
		{Options{Redis: "http://x", ClusterSecret: secret}, "bad Redis URL", ""},
		{Options{ClusterSecret: []byte("short")}, cluster.EnvSecret, ""},
		{Options{ClusterSecret: secret, Replica: "Bad_Name"}, "--replica", ""},
	} {
		c, err := Open(t.TempDir(), tc.o)
		if err == nil {
			c.Close()
			t.Errorf("Open(%+v): no error", tc.o)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || (tc.mustNot != "" && strings.Contains(err.Error(), tc.mustNot)) {
			t.Errorf("Open(%+v): %v; want %q in it", tc.o, err, tc.want)
		}
	}
}

// Two real routers, one cluster: a session opened on A is served through
// B (the token checked on both: the same token is in both stores, as in
// the shared Postgres of a team), and closing A takes it out of the
// directory, so B answers its sessions 404.
func TestReplicasServeEachOthersSessions(t *testing.T) {
	redisURL := startRedis(t)
	secret := []byte(strings.Repeat("k", 32))
	a := serveWith(t, t.TempDir(), nil, false, Options{Redis: redisURL, Replica: "ra", ClusterSecret: secret})
	b := serveWith(t, t.TempDir(), nil, false, Options{Redis: redisURL, Replica: "rb", ClusterSecret: secret})
	ctx := context.Background()
	token, tok, err := a.core.Auth.Create(ctx, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.core.Store.Tokens().Create(ctx, tok); err != nil {
		t.Fatal(err)
	}
	_, hdr, body := sessionRequest(t, http.MethodPost, a.url, token, "", string(initializeBody))
	sid := hdr.Get("Mcp-Session-Id")
	if !strings.HasPrefix(sid, "ra.") {
		t.Fatalf("A's session id %q (%s)", sid, body)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if status, _, body := sessionRequest(t, http.MethodPost, b.url, token, sid, list); status != http.StatusOK || !strings.Contains(body, `"tools"`) {
		t.Fatalf("A's session through B: HTTP %d %s", status, body)
	}
	// A token only A knows: B refuses it before forwarding anything.
	onlyA, _, err := a.core.Auth.Create(ctx, "only-a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _ := sessionRequest(t, http.MethodPost, b.url, onlyA, sid, list); status != http.StatusUnauthorized {
		t.Fatalf("a token B does not know: HTTP %d", status)
	}
	a.core.Cluster.Close() // as Close does at shutdown
	if status, _, _ := sessionRequest(t, http.MethodPost, b.url, token, sid, list); status != http.StatusNotFound {
		t.Fatalf("A's session after A left the directory: HTTP %d", status)
	}
}
