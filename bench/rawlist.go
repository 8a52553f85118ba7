package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
)

// The complete tools/list of the catalog bench, timed until the client
// holds every page's answer. A page of the 10,000-tool catalog is 2.7 MB
// of JSON; encoding/json takes the bench's client tens of milliseconds to
// decode it on this machine (several times what the router spends), which
// would bury the router's figure under the client's. So the timed loop
// reads each answer whole and finds only what it needs to go on — the id,
// that there is a result and no error, the next cursor — with gjson (a
// scanner that validates and skips without building values); every page
// is then decoded in full with encoding/json and checked (the tool count)
// after the timer, and that decode is timed on its own and printed beside
// the figures. Direct and routed paths go through the same code.

// rawConn is a conn that can hand back an answer's bytes undecoded.
type rawConn interface {
	callRaw(ctx context.Context, id int64, body []byte) ([]byte, error)
}

// callRaw is call without decoding: the answer's bytes (a JSON body).
func (c *httpConn) callRaw(_ context.Context, id int64, body []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	resp, err := c.post(body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, c.in.Bytes())
	}
	if isEventStream(resp.Header) {
		// Notifications queued for the session (a list_changed) come
		// first: the answer is the event whose data has this id.
		want := strconv.FormatInt(id, 10)
		for _, line := range bytes.Split(c.in.Bytes(), []byte("\n")) {
			data, ok := bytes.CutPrefix(line, []byte("data: "))
			if ok && gjson.GetBytes(data, "id").Raw == want && !gjson.GetBytes(data, "method").Exists() {
				return bytes.Clone(data), nil
			}
		}
		return nil, fmt.Errorf("no answer to id %d in the event stream: %.200s", id, c.in.Bytes())
	}
	return bytes.Clone(c.in.Bytes()), nil
}

// callRaw is call without decoding: the answer's line. The reader hands it
// over before decoding it (stdioConn.read).
func (c *stdioConn) callRaw(ctx context.Context, id int64, body []byte) ([]byte, error) {
	ch := make(chan []byte, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	if c.rawPending == nil {
		c.rawPending = map[int64]chan []byte{}
	}
	c.rawPending[id] = ch
	c.rawWaiting.Add(1)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if _, ok := c.rawPending[id]; ok {
			delete(c.rawPending, id)
			c.rawWaiting.Add(-1)
		}
		c.mu.Unlock()
	}()
	if err := c.write(body); err != nil {
		return nil, err
	}
	t := time.NewTimer(callTimeout)
	defer t.Stop()
	select {
	case line, ok := <-ch:
		if !ok {
			return nil, c.err
		}
		return line, nil
	case <-t.C:
		return nil, fmt.Errorf("no answer to id %d within %s", id, callTimeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// takeRaw hands line to a callRaw waiting for its id, if one is.
func (c *stdioConn) takeRaw(line []byte) bool {
	if c.rawWaiting.Load() == 0 {
		return false
	}
	id := gjson.GetBytes(line, "id")
	if id.Type != gjson.Number || gjson.GetBytes(line, "method").Exists() {
		return false
	}
	c.mu.Lock()
	ch, ok := c.rawPending[id.Int()]
	if ok {
		delete(c.rawPending, id.Int())
		c.rawWaiting.Add(-1)
	}
	c.mu.Unlock()
	if ok {
		ch <- bytes.Clone(line)
	}
	return ok
}

// requestRaw sends one request and returns its answer's bytes, checked as
// far as going on needs: valid JSON, this request's id, a result object
// and no error.
func (s *session) requestRaw(ctx context.Context, method string, params any) ([]byte, error) {
	rc, ok := s.c.(rawConn)
	if !ok {
		return nil, errors.New("this connection cannot return raw answers")
	}
	id := s.nextID.Add(1)
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	raw, err := rc.callRaw(ctx, id, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if !gjson.ValidBytes(raw) {
		return nil, fmt.Errorf("%s: an answer that is not JSON: %.200s", method, raw)
	}
	got := gjson.GetManyBytes(raw, "id", "error", "result")
	if got[0].Raw != strconv.FormatInt(id, 10) {
		return nil, fmt.Errorf("%s: answer with id %s to a request with id %d", method, got[0].Raw, id)
	}
	if got[1].Exists() {
		return nil, fmt.Errorf("%s: JSON-RPC error %s", method, got[1].Raw)
	}
	if !got[2].IsObject() {
		return nil, fmt.Errorf("%s: an answer without a result object: %.200s", method, raw)
	}
	return raw, nil
}

// listAllRaw runs tools/list page by page and returns each page's answer.
func listAllRaw(ctx context.Context, s *session) ([][]byte, error) {
	var pages [][]byte
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := s.requestRaw(ctx, "tools/list", params)
		if err != nil {
			return nil, err
		}
		pages = append(pages, raw)
		if cursor = gjson.GetBytes(raw, "result.nextCursor").String(); cursor == "" {
			return pages, nil
		}
		if len(pages) >= 1000 {
			return nil, errors.New("tools/list: more than 1000 pages")
		}
	}
}

// decodePages decodes answers of listAllRaw in full with encoding/json,
// as the bench's client decodes every answer, and returns the tools.
func decodePages(pages [][]byte) ([]json.RawMessage, error) {
	var all []json.RawMessage
	for _, p := range pages {
		var msg struct {
			Result *struct {
				Tools      []json.RawMessage `json:"tools"`
				NextCursor string            `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(p, &msg); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if msg.Result == nil {
			return nil, errors.New("tools/list: an answer without a result")
		}
		all = append(all, msg.Result.Tools...)
	}
	return all, nil
}

// serveStaticList serves fixed tools/list answers over streamable HTTP,
// the floor of a complete list: each page's result bytes held ready (by
// the cursor that asks for it, "" for the first), the request's id put in
// front, nothing else done — no session, no catalog, no encoding. It
// answers initialize with the least a client accepts and notifications
// with 202. Returns its /mcp URL and a stop function.
func serveStaticList(results map[string][]byte) (string, func(), error) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var res []byte
		switch msg.Method {
		case "initialize":
			res = []byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"static","version":"1"}}`)
		case "tools/list":
			var ok bool
			if res, ok = results[msg.Params.Cursor]; !ok {
				http.Error(w, "unknown cursor", http.StatusBadRequest)
				return
			}
		default:
			w.WriteHeader(http.StatusAccepted)
			return
		}
		head := append(append([]byte(`{"jsonrpc":"2.0","id":`), msg.ID...), `,"result":`...)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "static")
		w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(res)+2))
		_, _ = w.Write(head)
		_, _ = w.Write(res)
		_, _ = w.Write([]byte("}\n"))
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(l) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}
	return "http://" + l.Addr().String() + "/mcp", stop, nil
}

// staticPages are the results of a complete list's pages by the cursor
// that asks for each.
func staticPages(pages [][]byte) map[string][]byte {
	out := map[string][]byte{}
	cursor := ""
	for _, p := range pages {
		out[cursor] = []byte(gjson.GetBytes(p, "result").Raw)
		cursor = gjson.GetBytes(p, "result.nextCursor").String()
	}
	return out
}
