package cluster

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func newTestCluster(t testing.TB, replica string, secret []byte, o Options) *Cluster {
	t.Helper()
	o.Replica, o.Secret = replica, secret
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestNewChecksOptions(t *testing.T) {
	if c, err := New(Options{}); c != nil || err != nil {
		t.Fatalf("no secret, no redis: want no cluster, got %v, %v", c, err)
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Secret: []byte("short"), Replica: "a"}, "at least 32"},
		{Options{Secret: testSecret, Replica: "A_bad"}, "bad replica name"},
		{Options{Secret: testSecret, Replica: strings.Repeat("a", 33)}, "bad replica name"},
		{Options{Secret: testSecret, Replica: "-a"}, "bad replica name"},
		{Options{Secret: testSecret, Replica: "a", Advertise: "ftp://x"}, "bad advertise URL"},
		{Options{Secret: testSecret, Replica: "a", Advertise: "http://x:1/mcp"}, "bad advertise URL"},
	} {
		if _, err := New(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error with %q", tc.o, err, tc.want)
		}
	}
	rdb := redisClient(t, "redis://127.0.0.1:1/0")
	if _, err := New(Options{Redis: rdb}); err == nil || !strings.Contains(err.Error(), EnvSecret) {
		t.Fatalf("redis without a secret: %v", err)
	}
}

func TestDefaultReplicaName(t *testing.T) {
	for in, want := range map[string]string{
		"Web-01.example.COM":    "web-01-example-com",
		"":                      "replica",
		"___":                   "replica",
		strings.Repeat("x", 40): strings.Repeat("x", 32),
	} {
		got := DefaultReplicaName(in)
		if got != want || ValidReplicaName(got) != nil {
			t.Errorf("DefaultReplicaName(%q) = %q, want %q (valid)", in, got, want)
		}
	}
}

func TestSessionIDNamesReplicaAndVerifies(t *testing.T) {
	a := newTestCluster(t, "r1", testSecret, Options{})
	id := a.MintSessionID()
	if !strings.HasPrefix(id, "r1.") || len(id) > MaxSessionID {
		t.Fatalf("id %q: want prefix r1. and at most %d chars", id, MaxSessionID)
	}
	if a.MintSessionID() == id {
		t.Fatal("two ids alike")
	}
	b := newTestCluster(t, "r2", testSecret, Options{})
	if r, ok := b.ParseSessionID(id); !ok || r != "r1" {
		t.Fatalf("another replica with the same secret: %q %v", r, ok)
	}
	other := newTestCluster(t, "r1", []byte(strings.Repeat("z", 32)), Options{})
	if _, ok := other.ParseSessionID(id); ok {
		t.Fatal("an id verified under another cluster's secret")
	}
	parts := strings.Split(id, ".")
	for _, forged := range []string{
		"r2." + parts[1] + "." + parts[2], // re-pointed at another replica
		parts[0] + "." + flip(parts[1]) + "." + parts[2],
		parts[0] + "." + parts[1] + "." + flip(parts[2]),
		parts[0] + "." + parts[1] + "." + parts[2] + "x",
		parts[0] + "." + parts[1],
		"mcp-session-" + parts[1],
		"",
	} {
		if r, ok := a.ParseSessionID(forged); ok {
			t.Errorf("forged id %q verified (replica %q)", forged, r)
		}
	}
}

func flip(s string) string {
	b := []byte(s)
	if b[0] == 'A' {
		b[0] = 'B'
	} else {
		b[0] = 'A'
	}
	return string(b)
}

func FuzzParseSessionID(f *testing.F) {
	c, _ := New(Options{Replica: "r1", Secret: testSecret})
	f.Add(c.MintSessionID())
	f.Add("r1..")
	f.Add("a.b.c.d")
	f.Add("mcp-session-1234")
	f.Fuzz(func(t *testing.T, id string) {
		replica, ok := c.ParseSessionID(id)
		if !ok {
			return
		}
		// Anything accepted is exactly what the cluster would mint.
		if !strings.HasPrefix(id, replica+".") || ValidReplicaName(replica) != nil || len(id) > MaxSessionID {
			t.Fatalf("accepted %q as replica %q", id, replica)
		}
		head := id[:strings.LastIndexByte(id, '.')]
		if id != head+"."+b64.EncodeToString(c.sessionMAC(head)) {
			t.Fatalf("accepted %q without its mac", id)
		}
	})
}

func TestForwardedHeaderVerifies(t *testing.T) {
	a := newTestCluster(t, "r1", testSecret, Options{})
	b := newTestCluster(t, "r2", testSecret, Options{})
	now := time.Now()
	req := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Mcp-Session-Id", "r2.x.y")
		return r
	}
	r := req()
	r.Header.Set(HeaderForwarded, a.signForward(r, now))
	if from, err := b.VerifyForwarded(r, now); err != nil || from != "r1" {
		t.Fatalf("a signed forward: %q %v", from, err)
	}
	// The attacks: a header made up outside, replayed late, moved to
	// another session, method or path, signed with another secret.
	made := req()
	made.Header.Set(HeaderForwarded, "r1")
	late := req()
	late.Header.Set(HeaderForwarded, a.signForward(late, now.Add(-time.Minute)))
	moved := req()
	moved.Header.Set(HeaderForwarded, a.signForward(moved, now))
	moved.Header.Set("Mcp-Session-Id", "r2.x.z")
	deleted := req()
	deleted.Header.Set(HeaderForwarded, a.signForward(deleted, now))
	deleted.Method = http.MethodDelete
	pathed := req()
	pathed.Header.Set(HeaderForwarded, a.signForward(pathed, now))
	pathed.URL.Path = "/mcp/other"
	outsider := newTestCluster(t, "r1", []byte(strings.Repeat("q", 32)), Options{})
	foreign := req()
	foreign.Header.Set(HeaderForwarded, outsider.signForward(foreign, now))
	for name, r := range map[string]*http.Request{"made up": made, "late": late, "moved": moved,
		"method": deleted, "path": pathed, "foreign": foreign} {
		if from, err := b.VerifyForwarded(r, now); err == nil {
			t.Errorf("%s header verified (from %q)", name, from)
		}
	}
}

func TestDirectoryHeartbeatAndClose(t *testing.T) {
	url := startRedis(t)
	rdb := redisClient(t, url)
	a := newTestCluster(t, "r1", testSecret, Options{Redis: rdb})
	b := newTestCluster(t, "r2", testSecret, Options{Redis: redisClient(t, url), Advertise: "http://10.0.0.2:3282"})
	ctx := context.Background()
	a.Start()
	if _, err := b.Lookup(ctx, "r1"); err == nil {
		t.Fatal("r1 listed before its address was known")
	}
	a.SetListenAddr("127.0.0.1:4000")
	if got, err := b.Lookup(ctx, "r1"); err != nil || got != "http://127.0.0.1:4000" {
		t.Fatalf("lookup r1: %q %v", got, err)
	}
	ttl := rdb.TTL(ctx, keyReplica+"r1").Val()
	if ttl <= 0 || ttl > DirectoryTTL {
		t.Fatalf("directory entry TTL %v, want (0, %v]", ttl, DirectoryTTL)
	}
	// The heartbeat renews it: after two beats the TTL is back near full.
	time.Sleep(HeartbeatEvery + 500*time.Millisecond)
	if ttl := rdb.TTL(ctx, keyReplica+"r1").Val(); ttl < DirectoryTTL-HeartbeatEvery {
		t.Fatalf("TTL %v after a heartbeat: not renewed", ttl)
	}
	// A second r1 that never served (a CLI command opening the router
	// under the same name) leaves the entry alone when it closes.
	cli := newTestCluster(t, "r1", testSecret, Options{Redis: redisClient(t, url)})
	cli.Start()
	cli.Close()
	if _, err := b.Lookup(ctx, "r1"); err != nil {
		t.Fatalf("a CLI command's Close removed r1's entry: %v", err)
	}
	a.Close()
	if _, err := b.Lookup(ctx, "r1"); err == nil {
		t.Fatal("r1 still listed after Close")
	}
	// A replica that never started (b) is not listed either way.
	if _, err := a.Lookup(ctx, "r2"); err == nil {
		t.Fatal("r2 listed without Start")
	}
	// A bad entry (someone else's write) is not followed.
	rdb.Set(ctx, keyReplica+"evil", "file:///etc/passwd", time.Minute)
	if _, err := a.Lookup(ctx, "evil"); err == nil || !strings.Contains(err.Error(), "bad advertise URL") {
		t.Fatalf("bad entry: %v", err)
	}
}

func TestSessionOwnerInRedis(t *testing.T) {
	rdb := redisClient(t, startRedis(t))
	a := newTestCluster(t, "r1", testSecret, Options{Redis: rdb})
	ctx := context.Background()
	id := a.MintSessionID()
	a.ClaimSession(ctx, id, time.Minute)
	if owner, err := a.SessionOwner(ctx, id); err != nil || owner != "r1" {
		t.Fatalf("owner %q %v", owner, err)
	}
	if ttl := rdb.TTL(ctx, keySession+id).Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("owner TTL %v", ttl)
	}
	a.ReleaseSession(ctx, id)
	if owner, _ := a.SessionOwner(ctx, id); owner != "" {
		t.Fatalf("owner %q after release", owner)
	}
}

func TestForwardToGoneOwnerIs404Quickly(t *testing.T) {
	url := startRedis(t)
	b := newTestCluster(t, "r2", testSecret, Options{Redis: redisClient(t, url), Advertise: "http://127.0.0.1:1"})
	ctx := context.Background()
	// Not in the directory.
	w := httptest.NewRecorder()
	b.Forward(w, httptest.NewRequest(http.MethodPost, "/mcp", nil), "r1")
	if w.Code != http.StatusNotFound {
		t.Fatalf("no directory entry: %d", w.Code)
	}
	// Listed, but nothing listens there (connection refused).
	port := testpeers.FreePort(t)
	redisClient(t, url).Set(ctx, keyReplica+"r1", "http://127.0.0.1:"+itoa(port), time.Minute)
	start := time.Now()
	w = httptest.NewRecorder()
	b.Forward(w, httptest.NewRequest(http.MethodPost, "/mcp", nil), "r1")
	if w.Code != http.StatusNotFound || time.Since(start) > ForwardConnectTimeout+time.Second {
		t.Fatalf("refused: %d after %v", w.Code, time.Since(start))
	}
	// Listed at an address that never answers a connect (a blackhole):
	// 404 within the connect timeout, not a hang.
	redisClient(t, url).Set(ctx, keyReplica+"r1", "http://10.255.255.1:9", time.Minute)
	start = time.Now()
	w = httptest.NewRecorder()
	b.Forward(w, httptest.NewRequest(http.MethodPost, "/mcp", nil), "r1")
	if w.Code != http.StatusNotFound || time.Since(start) > ForwardConnectTimeout+time.Second {
		t.Fatalf("blackhole: %d after %v", w.Code, time.Since(start))
	}
}

func TestForwardStreamsAndSigns(t *testing.T) {
	url := startRedis(t)
	a := newTestCluster(t, "r1", testSecret, Options{Redis: redisClient(t, url)})
	b := newTestCluster(t, "r2", testSecret, Options{Redis: redisClient(t, url)})
	got := make(chan string, 1)
	owner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from, err := a.VerifyForwarded(r, time.Now())
		if err != nil {
			got <- err.Error()
		} else {
			got <- from
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: one\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond)
		_, _ = io.WriteString(w, "data: two\n\n")
	}))
	defer owner.Close()
	a.Start()
	a.SetListenAddr(strings.TrimPrefix(owner.URL, "http://"))
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { b.Forward(w, r, "r1") }))
	defer front.Close()
	req, _ := http.NewRequest(http.MethodGet, front.URL+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", "r1.x.y")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The first event arrives before the owner wrote the second: streamed.
	buf := make([]byte, 64)
	start := time.Now()
	n, _ := resp.Body.Read(buf)
	if !strings.Contains(string(buf[:n]), "one") || time.Since(start) > 250*time.Millisecond {
		t.Fatalf("first event %q after %v", buf[:n], time.Since(start))
	}
	if from := <-got; from != "r2" {
		t.Fatalf("the owner saw forwarded-by %q", from)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
