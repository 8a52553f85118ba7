package upstream

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
)

func TestReadLineCap(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		bufLen int
		max    int
		want   []string // lines read, "!" for a MessageTooLargeError
	}{
		{"under the cap", "abc\ndef\n", 16, 3, []string{"abc\n", "def\n"}},
		{"CRLF not counted", "abc\r\n", 16, 3, []string{"abc\r\n"}},
		{"short line over a tiny cap", "abcd\nok\n", 16, 3, []string{"!", "ok\n"}},
		{"long line within the cap", strings.Repeat("x", 100) + "\nok\n", 16, 100, []string{strings.Repeat("x", 100) + "\n", "ok\n"}},
		{"long line over the cap, next line read", strings.Repeat("x", 101) + "\nok\n", 16, 100, []string{"!", "ok\n"}},
		{"long line over the cap at the end", strings.Repeat("x", 500), 16, 100, []string{"!"}},
		{"no cap", strings.Repeat("x", 500) + "\n", 16, 0, []string{strings.Repeat("x", 500) + "\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(c.in), c.bufLen)
			var long []byte
			var got []string
			for {
				line, err := readLine(r, &long, c.max)
				var big *MessageTooLargeError
				switch {
				case errors.As(err, &big):
					if big.Cap != c.max || big.Size <= int64(c.max) || !strings.Contains(big.Error(), "upstreamMaxMessageMB") {
						t.Errorf("error %+v: %v", big, big)
					}
					got = append(got, "!")
					continue
				case len(line) > 0:
					got = append(got, string(line))
				}
				if err != nil {
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("read %q, want %q", got, c.want)
			}
		})
	}
}

func TestIDOfPrefix(t *testing.T) {
	cases := map[string]string{
		`{"jsonrpc":"2.0","id":"mcpr-7","result":{"content":[{"text":"xxxx`: `"mcpr-7"`,
		`{"id":12,"jsonrpc":"2.0","result":`:                                `12`,
		`{"jsonrpc":"2.0","result":{"content":"xxxxxxxxxxxxxxxxxxxxxxxxx`:   ``,
		`not json`: ``,
		`[1,2]`:    ``,
	}
	for in, want := range cases {
		id, ok := idOfPrefix([]byte(in))
		if ok != (want != "") || string(id) != want {
			t.Errorf("idOfPrefix(%q) = %s, %v; want %s", in, id, ok, want)
		}
	}
}

// A stdio server's over-long answer fails its own request at once, naming
// the cap and its setting, is reported, and leaves the pipe usable: the
// next answer is read.
func TestPipeTransportRefusesAnOverLongAnswer(t *testing.T) {
	dropped := make(chan error, 4)
	p, srv := newPipePairWith(t, func(p *pipeTransport) {
		p.max = 1 << 10
		p.onDropped = func(err error) { dropped <- err }
	})
	ask := func(id string) chan error {
		ch := make(chan error, 1)
		go func() {
			r, err := p.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: "tools/call"})
			if err == nil && r.Error != nil {
				err = errors.New(r.Error.Message)
			}
			ch <- err
		}()
		return ch
	}
	big := ask("mcpr-1")
	srv.next(t)
	srv.say(t, `{"jsonrpc":"2.0","id":"mcpr-1","result":{"text":"`+strings.Repeat("x", 1<<20)+`"}}`)
	select {
	case err := <-big:
		if err == nil || !strings.Contains(err.Error(), "over the cap of 1.0 KiB (setting upstreamMaxMessageMB)") {
			t.Errorf("the over-long answer gave %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request of the over-long answer still waits")
	}
	if err := <-dropped; !strings.Contains(err.Error(), "1.0 MiB") {
		t.Errorf("reported %v", err)
	}
	small := ask("mcpr-2")
	srv.next(t)
	srv.say(t, `{"jsonrpc":"2.0","id":"mcpr-2","result":{}}`)
	if err := <-small; err != nil {
		t.Errorf("the next answer: %v", err)
	}
}

// An HTTP server's over-long answer, as JSON or as an event, fails the
// request naming the cap; the transport goes on with a new connection.
func TestStreamTransportRefusesOverLongAnswers(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	f := newFakeMCP(t, false)
	f.handle = func(w http.ResponseWriter, msg map[string]any) bool {
		if msg["method"] != "tools/call" {
			return false
		}
		switch msg["id"] {
		case "json":
			writeJSON(w, msg["id"], map[string]any{"text": big})
		case "sse":
			events(w)(data(map[string]any{"jsonrpc": "2.0", "id": msg["id"], "result": map[string]any{"text": big}}))
		case "sse-lines":
			send := events(w)
			send(strings.Repeat("data: "+strings.Repeat("y", 1000)+"\n", 100))
		default:
			writeJSON(w, msg["id"], map[string]any{"text": "small"})
		}
		return true
	}
	f.maxMessage = 16 << 10
	tr := f.open(t, nil)
	for _, id := range []string{"json", "sse", "sse-lines"} {
		_, err := call(tr, context.Background(), id, "tools/call")
		var tooBig *MessageTooLargeError
		if !errors.As(err, &tooBig) || !strings.Contains(err.Error(), "over the cap of 16.0 KiB (setting upstreamMaxMessageMB)") {
			t.Errorf("%s: %v", id, err)
		}
		resp, err := call(tr, context.Background(), "ok-after-"+id, "tools/call")
		if err != nil || !strings.Contains(string(resp.Result), "small") {
			t.Errorf("the call after %s: %v %v", id, resp, err)
		}
	}
}

// mcp-go's transports (SSE, streamable HTTP through a proxy) read through
// cappedClient: an event stream is capped per line, any other body in all.
func TestCappedClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/events":
			w.Header().Set("Content-Type", "text/event-stream")
			for i := 0; i < 50; i++ { // 50 lines of 1000 bytes: 50 KB in all, fine
				_, _ = io.WriteString(w, "data: "+strings.Repeat("y", 994)+"\n")
			}
			_, _ = io.WriteString(w, "data: "+strings.Repeat("z", 5000)+"\n")
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"text":"`+strings.Repeat("z", 5000)+`"}`)
		}
	}))
	defer srv.Close()
	c := cappedClient(4096)
	for _, path := range []string{"/events", "/json"} {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		var big *MessageTooLargeError
		if !errors.As(err, &big) {
			t.Errorf("%s: read %d bytes, err %v", path, n, err)
		}
		if path == "/events" && n < 50_000 {
			t.Errorf("the events within the cap were refused after %d bytes", n)
		}
	}
}

// Through the service, as the router runs it: a stdio server answering over
// the setting's cap fails that call naming the setting, says so in its
// console, and keeps serving.
func TestServiceCapsAStdioServersAnswers(t *testing.T) {
	o := fastOptions()
	o.MaxMessage = func() int { return 64 << 10 }
	s := New(o)
	t.Cleanup(s.Close)
	if err := s.Sync([]spec.Server{fakeServer("huge", "huge", marker(t))}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "huge", StateRunning, 30*time.Second)
	_, err := s.Request(context.Background(), "huge", "tools/call", map[string]any{"name": "huge"})
	if err == nil || !strings.Contains(err.Error(), "over the cap of 64.0 KiB (setting upstreamMaxMessageMB)") {
		t.Errorf("the huge answer gave %v", err)
	}
	raw, err := s.Request(context.Background(), "huge", "tools/call", map[string]any{"name": "small"})
	if err != nil || !strings.Contains(string(raw), "small") {
		t.Errorf("the call after it: %s %v", raw, err)
	}
	lines, _ := s.Console("huge")
	if !strings.Contains(strings.Join(lines, "\n"), "[mcp-router] the server sent a message of 1.0 MiB") {
		t.Errorf("console:\n%s", strings.Join(lines, "\n"))
	}
	if st, _ := s.Status("huge"); st.State != StateRunning {
		t.Errorf("the server is %s after a dropped answer", st.State)
	}
}
