// Package bridge connects a stdio MCP client to a running router: it reads
// JSON-RPC messages, one per line, from the client, sends them to the
// router's streamable HTTP endpoint and writes every message from the router
// back, one per line. It is what `mcp-router connect` runs, so AI clients
// that only start stdio servers (Claude Desktop) can use a running router.
//
// Messages pass through as raw JSON: the bridge reads only the fields it
// routes on (id, method, result, error) and never re-encodes a message
// through typed structs. The one rewrite is the id of a request the router
// sends to the client (sampling/createMessage, elicitation/create,
// roots/list, ping): the client sees a bridge id such as
// "mcp-router-connect:7", unique for the bridge's whole life, so ids of
// different router sessions never meet; the answer goes back with the
// router's id.
//
// When the router goes away (restart) or forgets the session (HTTP 404),
// the bridge reconnects with backoff, replays the client's initialize and
// notifications/initialized on a new session, retries the request that
// failed once, and tells the client the catalog may have changed.
package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
)

// DefaultURL is the router's endpoint when nothing else is configured.
const DefaultURL = "http://127.0.0.1:3282/mcp"

// serverIDPrefix starts the ids the client sees on requests from the router.
const serverIDPrefix = "mcp-router-connect:"

// Options configure Run; zero values are the defaults.
type Options struct {
	URL    string // the router's streamable HTTP endpoint; default DefaultURL
	Token  string // bearer token; none when empty
	Logger logrus.FieldLogger
	// Header holds header lines sent with every request to the router
	// (a client's X-Upstream-Authorization, docs/auth.md). Never logged.
	Header http.Header

	// BackoffBase and BackoffMax bound the wait between reconnect attempts
	// (default 200 ms, doubling up to 5 s).
	BackoffBase, BackoffMax time.Duration
	// ReconnectTimeout is how long a request waits for the router to come
	// back before it is answered with an error (default 30 s).
	ReconnectTimeout time.Duration
	// Grace is how long in-flight requests may still finish once stdin has
	// ended (default 5 s).
	Grace time.Duration
	// HTTPClient sends the requests; default a client without timeouts
	// (responses may stream for as long as a tool runs).
	HTTPClient *http.Client
}

// AuthError is what Run returns when the router rejected the token.
type AuthError struct {
	URL    string
	Status int
	Body   string
}

func (e *AuthError) Error() string {
	if e.Status == http.StatusForbidden {
		return fmt.Sprintf("the router at %s refused this token access (HTTP 403): %s; use a token that may reach this endpoint (MCPR_TOKEN or --token)", e.URL, e.Body)
	}
	return fmt.Sprintf("the router at %s rejected the token (HTTP %d): %s; set MCPR_TOKEN or --token", e.URL, e.Status, e.Body)
}

// refusesToken reports a status that no retry will change: 401 (no or a
// wrong token) and 403 (a token bound to another profile, a Host or
// Origin the router refuses).
func refusesToken(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// UnreachableError: the router could not be reached in time.
type UnreachableError struct {
	URL   string
	Cause error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("router at %s unreachable: %v", e.URL, e.Cause)
}

func (e *UnreachableError) Unwrap() error { return e.Cause }

// session is one session on the router.
type session struct {
	id      string // Mcp-Session-Id; empty for a router without sessions
	version string // negotiated protocol version
	caps    map[string]json.RawMessage
	stop    context.CancelFunc // ends the listening stream
}

// connAttempt is one run of the (re)connect loop; done closes when it ends.
type connAttempt struct {
	done      chan struct{}
	reconnect bool // started because a session was lost, not by initialize

	// Set before done closes.
	sess *session
	resp json.RawMessage // the router's answer to initialize (bridge id)
	err  error           // why the loop gave up without a session

	mu      sync.Mutex
	lastErr error // the latest failure, for a waiter that gives up
}

func (c *connAttempt) finished() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *connAttempt) setLast(err error) {
	c.mu.Lock()
	c.lastErr = err
	c.mu.Unlock()
}

func (c *connAttempt) last() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lastErr == nil {
		return errors.New("no answer yet")
	}
	return c.lastErr
}

// pendingCall is a request from the router waiting for the client's answer.
type pendingCall struct {
	sess *session
	id   json.RawMessage // the router's id
}

type bridge struct {
	o   Options
	url string
	log logrus.FieldLogger
	hc  *http.Client
	out *lineWriter
	ctx context.Context

	mu      sync.Mutex
	initReq json.RawMessage // the client's initialize, as it sent it
	conn    *connAttempt    // the latest connect loop; nil before the first
	pending map[string]pendingCall
	byOrig  map[*session]map[string]string // router id key → bridge id

	nextID   atomic.Int64
	authFail atomic.Pointer[AuthError]
	inflight sync.WaitGroup
	bg       sync.WaitGroup       // connect loops, session listeners and other helpers
	notes    chan json.RawMessage // the client's notifications, in order
}

// background runs fn in a goroutine Run waits for before it returns, so
// nothing the bridge started logs or writes after Run has returned.
func (b *bridge) background(fn func()) {
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		fn()
	}()
}

// stopWait is how long Run waits, once it ends, for the bridge's
// goroutines to notice the end; each of them stops on the bridge's context.
const stopWait = 2 * time.Second

// stop ends the bridge's context and waits (at most stopWait) for every
// goroutine it started, requests in flight included.
func (b *bridge) stop(cancel context.CancelFunc) {
	cancel()
	done := make(chan struct{})
	go func() {
		b.bg.Wait()
		b.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopWait):
	}
}

// Run bridges in and out to the router until in ends (then it returns
// after in-flight requests finish or Options.Grace passes) or ctx ends. It
// returns nil, or an *AuthError when the router rejected the token.
func Run(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.URL == "" {
		o.URL = DefaultURL
	}
	if o.Logger == nil {
		l := logrus.New()
		l.SetOutput(os.Stderr)
		o.Logger = l
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = 200 * time.Millisecond
	}
	if o.BackoffMax < o.BackoffBase {
		o.BackoffMax = max(5*time.Second, o.BackoffBase)
	}
	if o.ReconnectTimeout <= 0 {
		o.ReconnectTimeout = 30 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	ctx, cancel := context.WithCancel(ctx)
	b := &bridge{
		o: o, url: o.URL, log: o.Logger, hc: o.HTTPClient,
		out:     &lineWriter{w: out},
		ctx:     ctx,
		pending: map[string]pendingCall{},
		byOrig:  map[*session]map[string]string{},
		notes:   make(chan json.RawMessage, 64),
	}
	defer b.stop(cancel) // after b.close below: that one still talks to the router
	b.background(b.sendNotifications)

	type line struct {
		data []byte
		err  error
	}
	lines := make(chan line)
	go func() {
		br := newLineReader(in)
		for {
			data, err := br()
			select {
			case lines <- line{data, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer b.close()
	for {
		select {
		case <-ctx.Done():
			return nil
		case l := <-lines:
			if len(strings.TrimSpace(string(l.data))) > 0 {
				b.handleLine(l.data)
			}
			if l.err == nil {
				continue
			}
			b.drain()
			if !errors.Is(l.err, io.EOF) {
				return fmt.Errorf("reading stdin: %w", l.err)
			}
			if a := b.authFail.Load(); a != nil {
				return a
			}
			return nil
		}
	}
}

// newLineReader returns a function that reads one line at a time, of any
// length.
func newLineReader(in io.Reader) func() ([]byte, error) {
	br := bufio.NewReaderSize(in, 64<<10)
	return func() ([]byte, error) { return br.ReadBytes('\n') }
}

// drain waits for in-flight requests and queued notifications, at most
// Options.Grace.
func (b *bridge) drain() {
	done := make(chan struct{})
	go func() { b.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(b.o.Grace):
		b.log.Warnf("mcp-router connect: stdin closed; not waiting any longer for requests in flight")
	case <-b.ctx.Done():
	}
}

// close ends the current session on the router.
func (b *bridge) close() {
	b.mu.Lock()
	var s *session
	if b.conn != nil && b.conn.finished() {
		s = b.conn.sess
	}
	b.mu.Unlock()
	if s == nil {
		return
	}
	s.stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b.deleteSession(ctx, s)
}

// emit writes a message to the client.
func (b *bridge) emit(msg []byte) {
	if err := b.out.write(msg); err != nil {
		b.log.Debugf("mcp-router connect: writing to stdout: %v", err)
	}
}

// handleLine routes one line from the client.
func (b *bridge) handleLine(data []byte) {
	env, err := parse(data)
	if err != nil {
		code := codeParseError
		msg := "mcp-router connect: parse error: " + err.Error()
		if errors.Is(err, errNotObject) {
			code, msg = codeInvalidRequest, "mcp-router connect: invalid request: "+err.Error()
		}
		b.emit(rpcError(nil, code, msg, nil))
		return
	}
	raw := json.RawMessage(bytes.TrimSpace(data))
	switch {
	case env.isRequest() && env.Method == "initialize":
		// Started here, not in the request's goroutine, so requests the
		// client sends after initialize wait for its session.
		b.mu.Lock()
		b.initReq = raw
		c := b.startLocked(false)
		b.mu.Unlock()
		b.inflight.Add(1)
		go func() {
			defer b.inflight.Done()
			b.answerInitialize(c, env.ID)
		}()
	case env.isRequest():
		b.inflight.Add(1)
		go func() {
			defer b.inflight.Done()
			if resp := b.forward(env.ID, raw); resp != nil {
				b.emit(resp)
			}
		}()
	case env.Method != "":
		b.inflight.Add(1)
		select {
		case b.notes <- raw:
		case <-b.ctx.Done():
			b.inflight.Done()
		}
	case env.hasID() && env.isResponse():
		b.inflight.Add(1)
		go func() {
			defer b.inflight.Done()
			b.answerRouter(env.ID, raw)
		}()
	default:
		b.emit(rpcError(env.ID, codeInvalidRequest, "mcp-router connect: invalid request: a message needs a method, or an id with a result or an error", nil))
	}
}

// current returns the session requests go to, waiting while the bridge
// reconnects (at most Options.ReconnectTimeout). A nil session is valid:
// a client that never sent initialize talks to the router without one.
func (b *bridge) current() (*session, error) {
	b.mu.Lock()
	c := b.conn
	b.mu.Unlock()
	if c == nil {
		return nil, nil
	}
	if err := b.wait(c); err != nil {
		return nil, err
	}
	return c.sess, c.err
}

// wait waits for connect loop c to end, at most Options.ReconnectTimeout.
func (b *bridge) wait(c *connAttempt) error {
	if c.finished() {
		return nil
	}
	t := time.NewTimer(b.o.ReconnectTimeout)
	defer t.Stop()
	select {
	case <-c.done:
		return nil
	case <-t.C:
		return &UnreachableError{URL: b.url, Cause: c.last()}
	case <-b.ctx.Done():
		return b.ctx.Err()
	}
}

// forward sends the client's request id/raw to the router and returns the
// response for the client (nil when the bridge is shutting down).
func (b *bridge) forward(id json.RawMessage, raw json.RawMessage) json.RawMessage {
	retried := false
	for {
		s, err := b.current()
		if b.ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return b.errorFor(id, err)
		}
		r, err := b.post(b.ctx, s, raw)
		if b.ctx.Err() != nil {
			return nil
		}
		if err == nil {
			switch {
			case r.msg != nil && r.status == http.StatusOK:
				return r.msg
			case refusesToken(r.status):
				return b.errorFor(id, b.authError(r))
			case r.status == http.StatusNotFound && b.hasInit():
				err = fmt.Errorf("the router no longer knows the session (HTTP 404)")
			case r.msg != nil:
				// A JSON-RPC error with an HTTP error status (a 400 for
				// a bad request, say): pass it on, under the client's id.
				if msg, ok := withClientID(r.msg, id); ok {
					return msg
				}
				return b.errorFor(id, fmt.Errorf("the router answered HTTP %d: %s", r.status, clip(r.msg)))
			default:
				return b.errorFor(id, fmt.Errorf("the router answered HTTP %d: %s", r.status, clip(r.body)))
			}
		}
		// The router went away or forgot the session.
		if retried {
			return b.errorFor(id, &UnreachableError{URL: b.url, Cause: err})
		}
		retried = true
		b.lost(s, err)
		b.log.Infof("mcp-router connect: request %s failed (%v); retrying it once the router is back", id, err)
	}
}

// withClientID gives a response from the router the client's id when the
// router could not read it (id null).
func withClientID(msg, id json.RawMessage) (json.RawMessage, bool) {
	env, err := parse(msg)
	if err != nil || !env.isResponse() {
		return nil, false
	}
	if len(env.ID) == 0 || string(env.ID) == "null" {
		out, err := setID(msg, id)
		return out, err == nil
	}
	return msg, true
}

func (b *bridge) hasInit() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.initReq != nil
}

// authError records a 401 or 403 from the router: connect then exits
// non-zero at the end of stdin, as the client's error alone may go unseen.
func (b *bridge) authError(r reply) *AuthError {
	a := &AuthError{URL: b.url, Status: r.status, Body: clip(errorText(r.body))}
	b.authFail.Store(a)
	return a
}

// errorFor turns err into a JSON-RPC error response for the client.
func (b *bridge) errorFor(id json.RawMessage, err error) json.RawMessage {
	var a *AuthError
	var u *UnreachableError
	switch {
	case errors.As(err, &a):
		msg := fmt.Sprintf("mcp-router connect: the router rejected the token (HTTP %d): %s; set MCPR_TOKEN or --token", a.Status, a.Body)
		if a.Status == http.StatusForbidden {
			msg = fmt.Sprintf("mcp-router connect: the router refused this token access (HTTP 403): %s; use a token that may reach this endpoint (MCPR_TOKEN or --token)", a.Body)
		}
		return rpcError(id, codeUnauthorized, msg,
			map[string]any{"reason": "unauthorized", "url": b.url})
	case errors.As(err, &u):
		return rpcError(id, codeUnreachable, "mcp-router connect: "+u.Error(),
			map[string]any{"reason": "unreachable", "url": b.url})
	default:
		return rpcError(id, codeRouterError, "mcp-router connect: "+err.Error(),
			map[string]any{"reason": "router", "url": b.url})
	}
}

// answerInitialize answers the client's initialize with what connect loop
// c got from the router.
func (b *bridge) answerInitialize(c *connAttempt, id json.RawMessage) {
	if err := b.wait(c); err != nil {
		if b.ctx.Err() == nil {
			b.emit(b.errorFor(id, err))
		}
		return
	}
	if c.resp != nil {
		if msg, err := setID(c.resp, id); err == nil {
			b.emit(msg)
			return
		}
	}
	err := c.err
	if err == nil {
		err = errors.New("the router sent no answer to initialize")
	}
	b.emit(b.errorFor(id, err))
}

func (b *bridge) sendNotification(raw json.RawMessage) {
	for retried := false; ; retried = true {
		s, err := b.current()
		if err != nil {
			b.log.Warnf("mcp-router connect: dropping a notification: %v", err)
			return
		}
		r, err := b.post(b.ctx, s, raw)
		if b.ctx.Err() != nil {
			return
		}
		if err == nil {
			switch {
			case r.status == http.StatusNotFound && b.hasInit():
				err = fmt.Errorf("the router no longer knows the session (HTTP 404)")
			case refusesToken(r.status):
				b.log.Errorf("mcp-router connect: %v", b.authError(r))
				return
			case r.status >= 300:
				b.log.Warnf("mcp-router connect: the router refused a notification (HTTP %d): %s", r.status, clip(r.body))
				return
			default:
				return
			}
		}
		if retried {
			b.log.Warnf("mcp-router connect: dropping a notification: %v", err)
			return
		}
		b.lost(s, err)
		// A reconnect replays notifications/initialized itself.
		if env, _ := parse(raw); env.Method == "notifications/initialized" {
			return
		}
	}
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
