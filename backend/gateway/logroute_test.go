package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// serveLogger is a stdio upstream whose "work" tool logs "log for WHO"
// once the calls it is told to expect (together) are all in flight, then
// answers: a stdio server's log line carries no link to a call.
func serveLogger() {
	s := server.NewMCPServer("logger", "1", server.WithToolCapabilities(false), server.WithLogging())
	b := &barrier{count: map[string]int{}, open: map[string]chan struct{}{}}
	s.AddTool(mcp.NewTool("work"), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		who := r.GetString("who", "")
		n := r.GetInt("together", 1)
		if err := b.wait(ctx, fmt.Sprintf("work-%d", n), n); err != nil { // a round of n calls
			return nil, err
		}
		_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message",
			map[string]any{"level": "info", "data": "log for " + who})
		time.Sleep(200 * time.Millisecond)
		return mcp.NewToolResultText("done for " + who), nil
	})
	_ = server.ServeStdio(s)
}

// whoLogsUpstream is a streamable HTTP upstream whose "work" tool answers
// on an event stream: once both calls are in, a log message naming the
// caller, a pause, then the answer — each log message on its own call's
// stream.
func whoLogsUpstream(t *testing.T, name string) spec.Server {
	t.Helper()
	b := &barrier{count: map[string]int{}, open: map[string]chan struct{}{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Arguments struct {
					Who string `json:"who"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Mcp-Session-Id", "who-session")
		answer := func(result string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
		}
		switch {
		case len(m.ID) == 0:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"who","version":"1"}}`))
		case m.Method == "tools/list":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer(`{"tools":[{"name":"work","inputSchema":{"type":"object"}}]}`))
		case m.Method == "tools/call":
			if err := b.wait(r.Context(), "work", 2); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"log for %s\"}}\n\n", m.Params.Arguments.Who)
			w.(http.Flusher).Flush()
			time.Sleep(200 * time.Millisecond)
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", answer(`{"content":[{"type":"text","text":"done"}]}`))
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer(`{}`))
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	def := spec.Server{Name: name, Transport: spec.HTTP, URL: srv.URL + "/mcp", Enabled: true, PrefixMode: spec.PrefixAlways}
	def.Normalize()
	return def
}

// callTogether has each session call tool with its own who, at once, and
// returns each answer's body.
func callTogether(t *testing.T, tool string, together int, sessions map[string]*rawHTTP) map[string][]byte {
	t.Helper()
	var mu sync.Mutex
	bodies := map[string][]byte{}
	var wg sync.WaitGroup
	for who, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, body := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":{"who":%q,"together":%d}}}`, tool, who, together))
			if status != http.StatusOK {
				t.Errorf("%s: HTTP %d %s", who, status, body)
			}
			mu.Lock()
			bodies[who] = body
			mu.Unlock()
		}()
	}
	wg.Wait()
	return bodies
}

// A log message reaches only the client it is about. On an HTTP upstream
// each call's log message comes on that call's own stream, and goes to
// that call's client even while another client calls the same server;
// before, both went to whichever call was first in flight.
func TestLogMessagesOfAnHTTPUpstreamGoToTheirOwnCall(t *testing.T) {
	r := newRig(t, []spec.Server{whoLogsUpstream(t, "who")}, rigOptions{})
	for _, fast := range []bool{true, false} {
		t.Run(fmt.Sprintf("fast=%v", fast), func(t *testing.T) {
			r.gw.SetFastPath(fast)
			defer r.gw.SetFastPath(true)
			alice, bob := initRaw(t, r.url, `{}`), initRaw(t, r.url, `{}`)
			aliceGET := collectGET(t, alice)
			bobGET := collectGET(t, bob)
			bodies := callTogether(t, "who__work", 2, map[string]*rawHTTP{"alice": alice, "bob": bob})
			time.Sleep(300 * time.Millisecond)
			for who, other := range map[string]string{"alice": "bob", "bob": "alice"} {
				got := string(bodies[who])
				if who == "alice" {
					got += aliceGET()
				} else {
					got += bobGET()
				}
				if !strings.Contains(got, "log for "+who) {
					t.Errorf("%s did not get its own log message:\n%s", who, got)
				}
				if strings.Contains(got, "log for "+other) {
					t.Errorf("%s got %s's log message:\n%s", who, other, got)
				}
			}
		})
	}
}

// A stdio upstream's log line is tied to no call: with one client in
// flight it is that client's; with two, it reaches neither (the rule of
// server-to-client requests), rather than the wrong one.
func TestLogMessagesOfAStdioUpstreamReachOnlyASoleClient(t *testing.T) {
	def := spec.Server{Name: "logger", Command: os.Args[0], Env: map[string]string{"MCPR_FAKE_MODE": "logger"}, Enabled: true, PrefixMode: spec.PrefixAlways}
	def.Normalize()
	r := newRig(t, []spec.Server{def}, rigOptions{})
	alice, bob := initRaw(t, r.url, `{}`), initRaw(t, r.url, `{}`)
	aliceGET, bobGET := collectGET(t, alice), collectGET(t, bob)

	alone := callTogether(t, "logger__work", 1, map[string]*rawHTTP{"alice": alice})
	time.Sleep(300 * time.Millisecond)
	if got := string(alone["alice"]) + aliceGET(); !strings.Contains(got, "log for alice") {
		t.Errorf("alice, the only client in flight, did not get her log message:\n%s", got)
	}
	both := callTogether(t, "logger__work", 2, map[string]*rawHTTP{"alice": alice, "bob": bob})
	for who, body := range both {
		if !strings.Contains(string(body), "done for "+who) {
			t.Errorf("%s's call: %s", who, body)
		}
	}
	time.Sleep(300 * time.Millisecond)
	a, b := string(both["alice"])+aliceGET(), string(both["bob"])+bobGET()
	if strings.Contains(a, "log for bob") || strings.Contains(b, "log for alice") {
		t.Errorf("a log message reached the other client:\nalice: %s\nbob: %s", a, b)
	}
}

// collectGET opens s's listening stream and returns a function giving
// what it has received so far (log messages go there on mcp-go's path).
func collectGET(t *testing.T, s *rawHTTP) func() string {
	t.Helper()
	status, events, stop := s.listen("")
	if status != http.StatusOK {
		t.Fatalf("GET stream: HTTP %d", status)
	}
	t.Cleanup(stop)
	var mu sync.Mutex
	var buf bytes.Buffer
	go func() {
		for e := range events {
			mu.Lock()
			buf.WriteString(e.data + "\n")
			mu.Unlock()
		}
	}()
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
}
