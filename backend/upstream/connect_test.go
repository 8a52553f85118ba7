package upstream

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Ten concurrent Connects on a server that lost its process, with a retry
// backoff far longer than the test, share one new connection at once.
func TestConnectCutsTheBackoffAndSharesOneConnection(t *testing.T) {
	o := fastOptions()
	o.BackoffBase, o.BackoffMax = time.Minute, time.Minute
	s := New(o)
	t.Cleanup(s.Close)
	mark := marker(t)
	if err := s.Sync([]spec.Server{everythingStdio(t, "ev", mark)}); err != nil {
		t.Fatal(err)
	}
	first := waitState(t, s, "ev", StateRunning, 30*time.Second)
	if first.Connection != 1 {
		t.Fatalf("first connection numbered %d, want 1", first.Connection)
	}
	perServer := len(testpeers.ProcessesWithMarker(mark))
	_ = testpeers.KillProcess(first.PID)
	waitState(t, s, "ev", StateRestarting, 10*time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	got := make([]Status, 10)
	errs := make([]error, 10)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.Connect(ctx, "ev")
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || got[i].State != StateRunning || got[i].Connection != 2 {
			t.Fatalf("Connect %d: %+v, %v; want running on connection 2", i, got[i], errs[i])
		}
	}
	if n := len(testpeers.ProcessesWithMarker(mark)); n != perServer {
		t.Errorf("%d processes after the reconnect, want %d (one server)", n, perServer)
	}
	// Connect on a live server changes nothing.
	again, err := s.Connect(ctx, "ev")
	if err != nil || again.Connection != 2 || again.PID != got[0].PID {
		t.Errorf("Connect on a running server: %+v, %v", again, err)
	}
	callEcho(t, s, "ev", "after connect")
}

func TestConnectRefusesADisabledServer(t *testing.T) {
	s := newTestService(t)
	def := everythingStdio(t, "off", marker(t))
	def.Enabled = false
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.Connect(ctx, "off"); err == nil {
		t.Fatal("Connect started a disabled server")
	}
	if _, err := s.Connect(ctx, "nosuch"); err == nil {
		t.Fatal("Connect on an unknown server succeeded")
	}
}

// Restart replaces a live connection with exactly one new one, and a
// Connect that starts after Restart returned ends on the new connection.
func TestRestartReplacesTheConnectionOnce(t *testing.T) {
	s := newTestService(t)
	mark := marker(t)
	if err := s.Sync([]spec.Server{everythingStdio(t, "ev", mark)}); err != nil {
		t.Fatal(err)
	}
	first := waitState(t, s, "ev", StateRunning, 30*time.Second)
	perServer := len(testpeers.ProcessesWithMarker(mark))
	if err := s.Restart("ev"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := s.Connect(ctx, "ev")
	if err != nil || st.Connection != first.Connection+1 || st.PID == first.PID {
		t.Fatalf("Connect after Restart: %+v, %v; want connection %d on a new process", st, err, first.Connection+1)
	}
	callEcho(t, s, "ev", "after restart")
	time.Sleep(300 * time.Millisecond) // a pending second reconnect would show by now
	if now, _ := s.Status("ev"); now.Connection != st.Connection || now.State != StateRunning {
		t.Errorf("the new connection was replaced again: %+v", now)
	}
	testpeers.Eventually(t, 10*time.Second, "one server's processes", func() bool {
		return len(testpeers.ProcessesWithMarker(mark)) == perServer
	})
}
