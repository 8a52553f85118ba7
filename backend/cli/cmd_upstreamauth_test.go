package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Upstream credentials of checkingUpstream: the owner's, configured on every
// server, and the two a client may give.
const (
	ownerAuth = "Bearer owner-configured"
	aliceAuth = "Bearer alice-upstream-credential"
	starAuth  = "Bearer star-upstream-credential"
	wrongAuth = "Bearer wrong-upstream-credential"
)

type authSeen struct {
	mu  sync.Mutex
	all []string // "PATH AUTHORIZATION"
}

func (s *authSeen) add(v string) { s.mu.Lock(); s.all = append(s.all, v); s.mu.Unlock() }
func (s *authSeen) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.all)
}

// checkingUpstream is a real streamable HTTP MCP server that checks the
// credential: a request whose Authorization is not one it knows gets 401.
// Its tool whoami answers with the Authorization of the call. Each server
// of the router reaches it at its own path (/NAME), so what each server
// sent is known.
func checkingUpstream(t *testing.T) (base string, seen *authSeen) {
	t.Helper()
	type key struct{}
	s := server.NewMCPServer("checking", "1")
	s.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, _ := ctx.Value(key{}).(string)
		return mcp.NewToolResultText("auth=" + v), nil
	})
	h := server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		return context.WithValue(ctx, key{}, r.Header.Get("Authorization"))
	}))
	seen = &authSeen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := r.Header.Get("Authorization")
		seen.add(r.URL.Path + " " + a)
		if a != ownerAuth && a != aliceAuth && a != starAuth {
			http.Error(w, "unknown credential", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, seen
}

// upstreamAuthDir makes a data dir whose router has three servers on
// checkingUpstream: pass and other with passUpstreamAuth, plain without.
func upstreamAuthDir(t *testing.T, base string) string {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, name := range []string{"pass", "other", "plain"} {
		s := spec.Server{Name: name, Transport: spec.HTTP, URL: base + "/" + name, Enabled: true,
			Headers: map[string]string{"Authorization": ownerAuth}, PassUpstreamAuth: name != "plain"}
		if _, err := st.Servers().Create(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const whoamiScript = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pass__whoami","arguments":{}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"other__whoami","arguments":{}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"plain__whoami","arguments":{}}}
`

// whoamiAnswers is what the calls 2, 3 and 4 of whoamiScript answered: the
// upstream's "auth=…" text, or the error's text.
func whoamiAnswers(t *testing.T, stdout string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for id, m := range responses(t, stdout) {
		if id == "1" || id == "" {
			continue
		}
		var res struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		}
		if m["error"] != nil {
			out[id] = "error: " + string(m["error"])
		} else if err := json.Unmarshal(m["result"], &res); err != nil || len(res.Content) == 0 {
			out[id] = "bad result: " + string(m["result"])
		} else if res.IsError {
			out[id] = "error: " + res.Content[0].Text
		} else {
			out[id] = res.Content[0].Text
		}
	}
	return out
}

// checkWhoami compares the answers of pass (2), other (3) and plain (4).
func checkWhoami(t *testing.T, what string, got map[string]string, pass, other string) {
	t.Helper()
	for id, want := range map[string]string{"2": pass, "3": other, "4": "auth=" + ownerAuth} {
		if !strings.HasPrefix(got[id], want) && !(strings.HasPrefix(want, "error") && strings.Contains(got[id], strings.TrimPrefix(want, "error: "))) {
			t.Errorf("%s: call %s answered %q, want %q", what, id, got[id], want)
		}
	}
}

// A client through `mcp-router connect --upstream-auth` (or
// $MCPR_UPSTREAM_AUTH) reaches an upstream that checks the credential with
// its own value, exactly as an HTTP client's X-Upstream-Authorization: a
// named server gets its own value, * the others with passUpstreamAuth, a
// server without the flag never any; a wrong value is refused by the
// upstream and fails that call only. No value is ever in connect's output
// besides the upstream's own answers, and the router's token never reaches
// the upstream.
func TestConnectUpstreamAuth(t *testing.T) {
	t.Setenv("MCPR_URL", "")
	t.Setenv("MCPR_TOKEN", "")
	t.Setenv(config.UpstreamAuthEnv, "")
	base, seen := checkingUpstream(t)
	dir := upstreamAuthDir(t, base)
	port := testpeers.FreePort(t)
	mustRun(t, dir, "settings", "set", "port", strconv.Itoa(port))
	var created struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "tokens", "create", "desktop", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	serveDirStarted(t, dir)
	connect := func(stdin string, args ...string) result {
		t.Helper()
		r := run(t, dir, stdin, append([]string{"connect", "--url", "http://127.0.0.1:" + strconv.Itoa(port), "--token", created.Token}, args...)...)
		if r.code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		for _, v := range []string{aliceAuth, starAuth, wrongAuth} {
			if strings.Contains(r.stderr, v) {
				t.Errorf("%v: stderr holds a value: %s", args, r.stderr)
			}
		}
		return r
	}

	r := connect(whoamiScript, "--upstream-auth", "pass="+aliceAuth, "--upstream-auth", "*="+starAuth)
	checkWhoami(t, "flags", whoamiAnswers(t, r.stdout), "auth="+aliceAuth, "auth="+starAuth)

	r = connect(whoamiScript, "--upstream-auth", "pass="+aliceAuth)
	checkWhoami(t, "pass only", whoamiAnswers(t, r.stdout), "auth="+aliceAuth, "auth="+ownerAuth)

	// A wrong value: the upstream refuses it, that call fails, the others
	// go on.
	r = connect(whoamiScript, "--upstream-auth", "pass="+wrongAuth)
	checkWhoami(t, "wrong value", whoamiAnswers(t, r.stdout), "error: refused the X-Upstream-Authorization the client gave", "auth="+ownerAuth)

	// From the environment, one SERVER=VALUE a line; a flag replaces it.
	t.Setenv(config.UpstreamAuthEnv, "other="+aliceAuth+"\n*="+starAuth+"\n")
	r = connect(whoamiScript)
	checkWhoami(t, "env", whoamiAnswers(t, r.stdout), "auth="+starAuth, "auth="+aliceAuth)
	r = connect(whoamiScript, "--upstream-auth", "pass="+aliceAuth)
	checkWhoami(t, "flag over env", whoamiAnswers(t, r.stdout), "auth="+aliceAuth, "auth="+ownerAuth)

	// Without any: the configured credential.
	t.Setenv(config.UpstreamAuthEnv, "")
	r = connect(whoamiScript)
	checkWhoami(t, "none", whoamiAnswers(t, r.stdout), "auth="+ownerAuth, "auth="+ownerAuth)

	for _, line := range seen.list() {
		path, a, _ := strings.Cut(line, " ")
		if strings.Contains(a, "mcpr_") {
			t.Fatalf("the router's token reached the upstream: %s", path)
		}
		if path == "/plain" && a != ownerAuth {
			t.Errorf("plain, without passUpstreamAuth, got a client's value")
		}
	}
	if !slices.Contains(seen.list(), "/pass "+wrongAuth) {
		t.Error("the wrong value never reached pass: what refused the call?")
	}
}

// Bad --upstream-auth entries and $MCPR_UPSTREAM_AUTH are usage errors that
// never repeat a value, before anything is sent.
func TestConnectUpstreamAuthBadEntries(t *testing.T) {
	t.Setenv("MCPR_URL", "")
	dir := t.TempDir()
	for _, tc := range []struct {
		name, env string
		args      []string
		want      string
	}{
		{"no server", "", []string{"--upstream-auth", "Bearer secret-v"}, "want SERVER=VALUE"},
		{"empty", "", []string{"--upstream-auth", "pass="}, "the value is empty"},
		{"control", "", []string{"--upstream-auth", "pass=Bearer secret-v\x7f"}, "control characters"},
		{"twice", "", []string{"--upstream-auth", "pass=Bearer secret-v", "--upstream-auth", "pass=x"}, "given twice"},
		{"long", "", []string{"--upstream-auth", "pass=" + strings.Repeat("s", 9<<10)}, "longer than 8 KiB"},
		{"env", "pass=Bearer secret-v\nBearer secret-v", nil, "$MCPR_UPSTREAM_AUTH: upstream auth entry 2: want SERVER=VALUE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(config.UpstreamAuthEnv, tc.env)
			for _, cmd := range []string{"connect", "stdio"} {
				r := run(t, dir, "", append([]string{cmd}, tc.args...)...)
				if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "secret-v") {
					t.Errorf("%s: exit %d, stderr %q; want usage error with %q and no value", cmd, r.code, r.stderr, tc.want)
				}
			}
		})
	}
}

// `mcp-router stdio --upstream-auth` gives the client's calls its values,
// as connect does (stdio has no HTTP header to carry them).
func TestStdioUpstreamAuth(t *testing.T) {
	t.Setenv(config.UpstreamAuthEnv, "")
	base, seen := checkingUpstream(t)
	dir := upstreamAuthDir(t, base)
	got := stdioWhoami(t, dir, "--upstream-auth", "pass="+aliceAuth, "--upstream-auth", "*="+starAuth)
	checkWhoami(t, "flags", got, "auth="+aliceAuth, "auth="+starAuth)
	got = stdioWhoami(t, dir, "--upstream-auth", "pass="+wrongAuth)
	checkWhoami(t, "wrong value", got, "error: refused the X-Upstream-Authorization the client gave", "auth="+ownerAuth)
	t.Setenv(config.UpstreamAuthEnv, "other="+aliceAuth)
	got = stdioWhoami(t, dir)
	checkWhoami(t, "env", got, "auth="+ownerAuth, "auth="+aliceAuth)
	for _, line := range seen.list() {
		if path, a, _ := strings.Cut(line, " "); path == "/plain" && a != ownerAuth {
			t.Errorf("plain, without passUpstreamAuth, got a client's value")
		}
	}
}

// stdioWhoami runs `mcp-router stdio ARGS` on dir with whoamiScript and
// returns whoamiAnswers once all three calls are answered; stdin stays open
// until then (stdio cancels what is in flight when it ends).
func stdioWhoami(t *testing.T, dir string, args ...string) map[string]string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	stderr := &testpeers.SyncBuffer{}
	go func() {
		done <- Main(context.Background(), append([]string{"--data-dir", dir, "stdio"}, args...), Options{Stdin: inR, Stdout: outW, Stderr: stderr})
		outW.Close()
	}()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// The first list waits for the servers to start (core.FirstListWait),
	// and holds the calls after it until then.
	init := `"notifications/initialized"}` + "\n"
	script := strings.Replace(whoamiScript, init, init+`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`+"\n", 1)
	if _, err := io.WriteString(inW, script); err != nil {
		t.Fatal(err)
	}
	var out []string
	answered := 0
	deadline := time.After(30 * time.Second)
	for answered < 3 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdio ended: %s", stderr.String())
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal([]byte(l), &m) == nil && slices.Contains([]string{"2", "3", "4"}, string(m.ID)) {
				answered++
				out = append(out, l)
			}
		case <-deadline:
			t.Fatalf("not all calls answered in 30 s: %v (stderr: %s)", out, stderr.String())
		}
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Error("stdio did not end")
	}
	for _, v := range []string{aliceAuth, starAuth, wrongAuth} {
		if strings.Contains(stderr.String(), v) {
			t.Errorf("stderr holds a value: %s", stderr.String())
		}
	}
	return whoamiAnswers(t, strings.Join(out, "\n"))
}

// serveDirStarted is serveDir (with auth) once every server has started
// and the catalog has their tools.
func serveDirStarted(t *testing.T, dataDir string) {
	t.Helper()
	c, err := core.Open(dataDir, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
	c.WaitStarted(wctx)
	wcancel()
	c.Gateway.Rebuild() // the started servers' tools are in the catalog
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- c.Serve(ctx, core.ServeOptions{Ready: func(string) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-served:
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-served; c.Close() })
}

// `mcp-router snippet --upstream-auth` puts the values in the snippet: the
// env of a stdio one (what connect reads), the headers of an http one; a
// bad entry is a usage error and no token is made for it.
func TestSnippetUpstreamAuth(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "", "snippet", "--client", "claude-desktop", "--mode", "stdio",
		"--upstream-auth", "github=Bearer ghp_1", "--upstream-auth", "*=Bearer all")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	e := parseSnippet(t, r.stdout, "mcpServers")
	if e.Env[config.UpstreamAuthEnv] != "*=Bearer all\ngithub=Bearer ghp_1" || !strings.HasPrefix(e.Env[config.TokenEnv], "mcpr_") {
		t.Errorf("stdio snippet env %v", e.Env)
	}
	// What the snippet sets is what connect reads.
	if m, err := config.ParseUpstreamAuth(config.SplitUpstreamAuthEnv(e.Env[config.UpstreamAuthEnv])); err != nil || m["github"] != "Bearer ghp_1" || m["*"] != "Bearer all" {
		t.Errorf("connect reads %v, %v", m, err)
	}
	r = run(t, dir, "", "snippet", "--client", "cursor", "--upstream-auth", "github=Bearer ghp_1")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if e := parseSnippet(t, r.stdout, "mcpServers"); e.Headers["X-Upstream-Authorization-For"] != `{"github":"Bearer ghp_1"}` || e.Env != nil {
		t.Errorf("http snippet %+v", e)
	}
	r = run(t, dir, "", "snippet", "--client", "cursor", "--upstream-auth", "Bearer secret-v")
	if r.code != ExitUsage || strings.Contains(r.stderr, "secret-v") || !strings.Contains(r.stderr, "want SERVER=VALUE") {
		t.Errorf("bad entry: exit %d %q", r.code, r.stderr)
	}
	if strings.Contains(mustRun(t, dir, "tokens", "list"), "cursor-2") {
		t.Error("a token was made for a snippet that could not be written")
	}
}
