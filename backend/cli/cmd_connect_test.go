package cli

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func TestConnectBadFlags(t *testing.T) {
	t.Setenv("MCPR_URL", "")
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"malformed url", "", []string{"connect", "--url", "://nope"}, `bad --url "://nope"`},
		{"not http", "", []string{"connect", "--url", "ftp://127.0.0.1/mcp"}, `bad --url "ftp://127.0.0.1/mcp"`},
		{"no host", "", []string{"connect", "--url", "http:///mcp"}, `bad --url`},
		{"bad env url", "127.0.0.1:3282", []string{"connect"}, `bad $MCPR_URL "127.0.0.1:3282"`},
		{"argument", "", []string{"connect", "extra"}, "unknown command"},
		{"unknown flag", "", []string{"connect", "--port", "1"}, "unknown flag"},
		{"token with a line break", "", []string{"connect", "--url", "http://127.0.0.1:1/mcp", "--token", "mcpr_a\nb"}, "bad token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("MCPR_URL", tc.env)
			r := run(t, dir, "", tc.args...)
			if r.code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr %q", r.code, ExitUsage, r.stderr)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "mcp-router: ") || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q, want one line with %q", r.stderr, tc.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:3282":       "http://127.0.0.1:3282/mcp",
		"http://127.0.0.1:3282/":      "http://127.0.0.1:3282/mcp",
		"http://127.0.0.1:3282/mcp":   "http://127.0.0.1:3282/mcp",
		" https://[::1]:9000/custom ": "https://[::1]:9000/custom",
	} {
		got, err := checkURL("--url", in)
		if err != nil || got != want {
			t.Errorf("checkURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// serveDir serves the router of dataDir on the listen and port settings.
func serveDir(t *testing.T, dataDir string, noAuth bool) {
	t.Helper()
	c, err := core.Open(dataDir, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- c.Serve(ctx, core.ServeOptions{NoAuth: noAuth, Ready: func(string) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-served:
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-served; c.Close() })
}

const connectScript = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"ping"}
`

func responses(t *testing.T, stdout string) map[string]map[string]json.RawMessage {
	t.Helper()
	out := map[string]map[string]json.RawMessage{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		out[string(m["id"])] = m
	}
	return out
}

func TestConnectFindsTheRouterFromTheSettings(t *testing.T) {
	t.Setenv("MCPR_URL", "")
	t.Setenv("MCPR_TOKEN", "")
	dir := t.TempDir()
	port := testpeers.FreePort(t)
	mustRun(t, dir, "settings", "set", "port", strconv.Itoa(port))
	serveDir(t, dir, true)

	r := run(t, dir, connectScript, "connect")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := responses(t, r.stdout)
	if got["1"]["result"] == nil || string(got["2"]["result"]) != "{}" {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

func TestConnectTokenFromTheEnvironment(t *testing.T) {
	t.Setenv("MCPR_URL", "")
	dir := t.TempDir()
	port := testpeers.FreePort(t)
	mustRun(t, dir, "settings", "set", "port", strconv.Itoa(port))
	var created struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "tokens", "create", "desktop", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	serveDir(t, dir, false)
	url := "http://127.0.0.1:" + strconv.Itoa(port)

	t.Setenv("MCPR_TOKEN", created.Token)
	r := run(t, dir, connectScript, "connect", "--url", url)
	if r.code != ExitOK {
		t.Fatalf("with the token: exit %d: %s", r.code, r.stderr)
	}
	if got := responses(t, r.stdout); got["1"]["result"] == nil || got["2"]["result"] == nil {
		t.Errorf("with the token, stdout:\n%s", r.stdout)
	}

	t.Setenv("MCPR_TOKEN", "mcpr_"+strings.Repeat("0", 40))
	r = run(t, dir, connectScript, "connect", "--url", url)
	if r.code != ExitError {
		t.Errorf("wrong token: exit %d, want %d", r.code, ExitError)
	}
	if !strings.Contains(r.stderr, "rejected the token (HTTP 401)") || !strings.Contains(r.stderr, "MCPR_TOKEN") {
		t.Errorf("wrong token: stderr %q", r.stderr)
	}
	got := responses(t, r.stdout)
	if !strings.Contains(string(got["1"]["error"]), "401") || !strings.Contains(string(got["2"]["error"]), "401") {
		t.Errorf("wrong token: stdout:\n%s", r.stdout)
	}
	// --token wins over the environment.
	r = run(t, dir, connectScript, "connect", "--url", url, "--token", created.Token)
	if r.code != ExitOK {
		t.Errorf("--token: exit %d: %s", r.code, r.stderr)
	}
}
