package upstream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// silentPeer reads requests and answers none: it hands each line it reads
// (decoded) to lines.
func silentPeer(lines chan<- map[string]any) func(testing.TB, *os.File, *os.File) {
	return func(tb testing.TB, stdin, _ *os.File) {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				tb.Errorf("not JSON: %s", sc.Bytes())
				continue
			}
			lines <- m
		}
	}
}

// nextLine is the next line the peer read, within 5 s.
func nextLine(t *testing.T, lines <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case m := <-lines:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("the server got no line")
		return nil
	}
}

// A request to a stdio server that does not answer fails when the
// server's timeout passes, not before, with the timeout's own error, and
// the server is told (notifications/cancelled, the error as the reason);
// a caller that cancels, or whose own deadline comes first, gets its
// context's error and the server hears that reason. The pipe keeps the
// time itself now (no timer context per request); this holds it to what
// the context did.
func TestPipeRequestTimeoutAndCancelReachTheServer(t *testing.T) {
	lines := make(chan map[string]any, 16)
	sp := spec.Server{Name: "mute", Command: "mute", Enabled: true, TimeoutSeconds: 1}
	sp.Normalize()
	s := pipeService(t, sp, silentPeer(lines))

	cancelled := func(id any, reason string) {
		t.Helper()
		m := nextLine(t, lines)
		params, _ := m["params"].(map[string]any)
		if m["method"] != "notifications/cancelled" || params["requestId"] != id || params["reason"] != reason {
			t.Fatalf("after giving up on %v the server read %v, want notifications/cancelled for it with reason %q", id, m, reason)
		}
	}

	start := time.Now()
	_, err := s.Request(context.Background(), "mute", "tools/call", json.RawMessage(`{"name":"x"}`))
	took := time.Since(start)
	if err == nil || err.Error() != "timed out: no answer within 1s" || !errors.Is(err, ErrTimeout) {
		t.Fatalf("unanswered request: %v, want the timeout's error", err)
	}
	if took < time.Second || took > 3*time.Second {
		t.Errorf("the timeout of 1s fired after %v", took)
	}
	if m := nextLine(t, lines); m["id"] != "mcpr-1" || m["method"] != "tools/call" {
		t.Fatalf("request line %v", m)
	}
	cancelled("mcpr-1", "timed out: no answer within 1s")

	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := s.Request(ctx, "mute", "tools/call", json.RawMessage(`{"name":"x"}`))
		errs <- err
	}()
	if m := nextLine(t, lines); m["id"] != "mcpr-2" {
		t.Fatalf("request line %v", m)
	}
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Fatalf("cancelled request: %v", err)
	}
	cancelled("mcpr-2", "context canceled")

	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = s.Request(ctx, "mute", "tools/call", nil)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("request past its caller's deadline: %v after %v", err, time.Since(start))
	}
	nextLine(t, lines)
	cancelled("mcpr-3", "context deadline exceeded")
}

// An answer that comes after its request timed out is dropped, and the
// next request on the pipe gets its own answer: the expired request's
// timer, back in the pool, does not end it.
func TestPipeRequestAfterATimeout(t *testing.T) {
	sp := spec.Server{Name: "slow", Command: "slow", Enabled: true, TimeoutSeconds: 1}
	sp.Normalize()
	first := true
	s := pipeService(t, sp, func(tb testing.TB, stdin, stdout *os.File) {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil || m["method"] != "tools/call" {
				continue
			}
			if first { // answers the first request late
				first = false
				time.Sleep(1500 * time.Millisecond)
			}
			id, _ := json.Marshal(m["id"])
			if _, err := stdout.WriteString(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"n":` + string(id[len(id)-2]) + `}}` + "\n"); err != nil {
				return
			}
		}
	})
	if _, err := s.Request(context.Background(), "slow", "tools/call", nil); !errors.Is(err, ErrTimeout) {
		t.Fatalf("late answer: %v", err)
	}
	for i := 2; i <= 4; i++ {
		raw, err := s.Request(context.Background(), "slow", "tools/call", nil)
		if want := `{"n":` + string(rune('0'+i)) + `}`; err != nil || string(raw) != want {
			t.Fatalf("request %d after a timeout: %s %v, want %s", i, raw, err, want)
		}
	}
}

// A request that times out, or whose caller cancels, returns its error at
// once, without waiting for the exit of a process that is still running:
// only a transport that failed by itself looks for an exit to name. Here
// the wait would be a minute (exitGrace); before, every timed-out or
// cancelled stdio call waited 200 ms for nothing.
func TestTimedOutRequestDoesNotWaitForTheProcess(t *testing.T) {
	lines := make(chan map[string]any, 16)
	sp := spec.Server{Name: "mute", Command: "mute", Enabled: true, TimeoutSeconds: 1}
	sp.Normalize()
	s := pipeService(t, sp, silentPeer(lines))
	s.mu.Lock()
	c := s.servers["mute"].conn
	s.mu.Unlock()
	c.proc = &process{exited: make(chan struct{})} // running, never exits
	c.exitGrace = time.Minute

	start := time.Now()
	_, err := s.Request(context.Background(), "mute", "tools/call", nil)
	if !errors.Is(err, ErrTimeout) || time.Since(start) > 20*time.Second {
		t.Fatalf("timed-out request: %v after %v, want the timeout's error without the exit grace", err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = s.Request(ctx, "mute", "tools/call", nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 20*time.Second {
		t.Fatalf("request past its caller's deadline: %v after %v", err, time.Since(start))
	}
}
