// Package leanhttp serves the steady run of small POSTs an MCP client sends
// on a kept-alive HTTP/1.1 connection without net/http's per-request
// machinery, and hands the connection to net/http at its first request
// that is anything else.
//
// net/http spends about 5 µs of CPU on each request by itself: a goroutine
// per request that watches the connection (a read that fails with EAGAIN,
// three deadline changes and two goroutine switches to stop it again), its
// request reader and its response writer. On a call the router forwards in
// under 40 µs that is the largest share left after the kernel's.
//
// Every connection starts here. For each request, the Server looks at the
// head while it is still in the read buffer: a POST to a path the caller
// takes, HTTP/1.1, complete in the buffer, with a Content-Length body and
// nothing that asks for more (parseHead) is served here, by the same
// http.Handler, with an *http.Request like net/http's. Anything else goes
// to net/http with every byte not yet consumed, and the connection stays
// there: net/http's checks, error answers and timeouts apply as before.
// A request served here watches its connection only when it runs longer
// than watchAfter, as net/http does for every request, so a client that
// goes away still cancels a long call.
package leanhttp

import (
	"bufio"
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"time"
)

// EnvLeanHTTP, set to "off", leaves every connection to net/http.
const EnvLeanHTTP = "MCPR_LEAN_HTTP"

// Enabled reports whether the lean path is on (MCPR_LEAN_HTTP is not "off").
func Enabled() bool { return os.Getenv(EnvLeanHTTP) != "off" }

const (
	// readBuffer is the read buffer of a connection, net/http's size: a
	// head must fit in it (with what else is buffered) to be served here.
	readBuffer = 4 << 10
	// watchAfter is how long a request runs before its connection is
	// watched for the client going away.
	watchAfter = 10 * time.Millisecond
	// maxDiscard is the most unread body the Server reads past to keep a
	// connection (net/http's maxPostHandlerReadBytes); with more, it closes.
	maxDiscard = 256 << 10
)

// Server is the lean path in front of an http.Server. Serve the
// http.Server on Listener(); stop with the http.Server's Shutdown or Close
// and then the Server's own.
type Server struct {
	srv  *http.Server
	take func(method, path string) bool
	ln   net.Listener

	handoff    chan net.Conn
	done       chan struct{} // closed by Close of the listener
	acceptErr  error         // set before acceptDone closes
	acceptDone chan struct{}
	closeOnce  sync.Once

	mu       sync.Mutex
	conns    map[*conn]connState
	shutting bool
	active   sync.WaitGroup // requests being served
}

// connState is what the sweeper needs to know of a connection.
type connState struct {
	busy  bool  // a request is being served
	fresh bool  // no request yet: the head timeout applies, not the idle one
	since int64 // when it became idle (UnixNano)
}

// New puts the lean path in front of srv on ln. take says which requests
// it may serve itself (by method and path, the path without a query);
// srv's Handler serves them, and everything else.
func New(srv *http.Server, ln net.Listener, take func(method, path string) bool) *Server {
	s := &Server{srv: srv, take: take, ln: ln, handoff: make(chan net.Conn), done: make(chan struct{}),
		acceptDone: make(chan struct{}), conns: map[*conn]connState{}}
	go s.acceptLoop()
	if every := sweepEvery(headTimeout(srv), idleTimeout(srv)); every > 0 {
		go s.sweep(every)
	}
	return s
}

// headTimeout is how long a new connection may take to send its first
// request (net/http's ReadHeaderTimeout, else its ReadTimeout).
func headTimeout(srv *http.Server) time.Duration {
	if srv.ReadHeaderTimeout > 0 {
		return srv.ReadHeaderTimeout
	}
	return srv.ReadTimeout
}

// idleTimeout is how long a kept-alive connection may wait for its next
// request (net/http's IdleTimeout, else its ReadTimeout).
func idleTimeout(srv *http.Server) time.Duration {
	if srv.IdleTimeout > 0 {
		return srv.IdleTimeout
	}
	return srv.ReadTimeout
}

// sweepEvery is how often the sweeper looks: a quarter of the shorter
// timeout, within 10 ms and 1 s; 0 (no sweeper) when there is none.
func sweepEvery(head, idle time.Duration) time.Duration {
	d := head
	if d <= 0 || idle > 0 && idle < d {
		d = idle
	}
	if d <= 0 {
		return 0
	}
	return min(max(d/4, 10*time.Millisecond), time.Second)
}

// sweep closes the connections that waited too long for a request: a new
// one past the head timeout, a kept-alive one past the idle timeout. net/http
// keeps the same times with a read deadline per request; a sweep costs the
// lean path's requests only the time stamp track takes.
func (s *Server) sweep(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	head, idle := headTimeout(s.srv), idleTimeout(s.srv)
	for {
		select {
		case <-t.C:
		case <-s.done:
			return
		case <-s.acceptDone:
			return
		}
		now := time.Now().UnixNano()
		s.mu.Lock()
		for c, st := range s.conns {
			limit := idle
			if st.fresh {
				limit = head
			}
			if !st.busy && limit > 0 && now-st.since > int64(limit) {
				c.nc.Close() // its serve loop ends and drops it
				delete(s.conns, c)
			}
		}
		s.mu.Unlock()
	}
}

// Listener is what srv.Serve accepts from: the connections the lean path
// handed over.
func (s *Server) Listener() net.Listener { return listener{s} }

type listener struct{ s *Server }

func (l listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.s.handoff:
		return c, nil
	case <-l.s.done:
		return nil, net.ErrClosed
	case <-l.s.acceptDone:
		return nil, l.s.acceptErr
	}
}

func (l listener) Close() error {
	var err error
	l.s.closeOnce.Do(func() {
		close(l.s.done)
		err = l.s.ln.Close()
	})
	return err
}

func (l listener) Addr() net.Addr { return l.s.ln.Addr() }

// acceptLoop accepts connections and serves each, backing off on
// temporary errors as net/http does.
func (s *Server) acceptLoop() {
	var delay time.Duration
	for {
		c, err := s.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporary(err) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				select {
				case <-time.After(delay):
					continue
				case <-s.done:
				}
			}
			s.acceptErr = err
			close(s.acceptDone)
			return
		}
		delay = 0
		go s.serve(c)
	}
}

func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

// Shutdown closes the idle connections the lean path holds, lets the
// requests it is serving finish, and closes their connections after them;
// it returns when all have, or with ctx's error. Call it after (or with)
// the http.Server's Shutdown, which closes the listener.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutting = true
	for c, st := range s.conns {
		if !st.busy {
			c.nc.Close()
		}
	}
	s.mu.Unlock()
	finished := make(chan struct{})
	go func() { s.active.Wait(); close(finished) }()
	select {
	case <-finished:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close closes every connection the lean path holds at once.
func (s *Server) Close() error {
	s.mu.Lock()
	s.shutting = true
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	return nil
}

// track registers c (busy false) or drops it (gone); it reports false when
// the Server is shutting down, or the sweeper closed c, and c must close.
func (s *Server) track(c *conn, busy, gone bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gone {
		delete(s.conns, c)
		return true
	}
	st, known := s.conns[c]
	if s.shutting || !known && c.tracked {
		return false
	}
	c.tracked = true
	st.fresh = !known
	st.busy = busy
	if !busy {
		st.since = time.Now().UnixNano()
	} else {
		st.fresh = false
		s.active.Add(1)
	}
	s.conns[c] = st
	return true
}

// serve runs one connection: the lean path's requests until one is not,
// then net/http's.
func (s *Server) serve(nc net.Conn) {
	c := newConn(s, nc)
	if !s.track(c, false, false) {
		nc.Close()
		return
	}
	handedOff := false
	defer func() {
		s.track(c, false, true)
		if handedOff {
			return
		}
		if c.linger {
			closeWriteAndWait(nc)
		}
		nc.Close()
	}()
	for {
		if _, err := c.br.Peek(1); err != nil {
			return // the client closed, or Shutdown closed an idle connection
		}
		buffered, _ := c.br.Peek(c.br.Buffered())
		h, ok := parseHead(buffered)
		if !ok || !s.take(h.method, h.target) {
			handedOff = s.handOff(c)
			return
		}
		if !s.track(c, true, false) {
			return
		}
		keep := c.serveRequest(h)
		s.active.Done()
		if !keep || !s.track(c, false, false) {
			return
		}
	}
}

// handOff gives the connection to net/http with the bytes read but not
// consumed. It reports false when the listener is closed (the caller
// closes the connection).
func (s *Server) handOff(c *conn) bool {
	pending, _ := c.br.Peek(c.br.Buffered())
	rc := &replayConn{Conn: c.nc, pending: append(append([]byte(nil), pending...), c.rd.takeEarly()...)}
	select {
	case s.handoff <- rc:
		return true
	case <-s.done:
		return false
	}
}

// replayConn is a connection handed to net/http: its reads return the
// bytes the lean path read ahead first.
type replayConn struct {
	net.Conn
	pending []byte
}

func (r *replayConn) Read(p []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	return r.Conn.Read(p)
}

// CloseWrite lets net/http half-close the connection as it would a
// *net.TCPConn.
func (r *replayConn) CloseWrite() error {
	if cw, ok := r.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// conn is a connection on the lean path.
type conn struct {
	s       *Server
	nc      net.Conn
	tracked bool       // track saw it (under Server.mu)
	rd      connReader // under br: gives back the byte a watch read
	br      *bufio.Reader
	bw      *bufio.Writer
	ctx     context.Context // the base of every request's context
	remote  string

	buf []byte // a response's body before its head is written, reused

	// The watch for a client going away during a long request.
	wmu       sync.Mutex
	wcond     *sync.Cond
	timer     *time.Timer
	inReq     bool               // a handler is running
	bodyDone  bool               // ... and its body is read to the end
	wantWatch bool               // the timer fired before the body was read
	watching  bool               // watch is reading
	aborting  bool               // the request ended: the watch's timeout is ours
	broken    bool               // the watch saw the connection fail
	linger    bool               // closing with a request body unread: closeWriteAndWait
	cancel    context.CancelFunc // the running request's
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{s: s, nc: nc, remote: nc.RemoteAddr().String()}
	c.rd.nc = nc
	c.br = bufio.NewReaderSize(&c.rd, readBuffer)
	c.bw = bufio.NewWriterSize(nc, 4<<10)
	c.wcond = sync.NewCond(&c.wmu)
	base := context.Background()
	if s.srv.BaseContext != nil {
		base = s.srv.BaseContext(s.Listener())
	}
	ctx := context.WithValue(base, http.ServerContextKey, s.srv)
	ctx = context.WithValue(ctx, http.LocalAddrContextKey, nc.LocalAddr())
	if s.srv.ConnContext != nil {
		ctx = s.srv.ConnContext(ctx, nc)
	}
	c.ctx = ctx
	c.timer = time.AfterFunc(time.Hour, c.watchTimeUp)
	c.timer.Stop()
	return c
}

// connReader reads the connection, the byte a watch read first.
type connReader struct {
	nc       net.Conn
	early    [1]byte
	hasEarly bool
}

func (r *connReader) Read(p []byte) (int, error) {
	if r.hasEarly && len(p) > 1 {
		// The rest of the request the byte began is on its way (or in
		// the socket already): read it with the byte, so that a whole
		// head is in the buffer and the request stays on the lean path.
		p[0] = r.early[0]
		r.hasEarly = false
		n, err := r.nc.Read(p[1:])
		return n + 1, err
	}
	if r.hasEarly && len(p) == 1 {
		p[0] = r.early[0]
		r.hasEarly = false
		return 1, nil
	}
	return r.nc.Read(p)
}

func (r *connReader) takeEarly() []byte {
	if !r.hasEarly {
		return nil
	}
	r.hasEarly = false
	return r.early[:]
}

// serveRequest serves the request whose head is h; it reports whether the
// connection can serve another.
func (c *conn) serveRequest(h head) (keep bool) {
	if _, err := c.br.Discard(h.size); err != nil {
		return false
	}
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	b := &body{c: c, remain: h.contentLength}
	r := &http.Request{Method: h.method, URL: requestURL(h.target), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h.header, Body: b, ContentLength: h.contentLength, Host: h.host, RemoteAddr: c.remote,
		RequestURI: h.target}
	if h.contentLength == 0 {
		r.Body = http.NoBody
	}
	r = r.WithContext(ctx)
	w := &response{c: c, req: r, header: make(http.Header, 4), body: b, declared: -1}

	c.wmu.Lock()
	c.inReq, c.bodyDone, c.wantWatch, c.broken, c.cancel = true, h.contentLength == 0, false, false, cancel
	c.wmu.Unlock()
	c.timer.Reset(watchAfter)

	panicked := c.runHandler(w, r)

	c.timer.Stop()
	c.endWatch()
	b.closed = true
	if panicked {
		return false
	}
	if err := w.finish(); err != nil {
		return false
	}
	if c.broken || w.closeAfter || b.remain > maxDiscard {
		// A client still sending a body we did not read would get a
		// reset instead of the answer if the connection closed now.
		c.linger = b.remain > 0 && !c.broken
		return false
	}
	// What the handler left of the body is read past.
	if b.remain > 0 {
		if _, err := c.br.Discard(int(b.remain)); err != nil {
			return false
		}
	}
	return true
}

// runHandler runs the handler as net/http does: a panic is logged (but
// http.ErrAbortHandler) and ends the connection.
func (c *conn) runHandler(w *response, r *http.Request) (panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			panicked = true
			if v != http.ErrAbortHandler {
				const size = 64 << 10
				buf := make([]byte, size)
				buf = buf[:runtime.Stack(buf, false)]
				c.logf("http: panic serving %v: %v\n%s", c.remote, v, buf)
			}
		}
	}()
	c.s.srv.Handler.ServeHTTP(w, r)
	return false
}

func (c *conn) logf(format string, args ...any) {
	if l := c.s.srv.ErrorLog; l != nil {
		l.Printf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// watchTimeUp runs when a request has run watchAfter: it starts the watch,
// or leaves it to the body's end.
func (c *conn) watchTimeUp() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.inReq || c.watching {
		return
	}
	if !c.bodyDone {
		c.wantWatch = true
		return
	}
	c.startWatchLocked()
}

// bodyEnded is called by the body at its end.
func (c *conn) bodyEnded() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.bodyDone = true
	if c.wantWatch && c.inReq && !c.watching {
		c.startWatchLocked()
	}
}

// startWatchLocked reads one byte from the connection in the background,
// as net/http does for every request: the read fails when the client goes
// away, and that cancels the request. A client that already sent more (a
// pipelined request) is not gone, and reading it would take its bytes
// from the buffer's order, so then there is no watch.
func (c *conn) startWatchLocked() {
	if c.br.Buffered() > 0 || c.rd.hasEarly {
		return
	}
	c.watching = true
	go c.watch()
}

func (c *conn) watch() {
	var b [1]byte
	n, err := c.nc.Read(b[:])
	c.wmu.Lock()
	if n == 1 {
		c.rd.early[0], c.rd.hasEarly = b[0], true
	}
	if err != nil && !(c.aborting && errors.Is(err, os.ErrDeadlineExceeded)) {
		c.broken = true
		if c.cancel != nil {
			c.cancel()
		}
	}
	c.watching, c.aborting = false, false
	c.wmu.Unlock()
	c.wcond.Broadcast()
}

// endWatch stops a running watch (net/http's abortPendingRead).
func (c *conn) endWatch() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.inReq, c.wantWatch, c.cancel = false, false, nil
	if !c.watching {
		return
	}
	c.aborting = true
	_ = c.nc.SetReadDeadline(aLongTimeAgo)
	for c.watching {
		c.wcond.Wait()
	}
	_ = c.nc.SetReadDeadline(time.Time{})
}

var aLongTimeAgo = time.Unix(1, 0)

// rstAvoidanceDelay is how long a connection closed with a request body
// left unread waits after its FIN before it closes (net/http's).
const rstAvoidanceDelay = 500 * time.Millisecond

// closeWriteAndWait sends a FIN after the answer and waits a little
// before the connection closes, as net/http does when it closes with a
// request body left unread: closing at once would make the kernel answer
// the rest of the client's body with a reset, and a client that is still
// writing would see the reset and not the answer (golang.org/issue/3595).
func closeWriteAndWait(nc net.Conn) {
	if cw, ok := nc.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	time.Sleep(rstAvoidanceDelay)
}
