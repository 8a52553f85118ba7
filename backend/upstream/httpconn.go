package upstream

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/mcp-router/mcp-router/backend/hotpath"
	"github.com/mcp-router/mcp-router/backend/tracing"
)

// The connections of a streamTransport: kept alive, one exchange at a
// time each, the last used first. A call takes an idle one or dials; its
// answer is read on the caller's goroutine.

// maxIdleConns bounds the connections kept for reuse per upstream.
const maxIdleConns = 64

// staleAfter is the idleness after which a kept-alive connection may have
// been closed by the server as a request went out (servers close idle
// connections after 5 s and more: Node, uvicorn; nginx 75 s).
var staleAfter = time.Second

// exchange sends one request (method, body, and extra header lines) and
// reads the answer's status and headers. The caller reads the body and
// gives the connection back with release. sentSession reports whether the
// request carried the session id.
//
// A request is sent again, once, on a new connection only when it went out
// on a kept-alive connection that had been idle for staleAfter or more and
// nothing at all came back: the server closed the connection for idleness
// as the request arrived, and never saw it (ready's check catches the
// close when it came earlier). Any other failure is the caller's error: a
// tool call must not run twice because a server broke down while on it.
func (t *streamTransport) exchange(ctx context.Context, method string, body []byte, extra string, own bool) (c *httpConn, resp *http.Response, sentSession bool, err error) {
	rejected := false
	for attempt := 0; ; attempt++ {
		var head []byte
		var sentLogin string
		head, sentLogin, err = t.headFor(ctx)
		if err != nil {
			return nil, nil, false, err
		}
		if tl := tracing.HeaderLines(ctx); tl != nil {
			// The call's trace context (W3C traceparent): a copy, the
			// fixed lines are shared.
			head = append(head[:len(head):len(head)], tl...)
		}
		c, err = t.acquire(ctx, own || attempt > 0)
		if err != nil {
			return nil, nil, false, err
		}
		// Until release, the context's end aborts the connection's reads
		// and writes: the call gives up at once, and the connection is
		// not reused.
		nc := c.nc
		c.stop = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(aLongTimeAgo) })
		got := c.got.n
		idle := !c.lastUsed.IsZero() && time.Since(c.lastUsed) >= staleAfter
		resp, sentSession, err = t.roundTrip(c, head, method, body, extra)
		answered := c.got.n > got
		if err == nil {
			if resp.Close {
				c.broken = true // the server closes it after this answer
			}
			// The login's token refused: the server did nothing with the
			// request, which goes again, once, with a refreshed token (or
			// fails with ErrNeedsLogin when there is none).
			if resp.StatusCode == http.StatusUnauthorized && sentLogin != "" && !rejected {
				rejected = true
				if !discardBody(resp.Body) {
					c.broken = true
				}
				t.release(c)
				t.login.rejected(sentLogin)
				continue
			}
			return c, resp, sentSession, nil
		}
		c.broken = true
		t.release(c)
		switch {
		case ctx.Err() != nil:
			return nil, nil, false, ctx.Err()
		case t.isClosed():
			return nil, nil, false, errTransportClosed
		case attempt == 0 && idle && !answered && staleKeepAlive(err):
			continue
		}
		return nil, nil, false, err
	}
}

// staleKeepAlive: the error of a request on a connection the server
// closed while it was idle.
func staleKeepAlive(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// byteCount counts what a connection has read, so that exchange knows
// whether any of an answer came back before an error, and stops at max
// (when set), so that an answer's head cannot grow without end.
type byteCount struct {
	r   io.Reader
	n   int64
	max int64 // 0: no limit
}

var errHeadTooLong = errors.New("the answer's status line and headers are longer than 1 MiB")

func (b *byteCount) Read(p []byte) (int, error) {
	if b.max > 0 {
		if b.n >= b.max {
			return 0, errHeadTooLong
		}
		if left := b.max - b.n; int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

// maxHead bounds an answer's status line and headers (net/http's
// Transport allows 10 MB; MCP answers carry a handful of headers).
const maxHead = 1 << 20

// roundTrip writes the request in one write and reads the answer's head.
func (t *streamTransport) roundTrip(c *httpConn, head []byte, method string, body []byte, extra string) (*http.Response, bool, error) {
	b := append(c.wbuf[:0], method...)
	b = append(b, ' ')
	b = append(b, t.uri...)
	b = append(b, " HTTP/1.1\r\n"...)
	b = append(b, head...)
	switch method {
	case http.MethodPost:
		b = append(b, "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"...)
	case http.MethodGet:
		b = append(b, "Accept: text/event-stream\r\n"...)
	}
	sid := t.session.Load().(string)
	if sid != "" {
		b = append(b, "Mcp-Session-Id: "...)
		b = append(b, sid...)
		b = append(b, "\r\n"...)
	}
	if v := t.version.Load().(string); v != "" {
		b = append(b, "Mcp-Protocol-Version: "...)
		b = append(b, v...)
		b = append(b, "\r\n"...)
	}
	b = append(b, extra...)
	if method == http.MethodPost {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	b = append(b, body...)
	c.wbuf = b
	if _, err := c.nc.Write(b); err != nil {
		return nil, false, err
	}
	c.got.max = c.got.n + int64(c.br.Buffered()) + maxHead
	resp, err := http.ReadResponse(c.br, nil)
	c.got.max = 0
	return resp, sid != "", err
}

// acquire takes an idle connection that is still good, or dials one.
func (t *streamTransport) acquire(ctx context.Context, fresh bool) (*httpConn, error) {
	t.mu.Lock()
	for !fresh && len(t.idle) > 0 && !t.closed {
		c := t.idle[len(t.idle)-1]
		t.idle = t.idle[:len(t.idle)-1]
		t.active[c] = struct{}{}
		t.mu.Unlock()
		if t.ready(c) {
			return c, nil
		}
		t.mu.Lock()
	}
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, errTransportClosed
	}
	c, err := t.dial(ctx)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		c.nc.Close()
		return nil, errTransportClosed
	}
	t.active[c] = struct{}{}
	t.mu.Unlock()
	return c, nil
}

func (t *streamTransport) dial(ctx context.Context) (*httpConn, error) {
	nc, err := t.dialer.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, err
	}
	nc = hotpath.Conn(nc)
	raw := nc
	if t.tls != nil {
		tc := tls.Client(nc, t.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, err
		}
		nc = tc
	}
	c := &httpConn{nc: nc, raw: raw}
	c.got.r = nc
	c.br = bufio.NewReaderSize(&c.got, 16<<10)
	return c, nil
}

// release gives a connection back: kept for reuse if it is good, closed
// otherwise.
func (t *streamTransport) release(c *httpConn) {
	if c.stop != nil {
		if !c.stop() {
			c.broken = true // the context ended: its deadline may be set
		}
		c.stop = nil
	}
	t.mu.Lock()
	delete(t.active, c)
	keep := !c.broken && !t.closed && len(t.idle) < maxIdleConns
	if keep {
		c.lastUsed = time.Now()
		t.idle = append(t.idle, c)
	}
	t.mu.Unlock()
	if !keep {
		c.nc.Close()
	}
}

// ready makes an idle connection ready for its next exchange: it reads
// the end of the last answer's event stream, which a server sends right
// after the answer, and checks that the server has not closed the
// connection meanwhile. If the end has not come within a millisecond the
// connection is left to a goroutine that waits for it (drainLater) and
// ready reports false, as it does for a connection it closes.
func (t *streamTransport) ready(c *httpConn) bool {
	if c.rest && !c.finishNow() {
		switch c.finish(time.Millisecond) {
		case finished:
		case notYet:
			t.drainLater(c)
			return false
		default:
			c.broken = true
			t.release(c)
			return false
		}
	}
	if c.br.Buffered() > 0 || !socketIdle(c.raw) {
		// Bytes nobody asked for, or the server closed it.
		c.broken = true
		t.release(c)
		return false
	}
	return true
}

// finishNow reads the rest of the last event stream if all of it has
// arrived, without a deadline: from the buffer, and on a plain TCP
// connection from the socket while it has bytes waiting. The usual case,
// and cheaper than finish's deadline.
func (c *httpConn) finishNow() bool {
	for {
		c.chunks.buffered = true
		_, err := c.ev.WriteTo(io.Discard)
		c.chunks.buffered = false
		if err == nil {
			c.rest = false
			return true
		}
		if err != errWouldBlock || c.raw != c.nc || socketIdle(c.raw) {
			return false
		}
		// Bytes are waiting: this read does not block.
		if _, err := c.br.Peek(c.br.Buffered() + 1); err != nil {
			return false
		}
	}
}

type finishResult uint8

const (
	finished finishResult = iota
	notYet                // the wait ran out; the stream is intact
	failed                // the stream or connection broke
)

// finish reads the rest of the last event stream, waiting at most wait.
// A read that runs out of time leaves the chunk decoder and the buffers
// as they were (chunkReader), so it can be tried again.
func (c *httpConn) finish(wait time.Duration) finishResult {
	_ = c.nc.SetReadDeadline(time.Now().Add(wait))
	_, err := c.ev.WriteTo(io.Discard)
	var ne net.Error
	switch {
	case err == nil:
		c.rest = false
		_ = c.nc.SetReadDeadline(time.Time{})
		return finished
	case errors.As(err, &ne) && ne.Timeout():
		return notYet
	}
	return failed
}

// maxDraining bounds the connections waiting for the end of a stream; past
// it they are closed.
const maxDraining = 8

// drainLater waits, off the call path, up to 10 s for the end of the
// connection's last event stream, then keeps it for reuse; a server that
// leaves its streams open has them closed.
func (t *streamTransport) drainLater(c *httpConn) {
	t.mu.Lock()
	if t.draining >= maxDraining || t.closed {
		t.mu.Unlock()
		c.broken = true
		t.release(c)
		return
	}
	t.draining++
	t.wg.Add(1)
	t.mu.Unlock()
	go func() {
		defer t.wg.Done()
		if c.finish(10*time.Second) != finished {
			c.broken = true
		}
		t.mu.Lock()
		t.draining--
		t.mu.Unlock()
		t.release(c)
	}()
}

// socketIdle reports, without waiting, that nothing is there to read on
// an idle connection: the server has neither written to it nor closed it.
func socketIdle(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := true
	err = rc.Read(func(fd uintptr) bool {
		alive = idleSocket(fd)
		return true
	})
	return err == nil && alive
}

// Close ends the session (DELETE) and every connection; requests waiting
// for an answer fail.
func (t *streamTransport) Close() error {
	t.closeOnce.Do(func() {
		close(t.done)
		t.mu.Lock()
		t.closed = true
		idle := t.idle
		t.idle = nil
		active := make([]*httpConn, 0, len(t.active))
		for c := range t.active {
			active = append(active, c)
		}
		t.mu.Unlock()
		for _, c := range idle {
			c.nc.Close()
		}
		// Their owners see an error and let go of them. The deadline first:
		// it unblocks a write, which a TLS close would wait for.
		for _, c := range active {
			_ = c.nc.SetDeadline(aLongTimeAgo)
			_ = c.nc.Close()
		}
		if t.session.Load().(string) != "" && !t.ended.Load() {
			t.deleteSession()
		}
		t.wg.Wait()
	})
	return nil
}

// deleteSession tells the server the session is over, on a connection of
// its own (the pool is closed), for at most 2 s.
func (t *streamTransport) deleteSession() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := t.dial(ctx)
	if err != nil {
		return
	}
	defer c.nc.Close()
	if d, ok := ctx.Deadline(); ok {
		_ = c.nc.SetDeadline(d)
	}
	head, _, err := t.headFor(ctx)
	if err != nil {
		head = t.head
	}
	if resp, _, err := t.roundTrip(c, head, http.MethodDelete, nil, ""); err == nil {
		_ = resp.Body.Close()
	}
}

// headFor is the fixed header lines of a request made with ctx: with
// passAuth and a client's Authorization in ctx, that value replaces the
// configured one, for this request only; else the login's token, when the
// server has one (login.go), replaces it. sent is the login's value when
// it went out (for Rejected on a 401).
func (t *streamTransport) headFor(ctx context.Context) (head []byte, sent string, err error) {
	if t.passAuth {
		if v, ok := clientAuthorization(ctx, t.server); ok && CheckClientAuthorization(v) == nil {
			return withAuthorization(t.headNoAuth, v), "", nil
		}
	}
	if t.login == nil {
		return t.head, "", nil
	}
	v, err := t.login.value(ctx)
	if err != nil {
		return nil, "", err
	}
	if v == "" {
		return t.head, "", nil
	}
	return withAuthorization(t.headNoAuth, v), v, nil
}

func withAuthorization(headNoAuth []byte, v string) []byte {
	h := make([]byte, 0, len(headNoAuth)+len(v)+17)
	h = append(h, headNoAuth...)
	h = append(h, "Authorization: "...)
	h = append(h, v...)
	return append(h, "\r\n"...)
}
