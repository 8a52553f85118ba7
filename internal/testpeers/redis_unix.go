//go:build unix

package testpeers

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// RedisServer is a throwaway redis-server on a loopback port.
type RedisServer struct {
	URL    string // redis://127.0.0.1:<port>/0
	Addr   string // 127.0.0.1:<port>
	cmd    *exec.Cmd
	exited chan struct{}
	log    *SyncBuffer
}

// StartRedis runs a throwaway redis-server (no persistence) on a free
// loopback port until the test ends, and returns its URL.
func StartRedis(t testing.TB) string {
	t.Helper()
	return StartRedisServer(t).URL
}

// StartRedisServer is StartRedis, with the handle a test needs to stop
// Redis while the router still uses it.
func StartRedisServer(t testing.TB) *RedisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		missing(t, "redis-server (apt package redis-server, scripts/install-system-deps.sh)")
	}
	dir := t.TempDir()
	port := FreePort(t)
	s := &RedisServer{Addr: fmt.Sprintf("127.0.0.1:%d", port), exited: make(chan struct{}), log: &SyncBuffer{}}
	s.URL = "redis://" + s.Addr + "/0"
	s.cmd = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--protected-mode", "yes")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(s.Stop)
	Eventually(t, 20*time.Second, "redis-server to listen", func() bool {
		select {
		case <-s.exited:
			t.Fatalf("redis-server exited: %s", s.log.String())
		default:
		}
		nc, err := net.Dial("tcp", s.Addr)
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
	return s
}

// Stop ends the server (SIGTERM, then SIGKILL after 10 s) and waits for it.
// Safe to call more than once.
func (s *RedisServer) Stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a frozen server could not end
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// Freeze stops the server's process (SIGSTOP): connections stay open and
// nothing answers, as with a Redis on a host that hangs. Thaw resumes it.
func (s *RedisServer) Freeze() { _ = s.cmd.Process.Signal(syscall.SIGSTOP) }

// Thaw resumes a frozen server.
func (s *RedisServer) Thaw() { _ = s.cmd.Process.Signal(syscall.SIGCONT) }
