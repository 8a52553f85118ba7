package core_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// stdioSession is a client of Core.ServeStdio (the code of `mcp-router
// stdio`) over pipes. Notifications are kept for the test to look at.
type stdioSession struct {
	t  *testing.T
	in io.Writer

	mu      sync.Mutex
	answers map[int]chan json.RawMessage
	notes   []string // methods of the notifications received
	id      int
}

func newStdioSession(t *testing.T, c *core.Core) *stdioSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = c.ServeStdio(ctx, inR, outW) }()
	s := &stdioSession{t: t, in: inW, answers: map[int]chan json.RawMessage{}}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			s.mu.Lock()
			if m.ID != nil && m.Method == "" {
				if ch, ok := s.answers[*m.ID]; ok {
					ch <- append(json.RawMessage(nil), sc.Bytes()...)
				}
			} else if m.ID == nil {
				s.notes = append(s.notes, m.Method)
			}
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close(); <-done })
	return s
}

// request sends method with params and waits up to timeout for the answer.
func (s *stdioSession) request(method, params string, timeout time.Duration) (json.RawMessage, error) {
	s.mu.Lock()
	s.id++
	id := s.id
	ch := make(chan json.RawMessage, 1)
	s.answers[id] = ch
	s.mu.Unlock()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	if _, err := io.WriteString(s.in, msg+"\n"); err != nil {
		return nil, err
	}
	select {
	case a := <-ch:
		return a, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("no answer to %s within %s", method, timeout)
	}
}

func (s *stdioSession) notify(method string) {
	if _, err := io.WriteString(s.in, fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method)+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *stdioSession) notifications() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notes...)
}

const initParams = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`

// callText calls a tool and returns its text, or the error's message.
func (s *stdioSession) callText(tool, args string) (string, error) {
	raw, err := s.request("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args), 30*time.Second)
	if err != nil {
		return "", err
	}
	var r struct {
		Result *struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", err
	}
	switch {
	case r.Error != nil:
		return "", fmt.Errorf("%s", r.Error.Message)
	case r.Result == nil || len(r.Result.Content) == 0:
		return "", fmt.Errorf("no content in %s", raw)
	case r.Result.IsError:
		return "", fmt.Errorf("tool error: %s", r.Result.Content[0].Text)
	}
	return r.Result.Content[0].Text, nil
}

func (s *stdioSession) show(t *testing.T, tool string) (testmcp.Shown, error) {
	text, err := s.callText(tool, `{}`)
	if err != nil {
		return testmcp.Shown{}, err
	}
	var sh testmcp.Shown
	if err := json.Unmarshal([]byte(text), &sh); err != nil {
		t.Fatalf("%s answered %q", tool, text)
	}
	return sh, nil
}

// `servers update` from the CLI, in another process, changes what a
// running router does: the environment and arguments a stdio server runs
// with, the headers sent to an HTTP server, and the timeout.
func TestServersUpdateChangesARunningRouter(t *testing.T) {
	remote := httptest.NewServer(testmcp.HTTPHandler())
	defer remote.Close()
	dir := t.TempDir()
	c, err := core.Open(dir, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for _, def := range []spec.Server{
		testmcp.Server("local", "a1"),
		{Name: "remote", URL: remote.URL, Headers: map[string]string{testmcp.HeaderKnob: "h1"}, Enabled: true},
	} {
		if _, err := c.Store.Servers().Create(ctx, def); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Run(ctx, 0); err != nil {
		t.Fatal(err)
	}
	s := newStdioSession(t, c)
	if _, err := s.request("initialize", initParams, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	s.notify("notifications/initialized")
	eventually := func(what, tool string, ok func(testmcp.Shown) bool) {
		t.Helper()
		var last testmcp.Shown
		var lastErr error
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			if last, lastErr = s.show(t, tool); lastErr == nil && ok(last) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("%s: last answer %+v, %v", what, last, lastErr)
	}
	eventually("local as added", "local__show", func(sh testmcp.Shown) bool {
		return reflect.DeepEqual(sh.Args, []string{"a1"}) && sh.Env[testmcp.EnvKnob] == ""
	})
	eventually("remote as added", "remote__show", func(sh testmcp.Shown) bool { return sh.Header == "h1" })

	out := runCLI(t, "--data-dir", dir, "servers", "update", "local", "--env", "KNOB=v2", "--arg", "x", "--arg", "y z")
	if !strings.Contains(out, "updated local") || !strings.Contains(out, "KNOB=v2") {
		t.Errorf("servers update said %q", out)
	}
	eventually("local after --env and --arg", "local__show", func(sh testmcp.Shown) bool {
		return reflect.DeepEqual(sh.Args, []string{"x", "y z"}) && sh.Env[testmcp.EnvKnob] == "v2"
	})
	runCLI(t, "--data-dir", dir, "servers", "update", "remote", "--header", testmcp.HeaderKnob+"=h2")
	eventually("remote after --header", "remote__show", func(sh testmcp.Shown) bool { return sh.Header == "h2" })

	// The timeout: 1 s of its own, then back to the setting (60 s).
	if text, err := s.callText("local__sleep", `{"seconds":2}`); err != nil {
		t.Fatalf("sleep 2 s with the default timeout: %v", err)
	} else if text != "slept 2s" {
		t.Fatalf("sleep answered %q", text)
	}
	runCLI(t, "--data-dir", dir, "servers", "update", "local", "--timeout", "1")
	testpeers.Eventually(t, 15*time.Second, "the 1 s timeout to apply", func() bool {
		_, err := s.callText("local__sleep", `{"seconds":2}`)
		return err != nil && strings.Contains(err.Error(), "no answer within 1s")
	})
	runCLI(t, "--data-dir", dir, "servers", "update", "local", "--timeout", "0")
	testpeers.Eventually(t, 15*time.Second, "the setting's timeout to apply again", func() bool {
		_, err := s.callText("local__sleep", `{"seconds":2}`)
		return err == nil
	})
}

// A new HTTP session is answered at once while an upstream still starts.
func TestHTTPInitializeDoesNotWaitForUpstreams(t *testing.T) {
	dir := t.TempDir()
	c, err := core.Open(dir, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	slow := testmcp.Server("slow")
	slow.Env[testmcp.EnvDelay] = "10s"
	if _, err := c.Store.Servers().Create(ctx, slow); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx, 0); err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	ready, served := make(chan string, 1), make(chan error, 1)
	go func() {
		served <- c.Serve(sctx, core.ServeOptions{Addr: "127.0.0.1:0", NoAuth: true, Ready: func(a string) { ready <- a }})
	}()
	defer func() { stop(); <-served }()
	url := "http://" + <-ready + "/mcp"
	start := time.Now()
	body, sid, err := mcpPost(&http.Client{Timeout: 5 * time.Second}, url, "", "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+initParams+`}`)
	took := time.Since(start)
	if err != nil || sid == "" || !strings.Contains(body, `"serverInfo"`) {
		t.Fatalf("initialize: %v, session %q, %s", err, sid, body)
	}
	if took >= time.Second {
		t.Errorf("initialize answered after %v, want under 1 s", took)
	}
	if st, _ := c.Servers.Status("slow"); st.State == "running" {
		t.Errorf("slow is already running: the test did not test a start in progress")
	}
}

// Options.BeforeServers holds back the servers, not Run: the desktop app's
// window opens while the login shell is asked for its PATH.
func TestBeforeServersHoldsBackTheServersOnly(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	var ran atomic.Bool
	c, err := core.Open(dir, core.Options{BeforeServers: func(ctx context.Context) {
		ran.Store(true)
		select {
		case <-release:
		case <-ctx.Done():
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Store.Servers().Create(ctx, testmcp.Server("held")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Run(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Run took %v while BeforeServers was blocked", took)
	}
	testpeers.Eventually(t, 5*time.Second, "BeforeServers to run", ran.Load)
	time.Sleep(300 * time.Millisecond)
	if _, err := c.Servers.Status("held"); err == nil {
		t.Fatal("the server was started before BeforeServers returned")
	}
	close(release)
	testpeers.Eventually(t, 15*time.Second, "the server to run once released", func() bool {
		st, err := c.Servers.Status("held")
		return err == nil && st.State == "running"
	})

	// Closing while it is still blocked does not wait for it.
	c2, err := core.Open(t.TempDir(), core.Options{BeforeServers: func(ctx context.Context) { <-ctx.Done() }})
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.Run(ctx, 0); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { c2.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung on a blocked BeforeServers")
	}
}
