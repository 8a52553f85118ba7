package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"golang.org/x/net/http/httpguts"
)

// The server-sent events of a streamTransport: an answer's event stream and
// the GET stream, read on the goroutine that waits for them.

// cursor is what resuming a stream needs: the last event id dispatched and
// the reconnection time the server asked for.
type cursor struct {
	lastID   string
	retry    time.Duration
	hasRetry bool
}

// readEvents reads the events of resp's body and dispatches each message.
// With key set it returns at the answer with that id, leaving the rest of
// the stream to be read before the connection is reused; otherwise (the
// GET stream) it reads to the end. A nil answer and nil error: the stream
// ended first.
func (t *streamTransport) readEvents(ctx context.Context, c *httpConn, resp *http.Response, key string, cur *cursor) (*serverMessage, error) {
	// A chunked body (the usual) is decoded by the connection's own
	// reader, whose end can be read later, without holding up the answer.
	var body io.Reader = resp.Body
	chunked := len(resp.TransferEncoding) == 1 && resp.TransferEncoding[0] == "chunked"
	if chunked {
		c.chunks.reset(c.br)
		body = &c.chunks
	}
	if c.ev == nil {
		c.ev = bufio.NewReaderSize(body, 16<<10)
	} else {
		c.ev.Reset(body)
	}
	data := c.data[:0]
	defer func() { c.data = keepSmall(data) }()
	var id string
	hasID, hasData := false, false
	var long []byte
	for {
		line, err := readLine(c.ev, &long, t.maxMessage)
		if err != nil {
			var big *MessageTooLargeError
			if errors.As(err, &big) {
				c.broken = true
				return nil, err
			}
			if err == io.EOF {
				// An unfinished event at the end is dropped, as the SSE
				// spec says.
				return nil, nil
			}
			c.broken = true
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if t.isClosed() {
				return nil, errTransportClosed
			}
			return nil, fmt.Errorf("reading the event stream: %w", err)
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'})
		if len(line) == 0 {
			// The end of an event.
			if hasID && cur != nil {
				cur.lastID = id
			}
			hasID = false
			if !hasData {
				continue
			}
			hasData = false
			if a := t.dispatch(ctx, data, key); a != nil {
				if chunked {
					c.rest = true
				} else {
					c.broken = true // its end is not known to come
				}
				return a, nil
			}
			data = data[:0]
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if t.maxMessage > 0 && len(data)+len(value) > t.maxMessage {
				c.broken = true
				return nil, tooLarge(int64(len(data)+len(value)), t.maxMessage, data)
			}
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "id":
			// The SSE spec ignores an id with a NUL; one that could not go
			// back in a Last-Event-ID header is ignored too.
			if v := string(value); httpguts.ValidHeaderFieldValue(v) {
				id, hasID = v, true
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil && cur != nil && len(value) > 0 && value[0] != '+' {
				cur.retry, cur.hasRetry = time.Duration(ms)*time.Millisecond, true
			}
		}
		// "event" names the type; every MCP message is dispatched alike.
		// A line starting with ':' is a comment.
	}
}

// dispatch handles one message from the server: the answer to key is
// returned; the server's own notifications and requests go to the
// handlers, a request under ctx — the call's, for a request on the call's
// stream, as mcp-go does.
func (t *streamTransport) dispatch(ctx context.Context, msg []byte, key string) *serverMessage {
	var m serverMessage
	if json.Unmarshal(msg, &m) != nil {
		return nil
	}
	if t.fromServer(&m, msg, func(req transport.JSONRPCRequest) { t.serve(ctx, req) }) || key == "" || string(m.ID) != key {
		return nil
	}
	return &m
}

// serve answers one request the server sent (sampling, elicitation,
// roots, ping) and posts the answer.
func (t *streamTransport) serve(ctx context.Context, req transport.JSONRPCRequest) {
	b := answerRequest(ctx, t.requestHandler(), req)
	if b == nil {
		return
	}
	// The answer goes out even when the call that brought the request has
	// ended meanwhile.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_ = t.post(pctx, b, "the answer to "+req.Method)
}
