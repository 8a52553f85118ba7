package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// upstreamName is the one stdio upstream; its tools reach clients as
// upstreamName__<tool>.
const upstreamName = "everything"

// markerEnv marks every process a soak run starts (the router, and through
// the router's environment its upstream), so that none can outlive it.
const markerEnv = "MCPR_SOAK_MARKER"

// router is the router subprocess.
type router struct {
	cmd     *exec.Cmd
	done    chan struct{}
	url     string // …/mcp
	base    string // http://host:port
	stderrT *testpeers.Tail
}

// prepareDataDir stores the stdio upstream in a fresh data dir.
func prepareDataDir(ctx context.Context, dir, upstream string) error {
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		return err
	}
	defer st.Close()
	s := spec.Server{Name: upstreamName, Transport: spec.Stdio, Command: upstream, Enabled: true, PrefixMode: spec.PrefixAlways}
	if _, err := st.Servers().Create(ctx, s); err != nil {
		return fmt.Errorf("add server %s: %w", s.Name, err)
	}
	return nil
}

var listeningRE = regexp.MustCompile(`listening on (http://\S+/mcp)`)

// startRouter runs `mcp-router serve --no-auth` on a free loopback port in
// its own process group, tied to our life, and waits until it listens.
func startRouter(ctx context.Context, dataDir, marker string) (*router, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, routerArg, "--data-dir", dataDir, "--log-level", "warn", "serve", "--listen", "127.0.0.1:0", "--no-auth")
	cmd.Env = append(os.Environ(), markerEnv+"="+marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	r := &router{cmd: cmd, done: make(chan struct{}), stderrT: &testpeers.Tail{N: 20}}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the router: %w", err)
	}
	go func() { _ = cmd.Wait(); close(r.done) }()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			r.stderrT.Add(line)
			if m := listeningRE.FindStringSubmatch(line); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case r.url = <-urls:
		r.base = strings.TrimSuffix(r.url, "/mcp")
		return r, nil
	case <-r.done:
		return nil, fmt.Errorf("the router exited: %s", r.stderrT)
	case <-time.After(60 * time.Second):
		r.stop()
		return nil, fmt.Errorf("the router did not start listening within 60s: %s", r.stderrT)
	case <-ctx.Done():
		r.stop()
		return nil, ctx.Err()
	}
}

// stop ends the router with SIGTERM (it then stops its upstream itself),
// SIGKILL after 10 s, and kills whatever is left of its process group.
func (r *router) stop() {
	pid := r.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-r.done
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// upstreamPIDs are the router's children running the upstream binary.
func (r *router) upstreamPIDs(binary string) []int {
	want, _ := filepath.EvalSymlinks(binary)
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || parentPID(pid) != r.cmd.Process.Pid {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err == nil && (exe == want || exe == binary) {
			out = append(out, pid)
		}
	}
	return out
}

func parentPID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return -1
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// rssBytes is the router process's resident set (VmRSS).
func rssBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS %q: %w", v, err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// goroutines reads go_goroutines from the router's /metrics.
func goroutines(ctx context.Context, base string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("/metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("/metrics: HTTP %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 8<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return 0, fmt.Errorf("go_goroutines %q: %w", v, err)
			}
			return int(f), nil
		}
	}
	return 0, fmt.Errorf("/metrics holds no go_goroutines line")
}
