package upstream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The connections of the HTTP transport: cancelling, closing, reuse, and
// what the server sends back into them.

func TestStreamTransportCancelAndClose(t *testing.T) {
	f := newFakeMCP(t, false)
	hold := make(chan struct{})
	defer close(hold)
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		if msg["method"] != "tools/call" {
			return false
		}
		if msg["id"] == "quick" {
			writeJSON(w, msg["id"], map[string]any{})
			return true
		}
		events(w)(data(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progress": 0}}))
		select {
		case <-hold:
		case <-time.After(10 * time.Second):
		}
		return true
	}
	tr := f.open(t, nil)
	if _, err := call(tr, context.Background(), "quick", "tools/call"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return f.gets.Load() == 1 }) // the GET stream's own connection
	conns := f.conns.Load()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := call(tr, ctx, "slow", "tools/call")
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("cancelled call: %v after %v", err, time.Since(start))
	}
	// The cancelled call's connection is not reused.
	if _, err := call(tr, context.Background(), "quick", "tools/call"); err != nil {
		t.Fatal(err)
	}
	if n := f.conns.Load(); n != conns+1 {
		t.Fatalf("connections %d → %d, want one new", conns, n)
	}
	// Close ends a call in flight.
	errc := make(chan error, 1)
	go func() {
		_, err := call(tr, context.Background(), "slow2", "tools/call")
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	_ = tr.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, errTransportClosed) {
			t.Fatalf("call in flight at Close: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Close left a call waiting")
	}
	if _, err := call(tr, context.Background(), "late", "tools/call"); !errors.Is(err, errTransportClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

func TestStreamTransportStreamLeftOpenAfterItsAnswer(t *testing.T) {
	f := newFakeMCP(t, false)
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		if msg["method"] != "tools/call" {
			return false
		}
		send := events(w)
		send(data(map[string]any{"jsonrpc": "2.0", "id": msg["id"], "result": map[string]any{}}))
		if msg["id"] == "lingers" {
			time.Sleep(300 * time.Millisecond) // the stream ends late
		}
		return true
	}
	tr := f.open(t, nil)
	// The GET stream is tried once after the handshake (this server
	// refuses it); its connection must be counted before the calls are.
	testpeers.Eventually(t, 10*time.Second, "the refused GET stream to end", func() bool {
		return f.gets.Load() == 1 && !tr.listened.Load()
	})
	if _, err := call(tr, context.Background(), "lingers", "tools/call"); err != nil {
		t.Fatal(err)
	}
	conns := f.conns.Load()
	// The next call does not wait for the first stream's end: it gets a
	// new connection, and the first one goes back to the pool once its
	// stream ended.
	start := time.Now()
	if _, err := call(tr, context.Background(), "next", "tools/call"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Fatalf("the next call waited %v for the lingering stream", d)
	}
	if f.conns.Load() != conns+1 {
		t.Fatalf("connections %d, want %d", f.conns.Load(), conns+1)
	}
	time.Sleep(500 * time.Millisecond)
	tr.mu.Lock()
	idle := len(tr.idle)
	tr.mu.Unlock()
	if idle != 2 {
		t.Fatalf("%d idle connections, want 2 (the drained one came back)", idle)
	}
}

// TestStreamTransportRetriesAStaleKeepAlive: a server that closes a kept
// connection as the next request arrives (its idle timeout) gets that
// request again on a new connection. A connection used a moment ago, or a
// new one, that breaks without an answer is an error: the server may have
// been working on the request.
func TestStreamTransportRetriesAStaleKeepAlive(t *testing.T) {
	defer func(d time.Duration) { staleAfter = d }(staleAfter)
	staleAfter = 50 * time.Millisecond
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var accepted, requests atomic.Int32
	breakFresh := atomic.Bool{}
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func(nc net.Conn) {
				defer nc.Close()
				br := bufio.NewReader(nc)
				for n := 0; ; n++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					requests.Add(1)
					if n == 1 || breakFresh.Load() {
						return // closes without an answer
					}
					var msg map[string]any
					_ = json.Unmarshal(body, &msg)
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg["id"], "result": map[string]any{}})
					fmt.Fprintf(nc, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(b), b)
				}
			}(nc)
		}
	}()
	u, _ := url.Parse("http://" + l.Addr().String() + "/mcp")
	tr, _ := newStreamTransport(u, nil)
	defer tr.Close()
	// Each connection's second request is dropped. After an idle pause it
	// goes out again on a new connection.
	for i := 0; i < 3; i++ {
		time.Sleep(100 * time.Millisecond)
		if _, err := call(tr, context.Background(), fmt.Sprint("c", i), "tools/call"); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if accepted.Load() != 3 || requests.Load() != 5 {
		t.Fatalf("accepted %d, requests %d; want 3 and 5", accepted.Load(), requests.Load())
	}
	// Right after the last use: not sent again.
	if _, err := call(tr, context.Background(), "busy", "tools/call"); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("a connection used a moment ago closed without an answer: %v", err)
	}
	if requests.Load() != 6 {
		t.Fatalf("requests %d, want 6: the request was sent again", requests.Load())
	}
	// A new connection that breaks: not sent again either.
	breakFresh.Store(true)
	if _, err := call(tr, context.Background(), "x", "tools/call"); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("a fresh connection closed without an answer: %v", err)
	}
	if requests.Load() != 7 {
		t.Fatalf("requests %d, want 7", requests.Load())
	}
}

// Text from the server that goes back into request headers cannot carry a
// line break, and an answer's head cannot grow without end.
func TestStreamTransportHeadersFromTheServer(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:9/mcp")
	tr, _ := newStreamTransport(u, nil)
	tr.SetProtocolVersion("2025-11-25\r\nX-Evil: 1")
	if v := tr.version.Load().(string); v != "" {
		t.Fatalf("protocol version %q kept", v)
	}
	tr.SetProtocolVersion("2025-11-25")
	if v := tr.version.Load().(string); v != "2025-11-25" {
		t.Fatalf("protocol version %q", v)
	}

	// An event id with a bare CR is not kept for Last-Event-ID.
	f := newFakeMCP(t, false)
	var lastID atomic.Value
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		if msg["method"] != "tools/call" {
			return false
		}
		events(w)("id: a\rX-Evil: 1", "retry: 10", "data: ")
		return true
	}
	f.get = func(w http.ResponseWriter, r *http.Request) {
		lastID.Store(r.Header.Get("Last-Event-ID") + "|" + r.Header.Get("X-Evil"))
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
	ft := f.open(t, nil)
	if _, err := call(ft, context.Background(), "e", "tools/call"); err == nil || !strings.Contains(err.Error(), "without an answer") {
		t.Fatalf("a stream with a bad id: %v", err)
	}
	if v, _ := lastID.Load().(string); v != "" && v != "|" {
		t.Fatalf("resumed with %q", v)
	}

	// A head of more than 1 MiB.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		_, _ = http.ReadRequest(bufio.NewReader(nc))
		_, _ = io.WriteString(nc, "HTTP/1.1 200 OK\r\n")
		line := "X-Filler: " + strings.Repeat("x", 1000) + "\r\n"
		for i := 0; i < 1100; i++ {
			if _, err := io.WriteString(nc, line); err != nil {
				return
			}
		}
	}()
	u, _ = url.Parse("http://" + l.Addr().String() + "/mcp")
	tr, _ = newStreamTransport(u, nil)
	defer tr.Close()
	if _, err := call(tr, context.Background(), "h", "tools/call"); !errors.Is(err, errHeadTooLong) {
		t.Fatalf("a 1.1 MB head: %v", err)
	}
}
