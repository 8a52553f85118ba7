package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// pipeTransport is the JSON-RPC transport of a stdio upstream: one message
// per line on the process's stdin and stdout. It does what mcp-go's
// transport.NewIO does, but reads each line once: that transport parses
// every answer two to four times (its id alone twice), which was a tenth of
// the router's CPU under load. The answer's result stays raw bytes.
type pipeTransport struct {
	r *bufio.Reader
	// max caps one line from the server (0: none); onDropped hears of a
	// line dropped for it.
	max       int
	onDropped func(error)

	in stdinLines // the server's stdin

	mu      sync.Mutex
	pending map[string]waiting // id key → waiting request

	serverHandlers

	ctx       context.Context // for the handlers of the server's requests
	done      chan struct{}   // closed when the reader stops or Close is called
	closeOnce sync.Once
}

var (
	_ transport.Interface              = (*pipeTransport)(nil)
	_ transport.BidirectionalInterface = (*pipeTransport)(nil)
)

var errPipeClosed = errors.New("transport closed")

// waiting is a request waiting for its answer.
type waiting struct {
	id mcp.RequestId // the request's id, which the answer carries as key
	ch chan *transport.JSONRPCResponse
}

func newPipeTransport(stdout io.Reader, stdin io.Writer) *pipeTransport {
	return &pipeTransport{r: bufio.NewReaderSize(stdout, 64<<10), in: stdinLines{w: stdin},
		pending: map[string]waiting{}, done: make(chan struct{})}
}

func (p *pipeTransport) Start(ctx context.Context) error {
	p.ctx = ctx
	go p.read()
	return nil
}

func (p *pipeTransport) GetSessionId() string { return "" }

// Close stops waiting requests; the process's pipes are closed by whoever
// stops the process.
func (p *pipeTransport) Close() error {
	p.closeOnce.Do(func() { close(p.done) })
	return nil
}

// idKey is the key of a request id, equal for a request's id and its
// answer's: the id's JSON text. The router's own ids ("mcpr-N") and
// integers are written without encoding/json.
func idKey(id mcp.RequestId) (string, error) {
	switch v := id.Value().(type) {
	case string:
		if plainJSONString(v) {
			return `"` + v + `"`, nil
		}
	case int64:
		return strconv.FormatInt(v, 10), nil
	case int:
		return strconv.Itoa(v), nil
	}
	b, err := json.Marshal(id)
	return string(b), err
}

// plainJSONString: s is written as is between quotes by encoding/json
// (printable ASCII it does not escape).
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

func (p *pipeTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return p.sendRequestWithin(ctx, req, "", 0)
}

// sendRequestWithin is SendRequest that also gives up after within (0:
// never) with timeoutCause(within), as a context with that timeout would,
// on a pooled timer. key is idKey(req.ID), or "" to have it worked out.
func (p *pipeTransport) sendRequestWithin(ctx context.Context, req transport.JSONRPCRequest, key string, within time.Duration) (*transport.JSONRPCResponse, error) {
	var expired <-chan time.Time
	if within > 0 {
		t := startExpiry(within)
		defer stopExpiry(t)
		expired = t.C
	}
	select {
	case <-p.done:
		return nil, p.lost(req.Method)
	default:
	}
	if key == "" {
		var err error
		if key, err = idKey(req.ID); err != nil {
			return nil, err
		}
	}
	line := lineBuffers.Get().(*bytes.Buffer)
	line.Reset()
	defer func() {
		if line.Cap() <= maxPooledLine {
			lineBuffers.Put(line)
		}
	}()
	if err := writeRequestLine(line, key, req.Method, req.Params); err != nil {
		return nil, err
	}
	ch := answerChans.get()
	p.mu.Lock()
	p.pending[key] = waiting{id: req.ID, ch: ch}
	p.mu.Unlock()
	forget := func() {
		p.mu.Lock()
		delete(p.pending, key)
		p.mu.Unlock()
	}
	if err := p.write(line.Bytes()); err != nil {
		forget()
		return nil, pipeLost(req.Method, err)
	}
	// ch goes back to the pool only once its one answer is received:
	// dispatch (or refuse) takes the request from pending and sends once,
	// so no one else holds it then. Given up on, it may still get its
	// answer, and is left to the collector.
	select {
	case resp := <-ch:
		answerChans.put(ch)
		return resp, nil
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	case <-expired:
		forget()
		return nil, timeoutCause(within)
	case <-p.done:
		select {
		case resp := <-ch: // answered just before the pipe ended
			answerChans.put(ch)
			return resp, nil
		default:
		}
		forget()
		return nil, p.lost(req.Method)
	}
}

// lost is the error of a request on a transport that has ended: the
// failed write on stdin that ended it, if that is what did.
func (p *pipeTransport) lost(method string) error {
	if err := p.in.failure(); err != nil {
		return pipeLost(method, err)
	}
	return pipeLost(method, errPipeClosed)
}

// pipeLost is a request the pipe could not carry or answer: the server's
// stdin refused the line (its reader is gone: EPIPE) or its stdout ended.
// Either is the end of the connection, so it matches ErrConnectionLost
// (and reaches the client as "server down") even when the process's exit
// is not yet known: the connection waits only so long for it (awaitExit),
// and on a loaded machine the bare error went out as a bad response (then
// -32003, which go-sdk clients read as their own connection closing).
func pipeLost(method string, err error) error {
	return &lostError{method: method, reason: "the server's pipe: " + err.Error()}
}

// requestLine is the request as one line, its id already encoded.
func requestLine(id, method string, params any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeRequestLine(&b, id, method, params); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeRequestLine writes requestLine's line to b.
func writeRequestLine(b *bytes.Buffer, id, method string, params any) error {
	if raw, ok := params.(json.RawMessage); ok {
		b.Grow(48 + len(id) + len(method) + len(raw)) // one allocation
	}
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.WriteString(id)
	b.WriteString(`,"method":`)
	b.WriteString(strconv.Quote(method)) // MCP method names are plain ASCII
	if raw, ok := params.(json.RawMessage); ok {
		// Already JSON (the fast path's params): compacted, which also
		// checks it and keeps the message on one line.
		b.WriteString(`,"params":`)
		if compactJSON(raw) {
			b.Write(raw) // what json.Compact would write, found faster
		} else if err := json.Compact(b, raw); err != nil {
			return err
		}
	} else if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return err
		}
		if string(raw) != "null" {
			b.WriteString(`,"params":`)
			b.Write(raw)
		}
	}
	b.WriteString("}\n")
	return nil
}

// lineBuffers hold request lines while they are written: the pipe's
// writer keeps nothing of a line once it returns.
var lineBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledLine: a buffer grown past it (a large request) is not kept.
const maxPooledLine = 64 << 10

func (p *pipeTransport) SendNotification(_ context.Context, n mcp.JSONRPCNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return p.write(append(b, '\n'))
}

func (p *pipeTransport) write(line []byte) error {
	return p.in.write(line, func() { _ = p.Close() })
}

// read dispatches each line the server writes: answers to the waiting
// requests, notifications to the handler, the server's own requests to the
// request handler (each in its own goroutine: it may take a while, and its
// answer goes back on stdin).
func (p *pipeTransport) read() {
	defer p.Close()
	var long []byte
	for {
		// The line is only read here: dispatch copies what it keeps.
		line, err := readLine(p.r, &long, p.max)
		if err != nil {
			// big is declared here: errors.As moves it to the heap,
			// which for every line read was an allocation per answer.
			var big *MessageTooLargeError
			if errors.As(err, &big) {
				p.refuse(big)
				continue
			}
		}
		if len(bytes.TrimSpace(line)) > 0 {
			p.dispatch(line)
		}
		if err != nil {
			return
		}
	}
}

// refuse answers the request an over-long answer was for (found by the id
// at its start) with the cap's error, rather than let it wait for its
// timeout; a message whose id is not found is only reported.
func (p *pipeTransport) refuse(big *MessageTooLargeError) {
	if p.onDropped != nil {
		p.onDropped(big)
	}
	id, ok := idOfPrefix(big.Prefix)
	if !ok {
		return
	}
	p.mu.Lock()
	w, ok := p.pending[string(id)]
	delete(p.pending, string(id))
	p.mu.Unlock()
	if ok {
		w.ch <- &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: w.id,
			Error: &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: big.Error()}}
	}
}

func (p *pipeTransport) dispatch(line []byte) {
	var m serverMessage // on the stack: nothing below keeps &m
	if !scanServerMessage(line, &m) {
		// What the scanner leaves to encoding/json; m.ID and m.Result
		// are then copies (copied again below: this is the rare path).
		decoded := new(serverMessage)
		if json.Unmarshal(line, decoded) != nil {
			return
		}
		m = *decoded
	}
	// Only a message with a method is the server's own (fromServer);
	// asking first spares an answer the method value p.serve.
	if (m.Method != "" && p.fromServer(&m, line, p.serve)) || !m.hasID() {
		return
	}
	p.mu.Lock()
	w, ok := p.pending[string(m.ID)]
	delete(p.pending, string(m.ID))
	p.mu.Unlock()
	if !ok {
		return
	}
	// The result outlives line, which the next read reuses.
	var result json.RawMessage
	if m.Result != nil {
		result = append(make(json.RawMessage, 0, len(m.Result)), m.Result...)
	}
	w.ch <- &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: w.id, Result: result, Error: m.Error}
}

// serve answers one request the server sent (sampling, elicitation, roots,
// ping), under the connection's context.
func (p *pipeTransport) serve(req transport.JSONRPCRequest) {
	if b := answerRequest(p.ctx, p.requestHandler(), req); b != nil {
		_ = p.write(append(b, '\n'))
	}
}

// expiryTimers are the stopped timers of sendRequestWithin: a request's
// timeout costs no allocation.
var expiryTimers sync.Pool // *time.Timer

func startExpiry(d time.Duration) *time.Timer {
	if t, ok := expiryTimers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

func stopExpiry(t *time.Timer) {
	if !t.Stop() {
		// Fired and not received: drain it (since Go 1.23 Stop already
		// discards it, unless GODEBUG asynctimerchan=1).
		select {
		case <-t.C:
		default:
		}
	}
	expiryTimers.Put(t)
}

// answerChans are the empty answer channels of requests that got their
// answer (two allocations each otherwise).
var answerChans chanPool

type chanPool struct{ sync.Pool }

func (c *chanPool) get() chan *transport.JSONRPCResponse {
	if ch, ok := c.Get().(chan *transport.JSONRPCResponse); ok {
		return ch
	}
	return make(chan *transport.JSONRPCResponse, 1)
}

func (c *chanPool) put(ch chan *transport.JSONRPCResponse) { c.Put(ch) }
