package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Reading the answer to a request: a JSON body, or an event stream (with
// resumption when the server ends it before the answer).

// readJSONAnswer reads an application/json answer.
func (t *streamTransport) readJSONAnswer(c *httpConn, resp *http.Response, key string, id mcp.RequestId) (*transport.JSONRPCResponse, error) {
	buf := c.data[:0]
	if resp.ContentLength > 0 && resp.ContentLength < 64<<20 {
		buf = growTo(buf, int(resp.ContentLength))
	}
	b := bytes.NewBuffer(buf)
	var from io.Reader = resp.Body
	if t.maxMessage > 0 {
		from = io.LimitReader(resp.Body, int64(t.maxMessage)+1)
	}
	if _, err := b.ReadFrom(from); err != nil {
		c.broken = true
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	body := b.Bytes()
	if t.maxMessage > 0 && len(body) > t.maxMessage {
		c.broken = true // the rest of the body is not read
		c.data = keepSmall(body)
		return nil, tooLarge(int64(len(body)), t.maxMessage, body)
	}
	defer func() { c.data = keepSmall(body) }()
	var a serverMessage
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("the answer is not JSON-RPC: %w", err)
	}
	if string(a.ID) != key {
		return nil, fmt.Errorf("an answer with id %s to the request with id %s", a.ID, key)
	}
	return &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: a.Result, Error: a.Error}, nil
}

// keepSmall is b emptied for the connection's next answer, or nil when it
// grew past 1 MiB: an idle connection does not hold on to a large answer's
// buffer.
func keepSmall(b []byte) []byte {
	if cap(b) > 1<<20 {
		return nil
	}
	return b[:0]
}

func growTo(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, 0, n)
	}
	return b[:0]
}

// readStreamAnswer reads an event stream until the answer to key, handing
// everything else to the handlers. A stream that ends before the answer,
// after an event id, is resumed (SEP-1699).
func (t *streamTransport) readStreamAnswer(ctx context.Context, c *httpConn, resp *http.Response, key string, id mcp.RequestId) (*transport.JSONRPCResponse, error) {
	var cur cursor
	a, err := t.readEvents(ctx, c, resp, key, &cur)
	for a == nil && err == nil && cur.lastID != "" {
		// The server ended the stream before the answer and asks to be
		// polled: reconnect with GET and Last-Event-ID.
		a, err = t.resume(ctx, key, &cur)
	}
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, fmt.Errorf("the server ended the event stream without an answer (id %s)", key)
	}
	return &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: a.Result, Error: a.Error}, nil
}

// resume waits the time the server asked for and reads the request's
// stream again from after cur.lastID.
func (t *streamTransport) resume(ctx context.Context, key string, cur *cursor) (*serverMessage, error) {
	delay := time.Second
	if cur.hasRetry {
		delay = max(cur.retry, 10*time.Millisecond)
	}
	timer := time.NewTimer(delay)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
		return nil, ctx.Err()
	case <-t.done:
		timer.Stop()
		return nil, errTransportClosed
	}
	c, resp, _, err := t.exchange(ctx, http.MethodGet, nil, "Last-Event-ID: "+cur.lastID+"\r\n", false)
	if err != nil {
		return nil, err
	}
	defer func() { t.release(c) }()
	if resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream" {
		c.broken = true
		return nil, fmt.Errorf("resuming the event stream: HTTP %d, %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	prev := cur.lastID
	cur.lastID = ""
	a, err := t.readEvents(ctx, c, resp, key, cur)
	if a == nil && err == nil && cur.lastID == "" {
		cur.lastID = prev
	}
	return a, err
}
