package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// goEverythingUpstream is the go-sdk conformance everything-server as an
// upstream named name: over stdio, or as a stateful streamable HTTP server.
func goEverythingUpstream(t *testing.T, name string, transport spec.Transport) spec.Server {
	t.Helper()
	bin := testpeers.GoEverything(t)
	if transport == spec.Stdio {
		s := spec.Server{Name: name, Command: bin, Enabled: true, PrefixMode: spec.PrefixAlways}
		s.Normalize()
		return s
	}
	addr := fmt.Sprintf("127.0.0.1:%d", testpeers.FreePort(t))
	cmd := exec.Command(bin, "-http", addr, "-stateless=false")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	testpeers.Eventually(t, 10*time.Second, "the go-sdk server to listen", func() bool {
		nc, err := net.Dial("tcp", addr)
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
	s := spec.Server{Name: name, Transport: spec.HTTP, URL: "http://" + addr + "/mcp", Enabled: true, PrefixMode: spec.PrefixAlways}
	s.Normalize()
	return s
}

// TestGoSDKClientWithoutGETStreamGetsServerRequestsOnTheCall: the official
// go-sdk client (v1.8.0) on 2025-11-25, with a session but no standalone GET
// stream, reads server requests only on the response stream of its call.
// An upstream's elicitation and sampling raised during the call must reach
// it there, whatever the upstream's transport and whichever path (the fast
// path or mcp-go's) serves the call. Before the call streams, a stdio
// upstream's elicitation went to the GET stream (the client waited for its
// timeout), and so did sampling on every upstream.
func TestGoSDKClientWithoutGETStreamGetsServerRequestsOnTheCall(t *testing.T) {
	for _, transport := range []spec.Transport{spec.Stdio, spec.HTTP} {
		for _, fast := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/fast=%v", transport, fast), func(t *testing.T) {
				r := newRig(t, []spec.Server{goEverythingUpstream(t, "goev", transport)}, rigOptions{allClientSide: true})
				r.gw.SetFastPath(fast)
				var elicited, sampled atomic.Int32
				c := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-test", Version: "1"}, &sdk.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
						elicited.Add(1)
						switch req.Params.Message {
						case "who are you?": // test_elicitation
							return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada"}}, nil
						case "What is your name?": // test_input_required_result_elicitation
							return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "grace"}}, nil
						}
						return nil, fmt.Errorf("unexpected question %q", req.Params.Message)
					},
					CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
						sampled.Add(1)
						// The upstream's request as it sent it: its prompt and its cap.
						if len(req.Params.Messages) != 1 || req.Params.MaxTokens != 100 {
							return nil, fmt.Errorf("unexpected sampling request %+v", req.Params)
						}
						if tc, ok := req.Params.Messages[0].Content.(*sdk.TextContent); !ok || tc.Text != "hello" {
							return nil, fmt.Errorf("unexpected sampling message %#v", req.Params.Messages[0].Content)
						}
						return &sdk.CreateMessageResult{Model: "test", Role: "assistant",
							Content: &sdk.TextContent{Text: "sampled by the go-sdk client"}}, nil
					},
				})
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: r.url, DisableStandaloneSSE: true, MaxRetries: -1},
					&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
					t.Fatalf("protocol %q, want 2025-11-25", v)
				}
				callText := func(tool string, args map[string]any) string {
					t.Helper()
					// Well under the go-sdk server's and the router's own
					// timeouts: a request that went to a GET stream nobody
					// reads ends here.
					cctx, ccancel := context.WithTimeout(ctx, 5*time.Second)
					defer ccancel()
					r.waitNothingQueued(t)
					before := r.gw.fast.served.Load()
					start := time.Now()
					res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
					if err != nil {
						t.Fatalf("%s after %v: %v", tool, time.Since(start).Round(time.Millisecond), err)
					}
					if servedFast := r.gw.fast.served.Load() > before; servedFast != fast {
						t.Errorf("%s: served by the fast path %v, want %v", tool, servedFast, fast)
					}
					return sdkText(res)
				}
				if got := callText("goev__test_elicitation", map[string]any{"message": "who are you?"}); !strings.Contains(got, "action=accept") || !strings.Contains(got, "ada") || elicited.Load() != 1 {
					t.Errorf("test_elicitation: %q, %d elicitations", got, elicited.Load())
				}
				// A multi-round-trip tool: the upstream (on 2025-11-25 with
				// the router) turns its input request into elicitation/create,
				// which must reach this client the same way.
				if got := callText("goev__test_input_required_result_elicitation", nil); !strings.Contains(got, "Hello, grace!") || elicited.Load() != 2 {
					t.Errorf("test_input_required_result_elicitation: %q, %d elicitations", got, elicited.Load())
				}
				if got := callText("goev__test_sampling", map[string]any{"prompt": "hello"}); !strings.Contains(got, "sampled by the go-sdk client") || sampled.Load() != 1 {
					t.Errorf("test_sampling: %q, %d sampling requests", got, sampled.Load())
				}
			})
		}
	}
}

// The same with mcp-go's client holding no GET stream, against
// server-everything over stdio, which also asks for the client's roots:
// sampling, roots and elicitation all reach the client on the call's own
// stream, on both paths. (Before, all three went to the GET stream.)
func TestServerRequestsReachAClientWithoutGETStream(t *testing.T) {
	for _, fast := range []bool{true, false} {
		t.Run(fmt.Sprintf("fast=%v", fast), func(t *testing.T) {
			r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{allClientSide: true})
			r.gw.SetFastPath(fast)
			llm, roots, elicitor := &fakeLLM{}, &fakeRoots{}, &fakeElicitor{}
			c := connect(t, r.url, clientOptions{sampling: llm, roots: roots, elicitation: elicitor, noGET: true})
			callSoon := func(tool string, args map[string]any) (*mcp.CallToolResult, error) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				return c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
			}
			res, err := callSoon("everything__get-roots-list", map[string]any{})
			if err != nil || !strings.Contains(text(res), "file:///work/fast-path-root") || roots.calls.Load() == 0 {
				t.Errorf("roots: %d requests, result %v %v", roots.calls.Load(), err, res)
			}
			res, err = callSoon("everything__trigger-elicitation-request", map[string]any{})
			if err != nil || !strings.Contains(text(res), "Elicited Name") || elicitor.calls.Load() != 1 {
				t.Errorf("elicitation: %d requests, result %v %v", elicitor.calls.Load(), err, res)
			}
			res, err = callSoon("everything__trigger-sampling-request", map[string]any{"prompt": "hello", "maxTokens": 10})
			if err != nil || !strings.Contains(text(res), "sampled by the test client") || llm.calls != 1 {
				t.Errorf("sampling: %d requests, result %v %v", llm.calls, err, res)
			}
		})
	}
}

// An answer counts only from the session that was asked, only once, and
// only while the request waits; the ask ends when the call does.
func TestCallStreamAnswersBelongToTheAskingSession(t *testing.T) {
	asks := newPendingAsks()
	sink := &recordingSink{}
	c := &callStream{asks: asks, sessionID: "s1", sink: sink}
	got := make(chan error, 1)
	var result []byte
	go func() {
		raw, err := c.ask(context.Background(), nil, "roots/list", map[string]any{})
		result = raw
		got <- err
	}()
	testpeers.Eventually(t, 5*time.Second, "the request on the stream", func() bool { return sink.count() == 1 })
	id := sink.id(t, 0)
	if asks.deliver("s2", []byte(id), []byte(`{"roots":[]}`), nil) {
		t.Fatal("another session's answer was taken")
	}
	if asks.deliver("s1", []byte(`"mcpr-ask-999"`), []byte(`{"roots":[]}`), nil) {
		t.Fatal("an answer to no request was taken")
	}
	if !asks.deliver("s1", []byte(id), []byte(`{"roots":[{"uri":"file:///a"}]}`), nil) {
		t.Fatal("the asked session's answer was not taken")
	}
	if err := <-got; err != nil || string(result) != `{"roots":[{"uri":"file:///a"}]}` {
		t.Fatalf("ask = %s, %v", result, err)
	}
	if asks.deliver("s1", []byte(id), []byte(`{}`), nil) || asks.count.Load() != 0 {
		t.Fatalf("an answer after the ask ended was taken (%d pending)", asks.count.Load())
	}

	// A client's error answer is an error; an ended call ends the ask.
	go func() {
		_, err := c.ask(context.Background(), nil, "sampling/createMessage", nil)
		got <- err
	}()
	testpeers.Eventually(t, 5*time.Second, "the second request", func() bool { return sink.count() == 2 })
	asks.deliver("s1", []byte(sink.id(t, 1)), nil, []byte(`{"code":-1,"message":"user rejected sampling request"}`))
	if err := <-got; err == nil || !strings.Contains(err.Error(), "user rejected") {
		t.Fatalf("error answer: %v", err)
	}
	ended := make(chan struct{})
	close(ended)
	if _, err := c.ask(context.Background(), ended, "roots/list", nil); err != errCallEnded || asks.count.Load() != 0 {
		t.Fatalf("ask on an ended call: %v (%d pending)", err, asks.count.Load())
	}
}

type recordingSink struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (r *recordingSink) writeEvent(msg []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, append([]byte(nil), msg...))
	return nil
}

func (r *recordingSink) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs)
}

// id is the raw JSON id of the i-th request written.
func (r *recordingSink) id(t *testing.T, i int) string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(r.msgs[i], &m); err != nil {
		t.Fatal(err)
	}
	return string(m.ID)
}
