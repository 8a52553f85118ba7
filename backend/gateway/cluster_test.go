package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

var clusterSecret = []byte("0123456789abcdef0123456789abcdef")

// startRedis is a copy of the contract's testpeers.StartRedis (the redis
// part writes it in internal/testpeers/redis.go; this branch predates that
// merge): a throwaway redis-server on a free loopback port.
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
	rdb := newRedis(t, u)
	testpeers.Eventually(t, 10*time.Second, "redis-server answering", func() bool {
		return rdb.Ping(context.Background()).Err() == nil
	})
	return u
}

func newRedis(t testing.TB, u string) *redis.Client {
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// replicaAuth is a replica's token check: Bearer good passes, anything
// else is 401; it counts what it let through.
type replicaAuth struct{ passed, refused atomic.Int32 }

func (a *replicaAuth) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			a.refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		a.passed.Add(1)
		next.ServeHTTP(w, r)
	})
}

type replica struct {
	*rig
	auth    *replicaAuth
	cluster *cluster.Cluster
}

func startReplica(t *testing.T, name, redisURL string) *replica {
	t.Helper()
	c, err := cluster.New(cluster.Options{Replica: name, Secret: clusterSecret, Redis: newRedis(t, redisURL)})
	if err != nil {
		t.Fatal(err)
	}
	a := &replicaAuth{}
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{cluster: c, auth: a.wrap})
	return &replica{rig: r, auth: a, cluster: c}
}

// balancer sends a client's initialize (no session yet) to first and every
// later request to then: a load balancer with no affinity at all.
type balancer struct {
	first, then *url.URL
}

func (b balancer) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	to := b.first
	if req.Header.Get("Mcp-Session-Id") != "" {
		to = b.then
	}
	out.URL.Scheme, out.URL.Host, out.Host = to.Scheme, to.Host, to.Host
	return http.DefaultTransport.RoundTrip(out)
}

func connectVia(t *testing.T, b balancer, co clientOptions) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(b.first.String()+PathMCP, transport.WithContinuousListening(),
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer good"}),
		transport.WithHTTPBasicClient(&http.Client{Transport: b}))
	if err != nil {
		t.Fatal(err)
	}
	opts := []client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125)}
	if co.sampling != nil {
		opts = append(opts, client.WithSamplingHandler(co.sampling))
	}
	c := client.NewClient(tr, opts...)
	if co.onNote != nil {
		c.OnNotification(co.onNote)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "test", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustURL(s string) *url.URL {
	u, _ := url.Parse(s)
	return u
}

// A session opened on replica A and used through replica B: B checks the
// token and forwards every request (POSTs, the GET stream, the client's
// answers to the upstream's requests) to A, which checks it again and
// serves it. Progress and a sampling request of A's upstream reach the
// client through B. Then A goes: B answers A's session 404, at once, and
// a new session through B works.
func TestSessionOfAnotherReplicaIsForwardedToIt(t *testing.T) {
	redisURL := startRedis(t)
	a := startReplica(t, "ra", redisURL)
	b := startReplica(t, "rb", redisURL)
	llm := &fakeLLM{}
	var mu sync.Mutex
	var progress int
	c := connectVia(t, balancer{first: mustURL(a.srv.URL), then: mustURL(b.srv.URL)}, clientOptions{sampling: llm,
		onNote: func(n mcp.JSONRPCNotification) {
			if n.Method == string(mcp.MethodNotificationProgress) {
				mu.Lock()
				progress++
				mu.Unlock()
			}
		}})
	if a.gw.SessionCount() != 1 || b.gw.SessionCount() != 0 {
		t.Fatalf("sessions: A %d, B %d; want the one on A", a.gw.SessionCount(), b.gw.SessionCount())
	}
	// A's session is recorded in Redis as A's.
	ids := a.sessionIDs()
	if len(ids) != 1 || !strings.HasPrefix(ids[0], "ra.") {
		t.Fatalf("A's session ids %v, want one beginning ra.", ids)
	}
	testpeers.Eventually(t, 5*time.Second, "the session's owner in Redis", func() bool {
		owner, _ := a.cluster.SessionOwner(context.Background(), ids[0])
		return owner == "ra"
	})
	bPassed, aPassed := b.auth.passed.Load(), a.auth.passed.Load()
	names := toolNames(t, c)
	if !contains(names, "everything__echo") {
		t.Fatalf("tools through B: %v", names)
	}
	res, err := call(c, "everything__echo", map[string]any{"message": "through b"})
	if err != nil || !strings.Contains(text(res), "through b") {
		t.Fatalf("call through B: %v %v", text(res), err)
	}
	if b.auth.passed.Load() <= bPassed || a.auth.passed.Load() <= aPassed {
		t.Fatalf("the token was not checked on both: B %d→%d, A %d→%d", bPassed, b.auth.passed.Load(), aPassed, a.auth.passed.Load())
	}
	if b.gw.SessionCount() != 0 {
		t.Fatalf("B opened %d sessions of its own", b.gw.SessionCount())
	}
	// Progress of A's upstream, through B.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "everything__trigger-long-running-operation",
		Arguments: map[string]any{"duration": 1, "steps": 3}, Meta: &mcp.Meta{ProgressToken: "p"}}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if progress == 0 {
		t.Error("no progress notification reached the client through B")
	}
	mu.Unlock()
	// A sampling request of A's upstream, answered by the client through B.
	tool := ""
	for _, n := range names {
		if strings.Contains(n, "sampling") && !strings.Contains(n, "async") {
			tool = n
		}
	}
	res, err = call(c, tool, map[string]any{"prompt": "hello", "maxTokens": 10})
	if err != nil || !strings.Contains(text(res), "sampled by the test client") || llm.calls != 1 {
		t.Fatalf("sampling through B: %q %v (%d calls)", text(res), err, llm.calls)
	}

	// A goes away (its listener and its directory entry).
	a.srv.CloseClientConnections()
	a.srv.Close()
	a.cluster.Close()
	start := time.Now()
	status, _, _ := requestAuthed(t, http.MethodPost, b.url, ids[0], `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, nil)
	if status != http.StatusNotFound || time.Since(start) > 3*time.Second {
		t.Fatalf("A's session on B after A left: HTTP %d after %v, want 404 at once", status, time.Since(start))
	}
	c2 := connectVia(t, balancer{first: mustURL(b.srv.URL), then: mustURL(b.srv.URL)}, clientOptions{})
	if res, err := call(c2, "everything__echo", map[string]any{"message": "again"}); err != nil || !strings.Contains(text(res), "again") {
		t.Fatalf("a new session on B: %q %v", text(res), err)
	}
}

// A replica that died without a word keeps its directory entry until the
// TTL: B's forward finds nothing listening and answers 404 within the
// connect timeout, never a hang.
func TestSessionOfADeadReplicaIs404(t *testing.T) {
	redisURL := startRedis(t)
	a := startReplica(t, "ra", redisURL)
	b := startReplica(t, "rb", redisURL)
	connectVia(t, balancer{first: mustURL(a.srv.URL), then: mustURL(a.srv.URL)}, clientOptions{})
	id := a.sessionIDs()[0]
	a.srv.CloseClientConnections()
	a.srv.Close() // the directory entry stays
	start := time.Now()
	status, _, _ := requestAuthed(t, http.MethodPost, b.url, id, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, nil)
	if status != http.StatusNotFound || time.Since(start) > cluster.ForwardConnectTimeout+time.Second {
		t.Fatalf("HTTP %d after %v, want 404 within the connect timeout", status, time.Since(start))
	}
}

// The attacks: a made-up or tampered session id naming a replica, and a
// made-up X-MCP-Router-Forwarded (to be taken for a replica, or to reach
// A past B's token check) — none is forwarded or served.
func TestForgedSessionsAndForwardsAreRefused(t *testing.T) {
	redisURL := startRedis(t)
	a := startReplica(t, "ra", redisURL)
	b := startReplica(t, "rb", redisURL)
	connectVia(t, balancer{first: mustURL(a.srv.URL), then: mustURL(a.srv.URL)}, clientOptions{})
	id := a.sessionIDs()[0]
	parts := strings.Split(id, ".")
	aBefore := a.auth.passed.Load()
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, forged := range []string{
		"ra." + parts[1] + ".AAAAAAAAAAAAAAAAAAAAAA",
		"ra.AAAAAAAAAAAAAAAAAAAAAA." + parts[2],
		"rb." + parts[1] + "." + parts[2],
		neverIssued,
		id + "x",
	} {
		if status, _, _ := requestAuthed(t, http.MethodPost, b.url, forged, list, nil); status != http.StatusNotFound {
			t.Errorf("forged id %q on B: HTTP %d, want 404", forged, status)
		}
		if status, _, _ := requestAuthed(t, http.MethodGet, b.url, forged, "", nil); status != http.StatusNotFound {
			t.Errorf("forged id %q, GET on B: HTTP %d, want 404", forged, status)
		}
	}
	if got := a.auth.passed.Load(); got != aBefore {
		t.Fatalf("forged ids reached A (%d requests)", got-aBefore)
	}
	// A made-up forwarded header, straight to A with the real id, and to B.
	for _, h := range []string{"rb", "rb.1.x", fmt.Sprintf("rb.%d.AAAAAAAAAAAAAAAAAAAAAA", time.Now().UnixMilli())} {
		hdr := map[string]string{cluster.HeaderForwarded: h}
		if status, _, _ := requestAuthed(t, http.MethodPost, a.url, id, list, hdr); status != http.StatusForbidden {
			t.Errorf("made-up %s %q on A: HTTP %d, want 403", cluster.HeaderForwarded, h, status)
		}
		if status, _, _ := requestAuthed(t, http.MethodPost, b.url, id, list, hdr); status != http.StatusForbidden {
			t.Errorf("made-up %s %q on B: HTTP %d, want 403", cluster.HeaderForwarded, h, status)
		}
	}
	// No token: B refuses it itself and forwards nothing.
	aBefore = a.auth.passed.Load()
	refusedBefore := a.auth.refused.Load()
	if status, _, _ := request(t, http.MethodPost, b.url, "", id, list, nil); status != http.StatusUnauthorized {
		t.Fatalf("no token on B: HTTP %d", status)
	}
	if a.auth.passed.Load() != aBefore || a.auth.refused.Load() != refusedBefore {
		t.Fatal("a request without a token reached A")
	}
	// The real id through B still works.
	if status, _, _ := requestAuthed(t, http.MethodPost, b.url, id, list, nil); status != http.StatusOK {
		t.Fatalf("the real id through B: HTTP %d", status)
	}
}

func requestAuthed(t *testing.T, method, u, sid, body string, header map[string]string) (int, http.Header, []byte) {
	h := map[string]string{"Authorization": "Bearer good"}
	for k, v := range header {
		h[k] = v
	}
	return request(t, method, u, "", sid, body, h)
}

// sessionIDs are the ids of the rig's open sessions.
func (r *rig) sessionIDs() []string {
	r.gw.sessions.mu.RLock()
	defer r.gw.sessions.mu.RUnlock()
	var ids []string
	for id := range r.gw.sessions.byID {
		ids = append(ids, id)
	}
	return ids
}

func startMRTRReplica(t *testing.T, name, redisURL string) *replica {
	t.Helper()
	c, err := cluster.New(cluster.Options{Replica: name, Secret: clusterSecret, Redis: newRedis(t, redisURL)})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", spec.Stdio)}, rigOptions{allClientSide: true, cluster: c})
	waitTool(t, r, "goev__test_input_required_result_multi_round")
	return &replica{rig: r, cluster: c}
}

// A 2026-07-28 client's retries land on whichever replica: a retry of a
// call held on A that lands on B is forwarded to A and completes; a
// relayed state (the upstream's own input_required) verifies on B, which
// runs the next round itself; with A gone, a retry of A's held call gets
// the error that says to call again, at once.
func TestStatelessRetriesOnAnotherReplica(t *testing.T) {
	redisURL := startRedis(t)
	a := startMRTRReplica(t, "ra", redisURL)
	b := startMRTRReplica(t, "rb", redisURL)
	caps := map[string]any{"elicitation": map[string]any{}}
	accept := func(reqs map[string]any, content map[string]any) map[string]any {
		answers := map[string]any{}
		for k := range reqs {
			answers[k] = map[string]any{"action": "accept", "content": content}
		}
		return answers
	}
	tool := "goev__test_input_required_result_elicitation"
	res, e := mrtrPost(t, a.url, "tools/call", tool, map[string]any{"name": tool}, caps)
	state, _ := res["requestState"].(string)
	reqs, _ := res["inputRequests"].(map[string]any)
	if e != nil || state == "" {
		t.Fatalf("round 1 on A: %v / %v", res, e)
	}
	res, e = mrtrPost(t, b.url, "tools/call", tool, map[string]any{"name": tool, "requestState": state,
		"inputResponses": accept(reqs, map[string]any{"name": "Alice"})}, caps)
	if e != nil || !strings.Contains(fmt.Sprint(res["content"]), "Hello, Alice!") {
		t.Fatalf("the retry on B of A's held call: %v / %v", res, e)
	}

	// Multi-round: round 1 on A, round 2 on B (forwarded: A holds it),
	// round 3 (the upstream's own state, relayed) on B, verified there.
	tool = "goev__test_input_required_result_multi_round"
	res, e = mrtrPost(t, a.url, "tools/call", tool, map[string]any{"name": tool}, caps)
	state, _ = res["requestState"].(string)
	reqs, _ = res["inputRequests"].(map[string]any)
	if e != nil || state == "" {
		t.Fatalf("multi-round 1 on A: %v / %v", res, e)
	}
	res, e = mrtrPost(t, b.url, "tools/call", tool, map[string]any{"name": tool, "requestState": state,
		"inputResponses": accept(reqs, map[string]any{"name": "Alice"})}, caps)
	state, _ = res["requestState"].(string)
	reqs, _ = res["inputRequests"].(map[string]any)
	if e != nil || state == "" || reqs["step2"] == nil {
		t.Fatalf("multi-round 2 on B: %v / %v", res, e)
	}
	res, e = mrtrPost(t, b.url, "tools/call", tool, map[string]any{"name": tool, "requestState": state,
		"inputResponses": accept(reqs, map[string]any{"color": "blue"})}, caps)
	if e != nil || res["resultType"] == "input_required" || !strings.Contains(fmt.Sprint(res["content"]), "Alice") {
		t.Fatalf("multi-round 3 on B: %v / %v", res, e)
	}

	// A held call on A, and A gone: B says to call again, at once.
	tool = "goev__test_input_required_result_elicitation"
	res, _ = mrtrPost(t, a.url, "tools/call", tool, map[string]any{"name": tool}, caps)
	state, _ = res["requestState"].(string)
	reqs, _ = res["inputRequests"].(map[string]any)
	a.srv.CloseClientConnections()
	a.srv.Close()
	a.cluster.Close()
	start := time.Now()
	_, e = mrtrPost(t, b.url, "tools/call", tool, map[string]any{"name": tool, "requestState": state,
		"inputResponses": accept(reqs, map[string]any{"name": "Alice"})}, caps)
	if e == nil || !strings.Contains(fmt.Sprint(e["message"]), "call again without requestState") || time.Since(start) > 3*time.Second {
		t.Fatalf("A's held call with A gone: %v after %v", e, time.Since(start))
	}
}

// Replicas of one cluster verify each other's requestStates; routers
// without one (or of another cluster) do not.
func TestRequestStateVerifiesAcrossTheCluster(t *testing.T) {
	mk := func(name string, secret []byte) *cluster.Cluster {
		c, err := cluster.New(cluster.Options{Replica: name, Secret: secret})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	st := mrtrState{Held: "1", Owner: "anon", Server: "s", Item: "t", Method: "tools/call", Replica: "ra"}
	signed := newHeldCalls(mk("ra", clusterSecret)).sign(st)
	if got, err := newHeldCalls(mk("rb", clusterSecret)).verify(signed); err != nil || got != st {
		t.Fatalf("another replica: %+v %v", got, err)
	}
	if _, err := newHeldCalls(mk("rb", []byte(strings.Repeat("x", 32)))).verify(signed); err == nil {
		t.Fatal("verified under another cluster's secret")
	}
	if _, err := newHeldCalls(nil).verify(newHeldCalls(nil).sign(st)); err == nil {
		t.Fatal("two single routers verified each other's state")
	}
}

type takenKey struct{}

// A header an earlier handler takes off the request (the router's
// X-Upstream-Authorization, a client's own upstream credential) reaches
// the replica holding the session with the forward, and only there.
func TestForwardCarriesTakenHeaders(t *testing.T) {
	redisURL := startRedis(t)
	var seenOnA sync.Map
	aCluster, _ := cluster.New(cluster.Options{Replica: "ra", Secret: clusterSecret, Redis: newRedis(t, redisURL)})
	a := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{cluster: aCluster,
		auth: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if v := r.Header.Get("X-Upstream-Authorization"); v != "" {
					seenOnA.Store(v, true)
				}
				next.ServeHTTP(w, r)
			})
		}})
	bCluster, _ := cluster.New(cluster.Options{Replica: "rb", Secret: clusterSecret, Redis: newRedis(t, redisURL)})
	b := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{cluster: bCluster,
		// As the router's upstreamAuthorization: taken off, kept in ctx.
		auth: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				v := r.Header.Values("X-Upstream-Authorization")
				r.Header.Del("X-Upstream-Authorization")
				next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), takenKey{}, v)))
			})
		},
		forwardHeaders: func(ctx context.Context) http.Header {
			v, _ := ctx.Value(takenKey{}).([]string)
			if len(v) == 0 {
				return nil
			}
			return http.Header{"X-Upstream-Authorization": v}
		}})
	status, hdr, _ := request(t, http.MethodPost, a.url, "", "", initializeBody, nil)
	sid := hdr.Get("Mcp-Session-Id")
	if status != http.StatusOK || !strings.HasPrefix(sid, "ra.") {
		t.Fatalf("initialize on A: %d %q", status, sid)
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if status, _, _ := request(t, http.MethodPost, b.url, "", sid, list, map[string]string{"X-Upstream-Authorization": "Bearer upstream-secret"}); status != http.StatusOK {
		t.Fatalf("through B: HTTP %d", status)
	}
	if _, ok := seenOnA.Load("Bearer upstream-secret"); !ok {
		t.Fatal("the client's X-Upstream-Authorization did not reach A with the forward")
	}
}
