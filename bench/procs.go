package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-router/mcp-router/backend/cli"
	"github.com/mcp-router/mcp-router/backend/hotpath"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// routerArg, as the first argument, makes this binary the router: the
// bench re-executes itself as `mcp-router serve|stdio` through the same
// cli.Main the real binary runs, without the Wails window (which would need
// a display and a GUI build).
const routerArg = "__mcp-router"

// profileEnv names the file a router subprocess writes its CPU profile to:
// SIGUSR1 starts the profile, SIGUSR2 stops it.
const profileEnv = "MCPR_BENCH_CPUPROFILE"

// runRouter is main for the re-executed router.
func runRouter(args []string) int {
	if path := os.Getenv(profileEnv); path != "" {
		go profileOnSignal(path)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// As main does: serve tunes the runtime (package hotpath), stdio not.
	return cli.Main(ctx, args, cli.Options{TuneRuntime: func() { hotpath.Setup() }})
}

func profileOnSignal(path string) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2)
	var f *os.File
	for s := range sig {
		switch {
		case s == syscall.SIGUSR1 && f == nil:
			var err error
			if f, err = os.Create(path); err != nil {
				fmt.Fprintf(os.Stderr, "cpuprofile: %v\n", err)
				continue
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				fmt.Fprintf(os.Stderr, "cpuprofile: %v\n", err)
				f.Close()
				f = nil
			}
		case s == syscall.SIGUSR2 && f != nil:
			pprof.StopCPUProfile()
			f.Close()
			f = nil
			_ = os.WriteFile(path+".done", nil, 0o644)
		}
	}
}

// procs tracks every process the bench starts so that all of them are
// stopped at the end, on an error and on Ctrl-C alike. Each runs in its own
// process group (so a signal reaches its children too) and gets a death
// signal, so none outlives a bench that is killed outright.
type procs struct {
	mu   sync.Mutex
	list []*proc
}

type proc struct {
	name   string
	cmd    *exec.Cmd
	done   chan struct{}
	stderr *testpeers.Tail
}

// sysAttr puts a child in its own process group and ties it to our life.
func sysAttr(deathSig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSig}
}

func (p *procs) add(name string, cmd *exec.Cmd) *proc {
	pr := &proc{name: name, cmd: cmd}
	p.mu.Lock()
	p.list = append(p.list, pr)
	p.mu.Unlock()
	return pr
}

// start starts cmd and reaps it in the background.
func (p *procs) start(name string, cmd *exec.Cmd) (*proc, error) {
	pr := p.add(name, cmd)
	pr.done = make(chan struct{})
	if err := cmd.Start(); err != nil {
		close(pr.done)
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { _ = cmd.Wait(); close(pr.done) }()
	return pr, nil
}

// stop asks a process (group) to end with SIGTERM and kills it after grace.
func (pr *proc) stop(grace time.Duration) {
	if pr.cmd.Process == nil {
		return
	}
	select {
	case <-pr.done:
		return
	default:
	}
	_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-pr.done:
	case <-time.After(grace):
		_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGKILL)
		<-pr.done
	}
	// Whatever is left in the group (a grandchild the router started).
	_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGKILL)
}

// stopAll stops every tracked process, newest first (routers before the
// upstream server they use). Processes a stdio transport started (done is
// nil) were already closed by their transport; whatever is left of their
// process group is killed.
func (p *procs) stopAll() {
	p.mu.Lock()
	list := append([]*proc(nil), p.list...)
	p.mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		pr := list[i]
		if pr.cmd.Process == nil {
			continue
		}
		if pr.done != nil {
			pr.stop(5 * time.Second)
		} else {
			_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGKILL)
		}
	}
}

// commandFunc builds the command of a stdio transport so that it is
// tracked like every other process.
func (p *procs) commandFunc(name string, deathSig syscall.Signal, extraEnv ...string) func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
	return func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		cmd := exec.Command(command, args...)
		cmd.Env = append(append(os.Environ(), env...), extraEnv...)
		cmd.SysProcAttr = sysAttr(deathSig)
		p.add(name, cmd)
		return cmd, nil
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startEverythingHTTP runs server-everything in streamableHttp mode on a
// free port. It binds every interface; the bench reaches it only through
// 127.0.0.1.
func (p *procs) startEverythingHTTP(ctx context.Context, bin string) (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.SysProcAttr = sysAttr(syscall.SIGKILL)
	tail := &testpeers.Tail{}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	cmd.Stderr = cmd.Stdout
	pr, err := p.start("server-everything streamableHttp", cmd)
	if err != nil {
		return "", err
	}
	go drain(out, tail, nil)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		select {
		case <-pr.done:
			return "", fmt.Errorf("server-everything streamableHttp exited: %s", tail)
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return "http://" + addr + "/mcp", nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", fmt.Errorf("server-everything streamableHttp did not listen on %s: %s", addr, tail)
}

// drain copies r line by line into tail; found, if set, sees every line.
func drain(r io.Reader, tail *testpeers.Tail, found func(string)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		tail.Add(line)
		if found != nil {
			found(line)
		}
	}
}

var listeningRE = regexp.MustCompile(`listening on (http://\S+/mcp)`)

// routerServe starts `mcp-router serve` on 127.0.0.1:0 and returns its /mcp
// URL once it listens.
func (p *procs) routerServe(ctx context.Context, name, dataDir string, noAuth bool, profile string, env ...string) (*proc, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	args := []string{routerArg, "--data-dir", dataDir, "--log-level", "warn", "serve", "--listen", "127.0.0.1:0"}
	if noAuth {
		args = append(args, "--no-auth")
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), env...)
	if profile != "" {
		cmd.Env = append(cmd.Env, profileEnv+"="+profile)
	}
	// SIGTERM, not SIGKILL: the router then stops its upstreams itself.
	cmd.SysProcAttr = sysAttr(syscall.SIGTERM)
	return p.startListening(ctx, name, cmd)
}

// startListening starts cmd and returns the /mcp URL it prints
// ("listening on http://…/mcp") on stderr.
func (p *procs) startListening(ctx context.Context, name string, cmd *exec.Cmd) (*proc, string, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, "", err
	}
	tail := &testpeers.Tail{}
	urls := make(chan string, 1)
	pr, err := p.start(name, cmd)
	if err != nil {
		return nil, "", err
	}
	pr.stderr = tail
	go drain(stderr, tail, func(line string) {
		if m := listeningRE.FindStringSubmatch(line); m != nil {
			select {
			case urls <- m[1]:
			default:
			}
		}
	})
	select {
	case u := <-urls:
		return pr, u, nil
	case <-pr.done:
		return nil, "", fmt.Errorf("%s exited: %s", name, tail)
	case <-time.After(60 * time.Second):
		return nil, "", fmt.Errorf("%s did not start listening: %s", name, tail)
	case <-ctx.Done():
		return nil, "", ctx.Err()
	}
}

// repoRoot finds the directory holding the module's go.mod.
func repoRoot(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			strings.Contains(string(b), "module github.com/mcp-router/mcp-router\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run the bench inside the mcp-router repository (go.mod not found)")
		}
		dir = parent
	}
}

// markerEnv is set in this process's environment and so inherited by every
// process the bench starts, directly or through a router: at the end any
// process still carrying this run's marker is a leak, and is killed.
const markerEnv = "MCPR_BENCH_MARKER"

// leftovers lists live processes whose environment holds markerEnv=marker.
func leftovers(marker string) []int { return testpeers.ProcessesWithEnv(markerEnv, marker) }

// reapLeftovers kills whatever this run started and is still alive, and
// says so: after stopAll there should be nothing.
func reapLeftovers(marker string) {
	deadline := time.Now().Add(3 * time.Second)
	for {
		pids := leftovers(marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "bench: killing processes left running: %v\n", pids)
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// everythingVersion reads the installed server-everything package version
// (its serverInfo carries another number).
func everythingVersion(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "test", "peers", "node_modules", "@modelcontextprotocol", "server-everything", "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return ""
	}
	return pkg.Version
}

// cpuSeconds is the CPU time (user + system) pid has used so far, from
// /proc/PID/stat (clock ticks of 1/100 s on Linux).
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces: fields start after its ')'.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100
}
