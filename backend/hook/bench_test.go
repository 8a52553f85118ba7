package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
)

func benchFixture(b *testing.B, n int, script string) *fixture {
	f := newFixture(&testing.T{}, Options{})
	f.t = nil
	for i := 0; i < n; i++ {
		h := fmt.Sprintf("h%02d", i)
		if _, err := f.svc.Create(context.Background(), hookRow(h, script)); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.svc.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	return f
}

const earlyReturn = `if (context.requestType !== 'CallTool' || context.toolName !== 'dangerous') return;
return {continue: false, error: {message: 'no'}};`

func benchPre(b *testing.B, n int, script string) {
	f := benchFixture(b, n, script)
	args := map[string]any{"message": "hello", "n": 1.0}
	f.svc.Pre(context.Background(), callTool(args)) // warm the pools
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := callTool(args)
		if blk := f.svc.Pre(context.Background(), c); blk != nil {
			b.Fatal(blk)
		}
	}
}

func BenchmarkPre1EarlyReturn(b *testing.B)  { benchPre(b, 1, earlyReturn) }
func BenchmarkPre10EarlyReturn(b *testing.B) { benchPre(b, 10, earlyReturn) }
func BenchmarkPre1Modifying(b *testing.B) {
	benchPre(b, 1, `context.arguments.message = context.arguments.message.toUpperCase();`)
}

// A post hook on a ~100 KB tools/list result: one that returns early never
// converts it; one that filters it pays for the conversion both ways.
func benchList(b *testing.B, script string) {
	f := benchFixture(b, 1, script)
	tools := make([]any, 500)
	for i := range tools {
		tools[i] = map[string]any{"name": fmt.Sprintf("srv__tool_%d", i), "description": "A tool that does something useful with its input",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string", "description": "what to echo"}}}}
	}
	raw, _ := json.Marshal(map[string]any{"tools": tools})
	decoded := map[string]any{"tools": tools}
	for _, tc := range []struct {
		name string
		resp any
	}{{"raw", json.RawMessage(raw)}, {"map", decoded}} {
		f.svc.Post(context.Background(), &Call{RequestType: "ListTools", Response: tc.resp})
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c := &Call{RequestType: "ListTools", Method: "tools/list", Response: tc.resp}
				f.svc.Post(context.Background(), c)
			}
		})
	}
}

func BenchmarkPostListEarlyReturn(b *testing.B) {
	benchList(b, `if (context.requestType !== 'CallTool') return;`)
}
func BenchmarkPostListFilter(b *testing.B) {
	benchList(b, `context.response.tools = context.response.tools.filter(t => !t.name.endsWith('_7'));`)
}

// The cost of a new runtime (prelude, freeze, program): paid when a pool is
// empty, not per call.
func BenchmarkNewSandbox(b *testing.B) {
	f := benchFixture(b, 0, "")
	p, err := compile("x", earlyReturn)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f.svc.newSandbox(p); err != nil {
			b.Fatal(err)
		}
	}
}

// The heap a pooled runtime keeps alive.
func TestSandboxRetainedHeap(t *testing.T) {
	f := newFixture(t, Options{})
	p, _ := compile("x", earlyReturn)
	keep := make([]*sandbox, 10)
	runtime.GC()
	before := heapInUse()
	for i := range keep {
		keep[i], _ = f.svc.newSandbox(p)
	}
	runtime.GC()
	t.Logf("retained heap per runtime: %d KB", (heapInUse()-before)/uint64(len(keep))>>10)
	runtime.KeepAlive(keep)
}

func BenchmarkCompile(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := compile("x", earlyReturn); err != nil {
			b.Fatal(err)
		}
	}
}
