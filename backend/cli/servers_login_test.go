package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// protected is an MCP URL that answers 401 naming its protected-resource
// metadata, whose authorization server is issuer.
func protected(t *testing.T, issuer string) string {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{issuer}})
		default:
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "login first", http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func TestServersLoginAndLogout(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	iss := testpeers.StartOAuthIssuer(t, "--register")
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "remote", "--url", protected(t, iss.URL), "--disabled")
	mustRun(t, dir, "servers", "add", "files", "--disabled", "--", "cat")
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	defer open.Close()
	mustRun(t, dir, "servers", "add", "open", "--url", open.URL+"/mcp", "--disabled")

	// The browser: it follows the authorization URL, the authorization
	// server consents and redirects to the CLI's loopback listener.
	var opened atomic.Int32
	old := openBrowser
	t.Cleanup(func() { openBrowser = old })
	openBrowser = func(u string) error {
		opened.Add(1)
		go func() {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	r := run(t, dir, "", "servers", "login", "remote")
	if r.code != 0 || !strings.Contains(r.stdout, "Open this URL to log in to remote (client: dynamic):\n"+iss.URL+"/authorize?") ||
		!strings.Contains(r.stdout, "logged in to remote; tokens kept in the file") || opened.Load() != 1 {
		t.Fatalf("login: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	file := filepath.Join(dir, oauthclient.FileName)
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("login file %v %v", fi, err)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), `"remote"`) || strings.Contains(r.stdout+r.stderr, "access_token") {
		t.Fatal("login not stored, or a token printed")
	}

	// --no-browser only prints the URL; nobody comes back, so it times out.
	r = run(t, dir, "", "servers", "login", "remote", "--no-browser", "--timeout", "100ms")
	if r.code == 0 || !strings.Contains(r.stdout, "/authorize?") || !strings.Contains(r.stderr, "no answer from the browser within 100ms") || opened.Load() != 1 {
		t.Fatalf("--no-browser: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if data2, _ := os.ReadFile(file); string(data2) != string(data) {
		t.Fatal("a failed login changed the stored one")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"servers", "login", "nope"}, `no server named "nope"`},
		{[]string{"servers", "login", "files"}, `files: server "files" is a stdio server: only HTTP and SSE servers log in`},
		{[]string{"servers", "login"}, "usage: mcp-router servers login NAME"},
		{[]string{"servers", "login", "open"}, `open: server "open" answered HTTP 200 without credentials: the server does not ask for an OAuth login`},
		{[]string{"servers", "logout", "nope"}, `no server named "nope"`},
		{[]string{"servers", "logout", "files"}, "files has no login to remove"},
	} {
		r := run(t, dir, "", tc.args...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}

	if out := mustRun(t, dir, "servers", "logout", "remote"); !strings.Contains(out, "logged out of remote") {
		t.Fatalf("logout said %q", out)
	}
	if data, _ := os.ReadFile(file); strings.Contains(string(data), `"remote"`) {
		t.Fatal("logout left the login in the file")
	}
	if r := run(t, dir, "", "servers", "logout", "remote"); r.code == 0 || !strings.Contains(r.stderr, "remote has no login to remove") {
		t.Fatalf("second logout: %d %s", r.code, r.stderr)
	}

	// Removing a server removes its login too; one without says nothing of it.
	if r := run(t, dir, "", "servers", "login", "remote"); r.code != 0 {
		t.Fatalf("login again: exit %d %s", r.code, r.stderr)
	}
	if out := mustRun(t, dir, "servers", "remove", "remote"); out != "removed remote\nremoved its login\n" {
		t.Fatalf("remove said %q", out)
	}
	if data, _ := os.ReadFile(file); strings.Contains(string(data), `"remote"`) {
		t.Fatal("servers remove left the login in the file")
	}
	if out := mustRun(t, dir, "servers", "remove", "files"); out != "removed files\n" {
		t.Fatalf("remove of a server without a login said %q", out)
	}
}
