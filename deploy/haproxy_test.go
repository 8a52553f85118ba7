// Package deploy holds the deployment examples (Helm chart, HAProxy); its
// tests run the HAProxy example against stand-in replicas. The chart is
// checked by scripts/test-deploy.sh (helm template + kubeconform).
package deploy

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// replica stands in for a router replica: it answers with its name and
// reports what it saw.
type replica struct {
	name      string
	srv       *httptest.Server
	down      atomic.Bool // /healthz answers 503
	forwarded atomic.Value
	mu        sync.Mutex
	checks    []string // Host and path of each health check
}

func newReplica(t *testing.T, name string, stream func(w http.ResponseWriter, r *http.Request)) *replica {
	rp := &replica{name: name}
	rp.forwarded.Store("")
	rp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			rp.mu.Lock()
			rp.checks = append(rp.checks, r.Host+" "+r.Method+" "+r.URL.Path)
			rp.mu.Unlock()
			if rp.down.Load() {
				http.Error(w, "database did not answer within 2s", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "ok")
			return
		}
		if r.URL.Path == "/stream" && stream != nil {
			stream(w, r)
			return
		}
		rp.forwarded.Store(r.Header.Get("X-MCP-Router-Forwarded"))
		fmt.Fprint(w, name)
	}))
	t.Cleanup(rp.srv.Close)
	return rp
}

func (rp *replica) addr() string { return strings.TrimPrefix(rp.srv.URL, "http://") }

// startHAProxy runs deploy/haproxy/haproxy.cfg with the replicas'
// addresses, a loopback port and quick health checks in place of the
// example's; everything else (the routing, the checks, the timeouts) is
// the file as shipped.
func startHAProxy(t *testing.T, replicas []*replica) string {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("MCPR_REQUIRE_PEERS") != "" {
			t.Fatal("haproxy is not installed (scripts/install-system-deps.sh installs it)")
		}
		t.Skip("haproxy is not installed")
	}
	raw, err := os.ReadFile(filepath.Join("haproxy", "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(raw)
	port := testpeers.FreePort(t)
	replace := func(re, with string) {
		t.Helper()
		r := regexp.MustCompile(re)
		if n := len(r.FindAllStringIndex(cfg, -1)); n != 1 {
			t.Fatalf("haproxy.cfg: %d matches of %q, want 1 (the test expects the example's shape)", n, re)
		}
		cfg = r.ReplaceAllString(cfg, with)
	}
	replace(`(?m)^(\s*)bind :3282$`, fmt.Sprintf("${1}bind 127.0.0.1:%d", port))
	replace(`check inter 2s fall 2 rise 2`, "check inter 100ms fall 2 rise 2")
	for i, rp := range replicas {
		replace(fmt.Sprintf(`server r%d 10\.0\.0\.1%d:3282`, i+1, i+1), fmt.Sprintf("server r%d %s", i+1, rp.addr()))
	}
	file := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var out testpeers.SyncBuffer
	cmd := exec.Command(bin, "-db", "-f", file)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy:\n%s", out.String())
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	testpeers.Eventually(t, 10*time.Second, "haproxy to answer", func() bool {
		resp, err := http.Get(base + "/mcp")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return base
}

func ask(t *testing.T, base, path string, header map[string]string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: HTTP %d %s", path, resp.StatusCode, b)
	}
	return string(b)
}

// whoAnswers sends n requests and counts the replicas that answered.
func whoAnswers(t *testing.T, base, path string, header map[string]string, n int) map[string]int {
	t.Helper()
	got := map[string]int{}
	for i := 0; i < n; i++ {
		got[ask(t, base, path, header)]++
	}
	return got
}

func TestHAProxyRoutesBySessionPrefix(t *testing.T) {
	replicas := []*replica{newReplica(t, "r1", nil), newReplica(t, "r2", nil), newReplica(t, "r3", nil)}
	base := startHAProxy(t, replicas)

	// A session goes to the replica its ID names, every time.
	for _, name := range []string{"r1", "r2", "r3"} {
		got := whoAnswers(t, base, "/mcp", map[string]string{"Mcp-Session-Id": name + ".AAAAAAAAAAAAAAAAAAAAAA.mac"}, 9)
		if got[name] != 9 {
			t.Errorf("session of %s answered by %v", name, got)
		}
	}
	// Legacy SSE posts name theirs in ?sessionId=.
	if got := whoAnswers(t, base, "/message?sessionId=r3.x.y", nil, 6); got["r3"] != 6 {
		t.Errorf("legacy session of r3 answered by %v", got)
	}
	// No session (initialize, a stateless request), or one naming no
	// replica ("r10." is not "r1."): round-robin over all three.
	for what, header := range map[string]map[string]string{
		"no session":              nil,
		"a session of no replica": {"Mcp-Session-Id": "r10.x.y"},
	} {
		got := whoAnswers(t, base, "/mcp", header, 9)
		if len(got) != 3 {
			t.Errorf("%s: answered by %v, want all three replicas", what, got)
		}
	}
	// A client cannot pose as a replica that forwarded the request.
	ask(t, base, "/mcp", map[string]string{"Mcp-Session-Id": "r1.x.y", "X-MCP-Router-Forwarded": "r2"})
	if f := replicas[0].forwarded.Load().(string); f != "" {
		t.Errorf("the client's X-MCP-Router-Forwarded %q reached the replica", f)
	}

	// The health checks ask /healthz with a loopback Host (the router's
	// DNS-rebinding guard lets it through on any listener). HAProxy spreads
	// its first checks over the interval, so the routing above can be done
	// before r2 saw one: wait for it.
	var checks []string
	testpeers.Eventually(t, 10*time.Second, "a health check of r2", func() bool {
		replicas[1].mu.Lock()
		defer replicas[1].mu.Unlock()
		checks = append([]string(nil), replicas[1].checks...)
		return len(checks) > 0
	})
	if checks[0] != "localhost GET /healthz" {
		t.Errorf("health checks seen by r2: %q, want GET /healthz with Host localhost", checks)
	}

	// r2 not ready (its database does not answer): no new request goes
	// there, its sessions land elsewhere (where the router answers 404 and
	// the client re-initializes).
	replicas[1].down.Store(true)
	testpeers.Eventually(t, 10*time.Second, "haproxy to take r2 out", func() bool {
		return whoAnswers(t, base, "/mcp", map[string]string{"Mcp-Session-Id": "r2.x.y"}, 1)["r2"] == 0
	})
	if got := whoAnswers(t, base, "/mcp", nil, 12); got["r2"] != 0 || len(got) != 2 {
		t.Errorf("with r2 not ready, answered by %v", got)
	}
	replicas[1].down.Store(false)
	testpeers.Eventually(t, 10*time.Second, "haproxy to take r2 back", func() bool {
		return whoAnswers(t, base, "/mcp", map[string]string{"Mcp-Session-Id": "r2.x.y"}, 1)["r2"] == 1
	})
}

// An event stream passes event by event: the replica sends the second
// event only after the client has read the first, so a balancer that
// buffered the response would hang here.
func TestHAProxyPassesEventStreamsUnbuffered(t *testing.T) {
	read := make(chan struct{})
	stream := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message\ndata: one\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-read:
		case <-time.After(10 * time.Second):
			return
		}
		fmt.Fprint(w, "event: message\ndata: two\n\n")
	}
	replicas := []*replica{newReplica(t, "r1", stream), newReplica(t, "r2", stream), newReplica(t, "r3", stream)}
	base := startHAProxy(t, replicas)
	req, _ := http.NewRequest(http.MethodGet, base+"/stream", nil)
	req.Header.Set("Mcp-Session-Id", "r2.x.y")
	client := &http.Client{Timeout: 8 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	var got []string
	for lines.Scan() {
		if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
			got = append(got, data)
			if data == "one" {
				close(read)
			}
		}
	}
	if strings.Join(got, ",") != "one,two" {
		t.Errorf("events through haproxy: %q (%v), want one,two", got, lines.Err())
	}
}
