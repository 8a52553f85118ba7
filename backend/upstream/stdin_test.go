package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// countingWriter records every write.
type countingWriter struct {
	mu     sync.Mutex
	writes [][]byte
	err    error
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.writes = append(w.writes, append([]byte(nil), p...))
	return len(p), nil
}

func TestStdinLoneLineIsOneWrite(t *testing.T) {
	var w countingWriter
	s := stdinLines{w: &w}
	if err := s.write([]byte("{\"id\":1}\n"), func() { t.Error("broken") }); err != nil {
		t.Fatal(err)
	}
	if len(w.writes) != 1 || string(w.writes[0]) != "{\"id\":1}\n" {
		t.Fatalf("writes %q", w.writes)
	}
}

// Calls that are ready together share one write (on one P, as the router
// serves), every line goes out exactly once, and each caller's lines keep
// their order.
func TestStdinCoalescesReadyCallsAndKeepsOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var w countingWriter
	s := stdinLines{w: &w}
	const callers, each = 16, 3
	start := make(chan struct{})
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range each {
				if err := s.write([]byte(fmt.Sprintf("c%d-%d\n", c, i)), func() { t.Error("broken") }); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	all := string(bytes.Join(w.writes, nil))
	lines := strings.Split(strings.TrimSuffix(all, "\n"), "\n")
	if len(lines) != callers*each {
		t.Fatalf("%d lines written, want %d: %q", len(lines), callers*each, all)
	}
	next := map[string]int{}
	for _, l := range lines {
		var c, i int
		if _, err := fmt.Sscanf(l, "c%d-%d", &c, &i); err != nil {
			t.Fatalf("line %q", l)
		}
		k := fmt.Sprint(c)
		if i != next[k] {
			t.Fatalf("caller %d's line %d came after its line %d: %q", c, i, next[k]-1, all)
		}
		next[k]++
	}
	if len(w.writes) >= callers*each/2 {
		t.Fatalf("%d writes for %d lines: ready calls were not written together", len(w.writes), callers*each)
	}
	t.Logf("%d lines in %d writes", callers*each, len(w.writes))
}

// When stdin fails, the call whose write failed and every call whose line
// was queued behind it fail at once with the write's error, as a lost
// connection, and later calls fail without writing.
func TestStdinFailureFailsEveryQueuedCall(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	toClientR, toClientW := io.Pipe()
	broken := errors.New("write |1: broken pipe")
	w := &countingWriter{err: broken}
	p := newPipeTransport(toClientR, w)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); toClientW.Close(); p.Close() })
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	const calls = 8
	errs := make(chan error, calls)
	start := make(chan struct{})
	for i := range calls {
		go func() {
			<-start
			_, err := p.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(i)), Method: "tools/call"})
			errs <- err
		}()
	}
	close(start)
	for range calls {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "broken pipe") {
				t.Errorf("call: %v, want a lost connection with the write's error", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a call waited after stdin failed")
		}
	}
	_, err := p.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("late"), Method: "ping"})
	if !errors.Is(err, ErrConnectionLost) {
		t.Errorf("a call after the failure: %v", err)
	}
}

// blockingWriter hands each write to the test and waits for its release.
type blockingWriter struct {
	writes  chan string
	release chan struct{}
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.writes <- string(p)
	<-w.release
	return len(p), nil
}

// A call returns once its own line is written: lines other calls queued
// meanwhile go out without it, so a server slow to read its stdin cannot
// keep a call from its answer. The first version wrote them on the caller
// and hung TestPipeTransportRoutesEveryLine in a clean-clone run (its
// io.Pipe server reads a line only when the test asks).
func TestStdinWriterIsNotHeldByOtherCallsLines(t *testing.T) {
	w := &blockingWriter{writes: make(chan string), release: make(chan struct{})}
	s := stdinLines{w: w}
	done := make(chan error, 1)
	go func() { done <- s.write([]byte("a\n"), func() { t.Error("broken") }) }()
	if got := <-w.writes; got != "a\n" {
		t.Fatalf("first write %q", got)
	}
	if err := s.write([]byte("b\n"), func() { t.Error("broken") }); err != nil { // queued behind the write going on
		t.Fatal(err)
	}
	w.release <- struct{}{}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call was held writing another call's line")
	}
	select {
	case got := <-w.writes:
		if got != "b\n" {
			t.Fatalf("second write %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the queued line was never written")
	}
	w.release <- struct{}{}
}
