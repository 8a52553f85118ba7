package core

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// stdioClient speaks to Core.ServeStdio (the code of `mcp-router stdio`)
// over pipes, one JSON-RPC message per line.
type stdioClient struct {
	t     *testing.T
	in    io.Writer
	lines *bufio.Scanner
}

func newStdioClient(t *testing.T, c *Core) *stdioClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = c.ServeStdio(ctx, inR, outW) }()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close(); <-done })
	s := &stdioClient{t: t, in: inW, lines: bufio.NewScanner(outR)}
	s.lines.Buffer(make([]byte, 1<<20), 1<<20)
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	s.answer(0)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *stdioClient) send(msg string) {
	if _, err := io.WriteString(s.in, msg+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// answer reads lines until the response to id, skipping notifications.
func (s *stdioClient) answer(id int) []byte {
	for s.lines.Scan() {
		var m struct {
			ID *int `json:"id"`
		}
		if json.Unmarshal(s.lines.Bytes(), &m) == nil && m.ID != nil && *m.ID == id {
			return append([]byte(nil), s.lines.Bytes()...)
		}
	}
	s.t.Fatalf("stdio ended before the answer to %d: %v", id, s.lines.Err())
	return nil
}

type jsonrpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

func errorIn(t *testing.T, body []byte) jsonrpcError {
	t.Helper()
	// An HTTP answer may come as an SSE stream: the answer is its last event.
	if i := strings.LastIndex(string(body), "data: "); i >= 0 {
		body = body[i+len("data: "):]
	}
	var resp struct {
		Error *jsonrpcError `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.Error == nil {
		t.Fatalf("not a JSON-RPC error: %s", body)
	}
	return *resp.Error
}

// httpSession initializes a streamable HTTP session and returns a caller.
func httpSession(t *testing.T, url string) func(body string) []byte {
	return sessionAs(t, url, "", false)
}

// tokenSession is httpSession with a bearer token.
func tokenSession(t *testing.T, url, token string) func(body string) []byte {
	return sessionAs(t, url, token, false)
}

// bearerSession is tokenSession that fails the test on any HTTP status
// of 300 or more, the initialize included.
func bearerSession(t *testing.T, url, token string) func(body string) []byte {
	return sessionAs(t, url, token, true)
}

// sessionAs initializes a streamable HTTP session (with a bearer token
// unless token is "") and returns a caller that posts a JSON-RPC body in it.
func sessionAs(t *testing.T, url, token string, mustSucceed bool) func(body string) []byte {
	t.Helper()
	post := func(sid, body string) (http.Header, []byte) {
		code, hdr, b := postAs(t, url, token, sid, body)
		if mustSucceed && code >= 300 {
			t.Fatalf("HTTP %d: %s", code, b)
		}
		return hdr, b
	}
	hdr, _ := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := hdr.Get("Mcp-Session-Id")
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return func(body string) []byte {
		_, b := post(sid, body)
		return b
	}
}

func postRaw(t *testing.T, url, sid, body string) (int, http.Header, []byte) {
	t.Helper()
	return postAs(t, url, "", sid, body)
}

// postAs posts one JSON-RPC body, in session sid unless it is "", with a
// bearer token unless token is "".
func postAs(t *testing.T, url, token, sid, body string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// The error format of DESIGN.md over `mcp-router stdio` and over HTTP, with
// server-everything upstream: an unknown tool, an upstream's own JSON-RPC
// error (a prompt called without its required argument: server-everything
// answers tool argument errors as isError results, which pass through), a
// timeout, and a server that dies during the call.
func TestRoutingErrorsOverStdioAndHTTP(t *testing.T) {
	slow := everythingDef(t, "slow")
	slow.TimeoutSeconds = 1
	e := serve(t, t.TempDir(), []spec.Server{slow, everythingDef(t, "victim")}, true)
	stdio := newStdioClient(t, e.core)
	post := httpSession(t, e.url)

	cases := []struct {
		tool, args string
		code       int
		message    string // prefix
		server     string
		reason     string
	}{
		{"nosuch__tool", `{}`, -32602, "mcp-router: tool 'nosuch__tool' not found", "mcp-router", "unknown_tool"},
		{"prompts/get slow__args-prompt", `{}`, -32602, "slow: upstream error -32602: ", "slow", "upstream_error"},
		{"slow__trigger-long-running-operation", `{"duration":3,"steps":1}`, -32002, "slow: timed out: no answer within 1s", "slow", "timeout"},
	}
	id := 1
	for _, c := range cases {
		method, name := "tools/call", c.tool
		if m, n, ok := strings.Cut(c.tool, " "); ok {
			method, name = m, n
		}
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"name":%q,"arguments":%s}}`, id, method, name, c.args)
		stdio.send(msg)
		for transport, got := range map[string]jsonrpcError{"stdio": errorIn(t, stdio.answer(id)), "HTTP": errorIn(t, post(msg))} {
			if got.Code != c.code || !strings.HasPrefix(got.Message, c.message) ||
				got.Data["server"] != c.server || got.Data["reason"] != c.reason {
				t.Errorf("%s, %s: %+v; want %d %q… server %s reason %s", transport, c.tool, got, c.code, c.message, c.server, c.reason)
			}
		}
		id++
	}

	// Server down: the upstream dies while the call waits, once per transport.
	killed := 0
	for _, transport := range []string{"stdio", "HTTP"} {
		testpeers.Eventually(t, 20*time.Second, "victim running (again)", func() bool {
			st, err := e.core.Servers.Status("victim")
			return err == nil && st.State == "running" && st.PID != 0 && st.PID != killed
		})
		e.core.Gateway.Rebuild() // its tools, published now rather than after the debounce
		st, _ := e.core.Servers.Status("victim")
		killed = st.PID
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"victim__trigger-long-running-operation","arguments":{"duration":10,"steps":2}}}`, id)
		answers := make(chan []byte, 1)
		go func(id int) {
			if transport == "stdio" {
				stdio.send(msg)
				answers <- stdio.answer(id)
			} else {
				answers <- post(msg)
			}
		}(id)
		time.Sleep(500 * time.Millisecond)
		_ = testpeers.KillProcess(st.PID)
		select {
		case body := <-answers:
			got := errorIn(t, body)
			if got.Code != -32001 || !strings.HasPrefix(got.Message, "victim: ") ||
				got.Data["server"] != "victim" || got.Data["reason"] != "server_down" {
				t.Errorf("%s, server down: %+v", transport, got)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("%s: the call hung after its upstream died", transport)
		}
		id++
	}
}
