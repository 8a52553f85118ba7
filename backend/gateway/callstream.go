package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// A request an upstream sends its client during a call (elicitation,
// sampling, roots) belongs on that call's own response stream: the
// transport spec lets a server answer a POST with an SSE stream that
// carries requests related to it before the answer, and clients that hold
// no standalone GET stream (the go-sdk's client among them) read server
// requests only there. mcp-go (v1.2.1) writes only elicitation on the POST's
// stream, and only when asked under a context made by that POST's handler;
// sampling and roots it queues for the GET stream. The fast path writes its
// answer itself, so it carries every kind on its own stream (callStream);
// on mcp-go's path the request is asked under the call's context, so at
// least elicitation reaches the POST's stream whatever the upstream's
// transport (withCallValues).

// callStream is the response stream of one call, on which the gateway
// sends the client the requests the call's upstream makes meanwhile.
type callStream struct {
	asks      *pendingAsks
	sessionID string
	sink      eventSink
}

// eventSink writes one JSON-RPC message as an SSE event on a call's
// response, turning the response into an event stream first if need be.
type eventSink interface {
	writeEvent(msg []byte) error
}

// ask sends a request to the client on the call's stream and waits for the
// client's answer (a POST of a JSON-RPC response, which fastMCP hands to
// pendingAsks), for ctx to end, or for the call to end (callDone: the
// client cancelled it or went away; nobody would read an answer).
func (c *callStream) ask(ctx context.Context, callDone <-chan struct{}, method string, params any) (json.RawMessage, error) {
	id, ch := c.asks.add(c.sessionID)
	defer c.asks.remove(c.sessionID, id)
	msg, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      string `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, id, method, params})
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", method, err)
	}
	if err := c.sink.writeEvent(msg); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case a := <-ch:
		if a.err != nil {
			return nil, fmt.Errorf("%s error %d: %s", method, a.err.Code, a.err.Message)
		}
		return a.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-callDone:
		return nil, errCallEnded
	}
}

var errCallEnded = jsonError("the call this request belongs to has ended")

var errCallAnswered = jsonError("the call this request belongs to is already answered")

// fastResponse is a fast-path call's response: a plain JSON answer unless
// the upstream asks the client something first, then an SSE stream
// carrying the request(s) and, last, the answer. The handler goroutine
// waits in the pipeline while requests are written, and writes the answer
// under the same lock.
type fastResponse struct {
	w        http.ResponseWriter
	mu       sync.Mutex
	upgraded bool // the response is an SSE stream
	answered bool // the answer is written: nothing more goes on w
	// contentLength is the answer's Content-Length header values, kept
	// here: one allocation less per answer than a slice of its own.
	contentLength [1]string
}

func (f *fastResponse) writeEvent(msg []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.answered {
		return errCallAnswered
	}
	if !f.upgraded {
		h := f.w.Header()
		h["Content-Type"] = contentTypeSSE
		h["Cache-Control"] = cacheControlNoCache
		f.w.WriteHeader(http.StatusOK)
		f.upgraded = true
	}
	return writeSSE(f.w, msg)
}

// answer writes the call's answer (one JSON-RPC message and a newline),
// given whole or in parts written one after the other.
func (f *fastResponse) answer(parts ...[]byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answered = true
	if f.upgraded {
		_ = writeSSE(f.w, bytes.TrimSuffix(bytes.Join(parts, nil), []byte("\n")))
		return
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	h := f.w.Header()
	h["Content-Type"] = contentTypeJSON
	f.contentLength[0] = strconv.Itoa(n)
	h["Content-Length"] = f.contentLength[:]
	f.w.WriteHeader(http.StatusOK)
	for _, p := range parts {
		if _, err := f.w.Write(p); err != nil {
			return
		}
	}
}

// sharedResponse is the response writer mcp-go gets for a call that takes
// its path, shared with the gateway's requests on the call's stream. mcp-go
// may answer with plain JSON, or turn the response into an SSE stream
// itself (a notification, its own elicitation); when the gateway's request
// comes first, the response becomes an SSE stream and a plain JSON body
// mcp-go writes afterwards goes out as its last event. mcp-go writes each
// message in one Write (an SSE event, or an encoded JSON answer), so a
// lock around each call keeps messages whole.
type sharedResponse struct {
	w      http.ResponseWriter
	header http.Header // mcp-go's own, copied to w's when it writes its header

	mu        sync.Mutex
	sent      bool // a header is on the wire
	stream    bool // ... of an event stream
	ours      bool // the gateway upgraded the response before mcp-go wrote
	plainJSON bool // mcp-go then wrote a JSON header: frame its body as an event
	finished  bool // mcp-go's handler returned
}

func newSharedResponse(w http.ResponseWriter) *sharedResponse {
	return &sharedResponse{w: w, header: http.Header{}}
}

func (s *sharedResponse) Header() http.Header { return s.header }

func (s *sharedResponse) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeHeaderLocked(code)
}

func (s *sharedResponse) writeHeaderLocked(code int) {
	if s.sent {
		if s.ours {
			mt, _, _ := mime.ParseMediaType(s.header.Get("Content-Type"))
			s.plainJSON = mt == "application/json"
		}
		return
	}
	h := s.w.Header()
	for k, v := range s.header {
		h[k] = v
	}
	mt, _, _ := mime.ParseMediaType(s.header.Get("Content-Type"))
	s.sent, s.stream = true, mt == "text/event-stream"
	s.w.WriteHeader(code)
}

func (s *sharedResponse) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sent {
		s.writeHeaderLocked(http.StatusOK)
	}
	if s.plainJSON {
		if err := writeSSE(s.w, bytes.TrimRight(b, "\n")); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return s.w.Write(b)
}

func (s *sharedResponse) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (s *sharedResponse) Unwrap() http.ResponseWriter { return s.w }

func (s *sharedResponse) writeEvent(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished || (s.sent && !s.stream) {
		return errCallAnswered
	}
	if !s.sent {
		h := s.w.Header()
		h["Content-Type"] = contentTypeSSE
		h["Cache-Control"] = cacheControlNoCache
		s.w.WriteHeader(http.StatusOK)
		s.sent, s.stream, s.ours = true, true, true
	}
	return writeSSE(s.w, msg)
}

// finish marks the end of mcp-go's handler: nothing more may be written.
func (s *sharedResponse) finish() {
	s.mu.Lock()
	s.finished = true
	s.mu.Unlock()
}

var cacheControlNoCache = []string{"no-cache"}

var contentTypeSSE = []string{"text/event-stream"}

// writeSSE writes msg as one SSE event, as mcp-go frames its own, and
// flushes it.
func writeSSE(w http.ResponseWriter, msg []byte) error {
	b := make([]byte, 0, len(msg)+24)
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	b = append(b, "\n\n"...)
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing to the call's stream: %w", err)
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// askError is a client's JSON-RPC error answer.
type askError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type askAnswer struct {
	result json.RawMessage
	err    *askError
}

// pendingAsks are the requests the gateway sent on call streams and awaits
// answers to, by session and request id. Ids are strings ("mcpr-ask-N"),
// which never meet mcp-go's own (integers), and an answer counts only from
// the session that was asked.
type pendingAsks struct {
	seq   atomic.Uint64
	count atomic.Int64 // len(m), read without the lock by fastMCP
	mu    sync.Mutex
	m     map[string]chan askAnswer // session id + "\x00" + quoted request id
}

func newPendingAsks() *pendingAsks { return &pendingAsks{m: map[string]chan askAnswer{}} }

func (p *pendingAsks) add(sessionID string) (string, chan askAnswer) {
	id := "mcpr-ask-" + strconv.FormatUint(p.seq.Add(1), 10)
	ch := make(chan askAnswer, 1)
	p.mu.Lock()
	p.m[sessionID+"\x00\""+id+"\""] = ch
	p.mu.Unlock()
	p.count.Add(1)
	return id, ch
}

func (p *pendingAsks) remove(sessionID, id string) {
	p.mu.Lock()
	if _, ok := p.m[sessionID+"\x00\""+id+"\""]; ok {
		delete(p.m, sessionID+"\x00\""+id+"\"")
		p.count.Add(-1)
	}
	p.mu.Unlock()
}

// deliver hands a client's answer (its raw id, as sent) to the ask that
// waits for it, and reports whether one did.
func (p *pendingAsks) deliver(sessionID string, rawID json.RawMessage, result, errObj json.RawMessage) bool {
	if p.count.Load() == 0 || len(rawID) == 0 || rawID[0] != '"' {
		return false
	}
	p.mu.Lock()
	ch, ok := p.m[sessionID+"\x00"+string(rawID)]
	p.mu.Unlock()
	if !ok {
		return false
	}
	var a askAnswer
	if len(errObj) > 0 && string(errObj) != "null" {
		a.err = &askError{}
		if json.Unmarshal(errObj, a.err) != nil {
			a.err = &askError{Code: mcp.INTERNAL_ERROR, Message: "malformed error answer"}
		}
	} else {
		a.result = append(json.RawMessage(nil), result...)
	}
	select {
	case ch <- a:
	default: // answered twice: the first answer counts
	}
	return true
}

// callStreamKey carries a fast-path call's stream in its context, for
// begin to attach it to the call.
type callStreamKey struct{}

func withCallStream(ctx context.Context, c *callStream) context.Context {
	return context.WithValue(ctx, callStreamKey{}, c)
}

func callStreamFrom(ctx context.Context) *callStream {
	c, _ := ctx.Value(callStreamKey{}).(*callStream)
	return c
}

// inflightKey carries the call an upstream request is made for, so that a
// request the upstream sends back under that context (an HTTP upstream's
// request on the call's own answer stream) is tied to that very call.
type inflightKey struct{}

func inflightFrom(ctx context.Context) *inflight {
	f, _ := ctx.Value(inflightKey{}).(*inflight)
	return f
}

// callValues is ctx (its deadline and cancellation) with the values of the
// context the call was served under looked up first: mcp-go finds there
// the POST stream of the call it was made for.
type callValues struct {
	context.Context
	call context.Context
}

func (c callValues) Value(key any) any {
	if v := c.call.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

func withCallValues(ctx context.Context, f *inflight) context.Context {
	if f == nil || f.callCtx == nil || f.callCtx == ctx {
		return ctx
	}
	return callValues{Context: ctx, call: f.callCtx}
}
