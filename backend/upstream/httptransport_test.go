package upstream

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/hotpath"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// fakeMCP is a scripted streamable HTTP server: handle answers each POSTed
// message (nil for messages without an answer), get serves the GET stream.
type fakeMCP struct {
	t       *testing.T
	srv     *httptest.Server
	conns   atomic.Int32 // TCP connections accepted
	mu      sync.Mutex
	posts   []http.Header                                        // headers of every POST
	bodies  []string                                             // bodies of every POST
	deletes []string                                             // session ids of DELETEs
	gets    atomic.Int32                                         // GETs
	handle  func(w http.ResponseWriter, msg map[string]any) bool // true: answered
	get     func(w http.ResponseWriter, r *http.Request)
	// maxMessage is given to the transports open makes (0: no cap).
	maxMessage int
}

func newFakeMCP(t *testing.T, tlsOn bool) *fakeMCP {
	f := &fakeMCP{t: t}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			f.conns.Add(1)
		}
	}
	if tlsOn {
		f.srv.StartTLS()
	} else {
		f.srv.Start()
	}
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeMCP) serve(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		f.mu.Lock()
		f.deletes = append(f.deletes, r.Header.Get("Mcp-Session-Id"))
		f.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodGet:
		f.gets.Add(1)
		if f.get == nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		f.get(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.posts = append(f.posts, r.Header.Clone())
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	var msg map[string]any
	if err := json.Unmarshal(body, &msg); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	if msg["method"] == "initialize" {
		w.Header().Set("Mcp-Session-Id", "sess-1")
		writeJSON(w, msg["id"], map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "fake", "version": "1"}})
		return
	}
	if f.handle != nil && f.handle(w, msg) {
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func writeJSON(w http.ResponseWriter, id any, result any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// events starts an event stream answer; send writes one event and flushes.
func events(w http.ResponseWriter) func(lines ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	return func(lines ...string) {
		for _, l := range lines {
			_, _ = io.WriteString(w, l+"\n")
		}
		_, _ = io.WriteString(w, "\n")
		w.(http.Flusher).Flush()
	}
}

func data(v any) string {
	b, _ := json.Marshal(v)
	return "data: " + string(b)
}

func (f *fakeMCP) url() string { return f.srv.URL + "/mcp" }

// open makes a transport to f and runs the handshake.
func (f *fakeMCP) open(t *testing.T, headers map[string]string) *streamTransport {
	t.Helper()
	u, _ := url.Parse(f.url())
	tr, err := newStreamTransport(u, headers)
	if err != nil {
		t.Fatal(err)
	}
	tr.maxMessage = f.maxMessage
	if f.srv.TLS != nil {
		pool := x509.NewCertPool()
		pool.AddCert(f.srv.Certificate())
		tr.tls.RootCAs = pool
	}
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	resp, err := tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("mcpr-0"), Method: "initialize",
		Params: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)})
	if err != nil || resp.Error != nil {
		t.Fatalf("initialize: %v %+v", err, resp)
	}
	tr.SetProtocolVersion("2025-11-25")
	return tr
}

func call(tr *streamTransport, ctx context.Context, id string, method string) (*transport.JSONRPCResponse, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
	}
	return tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: method,
		Params: json.RawMessage(`{"name":"echo","arguments":{"message":"hi"}}`)})
}

func TestStreamTransportAnswersNotificationsAndReuse(t *testing.T) {
	for _, tlsOn := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tlsOn), func(t *testing.T) {
			f := newFakeMCP(t, tlsOn)
			f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
				if msg["method"] != "tools/call" {
					return false
				}
				if strings.HasSuffix(msg["id"].(string), "json") {
					writeJSON(w, msg["id"], map[string]any{"content": []any{map[string]any{"type": "text", "text": "json"}}})
					return true
				}
				send := events(w)
				send(": a comment", data(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": "p", "progress": 1}}))
				// One message split over data lines, with CRLF line ends.
				send("event: message\r", `data: {"jsonrpc":"2.0",`, `data: "id":"`+msg["id"].(string)+`","result":{"content":[{"type":"text","text":"sse"}]}}`)
				return true
			}
			tr := f.open(t, map[string]string{"authorization": "Bearer x", "X-Custom": "1"})
			var notes []string
			var nmu sync.Mutex
			tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
				nmu.Lock()
				notes = append(notes, n.Method)
				nmu.Unlock()
			})
			for i := 0; i < 5; i++ {
				for _, kind := range []string{"sse", "json"} {
					id := fmt.Sprintf("mcpr-%d-%s", i, kind)
					resp, err := call(tr, context.Background(), id, "tools/call")
					if err != nil || resp.Error != nil {
						t.Fatalf("%s: %v %+v", id, err, resp)
					}
					if !strings.Contains(string(resp.Result), `"text":"`+kind+`"`) || resp.ID.Value() != id {
						t.Fatalf("%s: answer %s id %v", id, resp.Result, resp.ID)
					}
				}
			}
			nmu.Lock()
			if len(notes) != 5 || notes[0] != "notifications/progress" {
				t.Fatalf("notifications: %v", notes)
			}
			nmu.Unlock()
			// The GET stream was tried once (405) and not again.
			time.Sleep(50 * time.Millisecond)
			if n := f.gets.Load(); n != 1 {
				t.Fatalf("GETs: %d, want 1 (405 ends the listening)", n)
			}
			// initialize, then 10 calls and the GET: one connection for the
			// POSTs (kept alive) and one for the GET.
			if n := f.conns.Load(); n > 2 {
				t.Fatalf("%d connections for sequential calls, want ≤ 2", n)
			}
			f.mu.Lock()
			h := f.posts[len(f.posts)-1]
			f.mu.Unlock()
			for k, want := range map[string]string{"Mcp-Session-Id": "sess-1", "Mcp-Protocol-Version": "2025-11-25", "Authorization": "Bearer x",
				"X-Custom": "1", "User-Agent": "mcp-router", "Accept": "application/json, text/event-stream", "Content-Type": "application/json"} {
				if got := h.Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			// The kept connection reads and writes with raw system calls
			// (package hotpath) where they are used.
			tr.mu.Lock()
			for _, c := range tr.idle {
				if _, plain := c.raw.(*net.TCPConn); plain == hotpath.RawIO() {
					t.Errorf("kept connection is a %T with raw I/O %v", c.raw, hotpath.RawIO())
				}
			}
			tr.mu.Unlock()
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.deletes) != 1 || f.deletes[0] != "sess-1" {
				t.Fatalf("DELETEs: %v", f.deletes)
			}
		})
	}
}

func TestStreamTransportServerRequests(t *testing.T) {
	f := newFakeMCP(t, false)
	answers := make(chan map[string]any, 4)
	release := make(chan struct{})
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		if _, isAnswer := msg["result"]; isAnswer {
			answers <- msg
			return false // 202
		}
		if msg["method"] != "tools/call" {
			return false
		}
		send := events(w)
		send(data(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": map[string]any{"maxTokens": 5}}))
		<-release
		send(data(map[string]any{"jsonrpc": "2.0", "id": msg["id"], "result": map[string]any{"content": []any{}}}))
		return true
	}
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) }) // no handler left waiting if the test fails
	getDone := make(chan struct{})
	handlersSet := make(chan struct{})
	f.get = func(w http.ResponseWriter, r *http.Request) {
		<-handlersSet // the stream opens right after initialize
		send := events(w)
		send(data(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
		send(data(map[string]any{"jsonrpc": "2.0", "id": "r1", "method": "roots/list"}))
		select {
		case <-r.Context().Done():
		case <-getDone:
		}
	}
	defer close(getDone)
	tr := f.open(t, nil)
	notes := make(chan string, 4)
	tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) { notes <- n.Method })
	tr.SetRequestHandler(func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		return &transport.JSONRPCResponse{JSONRPC: "2.0", ID: req.ID, Result: json.RawMessage(`{"answered":"` + req.Method + `"}`)}, nil
	})
	close(handlersSet)
	done := make(chan error, 1)
	go func() {
		_, err := call(tr, context.Background(), "mcpr-1", "tools/call")
		done <- err
	}()
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case a := <-answers:
			got[fmt.Sprint(a["id"])] = true
			if !strings.Contains(fmt.Sprint(a["result"]), "answered") {
				t.Fatalf("answer %v", a)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("answers to the server's requests: %v", got)
		}
	}
	if !got["7"] || !got["r1"] {
		t.Fatalf("answered ids %v, want 7 (POST stream) and r1 (GET stream)", got)
	}
	releaseOnce.Do(func() { close(release) })
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end after its answer was sent")
	}
	select {
	case n := <-notes:
		if n != "notifications/tools/list_changed" {
			t.Fatal(n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification from the GET stream")
	}
}

func TestStreamTransportErrors(t *testing.T) {
	f := newFakeMCP(t, false)
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		switch msg["id"] {
		case "gone":
			http.Error(w, "no such session", http.StatusNotFound)
		case "stale400":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`)
		case "unauthorized":
			w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
			http.Error(w, "token expired", http.StatusUnauthorized)
		case "boom":
			http.Error(w, "internal\nfailure", http.StatusInternalServerError)
		case "accepted":
			w.WriteHeader(http.StatusAccepted)
		case "html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html>")
		case "wrongid":
			writeJSON(w, "other", map[string]any{})
		case "noanswer":
			events(w)(data(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{}}))
		default:
			return false
		}
		return true
	}
	tr := f.open(t, nil)
	var rpcErr *RPCError
	for _, tc := range []struct {
		id   string
		want string
	}{
		{"stale400", "upstream error -32000: Bad Request: No valid session ID provided"},
		{"unauthorized", "HTTP 401 from " + f.url() + ": the server asks for a login (mcp-router servers login NAME, or Log in on the Servers page): token expired"},
		{"boom", "HTTP 500 from " + f.url() + " for tools/call: internal failure"},
		{"accepted", "HTTP 202 from " + f.url() + " for tools/call"},
		{"html", `unexpected content type "text/html" in the answer to tools/call`},
		{"wrongid", `an answer with id "other" to the request with id "wrongid"`},
		{"noanswer", `the server ended the event stream without an answer (id "noanswer")`},
	} {
		_, err := call(tr, context.Background(), tc.id, "tools/call")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v\nwant %s", tc.id, err, tc.want)
		}
		if tc.id == "unauthorized" && !errors.Is(err, ErrNeedsLogin) {
			t.Errorf("unauthorized: %v does not match ErrNeedsLogin (the supervisor waits for a login)", err)
		}
		if tc.id == "stale400" && !errors.As(err, &rpcErr) {
			t.Errorf("stale400: %T, want *RPCError (the supervisor reconnects on it)", err)
		}
	}
	// The transport still works after every one of them.
	if _, err := call(tr, context.Background(), "fine", "ping"); err == nil || !strings.Contains(err.Error(), "HTTP 202") {
		t.Fatalf("after the errors: %v", err)
	}
	// A 404 on the session ends it: later requests fail at once, without
	// reaching the server; a new initialize may still go out.
	if _, err := call(tr, context.Background(), "gone", "tools/call"); !errors.Is(err, transport.ErrSessionTerminated) {
		t.Fatalf("404: %v", err)
	}
	f.mu.Lock()
	n := len(f.posts)
	f.mu.Unlock()
	if _, err := call(tr, context.Background(), "after", "tools/call"); !errors.Is(err, transport.ErrSessionTerminated) {
		t.Fatalf("after 404: %v", err)
	}
	if err := tr.SendNotification(context.Background(), mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/x"}}); !errors.Is(err, transport.ErrSessionTerminated) {
		t.Fatalf("notification after 404: %v", err)
	}
	f.mu.Lock()
	if len(f.posts) != n {
		t.Fatal("a request went out after the session ended")
	}
	f.mu.Unlock()
	// Closing an ended session sends no DELETE.
	_ = tr.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.deletes) != 0 {
		t.Fatalf("DELETE for an ended session: %v", f.deletes)
	}
}

func TestStreamTransportInitializeErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/sse")
	tr, err := newStreamTransport(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("i"), Method: "initialize"})
	want := "HTTP 404 from " + srv.URL + "/sse: no streamable HTTP MCP endpoint there (check the URL; a server with the older SSE transport needs transport sse)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	// Nothing listens: the dial error names the address.
	u, _ = url.Parse("http://127.0.0.1:1/mcp")
	tr, _ = newStreamTransport(u, nil)
	_, err = tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("i"), Method: "initialize"})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("dial error: %v", err)
	}
}

func TestStreamTransportHeaders(t *testing.T) {
	u, _ := url.Parse("https://example.com/mcp?x=1")
	for _, tc := range []struct {
		headers map[string]string
		err     string
	}{
		{map[string]string{"Authorization": "Bearer a\r\nX-Evil: 1"}, "header Authorization: the value has a line break or control character"},
		{map[string]string{"mcp-session-id": "s"}, "header Mcp-Session-Id is set by the transport, not by the server's definition"},
		{map[string]string{"Content-Length": "1"}, "header Content-Length is set by the transport, not by the server's definition"},
		{map[string]string{"Bad Name": "x"}, `bad header name "Bad Name"`},
		{map[string]string{"x-a": "1", "X-A": "2"}, "header X-A is given twice"},
	} {
		_, err := newStreamTransport(u, tc.headers)
		if err == nil || err.Error() != tc.err {
			t.Errorf("%v: %v, want %s", tc.headers, err, tc.err)
		}
	}
	tr, err := newStreamTransport(u, map[string]string{"host": "other.example", "user-agent": "mine/2", "x-b": "b", "X-A": "a"})
	if err != nil {
		t.Fatal(err)
	}
	// Configured headers come sorted by name; Host and User-Agent replace
	// the transport's own.
	if want := "Host: other.example\r\nUser-Agent: mine/2\r\nX-A: a\r\nX-B: b\r\n"; string(tr.head) != want || tr.uri != "/mcp?x=1" || tr.addr != "example.com:443" {
		t.Fatalf("head %q uri %q addr %q", tr.head, tr.uri, tr.addr)
	}
	if _, err := newStreamTransport(&url.URL{Scheme: "ftp", Host: "h"}, nil); err == nil {
		t.Fatal("ftp URL accepted")
	}
}

func TestStreamTransportResumesAStreamEndedBeforeItsAnswer(t *testing.T) {
	f := newFakeMCP(t, false)
	var lastEventID atomic.Value
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		if msg["method"] != "tools/call" {
			return false
		}
		// Prime the client to reconnect, then end the stream (SEP-1699).
		events(w)("id: ev-1", "retry: 20", "data: ")
		return true
	}
	f.get = func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Last-Event-ID")
		if id == "" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		lastEventID.Store(id)
		events(w)("id: ev-2", data(map[string]any{"jsonrpc": "2.0", "id": "mcpr-r", "result": map[string]any{"resumed": true}}))
	}
	tr := f.open(t, nil)
	start := time.Now()
	resp, err := call(tr, context.Background(), "mcpr-r", "tools/call")
	if err != nil || !strings.Contains(string(resp.Result), "resumed") {
		t.Fatalf("%v %+v", err, resp)
	}
	if id, _ := lastEventID.Load().(string); id != "ev-1" {
		t.Fatalf("Last-Event-ID %q", id)
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Fatalf("took %v: the retry field (20 ms) was not used", d)
	}
}

func TestHTTPTransportChoice(t *testing.T) {
	defer func(f func(*http.Request) (*url.URL, error)) { proxyFor = f }(proxyFor)
	proxyFor = func(*http.Request) (*url.URL, error) { return nil, nil }
	tr, err := newHTTPTransport(specHTTP("http://127.0.0.1:9/mcp"), nil, 0)
	if _, ok := tr.(*streamTransport); !ok || err != nil {
		t.Fatalf("direct: %T %v", tr, err)
	}
	proxyFor = func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy:3128") }
	tr, err = newHTTPTransport(specHTTP("https://example.com/mcp"), nil, 0)
	if _, ok := tr.(*transport.StreamableHTTP); !ok || err != nil {
		t.Fatalf("through a proxy: %T %v, want mcp-go's transport", tr, err)
	}
}

func specHTTP(u string) spec.Server {
	return spec.Server{Name: "web", Transport: spec.HTTP, URL: u}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// After a 404 the session is over: a new initialize goes out without the
// old id, and the new session works.
func TestStreamTransportStartsANewSessionAfter404(t *testing.T) {
	f := newFakeMCP(t, false)
	var gone atomic.Bool
	gone.Store(true)
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		if msg["method"] != "tools/call" {
			return false
		}
		if gone.Swap(false) {
			http.Error(w, "no such session", http.StatusNotFound)
			return true
		}
		writeJSON(w, msg["id"], map[string]any{"ok": true})
		return true
	}
	tr := f.open(t, nil)
	if _, err := call(tr, context.Background(), "a", "tools/call"); !errors.Is(err, transport.ErrSessionTerminated) {
		t.Fatalf("404: %v", err)
	}
	if tr.GetSessionId() != "" {
		t.Fatalf("session id %q kept after the 404", tr.GetSessionId())
	}
	resp, err := tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("i2"), Method: "initialize",
		Params: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)})
	if err != nil || resp.Error != nil {
		t.Fatalf("initialize again: %v %+v", err, resp)
	}
	f.mu.Lock()
	reinit := f.posts[len(f.posts)-1]
	f.mu.Unlock()
	if reinit.Get("Mcp-Session-Id") != "" {
		t.Fatalf("the new initialize carried the old session id %q", reinit.Get("Mcp-Session-Id"))
	}
	if _, err := call(tr, context.Background(), "b", "tools/call"); err != nil {
		t.Fatalf("a call in the new session: %v", err)
	}
}

// Answers larger than every buffer arrive whole, as an event and as JSON,
// and an idle connection does not keep their buffers.
func TestStreamTransportLargeAnswers(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 2<<16) // 2 MiB
	f := newFakeMCP(t, false)
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		if msg["method"] != "tools/call" {
			return false
		}
		result := map[string]any{"content": []any{map[string]any{"type": "text", "text": big}}}
		if msg["id"] == "json" {
			writeJSON(w, msg["id"], result)
			return true
		}
		events(w)(data(map[string]any{"jsonrpc": "2.0", "id": msg["id"], "result": result}))
		return true
	}
	tr := f.open(t, nil)
	for _, id := range []string{"sse", "json"} {
		resp, err := call(tr, context.Background(), id, "tools/call")
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		var res struct {
			Content []struct{ Text string } `json:"content"`
		}
		if err := json.Unmarshal(resp.Result, &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != big {
			t.Fatalf("%s: %d bytes of result, %v", id, len(resp.Result), err)
		}
		tr.mu.Lock()
		for _, c := range tr.idle {
			if cap(c.data) > 1<<20 {
				t.Errorf("%s: an idle connection keeps a %d-byte buffer", id, cap(c.data))
			}
		}
		tr.mu.Unlock()
	}
}
