package hotpath

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// tcpPair is a connected pair of loopback TCP connections: a, wrapped by
// Conn, and b, an ordinary one.
func tcpPair(t *testing.T) (a net.Conn, b *net.TCPConn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		acc <- c
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-acc
	if s == nil {
		t.Fatal("accept failed")
	}
	a = Conn(c)
	t.Cleanup(func() { a.Close(); s.Close() })
	return a, s.(*net.TCPConn)
}

func TestConnWrapsTCPOnly(t *testing.T) {
	a, _ := tcpPair(t)
	if _, ok := a.(*tcpConn); !ok {
		t.Fatalf("Conn(TCP) = %T, want the raw wrapper", a)
	}
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	if got := Conn(p1); got != p1 {
		t.Fatalf("Conn(net.Pipe) = %T, want it unchanged", got)
	}
}

// Eight MiB each way at once: partial writes and full buffers (EAGAIN,
// then the poller) on both sides, every byte where it belongs.
func TestConnCarriesLargeStreamsBothWays(t *testing.T) {
	a, b := tcpPair(t)
	out, in := make([]byte, 8<<20), make([]byte, 8<<20)
	rand.Read(out)
	rand.Read(in)
	var wg sync.WaitGroup
	var gotByB, gotByA []byte
	var errs [4]error
	wg.Add(4)
	go func() { defer wg.Done(); _, errs[0] = a.Write(out) }()
	go func() { defer wg.Done(); gotByB = make([]byte, len(out)); _, errs[1] = io.ReadFull(b, gotByB) }()
	go func() { defer wg.Done(); _, errs[2] = b.Write(in) }()
	go func() { defer wg.Done(); gotByA = make([]byte, len(in)); _, errs[3] = io.ReadFull(a, gotByA) }()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if !bytes.Equal(gotByB, out) || !bytes.Equal(gotByA, in) {
		t.Fatal("bytes changed on the way")
	}
}

func TestConnReadsEOFWhenThePeerCloses(t *testing.T) {
	a, b := tcpPair(t)
	b.Write([]byte("last"))
	b.Close()
	got, err := io.ReadAll(a)
	if err != nil || string(got) != "last" {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
	// io.EOF itself, not wrapped: net/http compares with ==.
	if n, err := a.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("Read after the end = %d, %v; want 0, io.EOF", n, err)
	}
}

func TestConnReadDeadline(t *testing.T) {
	a, _ := tcpPair(t)
	a.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	start := time.Now()
	_, err := a.Read(make([]byte, 8))
	var ne net.Error
	var oe *net.OpError
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() ||
		!errors.As(err, &oe) || oe.Op != "read" {
		t.Fatalf("Read past the deadline = %v, want a read OpError that times out", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("the deadline was not kept")
	}
	// A deadline in the past stops a blocked Read at once (net/http's
	// abortPendingRead, and the upstream transport's cancel, use it).
	a.SetReadDeadline(time.Time{})
	if err := readStoppedBy(t, a, "a deadline in the past", func() { a.SetReadDeadline(time.Unix(1, 0)) }); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("aborted Read = %v", err)
	}
}

// readStoppedBy starts a Read on c that blocks, lets it block, calls stop
// and returns the Read's error; the test fails if the Read goes on.
func readStoppedBy(t *testing.T, c net.Conn, what string, stop func()) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 8)); done <- err }()
	time.Sleep(20 * time.Millisecond)
	stop()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not stop the Read", what)
		return nil
	}
}

func TestConnCloseStopsABlockedRead(t *testing.T) {
	a, _ := tcpPair(t)
	if err := readStoppedBy(t, a, "Close", func() { a.Close() }); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Read on a closed conn = %v, want net.ErrClosed", err)
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write on a closed conn = %v, want net.ErrClosed", err)
	}
}

// A peer that resets the connection: the write fails with the errno (the
// upstream transport's keep-alive retry looks for ECONNRESET and EPIPE),
// and no SIGPIPE ends the process.
func TestConnWriteToAResetPeer(t *testing.T) {
	a, b := tcpPair(t)
	b.SetLinger(0)
	b.Close()
	time.Sleep(20 * time.Millisecond)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = a.Write(bytes.Repeat([]byte("x"), 64<<10))
	}
	var oe *net.OpError
	if !(errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)) || !errors.As(err, &oe) || oe.Op != "write" {
		t.Fatalf("Write to a reset peer = %v, want a write OpError with ECONNRESET or EPIPE", err)
	}
}

func TestListenerServesHTTPWithKeepAlive(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wrapped := Listener(l)
	seen := make(chan string, 10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Write(bytes.ToUpper(body))
	}))
	srv.Listener = wrapped
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			seen <- typeName(c)
		}
	}
	srv.Start()
	defer srv.Close()
	client := srv.Client()
	for i := 0; i < 3; i++ {
		resp, err := client.Post(srv.URL, "text/plain", strings.NewReader("hello"))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != "HELLO" {
			t.Fatalf("answer %q", got)
		}
	}
	if len(seen) != 1 {
		t.Fatalf("%d connections for three requests, want one kept alive", len(seen))
	}
	if got := <-seen; got != "*hotpath.tcpConn" {
		t.Fatalf("the server got a %s, want the raw wrapper", got)
	}
}

func typeName(c net.Conn) string {
	switch c.(type) {
	case *tcpConn:
		return "*hotpath.tcpConn"
	case *net.TCPConn:
		return "*net.TCPConn"
	}
	return "other"
}

func TestFileOverAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rr, ww := File(r), File(w)
	if _, ok := rr.(*file); !ok {
		t.Fatalf("File(pipe) = %T, want the raw wrapper", rr)
	}
	msg := bytes.Repeat([]byte("line of text\n"), 100000) // more than a pipe holds
	go func() { ww.Write(msg); w.Close() }()
	got, err := io.ReadAll(rr)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(msg))
	}

	// A deadline, then Close, stop a blocked read.
	r2, w2, _ := os.Pipe()
	defer w2.Close()
	rr2 := File(r2)
	r2.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := rr2.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline = %v", err)
	}
	r2.SetReadDeadline(time.Time{})
	done := make(chan error, 1)
	go func() { _, err := rr2.Read(make([]byte, 8)); done <- err }()
	time.Sleep(20 * time.Millisecond)
	r2.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("read on a closed pipe succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop the read")
	}
}

func TestFileWriteToAClosedPipe(t *testing.T) {
	r, w, _ := os.Pipe()
	defer w.Close()
	r.Close()
	_, err := File(w).Write([]byte("x"))
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write to a pipe nobody reads = %v, want EPIPE", err)
	}
}

// A blocking descriptor is never wrapped: a raw read on it could sleep in
// the kernel and, with one P, stop every goroutine.
func TestFileLeavesBlockingDescriptorsAlone(t *testing.T) {
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	r.Fd() // puts the descriptor in blocking mode
	if got := File(r); got != io.ReadWriter(r) {
		t.Fatalf("File(blocking pipe) = %T, want the *os.File itself", got)
	}
}

// MCPR_RAW_IO=off: nothing is wrapped (checked in a child process, since
// the variable is read once).
func TestRawIOOff(t *testing.T) {
	if os.Getenv("HOTPATH_CHILD") == "1" {
		a, _ := tcpPair(t)
		r, w, _ := os.Pipe()
		defer r.Close()
		defer w.Close()
		if RawIO() || typeName(a) != "*net.TCPConn" || File(r) != io.ReadWriter(r) {
			t.Fatalf("with %s=off: RawIO %v, Conn %s", EnvRawIO, RawIO(), typeName(a))
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRawIOOff$", "-test.count=1")
	cmd.Env = append(os.Environ(), "HOTPATH_CHILD=1", EnvRawIO+"=off")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
