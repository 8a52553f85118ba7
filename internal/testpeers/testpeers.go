// Package testpeers finds and starts the real MCP peers the integration
// tests run against: server-everything from the npm registry and the go-sdk
// conformance everything-server, both installed by `make test-deps`.
//
// Without them a test skips, unless MCPR_REQUIRE_PEERS=1 (set by make test),
// where a missing peer fails the test: CI must never pass by skipping.
package testpeers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// RepoRoot is the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

func missing(t testing.TB, what string) {
	t.Helper()
	msg := what + " is not installed; run `make test-deps`"
	if os.Getenv("MCPR_REQUIRE_PEERS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Everything returns the path of the server-everything binary.
func Everything(t testing.TB) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), "test", "peers", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(p); err != nil {
		missing(t, "@modelcontextprotocol/server-everything")
	}
	return p
}

// GoEverything returns the path of the go-sdk conformance everything-server.
func GoEverything(t testing.TB) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), ".tools", "bin", "everything-server")
	if _, err := os.Stat(p); err != nil {
		missing(t, "the go-sdk everything-server")
	}
	return p
}

// StartGoEverythingHTTP runs the go-sdk everything-server over streamable
// HTTP on a free loopback port (`-http ADDR` and flags, e.g.
// "-stateless=false"), waits until it listens, and ends it with the test. It
// returns the address.
func StartGoEverythingHTTP(t testing.TB, flags ...string) string {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
	cmd := exec.Command(GoEverything(t), append([]string{"-http", addr}, flags...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	Eventually(t, 10*time.Second, "the go-sdk server to listen", func() bool {
		nc, err := net.Dial("tcp", addr)
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
	return addr
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// HTTPServer is a peer started as an HTTP server on a loopback port.
type HTTPServer struct {
	Port int
	cmd  *exec.Cmd
	Out  *bytes.Buffer
}

// StartEverythingHTTP runs server-everything in mode (streamableHttp or sse)
// on port and waits until it accepts connections. It binds all interfaces,
// so tests only ever reach it through 127.0.0.1.
func StartEverythingHTTP(t testing.TB, mode string, port int, marker string) *HTTPServer {
	t.Helper()
	bin := Everything(t)
	s := &HTTPServer{Port: port, Out: &bytes.Buffer{}}
	s.cmd = exec.Command(bin, mode)
	s.cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "MCPR_TEST_MARKER="+marker)
	s.cmd.Stdout, s.cmd.Stderr = s.Out, s.Out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Kill)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.Kill()
	t.Fatalf("server-everything %s did not listen on %d: %s", mode, port, s.Out.String())
	return nil
}

// Kill ends the server and waits for it.
func (s *HTTPServer) Kill() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

// ProcessesWithMarker lists live processes whose environment holds
// MCPR_TEST_MARKER=marker: the upstream and every child it spawned.
func ProcessesWithMarker(marker string) []int {
	return ProcessesWithEnv("MCPR_TEST_MARKER", marker)
}

// ProcessesWithEnv lists live processes, other than this one, whose
// environment holds key=value. Zombies (exited, not yet reaped) are left out.
func ProcessesWithEnv(key, value string) []int {
	needle := []byte(key + "=" + value + "\x00")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, needle) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// WaitNoProcesses fails the test if processes with marker outlive timeout.
func WaitNoProcesses(t testing.TB, marker string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		pids := ProcessesWithMarker(marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left running: %v", pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Eventually polls cond until it holds or timeout passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// OAuthIssuer is a real authorization server (oauth2-mock-server from npm,
// run by test/peers/oauth-issuer.mjs) on a loopback port.
type OAuthIssuer struct {
	URL string // the issuer, http://127.0.0.1:<port>
	cmd *exec.Cmd
	Out *bytes.Buffer
}

// StartOAuthIssuer starts an authorization server and waits until it
// prints its issuer URL. It stops when the test ends. flags are
// oauth-issuer.mjs's: "--register" (dynamic client registration), "--cimd"
// (client_id_metadata_document_supported in the metadata).
func StartOAuthIssuer(t testing.TB, flags ...string) *OAuthIssuer {
	t.Helper()
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "test", "peers", "node_modules", "oauth2-mock-server", "package.json")); err != nil {
		missing(t, "oauth2-mock-server")
	}
	node := filepath.Join(root, "test", "peers", "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		node = "node"
	}
	cmd := exec.Command(node, append([]string{filepath.Join(root, "test", "peers", "oauth-issuer.mjs"), strconv.Itoa(FreePort(t))}, flags...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	iss := &OAuthIssuer{cmd: cmd, Out: &bytes.Buffer{}}
	cmd.Stderr = iss.Out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "ISSUER "); ok {
				lines <- u
			}
		}
		close(lines)
	}()
	select {
	case u, ok := <-lines:
		if !ok {
			t.Fatalf("oauth2-mock-server exited: %s", iss.Out.String())
		}
		iss.URL = u
	case <-time.After(30 * time.Second):
		t.Fatalf("oauth2-mock-server did not start: %s", iss.Out.String())
	}
	return iss
}

// Token asks the server's token endpoint for an access token (password
// grant, so the token has a sub) with the given extra form fields (see
// oauth-issuer.mjs: resource, scope, sub, test_exp_in, test_iss).
func (s *OAuthIssuer) Token(t testing.TB, fields map[string]string) string {
	t.Helper()
	form := url.Values{"grant_type": {"password"}, "username": {"alice"}, "password": {"x"}, "client_id": {"test-client"}}
	for k, v := range fields {
		form.Set(k, v)
	}
	resp, err := http.PostForm(s.URL+"/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 || body.AccessToken == "" {
		t.Fatalf("token endpoint: HTTP %d, %v", resp.StatusCode, err)
	}
	return body.AccessToken
}

// KillProcess ends one process at once (SIGKILL on Unix, TerminateProcess on
// Windows), as a crash would: its children are not signalled.
func KillProcess(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// IssuerGrants is what GET /test/grants of oauth-issuer.mjs answers.
type IssuerGrants struct {
	Grants           map[string]int `json:"grants"`           // token requests by grant_type
	AuthorizeClients []string       `json:"authorizeClients"` // client_id of each /authorize
}

// Grants reads the token requests the server has seen.
func (s *OAuthIssuer) Grants(t testing.TB) IssuerGrants {
	t.Helper()
	resp, err := http.Get(s.URL + "/test/grants")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var g IssuerGrants
	if err := json.NewDecoder(resp.Body).Decode(&g); err != nil {
		t.Fatal(err)
	}
	return g
}

// Revoke revokes a token at the server's revocation endpoint (RFC 7009):
// a refresh token named there is refused from then on.
func (s *OAuthIssuer) Revoke(t testing.TB, token string) {
	t.Helper()
	resp, err := http.PostForm(s.URL+"/revoke", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("revoke: HTTP %d", resp.StatusCode)
	}
}

// LoginTokens reads server's upstream login from the router's 0600 login
// file (oauthclient.FileName in the data dir, passed in so this package
// imports no router code) and fails the test unless it holds both an
// access and a refresh token.
func LoginTokens(t testing.TB, file, server string) (access, refresh string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Token struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		} `json:"token"`
	}
	if err := json.Unmarshal([]byte(m[server]), &rec); err != nil || rec.Token.AccessToken == "" || rec.Token.RefreshToken == "" {
		t.Fatalf("login record of %s: %v", server, err)
	}
	return rec.Token.AccessToken, rec.Token.RefreshToken
}

// SyncBuffer is an io.Writer that goroutines may write to while a test
// reads it: a logger's sink, a CLI's stdout or stderr.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// MCPB returns the path of the `mcpb` CLI of @anthropic-ai/mcpb, which
// packs and signs .mcpb bundles.
func MCPB(t testing.TB) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), "test", "peers", "node_modules", ".bin", "mcpb")
	if _, err := os.Stat(p); err != nil {
		missing(t, "@anthropic-ai/mcpb")
	}
	return p
}

// NodeModules returns test/peers/node_modules, where a test's node server
// finds @modelcontextprotocol/sdk (through NODE_PATH).
func NodeModules(t testing.TB) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), "test", "peers", "node_modules")
	if _, err := os.Stat(filepath.Join(p, "@modelcontextprotocol", "sdk")); err != nil {
		missing(t, "@modelcontextprotocol/sdk")
	}
	return p
}
