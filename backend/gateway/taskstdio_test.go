package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// stdioPeer drives the gateway over mcp-go's stdio server behind the task
// front, as `mcp-router stdio` does (core.ServeStdio).
type stdioPeer struct {
	t       *testing.T
	in      *io.PipeWriter
	mu      sync.Mutex
	answers map[string]json.RawMessage
	arrived chan struct{}
}

func newStdioPeer(t *testing.T, gw *Gateway) *stdioPeer {
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	fin, fout := gw.StdioFront(ctx, inR, outW)
	s := server.NewStdioServer(gw.Server())
	done := make(chan struct{})
	go func() { _ = s.Listen(ctx, fin, fout); close(done) }()
	p := &stdioPeer{t: t, in: inW, answers: map[string]json.RawMessage{}, arrived: make(chan struct{}, 100)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for sc.Scan() {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && len(m.ID) > 0 {
				p.mu.Lock()
				p.answers[string(m.ID)] = append(json.RawMessage(nil), sc.Bytes()...)
				p.mu.Unlock()
				p.arrived <- struct{}{}
			}
		}
	}()
	t.Cleanup(func() { cancel(); inW.Close(); <-done; outW.Close() })
	return p
}

func (p *stdioPeer) rpc(id int, method, params string) []byte {
	p.t.Helper()
	if _, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
		p.t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for {
		p.mu.Lock()
		a, ok := p.answers[fmt.Sprint(id)]
		p.mu.Unlock()
		if ok {
			return a
		}
		select {
		case <-p.arrived:
		case <-deadline:
			p.t.Fatalf("no answer to %s (id %d)", method, id)
		}
	}
}

func TestTasksOverStdio(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "one", spec.PrefixAlways)}, rigOptions{})
	p := newStdioPeer(t, r.gw)
	init := p.rpc(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stdio","version":"1"}}`)
	if !strings.Contains(string(init), `"tasks":{`) {
		t.Fatalf("initialize offers no tasks: %s", init)
	}
	fmt.Fprintln(p.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	created := readTask(t, p.rpc(1, "tools/call", `{"name":"one__simulate-research-query","arguments":{"topic":"pipes"},"task":{"ttl":60000}}`))
	a := created.Result.Task.TaskID
	if !strings.HasPrefix(a, "mcpr-task-") {
		t.Fatalf("created: %+v", created)
	}
	// Other requests pass on to mcp-go meanwhile.
	if tools := p.rpc(2, "tools/list", `{}`); !strings.Contains(string(tools), "one__echo") {
		t.Fatalf("tools/list: %s", tools)
	}
	res := readTask(t, p.rpc(3, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, a)))
	if len(res.Result.Content) == 0 || !strings.Contains(res.Result.Content[0].Text, "# Research Report: pipes") {
		t.Fatalf("tasks/result: %+v", res)
	}
	if get := readTask(t, p.rpc(4, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, a))); get.Result.TaskID != a || get.Result.Status != "completed" {
		t.Fatalf("tasks/get: %+v", get)
	}
	if e := errorOf(t, p.rpc(5, "tasks/get", `{"taskId":"mcpr-task-nope"}`)); e.Data["reason"] != ReasonUnknownTask {
		t.Fatalf("unknown task: %+v", e)
	}
}
