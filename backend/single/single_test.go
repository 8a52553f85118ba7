package single

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// With MCPR_SINGLE_DIR set, the test binary is a first instance: it claims
// the directory, prints "claimed", and prints "shown" for each request.
func TestMain(m *testing.M) {
	if dir := os.Getenv("MCPR_SINGLE_DIR"); dir != "" {
		h, err := Claim(dir, func() { fmt.Println("shown") })
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		defer h.Close()
		fmt.Println("claimed")
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

// shortDir is a data directory whose socket path fits sun_path (t.TempDir
// names can be long).
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpr-single-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func waitCount(t *testing.T, n *atomic.Int32, want int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n.Load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("onShow called %d times, want %d", n.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSecondClaimAsksTheFirstAndIsRefused(t *testing.T) {
	dir := shortDir(t)
	var shown atomic.Int32
	first, err := Claim(dir, func() { shown.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if first.Path != filepath.Join(dir, SocketName) {
		t.Errorf("socket %q", first.Path)
	}
	second, err := Claim(dir, func() { t.Error("the second launch was asked to show") })
	var running *Running
	if second != nil || !errors.As(err, &running) || running.PID != os.Getpid() || running.DataDir != dir {
		t.Fatalf("second claim: %v, %v", second, err)
	}
	if !strings.Contains(err.Error(), "already running for "+dir) {
		t.Errorf("message %q", err)
	}
	waitCount(t, &shown, 1)
	// Another directory is another app.
	other, err := Claim(shortDir(t), nil)
	if err != nil {
		t.Fatalf("another data dir: %v", err)
	}
	other.Close()
	// Once the first gives up, the next launch claims the directory.
	first.Close()
	if _, err := os.Stat(first.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
	again, err := Claim(dir, nil)
	if err != nil {
		t.Fatalf("claim after Close: %v", err)
	}
	again.Close()
}

// A socket file left by a crashed app (nobody listens) is taken over.
func TestStaleSocketIsTakenOver(t *testing.T) {
	dir := shortDir(t)
	l, err := net.Listen("unix", filepath.Join(dir, SocketName))
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = l.Close()
	if _, err := os.Stat(filepath.Join(dir, SocketName)); err != nil {
		t.Fatalf("the stale file is not there: %v", err)
	}
	h, err := Claim(dir, nil)
	if err != nil {
		t.Fatalf("claim over a stale socket: %v", err)
	}
	h.Close()
}

// Anything but "show" does nothing, and the first instance keeps answering.
func TestOnlyShowIsAnswered(t *testing.T) {
	dir := shortDir(t)
	var shown atomic.Int32
	h, err := Claim(dir, func() { shown.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, req := range []string{"quit\n", "show please\n", strings.Repeat("x", 1<<16) + "\n", ""} {
		c, err := net.Dial("unix", h.Path)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte(req))
		if cw, ok := c.(*net.UnixConn); ok {
			_ = cw.CloseWrite()
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, _ := bufio.NewReader(c).ReadString('\n')
		_ = c.Close()
		if line != "" {
			t.Errorf("request %.20q answered %q", req, line)
		}
	}
	if shown.Load() != 0 {
		t.Errorf("onShow called %d times for bad requests", shown.Load())
	}
	if _, err := Claim(dir, nil); !errors.As(err, new(*Running)) {
		t.Errorf("after bad requests: %v", err)
	}
	waitCount(t, &shown, 1)
}

// A data directory too long for a socket path claims nothing: every launch
// runs, as before this package.
func TestLongDataDirClaimsNothing(t *testing.T) {
	dir := filepath.Join(shortDir(t), strings.Repeat("d", 120))
	a, err := Claim(dir, nil)
	if err != nil || a.Path != "" {
		t.Fatalf("long dir: %+v, %v", a, err)
	}
	b, err := Claim(dir, nil)
	if err != nil {
		t.Fatalf("second claim of a long dir: %v", err)
	}
	a.Close()
	b.Close()
}

// Two processes: the second learns the first's pid and the first shows.
func TestSecondProcess(t *testing.T) {
	dir := shortDir(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MCPR_SINGLE_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 8)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(30 * time.Second):
			t.Fatal("the first instance said nothing")
			return ""
		}
	}
	if l := next(); l != "claimed" {
		t.Fatalf("first instance: %q", l)
	}
	_, err = Claim(dir, nil)
	var running *Running
	if !errors.As(err, &running) || running.PID != cmd.Process.Pid {
		t.Fatalf("claim beside pid %d: %v", cmd.Process.Pid, err)
	}
	if l := next(); l != "shown" {
		t.Errorf("first instance after the second launch: %q", l)
	}
	// The first dies without closing (SIGKILL, a crash): its socket file
	// stays, and the next launch takes it over.
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	h, err := Claim(dir, nil)
	if err != nil {
		t.Fatalf("claim after the first was killed: %v", err)
	}
	h.Close()
}
