package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// chattyUpstream is a streamable HTTP upstream whose one tool, "chatty",
// answers on an event stream carrying three log messages and then the
// answer, all in one write: the router reads them at once, so nothing
// between the last log message and the answer gives another goroutine a
// turn.
func chattyUpstream(t *testing.T, name string) spec.Server {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Mcp-Session-Id", "chatty-session")
		answer := func(result string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
		}
		switch {
		case len(m.ID) == 0:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"chatty","version":"1"}}`))
		case m.Method == "tools/list":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer(`{"tools":[{"name":"chatty","inputSchema":{"type":"object"}}]}`))
		case m.Method == "tools/call":
			var b strings.Builder
			for i := 1; i <= 3; i++ {
				fmt.Fprintf(&b, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"step %d\"}}\n\n", i)
			}
			fmt.Fprintf(&b, "event: message\ndata: %s\n\n", answer(`{"content":[{"type":"text","text":"done"}]}`))
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, b.String())
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer(`{}`))
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	def := spec.Server{Name: name, Transport: spec.HTTP, URL: srv.URL + "/mcp", Enabled: true, PrefixMode: spec.PrefixAlways}
	def.Normalize()
	return def
}

// Log messages an upstream sends during a call reach the calling client
// ahead of the answer, every one of them, every time — also on one P,
// where the last message and the answer are handled back to back. (mcp-go
// without an event store lost the last one now and then: its POST
// forwarder took it off the session's queue and then dropped it, having
// lost the race to the answer. Seen as tools-call-with-logging failing in
// the conformance suite.) On the fast path they go on the call's own
// response too, which then becomes an event stream (callstream.go).
func TestLogMessagesDuringACallAllReachTheClient(t *testing.T) {
	r := newRig(t, []spec.Server{chattyUpstream(t, "chatty")}, rigOptions{})
	for _, run := range []struct {
		procs int
		fast  bool
	}{{1, false}, {runtime.GOMAXPROCS(0), false}, {1, true}, {runtime.GOMAXPROCS(0), true}} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d/fast=%v", run.procs, run.fast), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(run.procs))
			r.gw.SetFastPath(run.fast)
			defer r.gw.SetFastPath(true)
			before := r.gw.fast.served.Load()
			s := initRaw(t, r.url, `{"elicitation":{}}`)
			const calls = 200
			lost := 0
			for id := 1; id <= calls; id++ {
				status, hdr, body := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"chatty__chatty","arguments":{}}}`, id))
				if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/event-stream") {
					t.Fatalf("call %d: HTTP %d %s: %s", id, status, hdr.Get("Content-Type"), body)
				}
				events := bytes.Split(bytes.TrimSpace(body), []byte("\n\n"))
				last := events[len(events)-1]
				if !bytes.Contains(last, []byte(fmt.Sprintf(`"id":%d,"result"`, id))) {
					t.Fatalf("call %d: the last event is not the answer: %s", id, body)
				}
				if n := bytes.Count(body, []byte(`"notifications/message"`)); n != 3 {
					lost++
					if lost == 1 {
						t.Errorf("call %d: %d of 3 log messages came before the answer:\n%s", id, n, body)
					}
				}
			}
			if lost > 0 {
				t.Errorf("%d of %d calls lost log messages", lost, calls)
			}
			want := uint64(0)
			if run.fast {
				want = calls
			}
			if got := r.gw.fast.served.Load() - before; got != want {
				t.Errorf("the fast path served %d of %d calls, want %d", got, calls, want)
			}
		})
	}
}

// sseEvent is one event read off an event stream.
type sseEvent struct{ id, data string }

// listen opens the session's listening stream, resuming after lastID if
// it is set. It returns the answer's status and, for a 200, the events as
// they come; the stream is closed at the test's end or by stop.
func (s *rawHTTP) listen(lastID string) (status int, events <-chan sseEvent, stop func()) {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	maps.Copy(req.Header, s.header)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(server.HeaderKeySessionID, s.sid)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		s.t.Fatal(err)
	}
	s.t.Cleanup(cancel)
	out := make(chan sseEvent, 16)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e.data != "" {
					out <- e
				}
				e = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				e.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				e.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return resp.StatusCode, out, cancel
}

// next is the next event on the stream that is not a ping.
func next(t *testing.T, events <-chan sseEvent, what string) sseEvent {
	t.Helper()
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended before %s", what)
			}
			if !strings.Contains(e.data, `"method":"ping"`) {
				return e
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s", what)
		}
	}
}

// A client whose listening stream broke asks again with Last-Event-ID and
// is sent what came after that event, under the same ids. An id the store
// does not hold for that session is refused.
func TestABrokenEventStreamIsResumed(t *testing.T) {
	one, two, three := chattyUpstream(t, "one"), chattyUpstream(t, "two"), chattyUpstream(t, "three")
	r := newRig(t, []spec.Server{one}, rigOptions{})
	s := initRaw(t, r.url, `{}`)
	status, events, stop := s.listen("")
	if status != http.StatusOK {
		t.Fatalf("GET /mcp: HTTP %d", status)
	}
	if err := r.ups.Sync([]spec.Server{one, two}); err != nil {
		t.Fatal(err)
	}
	first := next(t, events, "a list_changed after two arrived")
	if err := r.ups.Sync([]spec.Server{one, two, three}); err != nil {
		t.Fatal(err)
	}
	// The event right after the first on this stream (three's arrival
	// makes sure there is one).
	second := next(t, events, "a list_changed after three arrived")
	for _, e := range []sseEvent{first, second} {
		if e.id == "" || !strings.Contains(e.data, "/list_changed") {
			t.Fatalf("event %+v: want a list_changed under an id", e)
		}
	}
	stop()

	status, events, _ = s.listen(first.id)
	if status != http.StatusOK {
		t.Fatalf("resuming after %s: HTTP %d", first.id, status)
	}
	if got := next(t, events, "the event after "+first.id); got != second {
		t.Fatalf("resumed with %+v, want %+v", got, second)
	}

	if status, _, _ := s.listen("no-such-event"); status != http.StatusBadRequest {
		t.Errorf("resuming after an unknown id: HTTP %d, want 400", status)
	}
	other := initRaw(t, r.url, `{}`)
	if status, _, _ := other.listen(first.id); status != http.StatusBadRequest {
		t.Errorf("resuming after another session's event: HTTP %d, want 400", status)
	}
}
