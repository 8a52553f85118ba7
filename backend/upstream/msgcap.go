package upstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// An upstream server's messages are bounded: one answer, notification or
// request from a server may not exceed MaxMessage bytes, so a server that
// sends a gigabyte (by mistake or to hurt the router) costs the router at
// most the cap, not every other client's router (docs/limits.md,
// "Upstream messages").

// SettingMaxMessage is the setting that raises the cap
// (backend/settings.KeyUpstreamMaxMessageMB), which errors quote.
const SettingMaxMessage = "upstreamMaxMessageMB"

// DefaultMaxMessage is the cap when Options.MaxMessage is unset.
const DefaultMaxMessage = 32 << 20

// prefixKept is how much of an over-long message is kept, to find its id.
const prefixKept = 4 << 10

// MessageTooLargeError: a server's message over the cap. The message was
// read past and dropped; Prefix is its start.
type MessageTooLargeError struct {
	Size   int64 // its size, or Cap+1 when it was read only to past the cap
	Cap    int
	Prefix []byte
}

func (e *MessageTooLargeError) Error() string {
	if e.Size <= int64(e.Cap)+1 { // read only to past the cap: its size is not known
		return fmt.Sprintf("the server sent a message over the cap of %s (setting %s)", sizeText(int64(e.Cap)), SettingMaxMessage)
	}
	return fmt.Sprintf("the server sent a message of %s, over the cap of %s (setting %s)", sizeText(e.Size), sizeText(int64(e.Cap)), SettingMaxMessage)
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// maxMessage is the cap for a connection dialled now.
func (o Options) maxMessage() int {
	if o.MaxMessage != nil {
		if n := o.MaxMessage(); n > 0 {
			return n
		}
	}
	return DefaultMaxMessage
}

// messageCap is the cap of the connection being dialled.
func (o dialOptions) messageCap() int {
	if o.maxMessage > 0 {
		return o.maxMessage
	}
	return DefaultMaxMessage
}

// readLine reads one line from r, however long up to max bytes (its end of
// line not counted; max ≤ 0: no cap): a line longer than r's buffer is
// gathered in *long. The line is valid until the next read. A longer line
// is read to its end and dropped: the error is a *MessageTooLargeError and
// the next read starts at the next line.
func readLine(r *bufio.Reader, long *[]byte, max int) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if max > 0 && contentLen(line) > max {
			return nil, tooLarge(int64(contentLen(line)), max, line)
		}
		return line, err
	}
	*long = append((*long)[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = r.ReadSlice('\n')
		if max > 0 && contentLen(*long)+contentLen(line) > max {
			size := int64(len(*long) + len(line))
			big := tooLarge(0, max, *long)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				size += int64(len(line))
			}
			big.Size = size - int64(len(line)-contentLen(line))
			*long = (*long)[:0]
			return nil, big
		}
		*long = append(*long, line...)
	}
	return *long, err
}

func tooLarge(size int64, max int, start []byte) *MessageTooLargeError {
	return &MessageTooLargeError{Size: size, Cap: max, Prefix: bytes.Clone(start[:min(len(start), prefixKept)])}
}

// contentLen is the length of line without its end of line.
func contentLen(line []byte) int {
	return len(bytes.TrimRight(line, "\r\n"))
}

// idOfPrefix finds the top-level "id" of a JSON-RPC message from its start
// alone (an over-long answer, dropped): the usual SDKs write jsonrpc and id
// before the result. ok is false when the id is not in the prefix.
func idOfPrefix(prefix []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if k == "id" {
			return v, true
		}
	}
	return nil, false
}

// capBodies caps the bodies of the answers an http.Client receives, for
// the upstream transports of mcp-go (SSE, and streamable HTTP through a
// proxy): an event stream line by line, any other body in all.
type capBodies struct {
	base http.RoundTripper
	max  int
}

func (c capBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	resp.Body = &cappedBody{rc: resp.Body, max: int64(c.max), perLine: mt == "text/event-stream"}
	return resp, nil
}

// cappedBody fails a read once a line (perLine) or the whole body went past
// max bytes.
type cappedBody struct {
	rc      io.ReadCloser
	max     int64
	perLine bool
	n       int64 // bytes of the current line, or of the body
	err     error
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	for i, c := range p[:n] {
		if b.perLine && (c == '\n' || c == '\r') {
			b.n = 0
			continue
		}
		b.n++
		if b.n > b.max {
			// What came before the cap was passed is given.
			b.err = &MessageTooLargeError{Size: b.n, Cap: int(b.max)}
			return i, b.err
		}
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// cappedClient is an http.Client for mcp-go's transports whose answers are
// capped at max (proxies as net/http's default).
func cappedClient(max int) *http.Client {
	return &http.Client{Transport: capBodies{base: http.DefaultTransport, max: max}}
}
