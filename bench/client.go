package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The bench's MCP client. Every path — direct or through the router, stdio
// or HTTP — is driven by this one client, so no path pays for client-side
// work another skips. It is deliberately lean, so that on a 2-core machine
// the client does not starve the router and the upstream it measures
// (mcp-go's client transports cost about 75–85 µs of CPU per call):
//
//   - requests are built by appending the id into a prebuilt byte template
//     (no JSON encoding per call) in a buffer the call reuses;
//   - HTTP: one keep-alive connection per session (its own http.Transport,
//     as a separate client process would have), one http.Request per
//     session reused call after call (after its body is closed, as
//     net/http allows), headers prebuilt in canonical form, the answer read
//     into a reused buffer; both application/json and text/event-stream
//     answers are read (every SSE event is decoded until the answer to this
//     call's id);
//   - stdio: one writer lock and one reader goroutine per pipe that decodes
//     each line once and hands the answer to the waiting call by id;
//   - every answer is decoded for what checking it needs — its id, its
//     error member, and its result as raw bytes — and checked: the id must
//     be the call's, there must be a result and no error, the result must
//     not be a tool error (isError) and must hold the echoed message.
//
// Nothing here skips work the server has to do: each call is a complete
// JSON-RPC request on a real session, answered in full.

const callTimeout = 30 * time.Second

// reply is the part of a JSON-RPC message the client decodes.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// reset empties r for decoding into it again, keeping its buffers.
func (r *reply) reset() {
	r.ID, r.Method, r.Result, r.Error = r.ID[:0], "", r.Result[:0], nil
}

var replyPool = sync.Pool{New: func() any { return new(reply) }}

func getReply() *reply { r := replyPool.Get().(*reply); r.reset(); return r }

// conn is one MCP connection: a request/answer exchange and notifications.
type conn interface {
	// call sends body, a JSON-RPC request with id, and returns the answer
	// with that id (the caller puts it back with replyPool.Put).
	call(ctx context.Context, id int64, body []byte) (*reply, error)
	// notify sends body, a JSON-RPC notification.
	notify(ctx context.Context, body []byte) error
	close()
}

// ---- HTTP -------------------------------------------------------------------

// httpConn is one streamable HTTP session on one kept-alive HTTP/1.1
// connection, one call at a time (separate sessions have separate
// connections, as separate client processes would). Each request — its
// headers prebuilt, the body appended — goes out in one write; the answer
// is parsed by net/http's own parser (http.ReadResponse: status line,
// headers, Content-Length or chunked body) and read into a reused buffer.
// net/http's Transport would add two goroutine hand-offs per request (its
// connection's read and write loops), which on 2 cores cost the client
// more than everything else it does.
type httpConn struct {
	mu      sync.Mutex
	ctx     context.Context
	addr    string // host:port
	url     *url.URL
	headers []byte // the POST's header lines after the request line, without Content-Length
	token   string
	sid     string
	version string

	nc       net.Conn
	br       *bufio.Reader
	lastUsed time.Time
	stop     func() bool // stops closing nc when ctx ends

	wbuf  []byte
	in    bytes.Buffer // the answer's body
	idbuf []byte
}

// idleRedial: a connection idle longer than this is replaced before use
// (server-everything's Node server closes idle connections after 5 s).
const idleRedial = 2 * time.Second

func newHTTPConn(ctx context.Context, rawURL, token string) (*httpConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("%s: the bench client speaks plain http", rawURL)
	}
	c := &httpConn{ctx: ctx, addr: u.Host, url: u, token: token}
	c.setHeaders()
	return c, nil
}

// setHeaders builds the header lines every POST carries.
func (c *httpConn) setHeaders() {
	h := "POST " + c.url.RequestURI() + " HTTP/1.1\r\nHost: " + c.url.Host +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	if c.token != "" {
		h += "Authorization: Bearer " + c.token + "\r\n"
	}
	if c.sid != "" {
		h += "Mcp-Session-Id: " + c.sid + "\r\n"
	}
	if c.version != "" {
		h += "Mcp-Protocol-Version: " + c.version + "\r\n"
	}
	c.headers = []byte(h)
}

// dial opens the connection if there is none or it idled too long.
func (c *httpConn) dial() error {
	if c.nc != nil && time.Since(c.lastUsed) < idleRedial {
		return nil
	}
	c.closeConn()
	nc, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(c.ctx, "tcp", c.addr)
	if err != nil {
		return err
	}
	c.nc, c.br = nc, bufio.NewReaderSize(nc, 16<<10)
	c.stop = context.AfterFunc(c.ctx, func() { nc.Close() })
	return nil
}

func (c *httpConn) closeConn() {
	if c.nc != nil {
		c.stop()
		c.nc.Close()
		c.nc = nil
	}
}

// roundTrip sends one request with body and reads the whole answer into
// c.in; the caller holds mu.
func (c *httpConn) roundTrip(method string, body []byte) (*http.Response, error) {
	if err := c.dial(); err != nil {
		return nil, err
	}
	b := c.wbuf[:0]
	if method == http.MethodPost {
		b = append(b, c.headers...)
	} else {
		b = append(b, method+" "+c.url.RequestURI()+" HTTP/1.1\r\n"...)
		b = append(b, c.headers[bytes.IndexByte(c.headers, '\n')+1:]...)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	c.wbuf = b
	_ = c.nc.SetDeadline(time.Now().Add(callTimeout))
	if _, err := c.nc.Write(b); err != nil {
		c.closeConn()
		return nil, err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.closeConn()
		return nil, err
	}
	c.in.Reset()
	_, err = c.in.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil || resp.Close {
		c.closeConn()
	}
	c.lastUsed = time.Now()
	return resp, err
}

func (c *httpConn) post(body []byte) (*http.Response, error) {
	return c.roundTrip(http.MethodPost, body)
}

func (c *httpConn) call(_ context.Context, id int64, body []byte) (*reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	resp, err := c.post(body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, c.in.Bytes())
	}
	if c.sid == "" {
		// The answer to initialize names the session.
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			c.sid = sid
			c.setHeaders()
		}
	}
	c.idbuf = strconv.AppendInt(c.idbuf[:0], id, 10)
	r := getReply()
	if isEventStream(resp.Header) {
		if findEvent(c.in.Bytes(), c.idbuf, r) {
			return r, nil
		}
		replyPool.Put(r)
		return nil, fmt.Errorf("no answer to id %d in the event stream: %.200s", id, c.in.Bytes())
	}
	if err := json.Unmarshal(c.in.Bytes(), r); err != nil {
		replyPool.Put(r)
		return nil, fmt.Errorf("answer: %w: %.200s", err, c.in.Bytes())
	}
	if !bytes.Equal(r.ID, c.idbuf) {
		replyPool.Put(r)
		return nil, fmt.Errorf("answer with id %s to a request with id %d", r.ID, id)
	}
	return r, nil
}

func isEventStream(h http.Header) bool {
	ct := h["Content-Type"]
	return len(ct) > 0 && len(ct[0]) >= 17 && ct[0][:17] == "text/event-stream"
}

// findEvent decodes the data of each server-sent event in stream into r
// until one is the answer to id.
func findEvent(stream, id []byte, r *reply) bool {
	var data []byte
	flush := func() bool {
		if len(data) == 0 {
			return false
		}
		r.reset()
		ok := json.Unmarshal(data, r) == nil && r.Method == "" && bytes.Equal(r.ID, id)
		data = data[:0]
		return ok
	}
	for len(stream) > 0 {
		line := stream
		if i := bytes.IndexByte(stream, '\n'); i >= 0 {
			line, stream = stream[:i], stream[i+1:]
		} else {
			stream = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		switch {
		case len(line) == 0:
			if flush() {
				return true
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[5:], []byte{' '})
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
	}
	return flush()
}

func (c *httpConn) notify(_ context.Context, body []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	resp, err := c.post(body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("notification: HTTP %d: %.200s", resp.StatusCode, c.in.Bytes())
	}
	return nil
}

// initialized takes the protocol version into the headers.
func (c *httpConn) initialized(version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version = version
	c.setHeaders()
}

// close ends the session (DELETE) and the connection.
func (c *httpConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sid != "" && c.ctx.Err() == nil {
		_, _ = c.roundTrip(http.MethodDelete, nil)
	}
	c.closeConn()
}

// ---- stdio ------------------------------------------------------------------

// stdioConn is a server on a stdio pipe; calls may be concurrent.
type stdioConn struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	wmu   sync.Mutex
	wbuf  []byte

	mu      sync.Mutex
	pending map[int64]chan *reply
	err     error // set when the reader stopped
	done    chan struct{}
	// callRaw's waiters (rawlist.go), by id; rawWaiting counts them so
	// the reader looks for them only while there are any.
	rawPending map[int64]chan []byte
	rawWaiting atomic.Int64
}

func newStdioConn(cmd *exec.Cmd) (*stdioConn, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &stdioConn{cmd: cmd, stdin: stdin, pending: map[int64]chan *reply{}, done: make(chan struct{})}
	go c.read(stdout)
	return c, nil
}

var chanPool = sync.Pool{New: func() any { return make(chan *reply, 1) }}

// read decodes each line once and hands answers to their callers.
func (c *stdioConn) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	var err error
	for {
		var line []byte
		line, err = br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil {
			break
		}
		if c.takeRaw(line) {
			continue
		}
		rep := getReply()
		if json.Unmarshal(line, rep) != nil || rep.Method != "" || len(rep.ID) == 0 {
			replyPool.Put(rep) // a notification, a request to the client, or noise
			continue
		}
		id, perr := strconv.ParseInt(string(rep.ID), 10, 64)
		c.mu.Lock()
		ch, ok := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if perr != nil || !ok {
			replyPool.Put(rep)
			continue
		}
		ch <- rep
	}
	c.mu.Lock()
	c.err = fmt.Errorf("the server's output ended: %v", err)
	for id, ch := range c.pending {
		delete(c.pending, id)
		close(ch)
	}
	for id, ch := range c.rawPending {
		delete(c.rawPending, id)
		close(ch)
	}
	c.mu.Unlock()
	close(c.done)
}

func (c *stdioConn) write(body []byte) error {
	c.wmu.Lock()
	c.wbuf = append(append(c.wbuf[:0], body...), '\n')
	_, err := c.stdin.Write(c.wbuf)
	c.wmu.Unlock()
	return err
}

func (c *stdioConn) call(ctx context.Context, id int64, body []byte) (*reply, error) {
	ch := chanPool.Get().(chan *reply)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		chanPool.Put(ch)
		return nil, c.err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(body); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, err
	}
	t := time.NewTimer(callTimeout)
	defer t.Stop()
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, c.err
		}
		chanPool.Put(ch)
		return r, nil
	case <-t.C:
		return nil, fmt.Errorf("no answer to id %d within %s", id, callTimeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *stdioConn) notify(_ context.Context, body []byte) error { return c.write(body) }

// close closes stdin, as an MCP client ends a stdio session, and ends the
// process if it does not exit.
func (c *stdioConn) close() {
	_ = c.stdin.Close()
	exited := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// ---- mcp-go's client, for reference ----------------------------------------

// mcpgoConn drives a session with mcp-go's streamable HTTP client transport
// (the one the router itself uses towards HTTP upstreams). Only the
// reference path `direct HTTP, mcp-go client` uses it: the difference to
// `direct HTTP` is what that client costs per call, in the same run.
type mcpgoConn struct{ tr *transport.StreamableHTTP }

func newMcpgoConn(ctx context.Context, rawURL string) (*mcpgoConn, error) {
	tr, err := transport.NewStreamableHTTP(rawURL)
	if err != nil {
		return nil, err
	}
	if err := tr.Start(ctx); err != nil {
		return nil, err
	}
	return &mcpgoConn{tr: tr}, nil
}

func (c *mcpgoConn) call(ctx context.Context, id int64, body []byte) (*reply, error) {
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := c.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: req.Method, Params: req.Params})
	if err != nil {
		return nil, err
	}
	r := getReply()
	r.ID = strconv.AppendInt(r.ID, id, 10)
	r.Result = append(r.Result, resp.Result...)
	if resp.Error != nil {
		r.Error = &rpcError{Code: resp.Error.Code, Message: resp.Error.Message}
	}
	if v, ok := resp.ID.Value().(int64); !ok || v != id {
		replyPool.Put(r)
		return nil, fmt.Errorf("answer with id %v to a request with id %d", resp.ID, id)
	}
	return r, nil
}

func (c *mcpgoConn) notify(ctx context.Context, body []byte) error {
	var n mcp.JSONRPCNotification
	if err := json.Unmarshal(body, &n); err != nil {
		return err
	}
	return c.tr.SendNotification(ctx, n)
}

func (c *mcpgoConn) close() { _ = c.tr.Close() }
