package connlimit

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func listen(t *testing.T, max int) (*Listener, string, <-chan net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(ln, max, nil)
	t.Cleanup(func() { l.Close() })
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	return l, ln.Addr().String(), accepted
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func next(t *testing.T, accepted <-chan net.Conn) net.Conn {
	t.Helper()
	select {
	case c := <-accepted:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no connection accepted")
		return nil
	}
}

// refusedWith503 sends a request on c and wants the cap's 503 back.
func refusedWith503(t *testing.T, c net.Conn) {
	t.Helper()
	_, _ = io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a connection past the cap: %v, want a 503", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "too many connections") ||
		!strings.Contains(string(body), EnvMax) || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a connection past the cap: %d %q", resp.StatusCode, body)
	}
}

// At the cap a new connection is answered with a 503 naming the cap and
// its variable, and closed; once one closes, a new one is taken again.
func TestConnectionsPastTheCapAreRefusedUntilOneCloses(t *testing.T) {
	l, addr, accepted := listen(t, 2)
	dial(t, addr)
	dial(t, addr)
	first, second := next(t, accepted), next(t, accepted)
	if l.Open() != 2 {
		t.Fatalf("open %d, want 2", l.Open())
	}
	refusedWith503(t, dial(t, addr))
	if l.Refused() != 1 || l.Open() != 2 {
		t.Fatalf("refused %d open %d, want 1 and 2", l.Refused(), l.Open())
	}
	first.Close()
	first.Close() // a second Close frees nothing more
	if l.Open() != 1 {
		t.Fatalf("open %d after a close, want 1", l.Open())
	}
	dial(t, addr)
	next(t, accepted)
	refusedWith503(t, dial(t, addr))
	second.Close()
	if l.Open() != 1 {
		t.Fatalf("open %d, want 1", l.Open())
	}
}

// A flood of connections past the cap leaves the cap's connections
// working and the count where it was.
func TestAFloodPastTheCapLeavesTheCountRight(t *testing.T) {
	l, addr, accepted := listen(t, 3)
	var held []net.Conn
	for range 3 {
		held = append(held, dial(t, addr))
		next(t, accepted)
	}
	for range 200 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			continue // the kernel's backlog may be full for a moment
		}
		c.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for l.Refused() < 150 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if l.Open() != 3 || l.Refused() < 150 {
		t.Fatalf("open %d refused %d, want 3 and about 200", l.Open(), l.Refused())
	}
	// The held connections still carry bytes both ways.
	if _, err := held[0].Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
}

// CloseWrite reaches the TCP connection: net/http and the lean path half
// close a connection whose request body they leave unread.
func TestCloseWriteReachesTheConnection(t *testing.T) {
	_, addr, accepted := listen(t, 4)
	client := dial(t, addr)
	server := next(t, accepted)
	cw, ok := server.(interface{ CloseWrite() error })
	if !ok {
		t.Fatal("an accepted connection has no CloseWrite")
	}
	if err := cw.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := client.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("after CloseWrite the client read %d, %v; want EOF", n, err)
	}
}

func TestMax(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvMax {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		v    string
		want int
		bad  bool
	}{
		{"100", 100, false},
		{" 20000 ", 20000, false},
		{"15", 0, true},
		{"-1", 0, true},
		{"lots", 0, true},
		{"1e3", 0, true},
	} {
		got, err := Max(env(tc.v))
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("%s=%q: %d, %v", EnvMax, tc.v, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), EnvMax) {
			t.Errorf("the error does not name %s: %v", EnvMax, err)
		}
	}
	if got, err := Max(env("")); err != nil || got != DefaultFor(fdLimit()) {
		t.Errorf("unset: %d, %v", got, err)
	}
	for _, tc := range []struct {
		fds  uint64
		want int
	}{{0, DefaultMax}, {1 << 20, DefaultMax}, {1024, 512}, {8192, DefaultMax}, {20, minMax}, {^uint64(0), DefaultMax}} {
		if got := DefaultFor(tc.fds); got != tc.want {
			t.Errorf("DefaultFor(%d) = %d, want %d", tc.fds, got, tc.want)
		}
	}
}
