package gateway

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/cputime"
)

// BenchmarkFastPathHandler is one fast-path tools/call through the
// gateway's HTTP handler (guardLocal, limitBody, the session front,
// servePost, serveFast, the pipeline) to an in-process echo upstream,
// without a socket on either side: everything it measures runs on the
// benchmark's goroutine, so ns/op and allocs/op are the router's own work
// per call plus the in-process upstream's (mcp-go's), with little noise.
func BenchmarkFastPathHandler(b *testing.B) {
	up := server.NewMCPServer("echo", "1", server.WithToolCapabilities(false))
	up.AddTool(mcp.NewTool("echo", mcp.WithString("message")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("message", "")), nil
	})
	def := spec.Server{Name: "echo", Transport: spec.Builtin, Enabled: true, PrefixMode: spec.PrefixAlways}
	def.Normalize()
	r := newRig(b, []spec.Server{def}, rigOptions{builtins: map[string]*server.MCPServer{"echo": up}})
	s := newRawHTTP(b, r.url)
	if body := s.call(0, "echo__echo", `{"message":"warm"}`); !bytes.Contains(body, []byte("warm")) {
		b.Fatalf("echo: %s", body)
	}
	h := r.srv.Config.Handler
	tmpl, err := http.NewRequest(http.MethodPost, r.url, nil)
	if err != nil {
		b.Fatal(err)
	}
	tmpl.RemoteAddr = "127.0.0.1:40000"
	tmpl.Header.Set("Content-Type", "application/json")
	tmpl.Header.Set("Accept", "application/json, text/event-stream")
	tmpl.Header.Set(server.HeaderKeySessionID, s.sid)
	tmpl.Header.Set("MCP-Protocol-Version", "2025-11-25")
	var bodies [][]byte
	for i := range 64 {
		bodies = append(bodies, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{"name":"echo__echo","arguments":{"message":"bench"}}}`))
	}
	w := &benchWriter{}
	before := r.gw.fast.served.Load()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		// As net/http gives it: a request context of its own, canceled
		// when the handler returns, and a fresh header map for the answer.
		ctx, cancel := context.WithCancel(context.Background())
		req := tmpl.WithContext(ctx)
		body := bodies[i%len(bodies)]
		req.Body = &benchBody{b: body}
		req.ContentLength = int64(len(body))
		w.reset()
		h.ServeHTTP(w, req)
		cancel()
		if w.status != http.StatusOK || !bytes.Contains(w.body.Bytes(), []byte(`"bench"`)) {
			b.Fatalf("HTTP %d: %s", w.status, w.body.Bytes())
		}
	}
	b.StopTimer()
	// CPU rather than wall time: on a busy machine the wall clock mostly
	// measures waiting for a core.
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
	if r.gw.fast.served.Load()-before != uint64(b.N) {
		b.Fatal("not every call took the fast path")
	}
}

// benchWriter is a response writer that keeps the answer.
type benchWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *benchWriter) reset() {
	w.header = http.Header{}
	w.status = 0
	w.body.Reset()
}

func (w *benchWriter) Header() http.Header { return w.header }

func (w *benchWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *benchWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// benchBody is a request body read from a byte slice.
type benchBody struct {
	b   []byte
	off int
}

func (r *benchBody) Read(p []byte) (int, error) {
	if r.off >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.off:])
	r.off += n
	return n, nil
}

func (r *benchBody) Close() error { return nil }
