package leanhttp

import (
	"errors"
	"io"
	"net/http"
	"os"
	"testing"
	"time"
)

// closedWithin reports whether the server closes c within d (the client
// reads EOF or a reset), not merely that d passed.
func closedWithin(t *testing.T, c *client, d time.Duration) bool {
	t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	_, err := c.br.ReadByte()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	if err == nil {
		t.Fatal("the server sent a byte nobody asked for")
	}
	return true
}

// The lean path keeps net/http's times for a connection waiting for a
// request: a new one that sends nothing is closed after the head timeout
// (ReadHeaderTimeout), a kept-alive one after the idle timeout
// (IdleTimeout). Before, a new connection on the lean path that sent
// nothing was held for ever (net/http closed it after 10 s), so idle
// connections could pile up without bound. Both paths are held to the
// same times here.
func TestWaitingConnectionsAreClosedAsNetHTTPCloses(t *testing.T) {
	for _, plain := range []bool{true, false} {
		name := map[bool]string{true: "net/http", false: "lean"}[plain]
		t.Run(name, func(t *testing.T) {
			addr, _, _ := servedBy(t, &http.Server{Handler: echo, ReadHeaderTimeout: 300 * time.Millisecond,
				IdleTimeout: 600 * time.Millisecond}, plain)

			silent := dial(t, addr)
			start := time.Now()
			if !closedWithin(t, silent, 10*time.Second) {
				t.Fatal("a connection that sent nothing was still open after 10 s")
			}
			// Lower bounds with room: the server's clock starts a little
			// before the client's on a loaded machine.
			if took := time.Since(start); took < 150*time.Millisecond {
				t.Errorf("a silent connection closed after %v, before its head timeout", took)
			}

			kept := dial(t, addr)
			kept.send(post(`{"a":1}`))
			if resp, _ := kept.read(); resp.StatusCode != 200 || resp.Header.Get("X-Served-By") != name {
				t.Fatalf("first request: %d by %s", resp.StatusCode, resp.Header.Get("X-Served-By"))
			}
			start = time.Now()
			if !closedWithin(t, kept, 10*time.Second) {
				t.Fatal("an idle kept-alive connection was still open after 10 s")
			}
			if took := time.Since(start); took < 300*time.Millisecond {
				t.Errorf("an idle connection closed after %v, before its idle timeout", took)
			}
		})
	}
}

// A request that runs longer than the idle timeout is not cut by it, nor
// is a connection whose client keeps sending requests, and one that
// carries on past the head timeout of a new connection stays too.
func TestBusyConnectionsOutliveTheTimeouts(t *testing.T) {
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(800 * time.Millisecond)
		w.Header().Set("X-Served-By", leanMark(w))
		_, _ = w.Write([]byte("done"))
	})
	addr, _, _ := servedBy(t, &http.Server{Handler: slow, ReadHeaderTimeout: 300 * time.Millisecond,
		IdleTimeout: 300 * time.Millisecond}, false)
	c := dial(t, addr)
	for i := range 3 {
		c.send(post(`{}`))
		resp, body := c.read()
		if resp.StatusCode != 200 || body != "done" || resp.Header.Get("X-Served-By") != "lean" {
			t.Fatalf("request %d: %d %q by %s", i, resp.StatusCode, body, resp.Header.Get("X-Served-By"))
		}
		time.Sleep(10 * time.Millisecond) // idle, but well within the idle timeout
	}
}

func TestSweepEvery(t *testing.T) {
	for _, tc := range []struct{ head, idle, want time.Duration }{
		{0, 0, 0},
		{10 * time.Second, 0, time.Second},
		{0, 2 * time.Minute, time.Second},
		{10 * time.Second, 200 * time.Millisecond, 50 * time.Millisecond},
		{20 * time.Millisecond, 0, 10 * time.Millisecond},
	} {
		if got := sweepEvery(tc.head, tc.idle); got != tc.want {
			t.Errorf("sweepEvery(%v, %v) = %v, want %v", tc.head, tc.idle, got, tc.want)
		}
	}
}
