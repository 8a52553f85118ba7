package upstream

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The server/discover probe before initialize (discover.go), against
// servers of both eras: it must read what each answer says, not take a
// successful answer for 2026-07-28, and never cost a server its connect.

func dialSpec(t *testing.T, s spec.Server) *conn {
	t.Helper()
	s.Normalize()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := dial(ctx, s, dialOptions{clientInfo: mcp.Implementation{Name: "mcp-router-test", Version: "1"}, console: NewConsole(100, nil)})
	if err != nil {
		t.Fatalf("dial %s: %v", s.Name, err)
	}
	t.Cleanup(c.close)
	return c
}

// checkHandshake: whatever the probe found, the connection is the
// 2025-11-25 handshake's, and it serves a call.
func checkHandshake(t *testing.T, c *conn, tool string, args map[string]any, want string) {
	t.Helper()
	if c.init.ProtocolVersion != mcp.ProtocolVersion20251125 {
		t.Fatalf("connection on %q, want the 2025-11-25 handshake", c.init.ProtocolVersion)
	}
	if got := callTool(t, c, tool, args); !strings.Contains(got, want) {
		t.Fatalf("%s after the probe: %s", tool, got)
	}
}

// stdio is not probed: a server of both eras would take the probe's
// revision for the pipe's (see probes). The go-sdk server's session stays
// 2025-11-25: no resultType in its results, list_changed on the pipe.
func TestDiscoverNotOnStdio(t *testing.T) {
	changed := make(chan struct{}, 1)
	s := spec.Server{Name: "gosdk", Command: testpeers.GoEverything(t), Enabled: true}
	s.Normalize()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := dial(ctx, s, dialOptions{clientInfo: mcp.Implementation{Name: "mcp-router-test", Version: "1"}, console: NewConsole(100, nil),
		onNotification: func(n mcp.JSONRPCNotification) {
			if n.Method == string(mcp.MethodNotificationToolsListChanged) {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	if c.discovered.asked || c.discovered.versions != nil {
		t.Fatalf("stdio probed: %+v", c.discovered)
	}
	got := callTool(t, c, "test_trigger_tool_change", map[string]any{})
	if strings.Contains(got, "resultType") {
		t.Fatalf("the go-sdk session answers as 2026-07-28: %s", got)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed on the pipe after the tool list changed")
	}
	checkHandshake(t, c, "test_simple_text", nil, `"type":"text"`)
}

func TestDiscoverGoSDKHTTP(t *testing.T) {
	for _, stateless := range []bool{true, false} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			addr := testpeers.StartGoEverythingHTTP(t, fmt.Sprintf("-stateless=%v", stateless))
			c := dialHTTP(t, "http://"+addr+"/mcp", ClientSide{}, nil)
			// A stateful server answers server/discover too, naming only
			// the handshake's revisions: an answer is not 2026-07-28.
			if len(c.discovered.versions) == 0 {
				t.Fatalf("no revisions from the go-sdk server's server/discover (%+v)", c.discovered)
			}
			if c.discovered.offersModern() != stateless {
				t.Fatalf("stateless=%v: revisions %v, offersModern %v", stateless, c.discovered.versions, c.discovered.offersModern())
			}
			if !stateless && c.tr.GetSessionId() == "" {
				t.Fatal("no session after the probe and the handshake")
			}
			if stateless {
				// Used on 2026-07-28 (TestModernConnectionGoSDKStateless).
				if c.modernEra == nil || c.init.ProtocolVersion != modernProtocol {
					t.Fatalf("stateless server on %q", c.init.ProtocolVersion)
				}
				return
			}
			checkHandshake(t, c, "test_simple_text", nil, `"type":"text"`)
		})
	}
}

// An mcp-go server pinned to the handshake's revisions refuses the probe's
// revision with -32022 and names its own in data.supported.
func TestDiscoverMcpGoPinnedServer(t *testing.T) {
	s := server.NewMCPServer("pinned", "1.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("hello"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hello from pinned"), nil
	})
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s,
		server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125, "2025-06-18")))
	t.Cleanup(ts.Close)
	c := dialHTTP(t, ts.URL+"/mcp", ClientSide{}, nil)
	if !slices.Equal(c.discovered.versions, []string{mcp.ProtocolVersion20251125, "2025-06-18"}) {
		t.Fatalf("revisions %v, want the pinned two", c.discovered.versions)
	}
	if c.discovered.offersModern() {
		t.Fatal("a server naming only 2025-11-25 and 2025-06-18 read as 2026-07-28")
	}
	checkHandshake(t, c, "hello", nil, "hello from pinned")
}

// server-everything (TypeScript SDK) over streamable HTTP has no
// server/discover: it refuses the probe (HTTP 400 without a session), and
// the handshake goes on.
func TestDiscoverServerEverythingHTTP(t *testing.T) {
	port := testpeers.FreePort(t)
	testpeers.StartEverythingHTTP(t, "streamableHttp", port, marker(t))
	c := dialHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/mcp", port), ClientSide{}, nil)
	if !c.discovered.asked || c.discovered.versions != nil || c.discovered.offersModern() {
		t.Fatalf("probe of server-everything: %+v, want asked with no revisions", c.discovered)
	}
	if c.tr.GetSessionId() == "" {
		t.Fatal("no session after the probe and the handshake")
	}
	checkHandshake(t, c, "echo", map[string]any{"message": "still here"}, "still here")
}

// A server that never answers the probe costs the connect at most
// discoverTimeout, and the handshake goes on.
func TestDiscoverSilentServer(t *testing.T) {
	s := server.NewMCPServer("quiet", "1.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("hello"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hello from quiet"), nil
	})
	h := server.NewStreamableHTTPServer(s)
	done := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "server/discover" {
			_, _ = io.Copy(io.Discard, r.Body)
			select { // never answers
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(done) })
	start := time.Now()
	c := dialHTTP(t, ts.URL+"/mcp", ClientSide{}, nil)
	if took := time.Since(start); took < discoverTimeout || took > discoverTimeout+5*time.Second {
		t.Fatalf("connect took %v with a server that never answers the probe (bound %v)", took, discoverTimeout)
	}
	if !c.discovered.asked || c.discovered.versions != nil {
		t.Fatalf("probe of a silent server: %+v", c.discovered)
	}
	checkHandshake(t, c, "hello", nil, "hello from quiet")
}
