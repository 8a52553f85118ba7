//go:build unix

package stategate

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// openFDs counts this process's open file descriptors (Linux; -1
// elsewhere).
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// settles waits until n() is at most want, and returns the last n().
func settles(want int, n func() int) int {
	deadline := time.Now().Add(3 * time.Second)
	for {
		got := n()
		if got <= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// artifactRun is a run of bombProcess (whose attach event takes any file)
// with the given limits, and its workspace.
func artifactRun(t *testing.T, lim Limits) (*gate, string, string) {
	t.Helper()
	g := newGate(t, bombProcess, Options{Limits: limitsOf(lim)})
	run, err := g.svc.CreateRun(context.Background(), Actor{}, "bomb", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return g, run.RunID, run.Workspace
}

func refusedWith(t *testing.T, res *EmitResponse, want string) {
	t.Helper()
	if res.Success || res.Error.Code != CodeInvalidPayload || res.Error.Details == nil || len(res.Error.Details.ValidationErrors) != 1 ||
		!strings.Contains(res.Error.Details.ValidationErrors[0].Message, want) {
		t.Fatalf("want INVALID_PAYLOAD with %q, got %+v", want, res.Error)
	}
}

// A FIFO named as an artifact is refused at once, 20 times over, and
// leaves no goroutine, thread or descriptor behind. Before, the open waited
// for a writer forever: each call pinned an OS thread and a descriptor.
func TestArtifactFIFOIsRefusedAtOnce(t *testing.T) {
	g, run, ws := artifactRun(t, Limits{})
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g.emit(ctx, run, 0, "attach", "warm", nil) // the first emit's one-time allocations
	goroutines, fds := runtime.NumGoroutine(), openFDs()
	var slowest time.Duration
	for i := range 20 {
		done := make(chan *EmitResponse, 1)
		go func() { done <- g.emit(ctx, run, 1, "attach", "k", nil, "pipe") }()
		start := time.Now()
		select {
		case res := <-done:
			refusedWith(t, res, "pipe is a named pipe (FIFO), not a regular file")
			took := time.Since(start)
			if took > 500*time.Millisecond {
				t.Fatalf("call %d: refused after %v", i, took)
			}
			slowest = max(slowest, took)
		case <-time.After(2 * time.Second):
			t.Fatalf("call %d: a FIFO artifact still blocks after 2 s", i)
		}
	}
	t.Logf("20 FIFO artifacts refused, the slowest after %v", slowest)
	if got := settles(goroutines, runtime.NumGoroutine); got > goroutines {
		t.Errorf("%d goroutines after the refusals, %d before", got, goroutines)
	}
	if fds >= 0 {
		if got := settles(fds, openFDs); got > fds {
			t.Errorf("%d descriptors open after the refusals, %d before", got, fds)
		}
	}
}

// Directories and sockets are refused as what they are.
func TestArtifactNotARegularFile(t *testing.T) {
	g, run, ws := artifactRun(t, Limits{})
	if err := os.Mkdir(filepath.Join(ws, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A socket's path must be short: listen from inside the workspace.
	wd, _ := os.Getwd()
	if err := os.Chdir(ws); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", "sock")
	_ = os.Chdir(wd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	refusedWith(t, g.emit(ctx, run, 0, "attach", "k1", nil, "dir"), "dir is a directory, not a regular file")
	refusedWith(t, g.emit(ctx, run, 0, "attach", "k2", nil, "sock"), "sock is a socket, not a regular file")
}

// A 10 GiB sparse file is refused by its size, read from fstat, without a
// byte of it hashed. Before, it was hashed for 38.7 s and accepted.
func TestArtifactOverTheSizeCapIsNotHashed(t *testing.T) {
	g, run, ws := artifactRun(t, Limits{})
	var hashed atomic.Int64
	g.svc.hashed = func(n int) { hashed.Add(int64(n)) }
	big := filepath.Join(ws, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Truncate(big, 10<<30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	start := time.Now()
	res := g.emit(context.Background(), run, 0, "attach", "k", nil, "big.bin")
	took := time.Since(start)
	refusedWith(t, res, "big.bin is 10.0 GiB, over the cap of 256.0 MiB per artifact (setting stategateMaxArtifactMB)")
	if took > time.Second || hashed.Load() != 0 {
		t.Fatalf("refused after %v with %d bytes hashed; want at once, none", took, hashed.Load())
	}
	t.Logf("10 GiB sparse artifact refused after %v, 0 bytes hashed", took)
}

// A run's artifacts together are capped: the second event that would take
// the run past it is refused, before hashing.
func TestArtifactsPerRunCap(t *testing.T) {
	g, run, ws := artifactRun(t, Limits{MaxRunArtifactsBytes: 1 << 20})
	for _, name := range []string{"a.bin", "b.bin"} {
		if err := os.WriteFile(filepath.Join(ws, name), make([]byte, 600<<10), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if res := g.emit(ctx, run, 0, "attach", "k1", nil, "a.bin"); !res.Success {
		t.Fatalf("the first artifact: %+v", res.Error)
	}
	refusedWith(t, g.emit(ctx, run, 1, "attach", "k2", nil, "b.bin"),
		"with the 600.0 KiB the run has recorded, its artifacts would be 1.2 MiB, over the cap of 1.0 MiB per run (setting stategateMaxRunArtifactsMB)")
	paths := make([]string, MaxArtifactsPerEvent+1)
	for i := range paths {
		paths[i] = "a.bin"
	}
	refusedWith(t, g.emit(ctx, run, 1, "attach", "k3", nil, paths...), "101 artifact paths, over the cap of 100 per event")
}

// Hashing stops when the request's context ends (the client went), and
// nothing more is read after the call returns. Before, a big file was
// hashed to the end whoever was still waiting.
func TestArtifactHashStopsWithTheRequest(t *testing.T) {
	g, run, ws := artifactRun(t, Limits{MaxArtifactBytes: 8 << 30, MaxRunArtifactsBytes: 8 << 30})
	big := filepath.Join(ws, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Truncate(big, 4<<30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var hashed atomic.Int64
	g.svc.hashed = func(n int) {
		if hashed.Add(int64(n)) >= 16<<20 {
			cancel() // the client goes once 16 MiB are read
		}
	}
	start := time.Now()
	res := g.emit(ctx, run, 0, "attach", "k", nil, "big.bin")
	took := time.Since(start)
	refusedWith(t, res, "big.bin was not hashed to its end: the request ended")
	at := hashed.Load()
	time.Sleep(200 * time.Millisecond)
	if after := hashed.Load(); after != at || at > 32<<20 {
		t.Fatalf("%d bytes hashed when the call returned, %d later; want it stopped within a chunk of 16 MiB", at, after)
	}
	t.Logf("4 GiB artifact: hashing stopped %v after the start, %d MiB read", took, at>>20)

	// A request waiting for a hashing slot leaves when its context ends.
	small := filepath.Join(ws, "small.bin")
	if err := os.WriteFile(small, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for range HashWorkers {
		g.svc.hashSlots <- struct{}{}
	}
	// 50 files waiting for a slot hold no descriptor each: only the
	// workspace's root is open while the request waits.
	var many []string
	for i := range 50 {
		name := fmt.Sprintf("f%d.bin", i)
		if err := os.WriteFile(filepath.Join(ws, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		many = append(many, name)
	}
	fds := openFDs()
	wctx, wcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer wcancel()
	waiting := make(chan *EmitResponse, 1)
	go func() { waiting <- g.emit(wctx, run, 0, "attach", "k2", nil, many...) }()
	time.Sleep(150 * time.Millisecond)
	if now := openFDs(); fds >= 0 && now > fds+4 {
		t.Errorf("%d descriptors open while a request of 50 files waits for a hashing slot, %d before", now, fds)
	}
	refusedWith(t, <-waiting, "f0.bin not hashed: the request ended while it waited for a hashing slot")
	for range HashWorkers {
		<-g.svc.hashSlots
	}
	if res := g.emit(context.Background(), run, 0, "attach", "k3", nil, "small.bin"); !res.Success {
		t.Fatalf("with free slots: %+v", res.Error)
	}
}
