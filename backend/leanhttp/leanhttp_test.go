package leanhttp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// served starts h behind an http.Server on a loopback port, with the lean
// path in front of it for POST /mcp unless plain; it returns the address.
func served(t *testing.T, h http.Handler, plain bool) (addr string, srv *http.Server, lean *Server) {
	t.Helper()
	return servedBy(t, &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, plain)
}

// servedBy is served with srv (its Handler and timeouts) as given.
func servedBy(t *testing.T, srv *http.Server, plain bool) (addr string, _ *http.Server, lean *Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var l net.Listener = ln
	if !plain {
		lean = New(srv, ln, func(method, path string) bool { return method == http.MethodPost && path == "/mcp" })
		l = lean.Listener()
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if lean != nil {
			_ = lean.Close()
		}
		<-done
	})
	return ln.Addr().String(), srv, lean
}

// leanMark tells the client which path served a request.
func leanMark(w http.ResponseWriter) string {
	if _, ok := w.(*response); ok {
		return "lean"
	}
	return "net/http"
}

// echo answers with the body it read and which path served it.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("X-Served-By", leanMark(w))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
})

type client struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *client) send(raw string) {
	c.t.Helper()
	if _, err := c.nc.Write([]byte(raw)); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) read() (*http.Response, string) {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(c.br, nil)
	for err == nil && resp.StatusCode == http.StatusContinue {
		resp, err = http.ReadResponse(c.br, nil)
	}
	if err != nil {
		c.t.Fatalf("reading the response: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("reading the response body: %v", err)
	}
	return resp, string(b)
}

func post(body string, extra ...string) string {
	return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + strings.Join(extra, "") +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

func TestKeptAliveCallsAreServedLean(t *testing.T) {
	addr, _, _ := served(t, echo, false)
	c := dial(t, addr)
	for i := range 3 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call"}`, i)
		c.send(post(body))
		resp, got := c.read()
		if resp.StatusCode != 200 || got != body || resp.Header.Get("X-Served-By") != "lean" {
			t.Fatalf("call %d: %d %q by %s", i, resp.StatusCode, got, resp.Header.Get("X-Served-By"))
		}
		if resp.ContentLength != int64(len(body)) || resp.Close || resp.Header.Get("Date") == "" {
			t.Fatalf("call %d: length %d close %v date %q", i, resp.ContentLength, resp.Close, resp.Header.Get("Date"))
		}
	}
}

// A request the lean path does not take goes to net/http with every byte
// the client sent, pipelined ones too, and the connection stays there.
func TestOtherRequestsGoToNetHTTPWithTheirBytes(t *testing.T) {
	addr, _, _ := served(t, echo, false)
	c := dial(t, addr)
	c.send(post(`{"a":1}`))
	if resp, _ := c.read(); resp.Header.Get("X-Served-By") != "lean" {
		t.Fatal("the first POST was not served lean")
	}
	c.send("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + post(`{"b":2}`))
	if resp, _ := c.read(); resp.StatusCode != 200 || resp.Header.Get("X-Served-By") != "net/http" {
		t.Fatalf("GET: %d by %s", resp.StatusCode, resp.Header.Get("X-Served-By"))
	}
	if resp, got := c.read(); got != `{"b":2}` || resp.Header.Get("X-Served-By") != "net/http" {
		t.Fatalf("the POST pipelined behind the GET: %q by %s", got, resp.Header.Get("X-Served-By"))
	}

	cases := map[string]struct {
		raw, body string
		status    int
	}{
		"chunked body": {raw: "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"x\r\n2\r\n\":\r\n2\r\n1}\r\n0\r\n\r\n", body: `{"x":1}`, status: 200},
		"Expect":       {raw: post(`{}`, "Expect: 100-continue\r\n"), body: `{}`, status: 200},
		"query":        {raw: "POST /mcp?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}", body: `{}`, status: 200},
		"no Host":      {raw: "POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", status: 400},
		"bad header":   {raw: "POST /mcp HTTP/1.1\r\nHost: a\r\nX-A\r\nContent-Length: 2\r\n\r\n{}", status: 400},
		"HTTP/1.0":     {raw: "POST /mcp HTTP/1.0\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}", body: `{}`, status: 200},
	}
	for name, tc := range cases {
		c := dial(t, addr)
		c.send(tc.raw)
		resp, got := c.read()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d (%q)", name, resp.StatusCode, tc.status, got)
			continue
		}
		if tc.status == 200 && (got != tc.body || resp.Header.Get("X-Served-By") != "net/http") {
			t.Errorf("%s: %q by %s", name, got, resp.Header.Get("X-Served-By"))
		}
	}
}

// The lean path frames an answer as net/http does: the same status,
// headers (but Date's value) and body, and the same framing, for each way a
// handler writes.
func TestAnswersAreFramedAsNetHTTPFramesThem(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	handlers := map[string]http.HandlerFunc{
		"small, no length": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"ok":true}`))
		},
		"two writes, with length": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "4")
			_, _ = w.Write([]byte("ab"))
			_, _ = w.Write([]byte("cd"))
		},
		"flushed stream": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("event: message\ndata: 1\n\n"))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte("event: message\ndata: 2\n\n"))
		},
		"long, no length": func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(big))
		},
		"sniffed type": func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("<html><body>hi</body></html>"))
		},
		"no body":    func(w http.ResponseWriter, r *http.Request) {},
		"202":        func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) },
		"204":        func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) },
		"error":      func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such session", http.StatusNotFound) },
		"odd status": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(299); _, _ = w.Write([]byte("x")) },
		"close": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			_, _ = w.Write([]byte("bye"))
		},
		"header with a newline": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-A", "a\r\nX-Injected: yes")
			_, _ = w.Write([]byte("x"))
		},
		"response controller": func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			if err := rc.EnableFullDuplex(); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			_, _ = w.Write([]byte("x"))
			if err := rc.Flush(); err != nil {
				panic(err)
			}
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			var byLean, byPlain bool
			wrap := func(mark *bool) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					*mark = leanMark(w) == "lean"
					h(w, r)
				})
			}
			leanAddr, _, _ := served(t, wrap(&byLean), false)
			plainAddr, _, _ := served(t, wrap(&byPlain), true)
			lc, pc := dial(t, leanAddr), dial(t, plainAddr)
			lc.send(post(`{}`))
			pc.send(post(`{}`))
			lr, lb := lc.read()
			pr, pb := pc.read()
			if !byLean || byPlain {
				t.Fatalf("served lean: %v and %v, want true and false", byLean, byPlain)
			}
			if lr.Header.Get("Date") == "" || pr.Header.Get("Date") == "" {
				t.Fatal("no Date")
			}
			lr.Header.Del("Date")
			pr.Header.Del("Date")
			if lr.StatusCode != pr.StatusCode || lb != pb || !reflect.DeepEqual(lr.Header, pr.Header) {
				t.Fatalf("lean %d %v %q\nnet/http %d %v %q", lr.StatusCode, lr.Header, trim(lb), pr.StatusCode, pr.Header, trim(pb))
			}
			if lr.ContentLength != pr.ContentLength || !reflect.DeepEqual(lr.TransferEncoding, pr.TransferEncoding) || lr.Close != pr.Close {
				t.Fatalf("framing: lean length %d te %v close %v, net/http %d %v %v", lr.ContentLength, lr.TransferEncoding, lr.Close,
					pr.ContentLength, pr.TransferEncoding, pr.Close)
			}
		})
	}
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// A handler that leaves its body unread: a short rest is read past and the
// connection kept; a long one closes the connection, as in net/http.
func TestUnreadBodies(t *testing.T) {
	ignore := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Served-By", leanMark(w))
		_, _ = w.Write([]byte("ignored"))
	})
	addr, _, _ := served(t, ignore, false)
	c := dial(t, addr)
	c.send(post(strings.Repeat("a", 10<<10)))
	if resp, got := c.read(); got != "ignored" || resp.Close {
		t.Fatalf("short unread body: %q close %v", got, resp.Close)
	}
	c.send(post(`{}`))
	if resp, _ := c.read(); resp.Header.Get("X-Served-By") != "lean" {
		t.Fatal("the connection was not kept after a short unread body")
	}
	long := post(strings.Repeat("a", 1<<20))
	go func() { _, _ = c.nc.Write([]byte(long)) }()
	resp, got := c.read()
	if got != "ignored" || !resp.Close {
		t.Fatalf("long unread body: %q close %v", got, resp.Close)
	}
}

// http.MaxBytesReader over a lean body stops the read at its limit; the
// connection serves the next request.
func TestMaxBytesReaderOverALeanBody(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 10))
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
			return
		}
		_, _ = w.Write([]byte("fine"))
	})
	addr, _, _ := served(t, h, false)
	c := dial(t, addr)
	c.send(post(strings.Repeat("a", 100)))
	if resp, _ := c.read(); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d", resp.StatusCode)
	}
	c.send(post("{}"))
	if resp, got := c.read(); resp.StatusCode != 200 || got != "fine" {
		t.Fatalf("next request: %d %q", resp.StatusCode, got)
	}
}

// A handler on the lean path sees the request net/http's would give it.
func TestTheRequestIsNetHTTPs(t *testing.T) {
	type seen struct {
		Method, Path, RawQuery, RequestURI, Host, Proto string
		Header                                          http.Header
		ContentLength                                   int64
		Body                                            string
		Local                                           string
		HasServer, HasTLS, Close                        bool
		TE                                              []string
	}
	var mu sync.Mutex
	var got []seen
	var srvs []*http.Server
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.RequestURI, r.Host, r.Proto, r.Header, r.ContentLength,
			string(b), local.String(), srv != nil && (srv == srvs[0] || srv == srvs[1]), r.TLS != nil, r.Close, r.TransferEncoding})
		mu.Unlock()
		if r.RemoteAddr == "" {
			t.Error("no RemoteAddr")
		}
	})
	leanAddr, ls, _ := served(t, h, false)
	plainAddr, ps, _ := served(t, h, true)
	srvs = append(srvs, ls, ps)
	raw := "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:3282\r\ncontent-type: application/json\r\nmcp-session-id: s1\r\nAccept: application/json, text/event-stream\r\nX-A: 1\r\nx-a: 2\r\nConnection: keep-alive\r\ncontent-length: 7\r\n\r\n{\"a\":1}"
	for _, addr := range []string{leanAddr, plainAddr} {
		c := dial(t, addr)
		c.send(raw)
		c.read()
	}
	if len(got) != 2 {
		t.Fatalf("%d requests seen", len(got))
	}
	got[0].Local, got[1].Local = strings.Replace(got[0].Local, leanAddr, "L", 1), strings.Replace(got[1].Local, plainAddr, "L", 1)
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Fatalf("lean sees %+v\nnet/http %+v", got[0], got[1])
	}
	if !got[0].HasServer || got[0].Local != "L" {
		t.Fatalf("context: %+v", got[0])
	}
}

// A client that goes away during a long call cancels it, as with net/http.
func TestAClientGoingAwayCancelsALongCall(t *testing.T) {
	cancelled := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
			cancelled <- nil
		case <-time.After(10 * time.Second):
			cancelled <- errors.New("the call was not cancelled within 10 s of the client going away")
		}
	})
	addr, _, _ := served(t, h, false)
	c := dial(t, addr)
	c.send(post(`{"long":true}`))
	time.Sleep(3 * watchAfter)
	c.nc.Close()
	if err := <-cancelled; err != nil {
		t.Fatal(err)
	}
}

// A request pipelined behind a long one is not a client going away: the
// long one is not cancelled, and both are answered in order.
func TestAPipelinedRequestDuringALongCall(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) == `"slow"` {
			select {
			case <-r.Context().Done():
				http.Error(w, "cancelled", 500)
				return
			case <-time.After(5 * watchAfter):
			}
		}
		w.Header().Set("X-Served-By", leanMark(w))
		_, _ = w.Write(b)
	})
	addr, _, _ := served(t, h, false)
	c := dial(t, addr)
	c.send(post(`"slow"`))
	time.Sleep(2 * watchAfter) // the watch is reading when the next request comes
	c.send(post(`"next"`))
	for _, want := range []string{`"slow"`, `"next"`} {
		resp, got := c.read()
		if resp.StatusCode != 200 || got != want || resp.Header.Get("X-Served-By") != "lean" {
			t.Fatalf("want %s: %d %q by %s", want, resp.StatusCode, got, resp.Header.Get("X-Served-By"))
		}
	}
}

// A panicking handler ends its own connection only, and is logged.
func TestAPanicEndsOnlyItsConnection(t *testing.T) {
	var logged testpeers.SyncBuffer
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) == "panic" {
			panic("handler bug")
		}
		_, _ = w.Write(b)
	})
	addr, srv, _ := served(t, h, false)
	srv.ErrorLog = log.New(&logged, "", 0)
	c := dial(t, addr)
	c.send(post("panic"))
	_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := http.ReadResponse(c.br, nil); err == nil {
		t.Fatal("a response after a panic")
	}
	if !strings.Contains(logged.String(), "http: panic serving") || !strings.Contains(logged.String(), "handler bug") {
		t.Fatalf("log: %q", logged.String())
	}
	c2 := dial(t, addr)
	c2.send(post("fine"))
	if _, got := c2.read(); got != "fine" {
		t.Fatalf("another connection after the panic: %q", got)
	}
}

// Shutdown closes idle connections at once, lets a running call finish
// and answer, then closes its connection, and waits for it.
func TestShutdownLetsTheRunningCallFinish(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) == "wait" {
			entered <- struct{}{}
			<-release
		}
		_, _ = w.Write(b)
	})
	addr, srv, lean := served(t, h, false)
	idle := dial(t, addr)
	idle.send(post("x"))
	idle.read()
	busy := dial(t, addr)
	busy.send(post("wait"))
	<-entered

	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stopped <- errors.Join(srv.Shutdown(ctx), lean.Shutdown(ctx))
	}()
	_ = idle.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := idle.br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the idle connection: %d bytes, %v; want it closed", n, err)
	}
	select {
	case err := <-stopped:
		t.Fatalf("Shutdown returned (%v) while a call was running", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if _, got := busy.read(); got != "wait" {
		t.Fatalf("the running call answered %q", got)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	_ = busy.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := busy.br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the busy connection after its answer: %v; want it closed", err)
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Fatal("the listener still accepts")
	}
}

// Writes after the handler returned fail instead of corrupting the next
// answer on the connection.
func TestAWriteAfterTheHandlerReturnedFails(t *testing.T) {
	kept := make(chan http.ResponseWriter, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case kept <- w:
		default:
		}
		_, _ = w.Write([]byte("answer"))
	})
	addr, _, _ := served(t, h, false)
	c := dial(t, addr)
	c.send(post("{}"))
	c.read()
	w := <-kept
	if _, err := w.Write([]byte("late")); err == nil {
		t.Fatal("a late write succeeded")
	}
	c.send(post("{}"))
	if _, got := c.read(); got != "answer" {
		t.Fatalf("next answer %q", got)
	}
}

// A body refused unread (too large) still lets a client that is busy
// writing it read the answer: the connection sends its FIN and waits
// before closing, as net/http does, instead of resetting the client's
// write. Found by core's TestEndpointRefusesBadRequestsAndKeepsServing:
// Go's client reported "connection reset by peer" for a 5 MiB body.
func TestARefusedLongBodyStillGetsItsAnswer(t *testing.T) {
	refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > 1<<20 {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		_, _ = w.Write([]byte("fine"))
	})
	addr, _, _ := served(t, refuse, false)
	for range 3 {
		client := &http.Client{Transport: &http.Transport{}}
		resp, err := client.Post("http://"+addr+"/mcp", "application/json", bytes.NewReader(bytes.Repeat([]byte("a"), 5<<20)))
		if err != nil {
			t.Fatalf("a refused long body: %v, want the 413 answer", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "too large") {
			t.Fatalf("HTTP %d %q", resp.StatusCode, body)
		}
		client.CloseIdleConnections()
	}
}
