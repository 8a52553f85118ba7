package upstream

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A server's protocol setting (spec.Server.Protocol): 2026-07-28 puts a
// stdio server on that revision (server/discover first, the modern
// request path) or fails its connect; 2025-11-25 pins the handshake.

func dialWithProtocol(ctx context.Context, s spec.Server, cs ClientSide) (*conn, error) {
	s.Normalize()
	return dial(ctx, s, dialOptions{clientInfo: mcp.Implementation{Name: "mcp-router-test", Version: "1"}, console: NewConsole(100, nil), clientSide: cs})
}

// The go-sdk v1.8.0 everything-server over stdio on 2026-07-28: no
// initialize, the revision shown, calls served, and its input_required
// comes back with its own key; the retry with the answer under that key
// gets the result. Without the setting (the old code) the pipe is on the
// 2025-11-25 handshake and the same call sends elicitation/create instead.
func TestStdioOnModernBySetting(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := spec.Server{Name: "gosdk", Command: testpeers.GoEverything(t), Enabled: true, Protocol: spec.Protocol20260728}
	c, err := dialWithProtocol(ctx, s, ClientSide{
		Elicitation: func(context.Context, string, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			t.Error("a stdio server on 2026-07-28 sent elicitation/create")
			return nil, fmt.Errorf("not expected")
		},
	})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(c.close)
	if c.modernEra == nil || c.init.ProtocolVersion != mcp.ProtocolVersion20260728 || !c.discovered.asked {
		t.Fatalf("connection on %q (modern %v, asked %v), want 2026-07-28", c.init.ProtocolVersion, c.modernEra != nil, c.discovered.asked)
	}
	if c.init.ServerInfo.Name == "" || c.init.Capabilities.Tools == nil {
		t.Fatalf("server info and capabilities not taken from server/discover: %+v", c.init)
	}
	if got := callTool(t, c, "test_simple_text", nil); !strings.Contains(got, `"type":"text"`) {
		t.Fatalf("test_simple_text: %s", got)
	}
	userNameRoundTrip(t, ctx, c, "on 2026-07-28 over stdio")
	if err := c.ping(ctx); err != nil {
		t.Fatalf("ping (server/discover) on 2026-07-28 over stdio: %v", err)
	}
	// The cost, as documented: on this pipe the server refuses its own
	// mid-call question, and says so in the tool's result.
	if got := callTool(t, c, "test_elicitation", map[string]any{"message": "hi"}); !strings.Contains(got, "cannot be sent while serving a request on protocol version 2026-07-28") {
		t.Fatalf("test_elicitation on 2026-07-28 over stdio: %s", got)
	}
}

// server-everything (TypeScript SDK) speaks only the 2025-11-25
// handshake: under 2026-07-28 its connect fails, naming the setting, and
// its process does not outlive the attempt. The old code had no setting
// and connected it on the handshake.
func TestStdioModernRefusedForOlderServer(t *testing.T) {
	mark := marker(t)
	s := everythingStdio(t, "everything", mark)
	s.Protocol = spec.Protocol20260728
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := dialWithProtocol(ctx, s, ClientSide{})
	if err == nil {
		c.close()
		t.Fatalf("server-everything connected under protocol 2026-07-28 (on %q)", c.init.ProtocolVersion)
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "2026-07-28") || !strings.Contains(err.Error(), "protocol setting") {
		t.Fatalf("error does not name the setting: %v", err)
	}
	testpeers.WaitNoProcesses(t, mark, 10*time.Second)
}

// Attack: a server that ignores server/discover (it answers only the
// handshake) is not guessed onto either revision: the connect fails
// within the probe's bound, saying it did not answer. A stateful HTTP
// server that answers server/discover naming only the handshake's
// revisions is refused too: an answer alone is not 2026-07-28.
func TestModernSettingNeverGuesses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := fakeServer("hang", "hang", marker(t))
	s.Protocol = spec.Protocol20260728
	start := time.Now()
	c, err := dialWithProtocol(ctx, s, ClientSide{})
	if err == nil {
		c.close()
		t.Fatal("a server that ignores server/discover connected under protocol 2026-07-28")
	}
	if !strings.Contains(err.Error(), "did not answer server/discover") || time.Since(start) > discoverTimeout+5*time.Second {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}

	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=false")
	h := spec.Server{Name: "web", Transport: spec.HTTP, URL: "http://" + addr + "/mcp", Enabled: true, Protocol: spec.Protocol20260728}
	c, err = dialWithProtocol(ctx, h, ClientSide{})
	if err == nil {
		c.close()
		t.Fatal("a stateful server connected under protocol 2026-07-28")
	}
	if !strings.Contains(err.Error(), "names only 2025-11-25") {
		t.Fatalf("error does not say what the server named: %v", err)
	}
}

// 2025-11-25 pins the handshake for an HTTP server that would be used on
// 2026-07-28 under auto (the go-sdk server, stateless): no probe is sent,
// and a session is made. The old code probed and went modern.
func TestHTTPPinnedToHandshake(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=true")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := spec.Server{Name: "web", Transport: spec.HTTP, URL: "http://" + addr + "/mcp", Enabled: true, Protocol: spec.Protocol20251125}
	c, err := dialWithProtocol(ctx, s, ClientSide{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(c.close)
	if c.modernEra != nil || c.discovered.asked {
		t.Fatalf("pinned server: modern %v, probed %v", c.modernEra != nil, c.discovered.asked)
	}
	checkHandshake(t, c, "test_simple_text", nil, `"type":"text"`)
}

// A changed protocol setting needs a new connection.
func TestProtocolChangeRestarts(t *testing.T) {
	a := spec.Server{Name: "x", Command: "x"}
	b := a
	b.Protocol = spec.Protocol20260728
	if !connectionChanged(a, b) {
		t.Fatal("a protocol change does not restart the server")
	}
}

// Through the supervisor: the server's status shows the revision it is on
// and the revisions it offered; setting protocol back to auto restarts it
// on the handshake (the old code had no setting: 2025-11-25 both times).
func TestStdioModernStatusAndChange(t *testing.T) {
	s := newTestService(t)
	def := spec.Server{Name: "gosdk", Command: testpeers.GoEverything(t), Enabled: true, Protocol: spec.Protocol20260728}
	def.Normalize()
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "gosdk", StateRunning, 30*time.Second)
	if st.ProtocolVersion != mcp.ProtocolVersion20260728 || !slices.Contains(st.ProtocolVersions, mcp.ProtocolVersion20260728) {
		t.Fatalf("status on 2026-07-28: protocol %q, offers %v", st.ProtocolVersion, st.ProtocolVersions)
	}
	def.Protocol = spec.ProtocolAuto
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 30*time.Second, "the restart on the handshake", func() bool {
		st, _ = s.Status("gosdk")
		return st.State == StateRunning && st.ProtocolVersion == mcp.ProtocolVersion20251125
	})
	if len(st.ProtocolVersions) != 0 {
		t.Fatalf("a stdio server under auto was probed: offers %v", st.ProtocolVersions)
	}
}

// A call given up on over a pipe on 2026-07-28 is cancelled with
// notifications/cancelled (a pipe has no per-request stream to close, as
// HTTP on this revision has): the old condition sent it only on the
// handshake's revision, and the server kept working on the call.
func TestStdioModernCancelsOnThePipe(t *testing.T) {
	notes := filepath.Join(t.TempDir(), "notes")
	s := fakeServer("modern", "modern", marker(t))
	s.Env["MCPR_FAKE_NOTES"] = notes
	s.Protocol = spec.Protocol20260728
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := dialWithProtocol(ctx, s, ClientSide{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(c.close)
	if c.modernEra == nil || c.init.ServerInfo.Name != "modern-fake" {
		t.Fatalf("not on 2026-07-28: %+v", c.init)
	}
	cctx, ccancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer ccancel()
	if _, err := c.request(cctx, "tools/call", map[string]any{"name": "slow"}); err == nil {
		t.Fatal("a call the server never answers succeeded")
	}
	testpeers.Eventually(t, 10*time.Second, "notifications/cancelled on the pipe", func() bool {
		b, _ := os.ReadFile(notes)
		return strings.Contains(string(b), "notifications/cancelled")
	})
}

// HTTP through a proxy goes through mcp-go's transport, which the router
// does not speak 2026-07-28 on: under that setting the connect fails,
// naming the setting, before anything is sent (the server, reached
// directly by mcp-go here since only the router's proxy choice is
// stubbed, sees no request).
func TestModernSettingRefusedThroughAProxy(t *testing.T) {
	var seen atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		seen.Add(1)
		http.Error(w, "no", http.StatusBadGateway)
	}))
	defer target.Close()
	defer func(f func(*http.Request) (*url.URL, error)) { proxyFor = f }(proxyFor)
	proxyFor = func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy.invalid:3128") }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := spec.Server{Name: "web", Transport: spec.HTTP, URL: target.URL + "/mcp", Enabled: true, Protocol: spec.Protocol20260728}
	c, err := dialWithProtocol(ctx, s, ClientSide{})
	if err == nil {
		c.close()
		t.Fatal("connected through a proxy under protocol 2026-07-28")
	}
	if !strings.Contains(err.Error(), "through a proxy") || !strings.Contains(err.Error(), "protocol setting") {
		t.Fatalf("error: %v", err)
	}
	if n := seen.Load(); n != 0 {
		t.Fatalf("%d requests were sent", n)
	}
}
