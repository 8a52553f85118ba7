package upstream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// fakeRouter is an MCP server that announces instance id as the router's
// gateway does (under InstanceMetaKey in the _meta of the initialize and
// the server/discover results, gateway/instance.go); "" announces nothing.
// Its server/discover names 2026-07-28 (mcp-go's), so over HTTP the
// router meets it on that revision and the discover answer is where it
// finds the id.
func fakeRouter(id string) *server.MCPServer {
	hooks := &server.Hooks{}
	if id != "" {
		hooks.AddAfterInitialize(func(_ context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
			res.Meta = &mcp.Meta{AdditionalFields: map[string]any{InstanceMetaKey: id}}
		})
		hooks.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
			res.Meta = &mcp.Meta{AdditionalFields: map[string]any{InstanceMetaKey: id}}
		})
	}
	s := server.NewMCPServer("fake-router", "1", server.WithToolCapabilities(true), server.WithHooks(hooks))
	s.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo"), nil
	})
	return s
}

// countStart appends a line to path (a fake's start counter).
func countStart(path string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		_, _ = f.WriteString("start\n")
		_ = f.Close()
	}
}

func starts(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(data), "start\n")
}

// methodCounter counts the JSON-RPC methods an HTTP server receives.
type methodCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (m *methodCounter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := readAllAndRestore(r)
			for _, method := range []string{"initialize", "server/discover", "tools/list", "ping", "resources/list", "prompts/list"} {
				if strings.Contains(body, `"method":"`+method+`"`) {
					m.mu.Lock()
					m.counts[method]++
					m.mu.Unlock()
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *methodCounter) get(method string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts[method]
}

func readAllAndRestore(r *http.Request) (string, error) {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return string(b), err
}

// A server whose initialize result carries this router's instance id (or
// the id of a router above it) is this router reached again: it is errored
// with a message that says so, nothing is listed from it, and it is not
// retried on its own — over stdio, streamable HTTP and SSE.
func TestRefusesAServerThatIsThisRouter(t *testing.T) {
	const self, above = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	type attempt struct {
		def   spec.Server
		count func() int // initialize requests (or process starts) so far
		lists func() int // list requests so far (-1: not observable)
	}
	stdio := func(t *testing.T, id string) attempt {
		count := filepath.Join(t.TempDir(), "starts")
		def := fakeServer("loop", "router", marker(t))
		def.Env["MCPR_FAKE_INSTANCE"] = id
		def.Env["MCPR_FAKE_COUNT"] = count
		return attempt{def: def, count: func() int { return starts(t, count) }, lists: func() int { return -1 }}
	}
	overHTTP := func(sse bool) func(t *testing.T, id string) attempt {
		return func(t *testing.T, id string) attempt {
			mc := &methodCounter{counts: map[string]int{}}
			var h http.Handler
			path, transport := "/mcp", spec.HTTP
			if sse {
				h, path, transport = server.NewSSEServer(fakeRouter(id)), "/sse", spec.SSE
			} else {
				h = server.NewStreamableHTTPServer(fakeRouter(id))
			}
			srv := httptest.NewServer(mc.wrap(h))
			t.Cleanup(srv.Close)
			def := spec.Server{Name: "loop", Transport: transport, URL: srv.URL + path, Enabled: true}
			def.Normalize()
			// Over HTTP an attempt starts with server/discover, which names
			// 2026-07-28 here: the id is found there, and nothing follows.
			first := "server/discover"
			if sse {
				first = "initialize"
			}
			return attempt{def: def, count: func() int { return mc.get(first) },
				lists: func() int { return mc.get("tools/list") + mc.get("initialize")*btoi(!sse) }}
		}
	}
	transports := map[string]func(t *testing.T, id string) attempt{
		"stdio": stdio, "http": overHTTP(false), "sse": overHTTP(true),
	}
	for name, make := range transports {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				name, id, want string
			}{
				{"this router", self, "this router's own instance id (" + self + ")"},
				{"the router above", above, "the instance id of the router that started this one (" + above + ")"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					a := make(t, tc.id)
					o := fastOptions()
					o.Instance, o.Chain = self, []string{above}
					s := New(o)
					t.Cleanup(s.Close)
					if err := s.Sync([]spec.Server{a.def}); err != nil {
						t.Fatal(err)
					}
					st := waitState(t, s, "loop", StateErrored, 20*time.Second)
					if !strings.HasPrefix(st.Error, ErrSelf.Error()) || !strings.Contains(st.Error, tc.want) ||
						!strings.Contains(st.Error, "cannot be its own upstream") || strings.Contains(st.Error, "\n") {
						t.Errorf("error %q: want one line saying it is this router (%s)", st.Error, tc.want)
					}
					if !st.NextRetryAt.IsZero() {
						t.Errorf("a retry is planned at %v", st.NextRetryAt)
					}
					// Many backoff periods later: still one attempt, nothing listed.
					time.Sleep(10 * o.BackoffMax / 5)
					if n := a.count(); n != 1 {
						t.Errorf("%d attempts, want 1", n)
					}
					if n := a.lists(); n > 0 {
						t.Errorf("tools/list sent %d times to the router itself", n)
					}
					if cat, _ := s.Catalog("loop"); len(cat.Tools) != 0 {
						t.Errorf("catalog has %v", toolNames(cat))
					}
					// The activate gate's Connect fails at once rather than
					// trying again and again.
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					began := time.Now()
					if _, err := s.Connect(ctx, "loop"); !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), tc.want) {
						t.Errorf("Connect = %v", err)
					}
					if took := time.Since(began); took > time.Second {
						t.Errorf("Connect took %v", took)
					}
					if n := a.count(); n != 1 {
						t.Errorf("%d attempts after Connect, want 1", n)
					}
					// Restart asks once more, and meets itself once more.
					if err := s.Restart("loop"); err != nil {
						t.Fatal(err)
					}
					testpeers.Eventually(t, 20*time.Second, "a second attempt", func() bool { return a.count() == 2 })
					waitState(t, s, "loop", StateErrored, 20*time.Second)
					time.Sleep(2 * o.BackoffMax)
					if n := a.count(); n != 2 {
						t.Errorf("%d attempts after Restart, want 2", n)
					}
				})
			}
		})
	}
}

// Another router (another id) and a plain server (no id) are used as any
// server is.
func TestOtherRoutersAreUsed(t *testing.T) {
	for _, id := range []string{"", "11111111111111111111111111111111"} {
		srv := httptest.NewServer(server.NewStreamableHTTPServer(fakeRouter(id)))
		t.Cleanup(srv.Close)
		o := fastOptions()
		o.Instance, o.Chain = "0123456789abcdef0123456789abcdef", []string{"fedcba9876543210fedcba9876543210"}
		s := New(o)
		t.Cleanup(s.Close)
		def := spec.Server{Name: "other", URL: srv.URL + "/mcp", Enabled: true}
		def.Normalize()
		if err := s.Sync([]spec.Server{def}); err != nil {
			t.Fatal(err)
		}
		waitState(t, s, "other", StateRunning, 20*time.Second)
		if cat, _ := s.Catalog("other"); len(cat.Tools) != 1 {
			t.Errorf("id %q: catalog %v", id, toolNames(cat))
		}
	}
}

// Every stdio server learns the chain of routers above it, this one last;
// its own env cannot change that.
func TestStdioServersGetTheRouterChain(t *testing.T) {
	o := fastOptions()
	o.Instance, o.Chain = "cccccccccccccccccccccccccccccccc", []string{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}
	s := New(o)
	t.Cleanup(s.Close)
	def := fakeServer("child", "router", marker(t))
	def.Env[EnvRouterChain] = "spoofed"
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "child", StateRunning, 20*time.Second)
	want := "chain=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,cccccccccccccccccccccccccccccccc"
	testpeers.Eventually(t, 5*time.Second, "the chain on stderr", func() bool {
		lines, _ := s.Console("child")
		for _, l := range lines {
			if l == want {
				return true
			}
		}
		return false
	})
}

// Probe (`servers test`) refuses the router itself the same way.
func TestProbeRefusesThisRouter(t *testing.T) {
	const self = "0123456789abcdef0123456789abcdef"
	srv := httptest.NewServer(server.NewStreamableHTTPServer(fakeRouter(self)))
	t.Cleanup(srv.Close)
	def := spec.Server{Name: "loop", URL: srv.URL + "/mcp", Enabled: true}
	def.Normalize()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Probe(ctx, def, Options{Instance: self}, nil)
	if !errors.Is(err, ErrSelf) {
		t.Fatalf("Probe = %v, want ErrSelf", err)
	}
	if _, err := Probe(ctx, def, Options{}, nil); err != nil {
		t.Fatalf("without an instance id: %v", err)
	}
}

func TestParseChain(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", " a , ,b,": "a|b"} {
		if got := strings.Join(ParseChain(in), "|"); got != want {
			t.Errorf("ParseChain(%q) = %q, want %q", in, got, want)
		}
	}
}

// A stdio server inherits the router's environment but not its
// credentials (the cluster key, the shared database's and Redis's URLs),
// unless its own env sets one.
func TestStdioServersDoNotInheritTheRoutersCredentials(t *testing.T) {
	t.Setenv("MCP_ROUTER_CLUSTER_SECRET", "cluster-key-0123456789abcdef0123456789")
	t.Setenv("MCP_ROUTER_DATABASE", "postgres://router:hunter2@db/mcpr")
	t.Setenv("MCP_ROUTER_REDIS", "redis://:hunter2@redis:6379/0")
	t.Setenv("MCPR_TEST_ORDINARY", "inherited")
	s := New(fastOptions())
	t.Cleanup(s.Close)
	def := fakeServer("envy", "env", marker(t))
	def.Env["MCPR_FAKE_ENV_NAMES"] = "MCP_ROUTER_CLUSTER_SECRET,MCP_ROUTER_DATABASE,MCP_ROUTER_REDIS,MCPR_TEST_ORDINARY"
	def.Env["MCP_ROUTER_REDIS"] = "redis://its-own:6379" // set by the server's config: passed
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "envy", StateRunning, 20*time.Second)
	want := []string{
		"env MCP_ROUTER_CLUSTER_SECRET unset",
		"env MCP_ROUTER_DATABASE unset",
		"env MCP_ROUTER_REDIS=redis://its-own:6379",
		"env MCPR_TEST_ORDINARY=inherited",
	}
	testpeers.Eventually(t, 5*time.Second, "the server's report of its environment", func() bool {
		lines, _ := s.Console("envy")
		return len(lines) >= len(want)
	})
	lines, _ := s.Console("envy")
	got := strings.Join(lines, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("the stdio server's environment: want %q in\n%s", w, got)
		}
	}
	if strings.Contains(got, "hunter2") || strings.Contains(got, "cluster-key") {
		t.Errorf("a credential of the router reached the stdio server:\n%s", got)
	}
}

func TestInheritedEnvDropsOnlyTheRoutersCredentials(t *testing.T) {
	got := inheritedEnv([]string{"PATH=/bin", "mcp_router_database=x", "MCP_ROUTER_CLUSTER_SECRET=k",
		"MCP_ROUTER_REDIS=", "MCP_ROUTER_DATA_DIR=/d", "MCP_ROUTER_DATABASE_X=y", "HOME=/h"})
	want := []string{"PATH=/bin", "MCP_ROUTER_DATA_DIR=/d", "MCP_ROUTER_DATABASE_X=y", "HOME=/h"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("inheritedEnv = %q, want %q", got, want)
	}
}
