package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/mcp-router/mcp-router/internal/testpeers"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
)

// `mcp-router stdio` answers initialize at once, while an upstream still
// takes 10 s to start, and tells the client with list_changed when it is up.
func TestStdioAnswersAtOnceAndListsServersAsTheyComeUp(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	slow := testmcp.Server("slow")
	slow.Env[testmcp.EnvDelay] = "10s"
	if _, err := st.Servers().Create(context.Background(), slow); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Servers().Create(context.Background(), testmcp.Server("quick")); err != nil {
		t.Fatal(err)
	}
	st.Close()

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	stderr := &testpeers.SyncBuffer{}
	go func() {
		done <- Main(ctx, []string{"--data-dir", dir, "stdio"}, Options{Stdin: inR, Stdout: outW, Stderr: stderr})
		outW.Close()
	}()
	defer func() {
		cancel()
		inW.Close()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("stdio did not end")
		}
	}()

	type message struct {
		ID     *int            `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	msgs := make(chan message, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m message
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				msgs <- m
			}
		}
		close(msgs)
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// next returns the next message: an answer to id, or a notification.
	next := func(timeout time.Duration) (message, bool) {
		select {
		case m, ok := <-msgs:
			return m, ok
		case <-time.After(timeout):
			return message{}, false
		}
	}
	answer := func(id int, timeout time.Duration) (message, []string) {
		t.Helper()
		var notes []string
		deadline := time.Now().Add(timeout)
		for {
			m, ok := next(time.Until(deadline))
			if !ok {
				t.Fatalf("no answer to %d within %s (stderr: %s)", id, timeout, stderr.String())
			}
			if m.ID != nil && *m.ID == id {
				return m, notes
			}
			if m.ID == nil {
				notes = append(notes, m.Method)
			}
		}
	}

	start := time.Now()
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	init, _ := answer(1, 5*time.Second)
	took := time.Since(start)
	if took >= time.Second {
		t.Errorf("initialize answered after %v, want under 1 s", took)
	}
	if !strings.Contains(string(init.Result), `"listChanged":true`) {
		t.Errorf("initialize result without tools.listChanged: %s", init.Result)
	}
	t.Logf("initialize answered after %v", took.Round(time.Millisecond))
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	tools := func(id int) string {
		send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/list"}`)
		m, _ := answer(id, core.FirstListWait+10*time.Second)
		return string(m.Result)
	}
	// The first list waits a little for servers still starting: the quick
	// one is in it (a client that lists once and leaves sees it), the slow
	// one cannot be.
	listed := time.Now()
	first := tools(2)
	if strings.Contains(first, "slow__show") || !strings.Contains(first, "quick__show") {
		t.Fatalf("first tools/list: want quick's tools and not slow's: %s", first)
	}
	if took := time.Since(listed); took > core.FirstListWait+2*time.Second {
		t.Errorf("the first tools/list took %v", took)
	}
	// Wait for list_changed, then the slow server's tools are there.
	deadline := time.Now().Add(30 * time.Second)
	for id := 3; ; id++ {
		m, ok := next(time.Until(deadline))
		if !ok {
			t.Fatalf("no tools/list_changed bringing slow's tools within 30 s (stderr: %s)", stderr.String())
		}
		if m.Method == "notifications/tools/list_changed" && strings.Contains(tools(id), "slow__show") {
			break
		}
	}
	if since := time.Since(start); since < 9*time.Second {
		t.Errorf("slow's tools listed after %v: did it start with its 10 s delay?", since)
	}
	if last := tools(1 << 20); !strings.Contains(last, "slow__show") || !strings.Contains(last, "quick__show") {
		t.Errorf("tools/list after both started: %s", last)
	}
}
