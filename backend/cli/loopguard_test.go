package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// isolateHome gives the test an empty home: `mcp-router connect` without
// --url reads the default data dir's settings, which must not be the
// machine's own.
func isolateHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv(config.DataDirEnv, "")
	return home
}

func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// wantRefused checks a CLI result: exit 1 and one line saying the server
// points at this router.
func wantRefused(t *testing.T, what string, r result, name, reason string) {
	t.Helper()
	line := strings.TrimSuffix(r.stderr, "\n")
	if r.code != ExitError || strings.Contains(line, "\n") ||
		!strings.HasPrefix(line, fmt.Sprintf(`mcp-router: server %q points at this router: `, name)) ||
		!strings.Contains(line, reason) || !strings.HasSuffix(line, "; a router cannot be its own upstream") {
		t.Errorf("%s: exit %d, stderr %q; want exit 1 and one line saying it points at this router (%s)", what, r.code, r.stderr, reason)
	}
}

func TestServersAddRefusesThisRouter(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	exe := testBinary(t)
	bin := t.TempDir()
	link := filepath.Join(bin, "routerbin")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	refused := []struct {
		name   string
		args   []string
		reason string
	}{
		{"url", []string{"--url", "http://127.0.0.1:3282/mcp"}, "http://127.0.0.1:3282/mcp is this router's own endpoint (it listens on 127.0.0.1:3282)"},
		{"localhost-sse", []string{"--url", "http://localhost:3282/sse", "--transport", "sse"}, "http://localhost:3282/sse is this router's own endpoint"},
		{"v6", []string{"--url", "http://[::1]:3282"}, "http://[::1]:3282 is this router's own endpoint"},
		{"loopback-slash", []string{"--url", "http://127.9.9.9:3282/mcp/"}, "is this router's own endpoint"},
		{"anywhere", []string{"--url", "http://0.0.0.0:3282/mcp"}, "is this router's own endpoint"},
		{"bridge", []string{"--", exe, "connect"}, "is the stdio bridge to this router's own endpoint (http://127.0.0.1:3282/mcp"},
		{"bridge-url", []string{"--", exe, "connect", "--url", "http://localhost:3282/mcp"}, "is the stdio bridge to this router's own endpoint"},
		{"bridge-symlink", []string{"--env", "MCPR_TOKEN=x", "--", link, "connect"}, "is the stdio bridge"},
		{"bridge-on-path", []string{"--", "routerbin", "connect"}, `"routerbin connect" is the stdio bridge`},
		{"bridge-by-name", []string{"--", "mcp-router", "connect"}, `"mcp-router connect" is the stdio bridge`},
		{"again", []string{"--", exe, "--data-dir", dir, "stdio"}, "runs this router again, on stdin/stdout, on this router's own data directory " + dir},
		{"again-env", []string{"--env", config.DataDirEnv + "=" + dir, "--", "routerbin", "stdio"}, "on this router's own data directory"},
		{"headless", []string{"--", exe, "serve", "--data-dir=" + dir}, "runs this router again, headless,"},
	}
	for _, tc := range refused {
		r := run(t, dir, "", append([]string{"servers", "add", tc.name}, tc.args...)...)
		wantRefused(t, "servers add "+tc.name, r, tc.name, tc.reason)
	}
	if rows := list(t, dir); len(rows) != 0 {
		t.Fatalf("refused servers were stored: %+v", rows)
	}

	// What is not this router is added as before.
	for _, args := range [][]string{
		{"--url", "http://127.0.0.1:3283/mcp"},
		{"--url", "http://192.0.2.1:3282/mcp"},
		{"--", "/bin/echo", "connect"},
		{"--", exe, "stdio"}, // the default data dir: another router
		{"--", exe, "--data-dir", t.TempDir(), "stdio"},
		{"--", exe, "connect", "--url", "http://127.0.0.1:4000/mcp"},
	} {
		if r := run(t, dir, "", append([]string{"servers", "add", "ok"}, args...)...); r.code != 0 {
			t.Errorf("servers add %v: exit %d: %s", args, r.code, r.stderr)
		}
		mustRun(t, dir, "servers", "remove", "ok")
	}

	// The port and listen settings are the router's endpoint.
	mustRun(t, dir, "settings", "set", "port", "4000")
	wantRefused(t, "the new port", run(t, dir, "", "servers", "add", "p", "--url", "http://localhost:4000/mcp"), "p", "(it listens on 127.0.0.1:4000)")
	mustRun(t, dir, "servers", "add", "old-port", "--url", "http://localhost:3282/mcp")
	mustRun(t, dir, "settings", "set", "listen", "0.0.0.0")
	if host, err := os.Hostname(); err == nil && host != "" {
		wantRefused(t, "this host's name", run(t, dir, "", "servers", "add", "h", "--url", "http://"+host+":4000/mcp"), "h", "(it listens on 0.0.0.0:4000)")
	}
	if rows := list(t, dir); len(rows) != 1 || rows[0].Name != "old-port" {
		t.Errorf("servers = %+v", rows)
	}

	// servers update cannot turn a server into this router either, and
	// leaves it as it was.
	mustRun(t, dir, "servers", "add", "elsewhere", "--url", "http://127.0.0.1:4001/mcp")
	wantRefused(t, "servers update --url", run(t, dir, "", "servers", "update", "elsewhere", "--url", "http://127.0.0.1:4000/mcp"),
		"elsewhere", "is this router's own endpoint")
	for _, row := range list(t, dir) {
		if row.Name == "elsewhere" && row.URL != "http://127.0.0.1:4001/mcp" {
			t.Errorf("the refused update was stored: %+v", row)
		}
	}
}

// The natural first hour: print the snippet, paste it into the project's
// .mcp.json beside the servers already there, then import that file into
// the router. The other servers are imported; the router's own entry is
// skipped, named, with the reason.
func TestServersImportSkipsTheSnippetTheRouterPrinted(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		client, mode, top string
		port              string
		reason            string
	}{
		{"claude-code", "http", "mcpServers", "", "http://127.0.0.1:3282/mcp is this router's own endpoint"},
		{"claude-code", "stdio", "mcpServers", "", "connect\" is the stdio bridge to this router's own endpoint"},
		{"cursor", "stdio", "mcpServers", "", "is the stdio bridge"},
		{"claude-desktop", "stdio", "mcpServers", "", "is the stdio bridge"},
		{"vscode", "stdio", "servers", "", "is the stdio bridge"},
		{"vscode", "http", "servers", "", "is this router's own endpoint"},
		{"claude-code", "stdio", "mcpServers", "4100", "connect --url http://127.0.0.1:4100/mcp\" is the stdio bridge to this router's own endpoint"},
		{"claude-code", "http", "mcpServers", "4100", "http://127.0.0.1:4100/mcp is this router's own endpoint"},
	} {
		what := fmt.Sprintf("%s --mode %s (port %s)", tc.client, tc.mode, tc.port)
		if tc.port != "" {
			mustRun(t, dir, "settings", "set", "port", tc.port)
		}
		snippet := mustRun(t, dir, "snippet", "--client", tc.client, "--mode", tc.mode)
		var doc map[string]map[string]json.RawMessage
		if err := json.Unmarshal([]byte(snippet), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, snippet)
		}
		doc[tc.top]["everything"] = json.RawMessage(`{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}`)
		data, _ := json.MarshalIndent(doc, "", "  ")
		file := filepath.Join(t.TempDir(), ".mcp.json")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}

		r := run(t, dir, "", "servers", "import", file)
		if r.code != 0 || r.stdout != "imported 1 server(s): everything\n" {
			t.Errorf("%s: import: exit %d, stdout %q, stderr %q", what, r.code, r.stdout, r.stderr)
		}
		if !strings.HasPrefix(r.stderr, "skipped mcp-router: points at this router: ") || !strings.Contains(r.stderr, tc.reason) ||
			strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: stderr %q, want one line naming mcp-router and why (%s)", what, r.stderr, tc.reason)
		}
		rows := list(t, dir)
		if len(rows) != 1 || rows[0].Name != "everything" {
			t.Fatalf("%s: servers after the import: %+v", what, rows)
		}
		mustRun(t, dir, "servers", "remove", "everything")
	}

	// A file holding only the router's entry imports nothing, and says so.
	mustRun(t, dir, "settings", "set", "port", "3282")
	snippet := mustRun(t, dir, "snippet", "--client", "claude-code")
	r := run(t, dir, snippet, "servers", "import", "-")
	if r.code != 0 || r.stdout != "nothing imported\n" || !strings.HasPrefix(r.stderr, "skipped mcp-router: points at this router") {
		t.Errorf("only the router: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// methodCounter counts the JSON-RPC methods that pass a proxy.
type methodCounter struct {
	mu      sync.Mutex
	methods map[string]int
}

func (m *methodCounter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
				m.mu.Lock()
				m.methods[msg.Method]++
				m.mu.Unlock()
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (m *methodCounter) snapshot() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for k, v := range m.methods {
		out[k] = v
	}
	return out
}

// runningRouter is a real router on dir: core.Run with a fast database
// poll, its endpoint on a free loopback port with auth on, and a token.
type runningRouter struct {
	c     *core.Core
	url   string // http://127.0.0.1:port/mcp
	token string
}

func startRouter(t *testing.T, dir string) *runningRouter {
	t.Helper()
	c, err := core.Open(dir, core.Options{Upstream: upstream.Options{
		StartTimeout: 15 * time.Second, BackoffBase: 50 * time.Millisecond, BackoffMax: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	if err := c.Run(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- c.Serve(ctx, core.ServeOptions{Addr: "127.0.0.1:0", Ready: func(addr string) { ready <- addr }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	secret, _, err := c.Auth.Create(ctx, "loop-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return &runningRouter{c: c, url: "http://" + addr + "/mcp", token: secret}
}

// waitErrored waits for server to be errored and returns its error; a
// server that runs instead fails the test at once.
func (r *runningRouter) waitErrored(t *testing.T, server string) string {
	t.Helper()
	var st upstream.Status
	testpeers.Eventually(t, 20*time.Second, server+" to be errored", func() bool {
		st, _ = r.c.Servers.Status(server)
		return st.State == upstream.StateErrored || st.State == upstream.StateRunning
	})
	if st.State == upstream.StateRunning {
		t.Fatalf("%s runs: the router took itself as an upstream (%d tools)", server, st.Tools)
	}
	return st.Error
}

func wantSelfError(t *testing.T, msg, instance string) {
	t.Helper()
	wantSelfErrorFrom(t, msg, instance, "initialize result")
}

// wantSelfErrorFrom: answer is what carried the id ("initialize result",
// "server/discover answer").
func wantSelfErrorFrom(t *testing.T, msg, instance, answer string) {
	t.Helper()
	if !strings.HasPrefix(msg, "this server is this router itself: its "+answer+" carries this router's own instance id ("+instance+")") ||
		!strings.Contains(msg, "cannot be its own upstream") || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want one line saying it is this router, with id %s", msg, instance)
	}
}

// The router announces its instance id in its initialize result, and in
// the server/discover result of the stateless 2026-07-28 revision.
func TestInitializeAnnouncesTheInstanceID(t *testing.T) {
	dir := t.TempDir()
	r := startRouter(t, dir)
	id, err := config.InstanceID(dir)
	if err != nil || id != r.c.Instance {
		t.Fatalf("instance id %q (%v), core has %q", id, err, r.c.Instance)
	}
	for _, tc := range []struct {
		what, body string
		headers    map[string]string
	}{
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil},
		{"server/discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}},
	} {
		req, _ := http.NewRequest(http.MethodPost, r.url, strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer "+r.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var msg struct {
			Result struct {
				Meta map[string]any `json:"_meta"`
			} `json:"result"`
		}
		raw := body
		for _, line := range strings.Split(string(body), "\n") { // an event stream: its data line
			if strings.HasPrefix(line, "data:") {
				raw = []byte(strings.TrimPrefix(line, "data:"))
			}
		}
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatalf("%s: %v in %s", tc.what, err, body)
		}
		if got := msg.Result.Meta[upstream.InstanceMetaKey]; got != id {
			t.Errorf("%s: result _meta = %v, want %s = %s (body %s)", tc.what, msg.Result.Meta, upstream.InstanceMetaKey, id, body)
		}
	}
}

// A router that reaches itself through a reverse proxy on another port —
// which no look at the definition can see — finds its own instance id in
// the answer to its first request (the server/discover probe, which it
// answers with its id as it does initialize), marks the server errored
// with a clear message and goes no further: one server/discover passes the
// proxy, no initialize, no list, no call, no retry.
func TestRouterBehindAProxyToItself(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	r := startRouter(t, dir)
	target, _ := url.Parse(r.url)
	target.Path = ""
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // event streams pass at once
	counter := &methodCounter{methods: map[string]int{}}
	front := httptest.NewServer(counter.wrap(proxy))
	t.Cleanup(front.Close)

	// The definition names another port: the CLI cannot tell, so it adds it.
	mustRun(t, dir, "servers", "add", "loop", "--url", front.URL+"/mcp", "--header", "Authorization=Bearer "+r.token)
	began := time.Now()
	msg := r.waitErrored(t, "loop")
	wantSelfErrorFrom(t, msg, r.c.Instance, "server/discover answer")
	t.Logf("errored %v after the add: %s", time.Since(began).Round(time.Millisecond), msg)

	time.Sleep(time.Second) // five times the longest backoff
	got := counter.snapshot()
	if got["server/discover"] != 1 {
		t.Errorf("server/discover passed the proxy %d times, want once: %v", got["server/discover"], got)
	}
	for m, n := range got {
		if m != "server/discover" {
			t.Errorf("%s passed the proxy %d times: the router went on talking to itself (%v)", m, n, got)
		}
	}
	if st, _ := r.c.Servers.Status("loop"); st.State != upstream.StateErrored || !st.NextRetryAt.IsZero() {
		t.Errorf("status %+v: want errored, no retry planned", st)
	}
	for name := range r.c.Gateway.Server().ListTools() {
		if strings.HasPrefix(name, "loop") {
			t.Errorf("the router publishes %s", name)
		}
	}

	// servers test meets the same router and says so.
	res := run(t, dir, "", "servers", "test", "loop", "--timeout", "10s")
	if res.code != ExitError || !strings.Contains(res.stderr, "this server is this router itself") {
		t.Errorf("servers test: exit %d, stderr %q", res.code, res.stderr)
	}
	if n := counter.snapshot()["tools/list"]; n != 0 {
		t.Errorf("servers test listed the router's tools %d times", n)
	}
}

// writeScript writes a shell script that counts its runs in count and then
// execs line. It refuses a fourth run, so that a router that does recurse
// through it fails the test in seconds instead of filling the machine.
func writeScript(t *testing.T, line string) (script, count string) {
	t.Helper()
	d := t.TempDir()
	script, count = filepath.Join(d, "wrapper.sh"), filepath.Join(d, "runs")
	body := "#!/bin/sh\n" +
		"if [ \"$(cat \"" + count + "\" 2>/dev/null | wc -l)\" -ge 3 ]; then echo 'test wrapper: third nested run, stopping' >&2; exit 1; fi\n" +
		"echo run >> \"" + count + "\"\n" + line + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, count
}

func runs(t *testing.T, count string) int {
	t.Helper()
	data, err := os.ReadFile(count)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(data), "run\n")
}

// A wrapper script that runs `mcp-router connect` to this router: the
// bridge hands over the router's own initialize result, so the server is
// errored; the script ran once and no process is left.
func TestWrapperScriptRunningConnect(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	r := startRouter(t, dir)
	script, count := writeScript(t, `exec "$ROUTER" connect --url "$URL"`)
	mark := fmt.Sprintf("loopguard-connect-%d", time.Now().UnixNano())
	mustRun(t, dir, "servers", "add", "wrapped",
		"--env", envAsRouter+"=1", "--env", "ROUTER="+testBinary(t), "--env", "URL="+r.url,
		"--env", "MCPR_TOKEN="+r.token, "--env", "MCPR_TEST_MARKER="+mark, "--", "/bin/sh", script)
	wantSelfError(t, r.waitErrored(t, "wrapped"), r.c.Instance)
	time.Sleep(time.Second)
	if n := runs(t, count); n != 1 {
		t.Errorf("the wrapper ran %d times, want once", n)
	}
	testpeers.WaitNoProcesses(t, mark, 10*time.Second)
}

// A wrapper script that runs `mcp-router stdio` on this router's own data
// dir: a second router process with the same servers, the wrapper among
// them. It learns from MCPR_ROUTER_CHAIN that it runs behind itself and
// starts none of them, so the chain stops at one step: the wrapper ran
// once, the child said why on its stderr, and the server is errored.
func TestWrapperScriptRunningStdioOnTheSameDataDir(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	r := startRouter(t, dir)
	script, count := writeScript(t, `exec "$ROUTER" --data-dir "$DIR" stdio`)
	mark := fmt.Sprintf("loopguard-stdio-%d", time.Now().UnixNano())
	mustRun(t, dir, "servers", "add", "wrapped",
		"--env", envAsRouter+"=1", "--env", "ROUTER="+testBinary(t), "--env", "DIR="+dir,
		"--env", "MCPR_TEST_MARKER="+mark, "--", "/bin/sh", script)
	wantSelfError(t, r.waitErrored(t, "wrapped"), r.c.Instance)
	time.Sleep(time.Second)
	if n := runs(t, count); n != 1 {
		t.Errorf("the wrapper ran %d times, want once: the router behind itself started its servers", n)
	}
	lines, _ := r.c.Servers.Console("wrapped")
	if !strings.Contains(strings.Join(lines, "\n"), "was started as an upstream server of itself; not starting its servers") {
		t.Errorf("the child's stderr does not say why it starts nothing: %q", lines)
	}
	testpeers.WaitNoProcesses(t, mark, 10*time.Second)
}
