package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// blockedOnPipe reports whether a thread of pid waits in a read of a pipe
// (Linux: /proc/PID/task/*/wchan).
func blockedOnPipe(pid int) bool {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
	for _, f := range tasks {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "pipe") {
			return true
		}
	}
	return false
}

// The checks exit at once on SIGTERM or SIGINT, even while they wait for
// their input: a real mcp-router process (the test binary as main.go runs
// it, with signal.NotifyContext) reading a stdin nobody writes to. Before,
// the signal only cancelled a context nobody looked at and the process
// went on waiting (`stategate process check` ignored SIGTERM for 12
// minutes in issue 24).
func TestChecksExitAtOnceOnASignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs /proc")
	}
	for _, tc := range []struct {
		args []string
		sig  syscall.Signal
	}{
		{[]string{"policy", "check", "-"}, syscall.SIGTERM},
		{[]string{"stategate", "process", "check", "-"}, syscall.SIGTERM},
		{[]string{"stategate", "process", "check", "-"}, syscall.SIGINT},
		{[]string{"servers", "import", "-"}, syscall.SIGINT},
	} {
		t.Run(strings.Join(tc.args[:len(tc.args)-1], " ")+" "+tc.sig.String(), func(t *testing.T) {
			cmd := exec.Command(testBinary(t), append([]string{"--data-dir", t.TempDir()}, tc.args...)...)
			cmd.Env = append(os.Environ(), envAsRouter+"=1")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				if cmd.ProcessState == nil {
					_ = cmd.Process.Kill()
				}
			}()
			if _, err := stdin.Write([]byte("policies:\n")); err != nil { // some input, never its end
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for !blockedOnPipe(cmd.Process.Pid) {
				if time.Now().After(deadline) {
					t.Fatal("the check never waited on stdin")
				}
				time.Sleep(20 * time.Millisecond)
			}
			sent := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				t.Logf("exited %s after the signal: %v: %s", time.Since(sent), err, strings.TrimSpace(stderr.String()))
				if err == nil || !strings.Contains(stderr.String(), "stopped") {
					t.Errorf("exit %v, stderr %q", err, stderr.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("still running 5 s after %s", tc.sig)
			}
		})
	}
}
