package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// TestGoSDKModernClientGetsUpstreamQuestionsAsInputRequired: the official
// go-sdk client (v1.8.0) on 2026-07-28 has no session, so an upstream on
// 2025-11-25 that asks mid-call (test_elicitation asks elicitation/create
// itself; test_input_required_result_elicitation is bridged by the go-sdk
// server into one) can only be answered through a multi-round trip: the
// router holds the upstream call, answers input_required with the question
// and a signed requestState, and the client's retry resumes the waiting
// call. Before, test_elicitation came back as a tool error and the other
// as -32603 "multi-round-trip: fulfilling input request".
func TestGoSDKModernClientGetsUpstreamQuestionsAsInputRequired(t *testing.T) {
	for _, transport := range []spec.Transport{spec.Stdio, spec.HTTP} {
		t.Run(string(transport), func(t *testing.T) {
			r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", transport)}, rigOptions{allClientSide: true})
			waitTool(t, r, "goev__test_elicitation")
			var elicited atomic.Int32
			c := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-modern", Version: "1"}, &sdk.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					elicited.Add(1)
					switch req.Params.Message {
					case "who are you?":
						return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada"}}, nil
					case "What is your name?":
						return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "grace"}}, nil
					}
					return nil, fmt.Errorf("unexpected question %q", req.Params.Message)
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: r.url, MaxRetries: -1},
				&sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			callText := func(tool string, args map[string]any) string { return sdkCallText(t, ctx, cs, tool, args) }
			if got := callText("goev__test_elicitation", map[string]any{"message": "who are you?"}); !strings.Contains(got, "action=accept") || !strings.Contains(got, "ada") || elicited.Load() != 1 {
				t.Errorf("test_elicitation: %q, %d elicitations", got, elicited.Load())
			}
			if got := callText("goev__test_input_required_result_elicitation", nil); !strings.Contains(got, "Hello, grace!") || elicited.Load() != 2 {
				t.Errorf("test_input_required_result_elicitation: %q, %d elicitations", got, elicited.Load())
			}
			r.gw.held.mu.Lock()
			n := len(r.gw.held.m)
			r.gw.held.mu.Unlock()
			if n != 0 {
				t.Errorf("%d calls still held after their results", n)
			}
		})
	}
}

// mrtrPost sends one stateless (2026-07-28) request with params, the
// client's capabilities caps, and returns the decoded JSON-RPC response.
func mrtrPost(t *testing.T, url, method, name string, params map[string]any, caps map[string]any) (result map[string]any, rpcErr map[string]any) {
	t.Helper()
	return mrtrPostAs(t, url, "", method, name, params, caps)
}

// mrtrPostAs is mrtrPost as caller who (the X-Caller header of
// headerCaller; "" sends none).
func mrtrPostAs(t *testing.T, url, who, method, name string, params map[string]any, caps map[string]any) (result map[string]any, rpcErr map[string]any) {
	t.Helper()
	p := map[string]any{"_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "mrtr-test", "version": "1"},
		mcp.MetaKeyClientCapabilities: caps,
	}}
	for k, v := range params {
		p[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": p})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
	req.Header.Set(mcp.HeaderMethod, method)
	req.Header.Set(mcp.HeaderName, name)
	if who != "" {
		req.Header.Set("X-Caller", who)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if i := bytes.LastIndex(raw, []byte("data: ")); bytes.HasPrefix(bytes.TrimSpace(raw), []byte("event:")) && i >= 0 {
		raw = raw[i+len("data: "):]
	}
	var out struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %v in %s", method, name, err, raw)
	}
	return out.Result, out.Error
}

// TestMRTRRoundTripsThroughTheRouter drives the round trips by hand, as the
// conformance suite does: several questions in one result, a tampered
// requestState refused, a state reused after its call ended refused, a
// second round (the go-sdk server's own input_required after its bridging
// round, relayed with its state wrapped in the router's), prompts/get, and
// a question the client did not declare capabilities for (-32021 with
// requiredCapabilities).
func TestMRTRRoundTripsThroughTheRouter(t *testing.T) {
	for _, transport := range []spec.Transport{spec.Stdio, spec.HTTP} {
		t.Run(string(transport), func(t *testing.T) {
			r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", transport)}, rigOptions{allClientSide: true})
			waitTool(t, r, "goev__test_input_required_result_elicitation")
			all := map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
			accept := func(content map[string]any) map[string]any {
				return map[string]any{"action": "accept", "content": content}
			}
			inputRequired := func(what string, res, rpcErr map[string]any) (map[string]any, string) {
				t.Helper()
				if rpcErr != nil || res["resultType"] != "input_required" {
					t.Fatalf("%s: want input_required, got %v / error %v", what, res, rpcErr)
				}
				reqs, _ := res["inputRequests"].(map[string]any)
				state, _ := res["requestState"].(string)
				if len(reqs) == 0 || state == "" {
					t.Fatalf("%s: input_required without inputRequests or requestState: %v", what, res)
				}
				return reqs, state
			}

			// One question; a tampered state refused; the genuine retry
			// completes; the same state again finds no call waiting.
			tool := "goev__test_input_required_result_elicitation"
			res, e := mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "arguments": map[string]any{}}, all)
			reqs, state := inputRequired("round 1", res, e)
			var key string
			for k, v := range reqs {
				key = k
				if m, _ := v.(map[string]any); m["method"] != "elicitation/create" {
					t.Fatalf("round 1: %v", reqs)
				}
			}
			answers := map[string]any{key: accept(map[string]any{"name": "Alice"})}
			_, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "inputResponses": answers,
				"requestState": state + "-TAMPERED"}, all)
			if e == nil || e["code"].(float64) != mcp.INVALID_PARAMS {
				t.Fatalf("tampered requestState: want -32602, got %v", e)
			}
			res, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "inputResponses": answers, "requestState": state}, all)
			if e != nil || !strings.Contains(fmt.Sprint(res["content"]), "Hello, Alice!") {
				t.Fatalf("retry: %v / %v", res, e)
			}
			_, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "inputResponses": answers, "requestState": state}, all)
			if e == nil || !strings.Contains(fmt.Sprint(e["message"]), "no longer waiting") {
				t.Fatalf("a state whose call ended: want an error, got %v", e)
			}

			// Three questions of different kinds in one result.
			tool = "goev__test_input_required_result_multiple_inputs"
			res, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool}, all)
			reqs, state = inputRequired("multiple inputs", res, e)
			answers = map[string]any{}
			for k, v := range reqs {
				switch v.(map[string]any)["method"] {
				case "elicitation/create":
					answers[k] = accept(map[string]any{"name": "Alice"})
				case "sampling/createMessage":
					answers[k] = map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "Hi"}}
				case "roots/list":
					answers[k] = map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp", "name": "tmp"}}}
				}
			}
			if len(reqs) != 3 || len(answers) != 3 {
				t.Fatalf("multiple inputs: want elicitation, sampling and roots in one result, got %v", reqs)
			}
			res, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "inputResponses": answers, "requestState": state}, all)
			if e != nil || res["resultType"] == "input_required" {
				t.Fatalf("multiple inputs, retry: %v / %v", res, e)
			}

			// Two rounds: the second is the upstream's own input_required,
			// relayed under the router's signature; the third call
			// completes with the answers of both.
			tool = "goev__test_input_required_result_multi_round"
			res, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool}, all)
			reqs, state1 := inputRequired("multi-round 1", res, e)
			answers = map[string]any{}
			for k := range reqs {
				answers[k] = accept(map[string]any{"name": "Alice"})
			}
			res, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "inputResponses": answers, "requestState": state1}, all)
			reqs, state2 := inputRequired("multi-round 2", res, e)
			if state2 == state1 || strings.Contains(state2, "round=2") {
				t.Fatalf("multi-round 2: the state must be new and the router's own, got %q", state2)
			}
			if reqs["step2"] == nil {
				t.Fatalf("multi-round 2: the upstream's own key \"step2\" must be relayed, got %v", reqs)
			}
			answers = map[string]any{}
			for k := range reqs {
				answers[k] = accept(map[string]any{"color": "blue"})
			}
			_, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "inputResponses": answers, "requestState": state2 + "x"}, all)
			if e == nil {
				t.Fatal("multi-round 3 with a tampered relayed state: accepted")
			}
			res, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "inputResponses": answers, "requestState": state2}, all)
			if e != nil || res["resultType"] == "input_required" || !strings.Contains(fmt.Sprint(res["content"]), "Alice") {
				t.Fatalf("multi-round 3: %v / %v", res, e)
			}

			// prompts/get.
			prompt := "goev__test_input_required_result_prompt"
			res, e = mrtrPost(t, r.url, "prompts/get", prompt, map[string]any{"name": prompt}, all)
			reqs, state = inputRequired("prompts/get", res, e)
			answers = map[string]any{}
			for k := range reqs {
				answers[k] = accept(map[string]any{"context": "test context"})
			}
			res, e = mrtrPost(t, r.url, "prompts/get", prompt, map[string]any{"name": prompt, "inputResponses": answers, "requestState": state}, all)
			if e != nil || !strings.Contains(fmt.Sprint(res["messages"]), "test context") {
				t.Fatalf("prompts/get, retry: %v / %v", res, e)
			}

			// A client without elicitation: the upstream's question is
			// refused and the client gets -32021 naming it.
			tool = "goev__test_elicitation"
			_, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "arguments": map[string]any{"message": "hi"}},
				map[string]any{"sampling": map[string]any{}})
			data, _ := e["data"].(map[string]any)
			req, _ := data["requiredCapabilities"].(map[string]any)
			if e == nil || e["code"].(float64) != mcp.MISSING_REQUIRED_CLIENT_CAPABILITY || req["elicitation"] == nil {
				t.Fatalf("elicitation without the capability: want -32021 with requiredCapabilities.elicitation, got %v", e)
			}
		})
	}
}

// TestHeldCallsAreBounded: a held upstream call waits a bounded time for
// the client's retry, then it is cancelled (the upstream request ends) and
// a late retry gets an error saying so; and past the per-credential cap a
// call that would be held is cancelled with an error naming the cap.
func TestHeldCallsAreBounded(t *testing.T) {
	r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", spec.Stdio)}, rigOptions{allClientSide: true})
	waitTool(t, r, "goev__test_input_required_result_elicitation")
	r.gw.held.wait, r.gw.held.perCredential = 300*time.Millisecond, 1
	caps := map[string]any{"elicitation": map[string]any{}}
	tool := "goev__test_input_required_result_elicitation"
	held := func() int {
		r.gw.held.mu.Lock()
		defer r.gw.held.mu.Unlock()
		return len(r.gw.held.m)
	}
	inFlight := func() int {
		r.gw.call.mu.Lock()
		defer r.gw.call.mu.Unlock()
		return len(r.gw.call.byServer["goev"])
	}

	res, e := mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool}, caps)
	state, _ := res["requestState"].(string)
	if e != nil || state == "" || held() != 1 {
		t.Fatalf("round 1: %v / %v, %d held", res, e, held())
	}
	// A second call of the same credential would be held too: past the cap.
	_, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool}, caps)
	data, _ := e["data"].(map[string]any)
	if e == nil || data["reason"] != "held_call_limit" || !strings.Contains(fmt.Sprint(e["message"]), "mrtrHeldPerCredential") {
		t.Fatalf("a call past the per-credential cap: %v", e)
	}
	// No retry: the held call is cancelled, upstream request and all.
	deadline := time.Now().Add(5 * time.Second)
	for (held() != 0 || inFlight() != 0) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if held() != 0 || inFlight() != 0 {
		t.Fatalf("after the wait: %d held, %d upstream calls in flight", held(), inFlight())
	}
	var key string
	for k := range res["inputRequests"].(map[string]any) {
		key = k
	}
	_, e = mrtrPost(t, r.url, "tools/call", tool, map[string]any{"name": tool, "requestState": state,
		"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "late"}}}}, caps)
	if e == nil || !strings.Contains(fmt.Sprint(e["message"]), "no longer waiting") || !strings.Contains(fmt.Sprint(e["message"]), "mrtrHeldWait") {
		t.Fatalf("a late retry: want an error naming the wait, got %v", e)
	}
}

// FuzzRequestState: whatever a client sends as requestState, verifying it
// never panics, and it passes only as the router signed it (so a state
// that passes is exactly the signature of what it says).
func FuzzRequestState(f *testing.F) {
	h := newHeldCalls(nil)
	good := h.sign(mrtrState{Held: "1", Owner: "anon", Server: "s", Item: "t", Method: "tools/call"})
	for _, seed := range []string{good, good + "-TAMPERED", "", ".", "..", "x.y", good[:len(good)/2],
		strings.Repeat("A", 1<<16) + "." + strings.Repeat("B", 43), "eyJ9." + good[strings.LastIndexByte(good, '.')+1:]} {
		f.Add(seed)
	}
	// The same signature spelled with other spare bits in its last
	// character: a lax decoder takes it, the router must not.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, good[len(good)-1])
	f.Add(good[:len(good)-1] + string(alphabet[last^1]))
	// The decoder skips line breaks: the same signature with one inside.
	f.Add(good[:len(good)-3] + "\r" + good[len(good)-3:])
	f.Add(good[:5] + "\n" + good[5:])
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<20 {
			return
		}
		st, err := h.verify(s)
		if err == nil && h.sign(st) != s {
			t.Fatalf("accepted %q, which the router did not sign", s)
		}
	})
}

// TestSessionClientGetsUpstreamInputRequestsAsked: the other direction. A
// go-sdk v1.8.0 client on 2025-11-25 (a session, no GET stream) calls a
// tool whose upstream asks twice: the first question the go-sdk server
// bridges itself (elicitation/create mid-call), the second it returns as
// inputRequests in its result, which a 2025 client cannot read. The router
// asks that one through the session, on the call's own stream, and sends
// the call again with the answer: the client sees one ordinary result, on
// either path. Before, the client got the raw inputRequests result (no
// content) and was never asked the second question.
func TestSessionClientGetsUpstreamInputRequestsAsked(t *testing.T) {
	for _, transport := range []spec.Transport{spec.Stdio, spec.HTTP} {
		for _, fast := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/fast=%v", transport, fast), func(t *testing.T) {
				r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", transport)}, rigOptions{allClientSide: true})
				r.gw.SetFastPath(fast)
				waitTool(t, r, "goev__test_input_required_result_multi_round")
				var asked []string
				c := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-session", Version: "1"}, &sdk.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
						asked = append(asked, req.Params.Message)
						switch req.Params.Message {
						case "Step 1: What is your name?":
							return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
						case "Step 2: What is your favorite color?":
							return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
						}
						return nil, fmt.Errorf("unexpected question %q", req.Params.Message)
					},
				})
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: r.url, DisableStandaloneSSE: true, MaxRetries: -1},
					&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
				defer ccancel()
				res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "goev__test_input_required_result_multi_round"})
				if err != nil {
					t.Fatal(err)
				}
				var text string
				for _, c := range res.Content {
					if tc, ok := c.(*sdk.TextContent); ok {
						text += tc.Text
					}
				}
				if !strings.Contains(text, "Alice likes blue") || len(asked) != 2 {
					t.Fatalf("multi-round for a session client: %q, asked %q", text, asked)
				}
			})
		}
	}
}

// TestRequestStateBelongsToItsCredential: a requestState resumes a held
// call only for the credential it was given to; another caller presenting
// it is refused and the call stays held for its owner.
func TestRequestStateBelongsToItsCredential(t *testing.T) {
	r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", spec.Stdio)},
		rigOptions{allClientSide: true, auth: headerCaller, callerFrom: callerFromHeader})
	waitTool(t, r, "goev__test_input_required_result_elicitation")
	caps := map[string]any{"elicitation": map[string]any{}}
	tool := "goev__test_input_required_result_elicitation"
	res, e := mrtrPostAs(t, r.url, "alice", "tools/call", tool, map[string]any{"name": tool}, caps)
	state, _ := res["requestState"].(string)
	if e != nil || state == "" {
		t.Fatalf("alice, round 1: %v / %v", res, e)
	}
	var key string
	for k := range res["inputRequests"].(map[string]any) {
		key = k
	}
	answers := func(name string) map[string]any {
		return map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": name}}}
	}
	_, e = mrtrPostAs(t, r.url, "bob", "tools/call", tool, map[string]any{"name": tool, "requestState": state, "inputResponses": answers("Bob")}, caps)
	if e == nil || e["code"].(float64) != mcp.INVALID_PARAMS {
		t.Fatalf("bob with alice's requestState: want -32602, got %v", e)
	}
	res, e = mrtrPostAs(t, r.url, "alice", "tools/call", tool, map[string]any{"name": tool, "requestState": state, "inputResponses": answers("Alice")}, caps)
	if e != nil || !strings.Contains(fmt.Sprint(res["content"]), "Hello, Alice!") {
		t.Fatalf("alice's retry: %v / %v", res, e)
	}
}

// sdkText joins the text content of a go-sdk client's tool result.
func sdkText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// sdkCallText calls tool through a go-sdk client session (10 s at most)
// and returns its text; an error or a tool error fails the test.
func sdkCallText(t *testing.T, ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %q", tool, sdkText(res))
	}
	return sdkText(res)
}
