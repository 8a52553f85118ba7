package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// modernRequest posts one JSON-RPC request of a 2026-07-28 client (no
// session; revision, identity and capabilities in _meta, extra _meta keys
// from meta) and returns the response's content type and its messages: the
// events of an SSE stream, or the one JSON body.
func modernRequest(t *testing.T, url, method, name string, params map[string]any, meta map[string]any) (string, []json.RawMessage) {
	t.Helper()
	m := map[string]any{
		mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "modern-client", "version": "1"},
		mcp.MetaKeyClientCapabilities: map[string]any{},
	}
	for k, v := range meta {
		m[k] = v
	}
	p := map[string]any{"_meta": m}
	for k, v := range params {
		p[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
	req.Header.Set(mcp.HeaderMethod, method)
	if name != "" {
		req.Header.Set(mcp.HeaderName, name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	var msgs []json.RawMessage
	if !strings.HasPrefix(ct, "text/event-stream") {
		var raw json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
			t.Fatalf("%s %s: status %d, %v", method, name, resp.StatusCode, err)
		}
		return ct, append(msgs, raw)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			msgs = append(msgs, json.RawMessage(strings.TrimSpace(data)))
		}
	}
	return ct, msgs
}

// A 2026-07-28 client that gives a progress token gets the upstream's
// progress notifications on its call's own response stream, under its own
// token, ahead of the result, with a stdio and with an HTTP upstream.
// Before, they were sent to a session id the stateless request does not
// have, and dropped (the conformance scenario tools-call-with-progress).
func TestStatelessClientGetsProgressOnItsCallStream(t *testing.T) {
	for _, transport := range []spec.Transport{spec.Stdio, spec.HTTP} {
		t.Run(string(transport), func(t *testing.T) {
			r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", transport)}, rigOptions{})
			waitTool(t, r, "goev__test_tool_with_progress")
			ct, msgs := modernRequest(t, r.url, "tools/call", "goev__test_tool_with_progress",
				map[string]any{"name": "goev__test_tool_with_progress", "arguments": map[string]any{}},
				map[string]any{"progressToken": "my-token"})
			var progress int
			var result bool
			for _, raw := range msgs {
				var m struct {
					Method string `json:"method"`
					Params struct {
						ProgressToken any     `json:"progressToken"`
						Progress      float64 `json:"progress"`
					} `json:"params"`
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Fatalf("message %s: %v", raw, err)
				}
				switch {
				case m.Method == string(mcp.MethodNotificationProgress):
					if result {
						t.Errorf("progress after the result: %s", raw)
					}
					if m.Params.ProgressToken != "my-token" {
						t.Errorf("progress token %v, want the client's own: %s", m.Params.ProgressToken, raw)
					}
					progress++
				case m.Result != nil:
					result = true
				}
			}
			if progress == 0 || !result {
				t.Fatalf("content type %q, %d progress notifications, result %v; messages: %s", ct, progress, result, msgs)
			}
		})
	}
}

// resources/read of a URI no server offers is refused with the URI at
// error.data.uri (SEP-2164), for a 2025-11-25 session (-32002) and a
// 2026-07-28 client (-32602); before, data held only server and reason.
func TestResourceNotFoundNamesTheURIInBothEras(t *testing.T) {
	r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", spec.Stdio)}, rigOptions{})
	waitTool(t, r, "goev__test_simple_text")
	const uri = "test://no-such-resource"
	type rpcError struct {
		Error *struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		} `json:"error"`
	}
	check := func(era string, raw []byte, code int) {
		t.Helper()
		var e rpcError
		if err := json.Unmarshal(raw, &e); err != nil || e.Error == nil {
			t.Fatalf("%s: %s", era, raw)
		}
		if e.Error.Code != code || e.Error.Data["uri"] != uri {
			t.Fatalf("%s: code %d data %v, want %d with uri %s", era, e.Error.Code, e.Error.Data, code, uri)
		}
	}
	s := newRawHTTP(t, r.url)
	_, _, body := s.post(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + uri + `"}}`)
	check("2025-11-25", body, mcp.RESOURCE_NOT_FOUND)

	_, msgs := modernRequest(t, r.url, "resources/read", uri, map[string]any{"uri": uri}, nil)
	if len(msgs) == 0 {
		t.Fatal("2026-07-28: no answer")
	}
	check("2026-07-28", msgs[len(msgs)-1], mcp.INVALID_PARAMS)
}
