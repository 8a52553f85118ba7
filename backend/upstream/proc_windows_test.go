//go:build windows

package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/sys/windows"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Windows process hygiene (docs/install.md): a stdio server runs without a
// console window of its own, in a Job Object that holds everything it
// spawns; stopping the server, or the router ending in any way, ends the
// whole tree.
//
// The test binary plays every part, chosen by MCPR_WIN_CHILD (read in init,
// before TestMain):
//   tree        a stdio MCP server that starts a grandchild, writes a
//               treeReport to MCPR_WIN_REPORT and ignores stdin EOF;
//   grandchild  sleeps;
//   router      a Service running one "tree" server until it is killed.

var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procGetConsoleProcessList = kernel32.NewProc("GetConsoleProcessList")
	procIsProcessInJob        = kernel32.NewProc("IsProcessInJob")
)

type treeReport struct {
	Pid             int   `json:"pid"`
	Grandchild      int   `json:"grandchild"`
	ConsolePids     []int `json:"consolePids"`
	InJob           bool  `json:"inJob"`
	GrandchildInJob bool  `json:"grandchildInJob"`
}

func init() {
	switch os.Getenv("MCPR_WIN_CHILD") {
	case "":
		return
	case "tree":
		runTree(os.Getenv("MCPR_WIN_REPORT"))
	case "grandchild":
		time.Sleep(time.Hour)
	case "router":
		runRouter(os.Getenv("MCPR_WIN_REPORT"))
	}
	os.Exit(0)
}

func runTree(report string) {
	gc := exec.Command(os.Args[0])
	gc.Env = append(os.Environ(), "MCPR_WIN_CHILD=grandchild")
	if err := gc.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start grandchild:", err)
		os.Exit(2)
	}
	r := treeReport{Pid: os.Getpid(), Grandchild: gc.Process.Pid, ConsolePids: consoleProcesses(),
		InJob: inJob(windows.CurrentProcess()), GrandchildInJob: pidInJob(gc.Process.Pid)}
	writeReport(report, r)
	s := server.NewMCPServer("tree", "1.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("noop"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	_ = server.ServeStdio(s)
	// Like a server that ignores stdin EOF: only the job ends it.
	time.Sleep(time.Hour)
}

// runRouter runs one tree server and writes its status to report, then
// waits to be killed: no Close, no shutdown of any kind.
func runRouter(report string) {
	s := New(fastOptions())
	if err := s.Sync([]spec.Server{treeServer("tree", report+".tree")}); err != nil {
		fmt.Fprintln(os.Stderr, "sync:", err)
		os.Exit(2)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if st, _ := s.Status("tree"); st.State == StateRunning {
			writeReport(report, st)
			time.Sleep(time.Hour)
		}
		time.Sleep(25 * time.Millisecond)
	}
	fmt.Fprintln(os.Stderr, "tree never ran")
	os.Exit(2)
}

func treeServer(name, report string) spec.Server {
	s := spec.Server{Name: name, Command: os.Args[0], Enabled: true,
		Env: map[string]string{"MCPR_WIN_CHILD": "tree", "MCPR_WIN_REPORT": report}}
	s.Normalize()
	return s
}

func writeReport(path string, v any) {
	b, _ := json.Marshal(v)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err == nil {
		_ = os.Rename(tmp, path)
	}
}

// consoleProcesses lists the processes attached to this process's console.
func consoleProcesses() []int {
	buf := make([]uint32, 64)
	n, _, _ := procGetConsoleProcessList.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	var pids []int
	for i := 0; i < int(n) && i < len(buf); i++ {
		pids = append(pids, int(buf[i]))
	}
	return pids
}

func inJob(h windows.Handle) bool {
	var result int32
	ok, _, _ := procIsProcessInJob.Call(uintptr(h), 0, uintptr(unsafe.Pointer(&result)))
	return ok != 0 && result != 0
}

func pidInJob(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	return inJob(h)
}

func readReport[T any](t *testing.T, path string) T {
	t.Helper()
	var v T
	testpeers.Eventually(t, 60*time.Second, "the report in "+path, func() bool {
		b, err := os.ReadFile(path)
		return err == nil && json.Unmarshal(b, &v) == nil
	})
	return v
}

// openAlive opens pid for waiting and fails the test if it already ended.
func openAlive(t *testing.T, pid int, what string) windows.Handle {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		t.Fatalf("%s (pid %d) is not running: %v", what, pid, err)
	}
	if ev, _ := windows.WaitForSingleObject(h, 0); ev == windows.WAIT_OBJECT_0 {
		_ = windows.CloseHandle(h)
		t.Fatalf("%s (pid %d) has already exited", what, pid)
	}
	t.Cleanup(func() { _ = windows.CloseHandle(h) })
	return h
}

// waitEnded fails the test unless the process of h ends within a minute.
func waitEnded(t *testing.T, h windows.Handle, what string) {
	t.Helper()
	ev, err := windows.WaitForSingleObject(h, 60_000)
	if ev != windows.WAIT_OBJECT_0 {
		t.Fatalf("%s still runs (wait: %#x, %v)", what, ev, err)
	}
}

func TestWindowsStdioServerHasNoConsoleAndItsTreeEndsOnStop(t *testing.T) {
	report := filepath.Join(t.TempDir(), "tree.json")
	s := New(fastOptions())
	t.Cleanup(s.Close)
	if err := s.Sync([]spec.Server{treeServer("tree", report)}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "tree", StateRunning, 60*time.Second)
	r := readReport[treeReport](t, report)
	if r.Pid != st.PID {
		t.Fatalf("report from pid %d, server pid %d", r.Pid, st.PID)
	}
	// CREATE_NO_WINDOW gives the child a console of its own, without a
	// window: it does not share the test's, as it would without the flag.
	for _, pid := range r.ConsolePids {
		if pid == os.Getpid() {
			t.Errorf("the server shares the router's console %v: started without CREATE_NO_WINDOW", r.ConsolePids)
		}
	}
	// Where the test itself runs in a job (some CI runners), every child is
	// in one anyway: only the ends below tell then.
	if !inJob(windows.CurrentProcess()) && (!r.InJob || !r.GrandchildInJob) {
		t.Errorf("server in a job: %v, its child in a job: %v; want both", r.InJob, r.GrandchildInJob)
	}
	server := openAlive(t, r.Pid, "the server")
	grandchild := openAlive(t, r.Grandchild, "the server's child")

	if err := s.Stop("tree"); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, server, "the server after Stop")
	waitEnded(t, grandchild, "the server's child after Stop")
}

// The router killed outright (as by Task Manager) runs no shutdown; the
// kernel closes its handle of the job, and KILL_ON_JOB_CLOSE ends the tree.
func TestWindowsRouterKilledEndsTheServerTree(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "router.json")
	router := exec.Command(os.Args[0])
	router.Env = append(os.Environ(), "MCPR_WIN_CHILD=router", "MCPR_WIN_REPORT="+report)
	router.Stderr = os.Stderr
	if err := router.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = router.Process.Kill(); _ = router.Wait() })
	st := readReport[Status](t, report)
	r := readReport[treeReport](t, report+".tree")
	if r.Pid != st.PID {
		t.Fatalf("tree report from pid %d, router's server pid %d", r.Pid, st.PID)
	}
	server := openAlive(t, r.Pid, "the server")
	grandchild := openAlive(t, r.Grandchild, "the server's child")

	if err := router.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = router.Wait()
	waitEnded(t, server, "the server after the router was killed")
	waitEnded(t, grandchild, "the server's child after the router was killed")
}

// The flags docs/install.md names: no console window, its own process
// group, suspended until it is in its job.
func TestWindowsSetProcAttrs(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	setProcAttrs(cmd)
	want := uint32(windows.CREATE_NO_WINDOW | windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED)
	if got := cmd.SysProcAttr.CreationFlags; got&want != want {
		t.Errorf("creation flags %#x, want %#x set", got, want)
	}
}
