//go:build teamtest

// Package team is `make test-team` (issue 29): three replicas of
// `mcp-router serve` on one throwaway Postgres and one Redis, behind HAProxy
// routing on the Mcp-Session-Id prefix, checked with real clients (the
// go-sdk here, the TypeScript SDK in the *.test.mjs files this test runs).
// It is built only with -tags teamtest: scripts/test-team.sh runs it once,
// not `go test ./...` (it would start a second cluster in test-go).
package team

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// replica is one `mcp-router serve` of the cluster (or the single router
// the CPU figures compare against).
type replica struct {
	Name    string `json:"name"`
	URL     string `json:"url"` // http://127.0.0.1:<port>/mcp
	Base    string `json:"base"`
	PID     int    `json:"pid"`
	dataDir string
	cmd     *exec.Cmd
	out     *testpeers.SyncBuffer
	exited  chan struct{}
}

// cluster is what the checks get: the balancer's URL, the replicas, and
// the tokens made through the CLI against Postgres.
type cluster struct {
	Balancer   string     `json:"balancer"` // http://127.0.0.1:<port>/mcp
	Replicas   []*replica `json:"replicas"`
	Token      string     `json:"token"`      // a client token
	AdminToken string     `json:"adminToken"` // for /ui/api
	Database   string     `json:"database"`
	Redis      string     `json:"redis"`
	bin        string
	has        map[string]bool // the parts this router has (teamFlags)
	marker     string
	upstream   string // the go-sdk everything-server's /mcp URL, shared by all replicas
}

// The policy every replica loads (policy.yaml in its data dir). Each check
// has a tool of its own so that one check's rule never refuses another's
// calls.
const teamPolicy = `policies:
  - name: team-rate
    match:
      tools: ["test_audio_content"]
    limit:
      requests_per_minute: 60
  - name: team-approval
    match:
      tools: ["test_embedded_resource"]
    require:
      human_approval: true
      approval_timeout_seconds: 60
`

// routerBinary is the router built with -tags nogui by scripts/test-team.sh
// (MCPR_TEAM_BIN), else built here.
func routerBinary(t *testing.T) string {
	if b := os.Getenv("MCPR_TEAM_BIN"); b != "" {
		if _, err := os.Stat(b); err != nil {
			t.Fatalf("MCPR_TEAM_BIN: %v", err)
		}
		return b
	}
	bin := filepath.Join(t.TempDir(), "mcp-router")
	cmd := exec.Command("go", "build", "-tags", "nogui", "-o", bin, ".")
	cmd.Dir = testpeers.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags nogui: %v\n%s", err, out)
	}
	return bin
}

// teamFlags says which flags of the team contract this router has, by
// the part (branch) that brings them: "h-pg" --database, "h-redis" --redis,
// "h-sessions" --replica and --advertise.
func teamFlags(bin string) map[string]bool {
	out, _ := exec.Command(bin, "--help").CombinedOutput()
	help := string(out)
	return map[string]bool{
		"h-pg":       strings.Contains(help, "--database"),
		"h-redis":    strings.Contains(help, "--redis"),
		"h-sessions": strings.Contains(help, "--replica") && strings.Contains(help, "--advertise"),
	}
}

// need fails a check at once, naming the branch it waits on, when the
// router lacks a part it needs: a clear reason, not a skip.
func (c *cluster) need(t *testing.T, parts ...string) {
	t.Helper()
	var missing []string
	for _, p := range parts {
		if !c.has[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("waits on %s: this router lacks its flags (TEAM-CONTRACT.md), so the replicas run without it", strings.Join(missing, ", "))
	}
}

func waitListen(t *testing.T, addr string, exited chan struct{}, log *testpeers.SyncBuffer, what string) {
	t.Helper()
	testpeers.Eventually(t, 30*time.Second, what+" to listen on "+addr, func() bool {
		select {
		case <-exited:
			t.Fatalf("%s exited before it listened: %s", what, log.String())
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// diesWithTest ties a child to the test process: killed by a timeout's
// panic, the test takes its replicas, Redis and HAProxy with it, where its
// cleanups would not run.
func diesWithTest() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// stopProcess sends SIGTERM and kills after grace; a process already gone
// (the SIGKILL check) is fine.
func stopProcess(cmd *exec.Cmd, exited chan struct{}, grace time.Duration) {
	select {
	case <-exited:
		return
	default:
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// cli runs the router's CLI against the cluster's Postgres.
func (c *cluster) cli(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	full := append([]string{"--data-dir", dataDir, "--database", c.Database}, args...)
	cmd := exec.Command(c.bin, full...)
	cmd.Env = append(os.Environ(), "MCPR_TEST_MARKER="+c.marker)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("mcp-router %s: %v\n%s%s", strings.Join(full, " "), err, out, stderr)
	}
	return string(out)
}

var readyLine = regexp.MustCompile(`MCP Router listening on (http://\S+/mcp)`)

// startServe starts `mcp-router serve` with args (after the data dir) on
// port and waits for its ready line.
func startServe(t *testing.T, bin, name, dataDir string, port int, env []string, args ...string) *replica {
	t.Helper()
	full := append([]string{"--data-dir", dataDir}, args...)
	full = append(full, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	cmd := exec.Command(bin, full...)
	cmd.Env = append(os.Environ(), env...)
	out := &testpeers.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = diesWithTest()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &replica{Name: name, PID: cmd.Process.Pid, dataDir: dataDir, cmd: cmd, out: out, exited: make(chan struct{}),
		Base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	go func() { _ = cmd.Wait(); close(r.exited) }()
	t.Cleanup(func() {
		stopProcess(cmd, r.exited, 15*time.Second)
		if t.Failed() {
			t.Logf("--- %s output (last lines):\n%s", name, tail(out.String(), 40))
		}
	})
	testpeers.Eventually(t, 60*time.Second, name+"'s ready line", func() bool {
		select {
		case <-r.exited:
			t.Fatalf("%s (mcp-router %s) exited before it was ready:\n%s", name, strings.Join(full, " "), out.String())
		default:
		}
		m := readyLine.FindStringSubmatch(out.String())
		if m != nil {
			r.URL = m[1]
		}
		return m != nil
	})
	return r
}

// startCluster brings up the whole team setup. Everything it starts ends
// with the test (t.Cleanup, newest first: HAProxy, the replicas, Redis,
// Postgres, the upstream).
func startCluster(t *testing.T) *cluster {
	bin := routerBinary(t)
	has := teamFlags(bin)
	if !has["h-pg"] {
		t.Fatal("waits on h-pg: this router has no --database, and replicas without a shared database are no team")
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	c := &cluster{bin: bin, has: has, marker: "team-" + strconv.Itoa(os.Getpid())}
	c.upstream = "http://" + testpeers.StartGoEverythingHTTP(t) + "/mcp"
	c.Database = testpeers.StartPostgres(t)
	c.Redis = testpeers.StartRedis(t)

	// The configuration goes into Postgres once, through the CLI; every
	// replica reads it from there.
	setupDir := t.TempDir()
	c.cli(t, setupDir, "servers", "add", "everything", "--url", c.upstream)
	c.cli(t, setupDir, "servers", "add", "spare", "--url", c.upstream)
	c.Token = tokenFrom(t, c.cli(t, setupDir, "tokens", "create", "team-client", "--json"))
	c.AdminToken = tokenFrom(t, c.cli(t, setupDir, "tokens", "create", "team-admin", "--admin", "--json"))

	env := []string{"MCP_ROUTER_CLUSTER_SECRET=" + hex.EncodeToString(secret), "MCPR_TEST_MARKER=" + c.marker}
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("r%d", i)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(teamPolicy), 0o600); err != nil {
			t.Fatal(err)
		}
		port := testpeers.FreePort(t)
		flags := []string{"--database", c.Database}
		if has["h-redis"] {
			flags = append(flags, "--redis", c.Redis)
		}
		if has["h-sessions"] {
			flags = append(flags, "--replica", name, "--advertise", fmt.Sprintf("http://127.0.0.1:%d", port))
		}
		r := startServe(t, bin, name, dir, port, env, flags...)
		c.Replicas = append(c.Replicas, r)
	}
	c.Balancer = startHAProxy(t, c.Replicas)
	return c
}

func tokenFrom(t *testing.T, out string) string {
	t.Helper()
	var v struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || !strings.HasPrefix(v.Token, "mcpr_") {
		t.Fatalf("tokens create --json gave no mcpr_ token (%v): %s", err, out)
	}
	return v.Token
}

// haproxyConfig is deploy/haproxy/haproxy.cfg, the example the docs give,
// with this run's loopback addresses: a request whose Mcp-Session-Id begins
// with "<replica>." goes to that replica, everything else round robin; a
// replica failing /healthz (or gone) is skipped, its use-server rule with
// it, so its sessions land elsewhere, are answered 404 and re-initialize.
// The checks run every 300 ms instead of 2 s so the kill is seen quickly.
func haproxyConfig(t *testing.T, port int, replicas []*replica) string {
	raw, err := os.ReadFile(filepath.Join(testpeers.RepoRoot(t), "deploy", "haproxy", "haproxy.cfg"))
	if err != nil {
		t.Fatalf("the HAProxy example (h-deploy): %v", err)
	}
	cfg := string(raw)
	replace := func(re, with string) {
		r := regexp.MustCompile(re)
		if n := len(r.FindAllStringIndex(cfg, -1)); n != 1 {
			t.Fatalf("deploy/haproxy/haproxy.cfg: %d matches of %q, want 1 (the test expects the example's shape)", n, re)
		}
		cfg = r.ReplaceAllString(cfg, with)
	}
	replace(`(?m)^(\s*)bind :3282$`, fmt.Sprintf("${1}bind 127.0.0.1:%d", port))
	replace(`check inter 2s fall 2 rise 2`, "check inter 300ms fall 2 rise 2")
	if len(replicas) != 3 {
		t.Fatalf("the example names three replicas, got %d", len(replicas))
	}
	for i, r := range replicas {
		replace(fmt.Sprintf(`(?m)^(\s*)server r%d 10\.0\.0\.1%d:3282$`, i+1, i+1), fmt.Sprintf("${1}server %s %s", r.Name, strings.TrimPrefix(r.Base, "http://")))
	}
	return cfg
}

func startHAProxy(t *testing.T, replicas []*replica) string {
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatalf("haproxy is not installed (apt package haproxy, scripts/install-system-deps.sh): %v", err)
	}
	port := testpeers.FreePort(t)
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(haproxyConfig(t, port, replicas)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-c", "-f", cfg).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
	var log testpeers.SyncBuffer
	cmd := exec.Command(bin, "-db", "-f", cfg) // -db: foreground, no daemon to outlive the test
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = diesWithTest()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { stopProcess(cmd, exited, 10*time.Second) })
	waitListen(t, fmt.Sprintf("127.0.0.1:%d", port), exited, &log, "haproxy")
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// cpuTicks is the process's user+system time in clock ticks (1/100 s)
// from /proc/PID/stat.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name (field 2) may hold spaces; fields after its ')' start at field 3.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return utime + stime
}

// tail keeps the last n lines of a process's output for a failure report.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
