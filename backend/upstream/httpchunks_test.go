package upstream

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"strings"
	"testing"
)

// chunked encodes parts as a chunked body.
func chunked(parts ...string) []byte {
	var b bytes.Buffer
	w := httputil.NewChunkedWriter(&b)
	for _, p := range parts {
		_, _ = w.Write([]byte(p))
	}
	_ = w.Close()
	b.WriteString("\r\n")
	return b.Bytes()
}

// stuttering delivers its input a few bytes at a time and times out
// before every other read, as a connection with a short deadline does.
type stuttering struct {
	b    []byte
	tick int
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func (s *stuttering) Read(p []byte) (int, error) {
	s.tick++
	if s.tick%2 == 0 {
		return 0, timeoutErr{}
	}
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 3)], s.b)
	s.b = s.b[n:]
	return n, nil
}

func TestChunkReaderSurvivesTimeouts(t *testing.T) {
	body := chunked("data: {\"a\":1}\n\n", strings.Repeat("x", 5000), "end")
	body = append(body, "HTTP/1.1 200 OK\r\n"...) // the next answer on the connection
	var r chunkReader
	br := bufio.NewReaderSize(&stuttering{b: body}, 16)
	r.reset(br)
	var out bytes.Buffer
	buf := make([]byte, 7)
	timeouts := 0
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			break
		}
		var te timeoutErr
		if errors.As(err, &te) {
			timeouts++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := "data: {\"a\":1}\n\n" + strings.Repeat("x", 5000) + "end"; out.String() != want {
		t.Fatalf("decoded %d bytes, want %d", out.Len(), len(want))
	}
	if timeouts < 10 {
		t.Fatalf("only %d timeouts: the test did not exercise them", timeouts)
	}
	var rest []byte
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			break
		}
		if err == nil {
			rest = append(rest, b)
		}
	}
	if string(rest) != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("read past the body: left %q", rest)
	}
}

func TestChunkReaderRejectsBadFraming(t *testing.T) {
	for _, in := range []string{
		"zz\r\nab\r\n0\r\n\r\n",        // not hex
		"2\r\nabc\r\n0\r\n\r\n",        // data longer than its size
		"-1\r\n",                       // negative
		"10000000000000000\r\n",        // too large
		strings.Repeat("1", 5000),      // a size line that never ends
		"5\r\nab",                      // cut short
		"2;ext=1\r\nab\r\n0\r\nX-T: 1", // trailers cut short
	} {
		var r chunkReader
		r.reset(bufio.NewReaderSize(strings.NewReader(in), 8192))
		if _, err := io.ReadAll(&r); err == nil {
			t.Errorf("%q: decoded without an error", in)
		}
	}
	var r chunkReader
	r.reset(bufio.NewReader(strings.NewReader("2;ext=1\r\nab\r\n0\r\nX-T: 1\r\n\r\n")))
	if b, err := io.ReadAll(&r); err != nil || string(b) != "ab" {
		t.Fatalf("extension and trailer: %q %v", b, err)
	}
}

// FuzzChunkReader holds the decoder to net/http's: same bytes for every
// body net/http accepts.
func FuzzChunkReader(f *testing.F) {
	f.Add(chunked("hello", " world"))
	f.Add([]byte("0\r\n\r\n"))
	f.Add([]byte("3;x=y\r\nabc\r\n0\r\nTrailer: v\r\n\r\n"))
	f.Add([]byte("a\nabcdefghij\n0\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		want, werr := io.ReadAll(httputil.NewChunkedReader(bufio.NewReader(bytes.NewReader(in))))
		var r chunkReader
		r.reset(bufio.NewReaderSize(bytes.NewReader(in), 8192))
		got, gerr := io.ReadAll(&r)
		if werr == nil {
			// net/http's reader stops at the last chunk and leaves trailers
			// to its caller; ours reads them too, so it may fail on a cut
			// trailer section, but never decode differently.
			if gerr == nil && !bytes.Equal(got, want) {
				t.Fatalf("decoded %q, net/http %q", got, want)
			}
			if gerr != nil && !bytes.HasPrefix(want, got) {
				t.Fatalf("decoded %q before %v, net/http %q", got, gerr, want)
			}
		}
	})
}

// FuzzEventStream feeds arbitrary bytes as an answer's event stream: no
// panic, and an answer event after them is still found.
func FuzzEventStream(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"))
	f.Add([]byte("data: {\"id\":\"k\",\"result\":{}}\r\n\r\n"))
	f.Add([]byte(": comment\nid: 1\nretry: 10\ndata\n\n"))
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"roots/list\"}\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		// Closed: a server request in the input is answered by nobody.
		tr := &streamTransport{done: make(chan struct{}), ctx: context.Background(), closed: true}
		stream := append(append([]byte{}, in...), "\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"mcpr-fuzz\",\"result\":{\"ok\":true}}\n\n"...)
		body := chunked(string(stream))
		br := bufio.NewReader(bytes.NewReader(body))
		c := &httpConn{br: br}
		resp := &http.Response{TransferEncoding: []string{"chunked"}, Body: io.NopCloser(bytes.NewReader(nil))}
		var cur cursor
		a, err := tr.readEvents(context.Background(), c, resp, `"mcpr-fuzz"`, &cur)
		if err != nil {
			t.Fatalf("error %v", err)
		}
		if a == nil || string(a.ID) != `"mcpr-fuzz"` {
			// Only an earlier answer with the same id may come first.
			if a == nil || !bytes.Contains(in, []byte("mcpr-fuzz")) {
				t.Fatalf("answer %+v", a)
			}
		}
	})
}
