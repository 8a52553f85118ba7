package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mcp-router/mcp-router/backend/appapi"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// TestServeHasTheBrowserUI: `serve` answers the pages and the UI API on the
// endpoint's port; a build without a desktop app refuses startAtLogin.
func TestServeHasTheBrowserUI(t *testing.T) {
	cases := []struct {
		name      string
		assets    fstest.MapFS
		pageCode  int
		pageText  string
		banner    bool
		autostart string // SaveSettings{startAtLogin: true} answer
	}{
		{"with pages", fstest.MapFS{"index.html": {Data: []byte("<html><head></head><body>pages</body></html>")}},
			200, "pages", true, "this build has no desktop app to start at login"},
		{"without pages (nogui)", nil, 404, "no web UI", false, "this build has no desktop app to start at login"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			port := testpeers.FreePort(t)
			ctx, cancel := context.WithCancel(context.Background())
			var stderr testpeers.SyncBuffer
			done := make(chan int, 1)
			o := Options{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr}
			if tc.assets != nil {
				o.Assets = tc.assets
			}
			go func() {
				done <- Main(ctx, []string{"--data-dir", dir, "serve", "--no-auth", "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, o)
			}()
			defer func() {
				cancel()
				if code := <-done; code != 0 {
					t.Errorf("serve exited %d: %s", code, stderr.String())
				}
			}()
			testpeers.Eventually(t, 10*time.Second, "serve to listen", func() bool { return strings.Contains(stderr.String(), "listening on") })
			if got := strings.Contains(stderr.String(), "Browser UI at http://127.0.0.1:"); got != tc.banner {
				t.Errorf("banner %v in %q", got, stderr.String())
			}
			base := fmt.Sprintf("http://127.0.0.1:%d", port)
			resp, err := http.Get(base + "/ui/")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.pageCode || !strings.Contains(string(body), tc.pageText) {
				t.Errorf("/ui/ = %d %q", resp.StatusCode, body)
			}
			resp, err = http.Post(base+"/ui/api/call/SaveSettings", "application/json", strings.NewReader(
				`[{"port":3282,"authEnabled":true,"separator":"__","retentionDays":30,"timeoutSeconds":60,"startAtLogin":true,"closeToTray":true,"theme":"dark","language":"system","hookTimeoutSeconds":5,"hookMemoryMB":64,"approvalTimeoutSeconds":60,"sessionsPerCredential":100,"sessionsTotal":1000,"sessionIdleTimeoutSeconds":600}]`))
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || !strings.Contains(string(body), tc.autostart) {
				t.Errorf("SaveSettings startAtLogin = %d %s", resp.StatusCode, body)
			}
			if got := mustRun(t, dir, "settings", "get", "theme"); got != "system\n" {
				t.Errorf("a refused SaveSettings stored theme %q", got)
			}
		})
	}
}

// TestTuneRuntimeOnlyWhereTheEndpointIsServed: serve runs
// Options.TuneRuntime (one P, package hotpath); stdio, which blocks reading
// stdin, and the other commands do not.
func TestTuneRuntimeOnlyWhereTheEndpointIsServed(t *testing.T) {
	dir := t.TempDir()
	var tuned atomic.Int32
	o := Options{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, TuneRuntime: func() { tuned.Add(1) }}
	if code := Main(context.Background(), []string{"--data-dir", dir, "stdio"}, o); code != 0 {
		t.Fatalf("stdio on an empty stdin exited %d", code)
	}
	Main(context.Background(), []string{"--data-dir", dir, "settings", "list"}, o)
	if n := tuned.Load(); n != 0 {
		t.Fatalf("stdio and settings tuned the runtime %d times", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr testpeers.SyncBuffer
	o.Stderr = &stderr
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--data-dir", dir, "serve", "--no-auth", "--listen", fmt.Sprintf("127.0.0.1:%d", testpeers.FreePort(t))}, o)
	}()
	testpeers.Eventually(t, 10*time.Second, "serve to listen", func() bool { return strings.Contains(stderr.String(), "listening on") })
	cancel()
	<-done
	if n := tuned.Load(); n != 1 {
		t.Fatalf("serve tuned the runtime %d times, want 1", n)
	}
}

// TestServeSaysWhoMayUseTheUI: serve prints how to make an admin token
// while none exists (a client token does not count, nor a revoked admin
// one), and says what auth off means; the UI API it serves takes the admin
// token and refuses the client one.
func TestServeSaysWhoMayUseTheUI(t *testing.T) {
	const noAdmin = "No admin token yet: the browser UI and its API need one (client tokens reach /mcp only). Create it with: mcp-router tokens create NAME --admin"
	const authOff = "Auth is off: the MCP endpoint takes requests without a token"
	listenRE := regexp.MustCompile(`listening on http://([^/]+)/mcp`)
	serve := func(t *testing.T, dir string, args ...string) (banner, base string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		var stderr testpeers.SyncBuffer
		done := make(chan int, 1)
		o := Options{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr}
		go func() {
			done <- Main(ctx, append([]string{"--data-dir", dir, "serve", "--listen", "127.0.0.1:0"}, args...), o)
		}()
		t.Cleanup(func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("serve exited %d: %s", code, stderr.String())
			}
		})
		testpeers.Eventually(t, 10*time.Second, "serve to listen", func() bool { return listenRE.MatchString(stderr.String()) })
		base = "http://" + listenRE.FindStringSubmatch(stderr.String())[1]
		// The banner is written by the Ready callback, which returns before
		// the server answers anything: once a request is answered, the
		// banner is whole.
		resp, err := http.Get(base + "/ui/api/session")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return stderr.String(), base
	}
	call := func(t *testing.T, base, token string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+"/ui/api/call/ListServers", strings.NewReader("[]"))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	t.Run("auth on, no admin token", func(t *testing.T) {
		dir := t.TempDir()
		client := strings.TrimSpace(mustRun(t, dir, "tokens", "create", "claude-code"))
		mustRun(t, dir, "tokens", "create", "old-admin", "--admin")
		mustRun(t, dir, "tokens", "revoke", "old-admin")
		banner, base := serve(t, dir)
		if !strings.Contains(banner, noAdmin) || strings.Contains(banner, authOff) {
			t.Errorf("banner:\n%s", banner)
		}
		if code := call(t, base, client); code != http.StatusForbidden {
			t.Errorf("client token on the UI API: %d", code)
		}
		// Made while serve runs, the admin token works at once.
		admin := strings.TrimSpace(mustRun(t, dir, "tokens", "create", "me", "--admin"))
		if code := call(t, base, admin); code != http.StatusOK {
			t.Errorf("admin token on the UI API: %d", code)
		}
	})
	t.Run("auth on, an admin token", func(t *testing.T) {
		dir := t.TempDir()
		mustRun(t, dir, "tokens", "create", "me", "--admin")
		banner, _ := serve(t, dir)
		if strings.Contains(banner, "No admin token") || !strings.Contains(banner, "(auth on:") {
			t.Errorf("banner:\n%s", banner)
		}
	})
	t.Run("--no-auth", func(t *testing.T) {
		banner, _ := serve(t, t.TempDir(), "--no-auth")
		if !strings.Contains(banner, authOff) || strings.Contains(banner, "No admin token") || !strings.Contains(banner, "(auth off)") {
			t.Errorf("banner:\n%s", banner)
		}
	})
}

// The desktop app takes the user's environment (Options.UserEnv) before
// its servers start, so they inherit it; serve and stdio leave it alone.
func TestUserEnvBeforeTheDesktopsServersStart(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "settings", "set", "port", strconv.Itoa(testpeers.FreePort(t)))
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Servers().Create(context.Background(), testmcp.Server("probe")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	t.Setenv(testmcp.EnvKnob, "from the launcher")
	var calls atomic.Int32
	userEnv := func(context.Context) ([]string, error) {
		calls.Add(1)
		os.Setenv(testmcp.EnvKnob, "from the login shell")
		return []string{testmcp.EnvKnob}, nil
	}
	o := Options{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, UserEnv: userEnv}
	if code := Main(context.Background(), []string{"--data-dir", dir, "stdio"}, o); code != 0 || calls.Load() != 0 {
		t.Fatalf("stdio: exit %d, UserEnv called %d times", code, calls.Load())
	}
	var shown string
	var logInfo appapi.LogFileInfo
	o.RunDesktop = func(ctx context.Context, c *core.Core, api *appapi.API) error {
		logInfo, _ = api.LogFile()
		testpeers.Eventually(t, 15*time.Second, "probe to run", func() bool {
			st, err := c.Servers.Status("probe")
			return err == nil && st.State == "running"
		})
		raw, err := c.Servers.Request(ctx, "probe", "tools/call", map[string]any{"name": "show", "arguments": map[string]any{}})
		shown = string(raw)
		return err
	}
	if code := Main(context.Background(), []string{"--data-dir", dir}, o); code != 0 {
		t.Fatalf("desktop exited %d", code)
	}
	if calls.Load() != 1 || !strings.Contains(shown, "from the login shell") {
		t.Errorf("UserEnv called %d times; the server saw %s", calls.Load(), shown)
	}
	// The desktop app logs to <data dir>/logs too, and tells the UI where.
	wantLog := filepath.Join(dir, "logs", "mcp-router.log")
	if logInfo.Path != wantLog || logInfo.Folder != filepath.Dir(wantLog) {
		t.Errorf("LogFile() = %+v, want %s", logInfo, wantLog)
	}
	b, err := os.ReadFile(wantLog)
	if err != nil || !strings.Contains(string(b), "from the login shell's environment: KNOB") || !strings.Contains(string(b), "log file "+wantLog) {
		t.Errorf("log file: %v\n%s", err, b)
	}
}
