package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The router's streamable HTTP transport against real servers, through
// dial (what the supervisor runs): server-everything (TypeScript SDK) and
// the go-sdk everything-server, stateful and stateless.

func dialHTTP(t *testing.T, url string, cs ClientSide, onNote func(mcp.JSONRPCNotification)) *conn {
	t.Helper()
	s := spec.Server{Name: "web", Transport: spec.HTTP, URL: url, Enabled: true}
	s.Normalize()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := dial(ctx, s, dialOptions{clientInfo: mcp.Implementation{Name: "mcp-router-test", Version: "1"}, clientSide: cs, onNotification: onNote})
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(c.close)
	if _, ok := c.tr.(*streamTransport); !ok {
		t.Fatalf("transport %T, want the router's own", c.tr)
	}
	return c
}

func callTool(t *testing.T, c *conn, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := c.request(ctx, "tools/call", map[string]any{"name": name, "arguments": args, "_meta": map[string]any{"progressToken": "tok-" + name}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(raw)
}

func TestHTTPTransportWithServerEverything(t *testing.T) {
	port := testpeers.FreePort(t)
	testpeers.StartEverythingHTTP(t, "streamableHttp", port, marker(t))
	var progress atomic.Int32
	sampled := make(chan string, 1)
	c := dialHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/mcp", port), ClientSide{
		Sampling: func(_ context.Context, server string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			sampled <- server
			return &mcp.CreateMessageResult{Model: "test-model", SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled by the test")}}, nil
		},
	}, func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			progress.Add(1)
		}
	})
	if c.tr.GetSessionId() == "" {
		t.Fatal("no session id")
	}
	if got := callTool(t, c, "echo", map[string]any{"message": "über 🦀"}); !strings.Contains(got, "über 🦀") {
		t.Fatalf("echo: %s", got)
	}
	// Progress arrives on the call's event stream, before its answer.
	callTool(t, c, "trigger-long-running-operation", map[string]any{"duration": 1, "steps": 3})
	if n := progress.Load(); n < 3 {
		t.Fatalf("%d progress notifications, want 3", n)
	}
	// A sampling request from the server, answered by the client side.
	if got := callTool(t, c, "trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 5}); !strings.Contains(got, "sampled by the test") {
		t.Fatalf("sampling result: %s", got)
	}
	select {
	case server := <-sampled:
		if server != "web" {
			t.Fatalf("sampling asked for %q", server)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the sampling handler was not called")
	}
	// Many calls at once: 32 workers, 25 calls each, every answer its own.
	const workers, each = 32, 25
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			for i := 0; i < each; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				msg := fmt.Sprintf("w%d-%d", w, i)
				raw, err := c.request(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": msg}})
				cancel()
				if err == nil && !strings.Contains(string(raw), msg+`"`) {
					err = fmt.Errorf("call %s answered %s", msg, raw)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	st := c.tr.(*streamTransport)
	st.mu.Lock()
	idle, active := len(st.idle), len(st.active)
	st.mu.Unlock()
	if idle > workers+1 || active > 1 {
		t.Fatalf("after the calls: %d idle and %d active connections (the GET stream is the one active)", idle, active)
	}
}

func TestHTTPTransportWithGoSDKEverythingServer(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			addr := testpeers.StartGoEverythingHTTP(t, fmt.Sprintf("-stateless=%v", stateless))
			elicited := make(chan string, 1)
			c := dialHTTP(t, "http://"+addr+"/mcp", ClientSide{
				Elicitation: func(_ context.Context, _ string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
					elicited <- req.Params.Message
					return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
						Content: map[string]any{"username": "ada", "email": "ada@example.com"}}}, nil
				},
			}, nil)
			if stateless != (c.tr.GetSessionId() == "") {
				t.Fatalf("session id %q with stateless=%v", c.tr.GetSessionId(), stateless)
			}
			if got := callTool(t, c, "test_simple_text", nil); !strings.Contains(got, `"type":"text"`) {
				t.Fatalf("test_simple_text: %s", got)
			}
			var res struct {
				IsError bool `json:"isError"`
			}
			raw := callTool(t, c, "test_error_handling", nil)
			if err := json.Unmarshal([]byte(raw), &res); err != nil || !res.IsError {
				t.Fatalf("test_error_handling: %s", raw)
			}
			if stateless {
				return // a stateless server cannot ask the client anything
			}
			got := callTool(t, c, "test_elicitation", map[string]any{"message": "who are you?"})
			if !strings.Contains(got, "ada") {
				t.Fatalf("elicitation result: %s", got)
			}
			select {
			case msg := <-elicited:
				if msg == "" {
					t.Fatal("the elicitation reached the client side without its message")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the elicitation handler was not called")
			}
		})
	}
}
