package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
)

// Header names of the streamable HTTP transport.
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

// errNoResponse: the router closed the response stream before answering,
// which is what a router that is shutting down does.
var errNoResponse = errors.New("the router closed the stream before answering")

// reply is what the router answered to one POST.
type reply struct {
	status int
	header http.Header
	body   []byte          // the body of a non-2xx answer
	msg    json.RawMessage // the JSON-RPC response to the posted request, if any
}

func (b *bridge) newRequest(ctx context.Context, method string, s *session, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	for k, vs := range b.o.Header {
		req.Header[k] = slices.Clone(vs)
	}
	if b.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+b.o.Token)
	}
	version := ""
	if s != nil {
		if s.id != "" {
			req.Header.Set(headerSession, s.id)
		}
		version = s.version
	}
	if body != nil {
		// A request of the 2026-07-28 revision states its version in _meta,
		// and the header must agree with it.
		if v := protocolVersionMeta(body); v != "" {
			version = v
		}
	}
	if version != "" {
		req.Header.Set(headerProtocol, version)
	}
	return req, nil
}

// post sends one message to the router. For a 200 answer it reads the JSON
// body or the SSE stream: the response to msg is returned in reply.msg,
// every other message on the stream (progress, logging, requests from the
// router) goes to b.fromRouter as it arrives, so it reaches the client
// before the response. An error means the router could not be reached or
// the stream broke before the response came.
func (b *bridge) post(ctx context.Context, s *session, msg []byte) (reply, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := b.newRequest(ctx, http.MethodPost, s, msg)
	if err != nil {
		return reply{}, err
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode, header: resp.Header}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		r.body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return r, nil
	}
	if resp.StatusCode != http.StatusOK {
		return r, nil // 202 Accepted: a notification or response was taken
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "text/event-stream":
		err := readSSE(resp.Body, func(data []byte) bool {
			env, perr := parse(data)
			if perr != nil {
				b.log.Debugf("ignoring a malformed message from the router: %v", perr)
				return true
			}
			if env.isResponse() {
				r.msg = append(json.RawMessage(nil), data...)
				return false
			}
			b.fromRouter(s, env, data)
			return true
		})
		if r.msg == nil {
			if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = errNoResponse
			}
			return r, err
		}
		return r, nil
	default: // application/json, or a router that forgot to say
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return r, err
		}
		if len(bytes.TrimSpace(body)) == 0 {
			return r, nil
		}
		if _, perr := parse(body); perr != nil {
			r.body = body
			return r, nil
		}
		r.msg = body
		return r, nil
	}
}

// readSSE calls fn with the data of each event until fn returns false or
// the stream ends; it returns the read error (io.EOF at a clean end).
func readSSE(body io.Reader, fn func(data []byte) bool) error {
	br := bufio.NewReaderSize(body, 64<<10)
	var data bytes.Buffer
	hasData := false
	for {
		line, err := br.ReadString('\n')
		if err != nil && line == "" {
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if hasData {
				if !fn(append([]byte(nil), data.Bytes()...)) {
					return nil
				}
			}
			data.Reset()
			hasData = false
		case strings.HasPrefix(line, ":"):
			// a comment (keep-alive)
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			if field == "data" {
				if hasData {
					data.WriteByte('\n')
				}
				data.WriteString(value)
				hasData = true
			}
		}
		if err != nil {
			return err
		}
	}
}

// listen holds the standalone GET stream of session s open, passing what
// arrives on it to the client: list_changed notifications and requests the
// router starts on its own. It ends when ctx ends, when the router has no
// such stream, or when it finds the router or the session gone (which
// starts a reconnect).
func (b *bridge) listen(ctx context.Context, s *session) {
	delay := b.o.BackoffBase
	for ctx.Err() == nil {
		req, err := b.newRequest(ctx, http.MethodGet, s, nil)
		if err != nil {
			return
		}
		resp, err := b.hc.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				b.lost(s, err)
			}
			return
		}
		switch resp.StatusCode {
		case http.StatusOK:
			delay = b.o.BackoffBase
			_ = readSSE(resp.Body, func(data []byte) bool {
				env, perr := parse(data)
				if perr != nil {
					b.log.Debugf("ignoring a malformed message from the router: %v", perr)
					return true
				}
				if env.isResponse() {
					b.log.Debugf("ignoring a response on the listening stream: %s", clip(data))
					return true
				}
				b.fromRouter(s, env, data)
				return true
			})
			resp.Body.Close()
		case http.StatusNotFound:
			resp.Body.Close()
			b.lost(s, fmt.Errorf("the router no longer knows session %s (HTTP 404)", s.id))
			return
		default:
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
			resp.Body.Close()
			b.log.Debugf("no listening stream (HTTP %d): %s", resp.StatusCode, clip(body))
			return
		}
		// The stream ended: the router may be going away. Open it again; if
		// the router is gone, that attempt starts the reconnect.
		if !sleep(ctx, delay) {
			return
		}
		delay = min(2*delay, b.o.BackoffMax)
	}
}

// deleteSession ends session s on the router (best effort).
func (b *bridge) deleteSession(ctx context.Context, s *session) {
	if s == nil || s.id == "" {
		return
	}
	req, err := b.newRequest(ctx, http.MethodDelete, s, nil)
	if err != nil {
		return
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return
	}
	resp.Body.Close()
}
