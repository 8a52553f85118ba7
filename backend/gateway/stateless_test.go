package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
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

// modernListen opens a subscriptions/listen stream of a 2026-07-28 client
// for the notification types in notifications, with header (a credential)
// on the request. It returns the stream's messages as they come; the
// stream closes at the test's end.
func modernListen(t *testing.T, url string, header http.Header, notifications map[string]any) <-chan json.RawMessage {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": map[string]any{
		"notifications": notifications,
		"_meta": map[string]any{
			mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
			mcp.MetaKeyClientInfo:         map[string]any{"name": "modern-listener", "version": "1"},
			mcp.MetaKeyClientCapabilities: map[string]any{},
		}}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
	req.Header.Set(mcp.HeaderMethod, "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	out := make(chan json.RawMessage, 64)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// A refusal: one JSON answer.
		raw, _ := io.ReadAll(resp.Body)
		out <- raw
		close(out)
		return out
	}
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				out <- json.RawMessage(strings.TrimSpace(data))
			}
		}
	}()
	return out
}

// waitNotification reads msgs until a notification of method arrives
// (true) or within has passed (false); the others read are returned too.
func waitNotification(msgs <-chan json.RawMessage, method string, within time.Duration) (bool, []json.RawMessage) {
	var seen []json.RawMessage
	deadline := time.After(within)
	for {
		select {
		case raw, ok := <-msgs:
			if !ok {
				return false, seen
			}
			seen = append(seen, raw)
			var m struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(raw, &m) == nil && m.Method == method {
				return true, seen
			}
		case <-deadline:
			return false, seen
		}
	}
}

// A 2026-07-28 client holding a subscriptions/listen stream for
// toolsListChanged gets notifications/tools/list_changed there when an
// upstream's tool list changes (the conformance scenario's
// test_trigger_tool_change), tagged with its subscription id.
func TestListenStreamGetsToolsListChanged(t *testing.T) {
	for _, transport := range []spec.Transport{spec.Stdio, spec.HTTP} {
		t.Run(string(transport), func(t *testing.T) {
			r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", transport)}, rigOptions{})
			waitTool(t, r, "goev__test_trigger_tool_change")
			msgs := modernListen(t, r.url, nil, map[string]any{"toolsListChanged": true})
			if ok, seen := waitNotification(msgs, string(mcp.MethodNotificationSubscriptionsAcknowledged), 5*time.Second); !ok {
				t.Fatalf("no acknowledgement on the listen stream: %s", seen)
			}
			_, res := modernRequest(t, r.url, "tools/call", "goev__test_trigger_tool_change",
				map[string]any{"name": "goev__test_trigger_tool_change", "arguments": map[string]any{}}, nil)
			ok, seen := waitNotification(msgs, string(mcp.MethodNotificationToolsListChanged), 5*time.Second)
			if !ok {
				t.Fatalf("no tools/list_changed on the listen stream after the tool list changed (call: %s); stream: %s", res, seen)
			}
			var n struct {
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			_ = json.Unmarshal(seen[len(seen)-1], &n)
			if n.Params.Meta[mcp.MetaKeySubscriptionID] != "listen-1" {
				t.Fatalf("list_changed not tagged with the subscription id: %s", seen[len(seen)-1])
			}
		})
	}
}

// A 2026-07-28 client follows resources by naming them in its
// subscriptions/listen (no resources/subscribe in that revision): the
// router subscribes the upstream, and the resource's
// notifications/resources/updated reaches the listen stream, tagged with
// its subscription id. A URI of a server the caller's scope excludes is
// refused as a subscribe would be, and the upstream subscription ends with
// the stream. Before, the updates went nowhere: mcp-go records the URIs on
// the stream's own session, and only the router talks to upstreams.
func TestListenStreamGetsResourceUpdatesWithinScope(t *testing.T) {
	rec, other := recorder("rec", false), recorder("other", false)
	rec.Env["MCPR_REC_NOTIFY"], other.Env["MCPR_REC_NOTIFY"] = "1", "1"
	r := newRig(t, []spec.Server{rec, other}, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	waitTool(t, r, "rec__echo")
	waitTool(t, r, "other__echo")

	msgs := modernListen(t, r.url, nil, map[string]any{"resourceSubscriptions": []string{"rec://doc"}})
	ok, seen := waitNotification(msgs, string(mcp.MethodNotificationResourceUpdated), 5*time.Second)
	if !ok {
		t.Fatalf("no resources/updated for rec://doc on the listen stream: %s", seen)
	}
	var n struct {
		Params struct {
			URI  string         `json:"uri"`
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(seen[len(seen)-1], &n)
	if n.Params.URI != "rec://doc" || n.Params.Meta[mcp.MetaKeySubscriptionID] != "listen-1" {
		t.Fatalf("resources/updated: %s", seen[len(seen)-1])
	}

	// The scoped caller may use "other" only.
	scoped := http.Header{"X-Caller": []string{"scoped"}}
	refused := modernListen(t, r.url, scoped, map[string]any{"resourceSubscriptions": []string{"rec://doc"}})
	ok, seen = waitNotification(refused, string(mcp.MethodNotificationResourceUpdated), 2*time.Second)
	if ok || len(seen) == 0 || !bytes.Contains(seen[0], []byte(`"error"`)) {
		t.Fatalf("a listen for a resource out of the caller's scope: %s", seen)
	}
	allowed := modernListen(t, r.url, scoped, map[string]any{"resourceSubscriptions": []string{"other://doc"}})
	if ok, seen := waitNotification(allowed, string(mcp.MethodNotificationResourceUpdated), 5*time.Second); !ok {
		t.Fatalf("no resources/updated for other://doc on the scoped caller's stream: %s", seen)
	}
}

// When a listen stream closes, its subscriptions end: the router forgets
// it and unsubscribes the upstream once nobody else follows the URI.
func TestClosedListenStreamEndsItsSubscriptions(t *testing.T) {
	rec := recorder("rec", false)
	r := newRig(t, []spec.Server{rec}, rigOptions{})
	waitTool(t, r, "rec__echo")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": map[string]any{
		"notifications": map[string]any{"resourceSubscriptions": []string{"rec://doc"}},
		"_meta": map[string]any{mcp.MetaKeyProtocolVersion: mcp.ProtocolVersion20260728,
			mcp.MetaKeyClientCapabilities: map[string]any{}}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
	req.Header.Set(mcp.HeaderMethod, "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	subscribers := func() int {
		r.gw.subs.mu.Lock()
		defer r.gw.subs.mu.Unlock()
		return len(r.gw.subs.byURI["rec://doc"]) + len(r.gw.subs.listeners)
	}
	testpeers.Eventually(t, 5*time.Second, "the listen stream to subscribe rec://doc", func() bool { return subscribers() == 2 })
	cancel()
	testpeers.Eventually(t, 5*time.Second, "the closed stream's subscription to end", func() bool { return subscribers() == 0 })
}

// notifications/tools/list_changed reaches a listen stream only when the
// tool list its caller sees changed: a change on a server the caller's
// scope excludes is not announced to it (it would tell the caller about a
// server it cannot see), one on a server it may use is. Before, mcp-go's
// broadcast reached every stream alike.
func TestListenStreamGetsOnlyTheListChangesItsCallerSees(t *testing.T) {
	rec, other := recorder("rec", false), recorder("other", false)
	r := newRig(t, []spec.Server{rec, other}, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	waitTool(t, r, "rec__echo")
	waitTool(t, r, "other__echo")
	ack := string(mcp.MethodNotificationSubscriptionsAcknowledged)
	changed := string(mcp.MethodNotificationToolsListChanged)
	everyone := modernListen(t, r.url, nil, map[string]any{"toolsListChanged": true})
	scoped := modernListen(t, r.url, http.Header{"X-Caller": []string{"scoped"}}, map[string]any{"toolsListChanged": true})
	for _, s := range []<-chan json.RawMessage{everyone, scoped} {
		if ok, seen := waitNotification(s, ack, 5*time.Second); !ok {
			t.Fatalf("no acknowledgement: %s", seen)
		}
	}

	// rec's tool goes away: only the unscoped caller's list changed.
	rec.DisabledTools = []string{"echo"}
	if err := r.ups.Sync([]spec.Server{rec, other}); err != nil {
		t.Fatal(err)
	}
	if ok, seen := waitNotification(everyone, changed, 5*time.Second); !ok {
		t.Fatalf("the unscoped caller got no tools/list_changed when rec's tools changed: %s", seen)
	}
	if ok, seen := waitNotification(scoped, changed, time.Second); ok {
		t.Fatalf("the caller scoped to other got tools/list_changed for rec's change: %s", seen)
	}

	// other's tool goes away: both callers' lists changed.
	other.DisabledTools = []string{"echo"}
	if err := r.ups.Sync([]spec.Server{rec, other}); err != nil {
		t.Fatal(err)
	}
	if ok, seen := waitNotification(scoped, changed, 5*time.Second); !ok {
		t.Fatalf("the caller scoped to other got no tools/list_changed when other's tools changed: %s", seen)
	}
	if ok, seen := waitNotification(everyone, changed, 5*time.Second); !ok {
		t.Fatalf("the unscoped caller got no tools/list_changed when other's tools changed: %s", seen)
	}
}

// What mcp-go (v1.2.1) already does for a 2026-07-28 client through the
// router, held here so that a change of the router's answer paths (raw
// upstream results, lists answered from the catalog) cannot lose it: every
// result carries resultType, and Mcp-Method / Mcp-Name that do not match
// the body are refused with -32020 (HTTP 400).
func TestStatelessResultsCarryResultTypeAndHeadersAreChecked(t *testing.T) {
	r := newRig(t, []spec.Server{recorder("rec", false)}, rigOptions{})
	waitTool(t, r, "rec__echo")
	for _, c := range []struct {
		method, name string
		params       map[string]any
	}{
		{"tools/call", "rec__echo", map[string]any{"name": "rec__echo"}},
		{"prompts/get", "rec__greet", map[string]any{"name": "rec__greet"}},
		{"resources/read", "rec://doc", map[string]any{"uri": "rec://doc"}},
		{"resources/read", "rec://items/1", map[string]any{"uri": "rec://items/1"}},
		{"completion/complete", "", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "rec__greet"},
			"argument": map[string]any{"name": "name", "value": "x"}}},
		{"tools/list", "", nil},
		{"prompts/list", "", nil},
		{"resources/list", "", nil},
		{"resources/templates/list", "", nil},
		{"server/discover", "", nil},
	} {
		_, msgs := modernRequest(t, r.url, c.method, c.name, c.params, nil)
		var out struct {
			Result *struct {
				ResultType string `json:"resultType"`
			} `json:"result"`
		}
		if len(msgs) != 1 || json.Unmarshal(msgs[0], &out) != nil || out.Result == nil || out.Result.ResultType != "complete" {
			t.Errorf("%s %s: want a result with resultType complete, got %s", c.method, c.name, msgs)
		}
	}
	for _, c := range []struct{ method, headerMethod, name string }{
		{"tools/call", "tools/call", "rec__other"}, // Mcp-Name differs from params.name
		{"tools/call", "prompts/get", "rec__echo"}, // Mcp-Method differs from the body's
	} {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": c.method, "params": map[string]any{
			"name": "rec__echo", "_meta": map[string]any{mcp.MetaKeyProtocolVersion: mcp.ProtocolVersion20260728,
				mcp.MetaKeyClientCapabilities: map[string]any{}}}})
		req, _ := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
		req.Header.Set(mcp.HeaderMethod, c.headerMethod)
		req.Header.Set(mcp.HeaderName, c.name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out struct {
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &out) != nil || out.Error == nil || out.Error.Code != mcp.HEADER_MISMATCH || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("Mcp-Method %q, Mcp-Name %q: status %d, %s; want 400 and -32020", c.headerMethod, c.name, resp.StatusCode, raw)
		}
	}
}
