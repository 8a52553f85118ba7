package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/hotpath"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/cputime"
)

// echoPeer is a stdio server in a goroutine, on real pipes, that answers
// every request line as server-everything answers everything__echo (its
// keys in the TypeScript SDK's order, the id last) and allocates nothing
// per line, so a benchmark's allocations are the router's.
func echoPeer(tb testing.TB, stdin *os.File, stdout *os.File) {
	r := bufio.NewReaderSize(stdin, 64<<10)
	var out []byte
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		i := bytes.Index(line, []byte(`"id":`))
		if i < 0 {
			continue
		}
		id := line[i+5:]
		id = id[:bytes.IndexByte(id, ',')]
		out = append(out[:0], `{"result":{"content":[{"type":"text","text":"Echo: hello"}]},"jsonrpc":"2.0","id":`...)
		out = append(out, id...)
		out = append(out, "}\n"...)
		if _, err := stdout.Write(out); err != nil {
			return
		}
	}
}

// benchService is a Service whose one server "echo" is connected over a
// pipeTransport on real pipes to an echoPeer.
func benchService(b *testing.B) *Service {
	b.Helper()
	sp := spec.Server{Name: "echo", Command: "echo", Enabled: true}
	sp.Normalize()
	return pipeService(b, sp, echoPeer)
}

// pipeService is a Service whose one server sp is connected over a
// pipeTransport on real pipes (the process's side wrapped by hotpath as in
// dialOnce) to peer, which reads the requests from stdin and writes on
// stdout, in a goroutine of its own, until stdin ends.
func pipeService(tb testing.TB, sp spec.Server, peer func(tb testing.TB, stdin, stdout *os.File)) *Service {
	tb.Helper()
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	toClientR, toClientW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	peerDone := make(chan struct{})
	go func() {
		defer close(peerDone)
		peer(tb, toServerR, toClientW)
	}()
	pt := newPipeTransport(hotpath.File(toClientR), hotpath.File(toServerW))
	pt.max = DefaultMaxMessage
	ctx, cancel := context.WithCancel(context.Background())
	if err := pt.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	s := New(fastOptions())
	m := newManaged(s, sp)
	m.conn = &conn{spec: sp, tr: pt, lost: make(chan struct{})}
	m.status.State = StateRunning
	s.mu.Lock()
	s.servers[sp.Name] = m
	s.mu.Unlock()
	tb.Cleanup(func() {
		cancel()
		_ = pt.Close()
		toServerW.Close() // the peer's stdin ends
		<-peerDone
		toClientW.Close()
		toServerR.Close()
		toClientR.Close()
	})
	return s
}

// BenchmarkPipeRequest is the upstream side of one forwarded tools/call
// on a stdio server: Service.Request with the server's timeout, the
// request line, the pipe both ways, and the answer's routing. Each call
// has a cancel context of its own, as net/http gives each request.
// Run with -cpu 1 (the router runs on one P).
func BenchmarkPipeRequest(b *testing.B) {
	s := benchService(b)
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"hello"}}`)
	want := `{"content":[{"type":"text","text":"Echo: hello"}]}`
	b.ReportAllocs()
	defer reportCPU(b, cputime.Process())
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		raw, err := s.Request(ctx, "echo", "tools/call", params)
		cancel()
		if err != nil || string(raw) != want {
			b.Fatalf("%s %v", raw, err)
		}
	}
}

// BenchmarkPipeDispatch is the routing of one answer line alone: its id
// found, its waiting request taken, its result handed over.
func BenchmarkPipeDispatch(b *testing.B) {
	p := newPipeTransport(bytes.NewReader(nil), io.Discard)
	line := []byte(`{"result":{"content":[{"type":"text","text":"Echo: hello"}]},"jsonrpc":"2.0","id":"mcpr-12345"}`)
	id := mcp.NewRequestId("mcpr-12345")
	ch := make(chan *transport.JSONRPCResponse, 1)
	b.ReportAllocs()
	defer reportCPU(b, cputime.Process())
	for b.Loop() {
		p.mu.Lock()
		p.pending[`"mcpr-12345"`] = waiting{id: id, ch: ch}
		p.mu.Unlock()
		p.dispatch(line)
		if r := <-ch; len(r.Result) == 0 {
			b.Fatal("no result")
		}
	}
}

// reportCPU reports the process's CPU time per op since start (the peer's
// included, where there is one).
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
}
