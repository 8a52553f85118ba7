package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
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

// Retained-heap bounds of TestSandboxRetainedHeap: generous for another Go
// or goja version, far below what a leak holds. Measured (go1.26, goja as
// in go.mod, with and without -race): 424 KB per fresh runtime; 0-69 KB of
// growth over the calls. A runtime that kept each call's context (tried by
// appending it to the sandbox in putSandbox) grew 272 MB; one that held
// 3 MB more failed the first bound.
const (
	maxHeapPerRuntime = 2 << 20  // a fresh runtime: prelude, frozen builtins, the program
	maxHeapAfterCalls = 16 << 20 // a hook's pool after sandboxCalls calls, beyond its warm size
	sandboxCalls      = 2000
	sandboxCallArg    = 64 << 10 // bytes of one call's argument: sandboxCalls of them are 128 MB
)

// The heap a pooled runtime keeps alive, asserted: a fresh runtime's, and
// what a hook's pooled runtimes hold after serving many calls with large
// arguments — no call's arguments, context object or result may stay
// behind in a runtime that goes back to the pool, or the router's memory
// would grow with every request.
func TestSandboxRetainedHeap(t *testing.T) {
	f := newFixture(t, Options{})
	p, err := compile("x", earlyReturn)
	if err != nil {
		t.Fatal(err)
	}
	keep := make([]*sandbox, 10)
	runtime.GC()
	before := heapInUse()
	for i := range keep {
		if keep[i], err = f.svc.newSandbox(p); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	perRuntime := (heapInUse() - min(heapInUse(), before)) / uint64(len(keep))
	runtime.KeepAlive(keep)
	t.Logf("retained heap per runtime: %d KB (bound %d KB)", perRuntime>>10, maxHeapPerRuntime>>10)
	if perRuntime > maxHeapPerRuntime {
		t.Errorf("a fresh runtime keeps %d KB alive, over the %d KB bound", perRuntime>>10, maxHeapPerRuntime>>10)
	}

	// A hook that reads and changes every part of the context it is given.
	f.add("touch", "pre", 0, `context.arguments.seen = context.arguments.payload.length;
context.shared.last = context.arguments.payload.slice(0, 16);
context.arguments.copy = context.arguments.payload + '!';`)
	arg := func(i int) map[string]any {
		return map[string]any{"payload": strings.Repeat(string(rune('a'+i%26)), sandboxCallArg)}
	}
	for i := 0; i < 20; i++ { // fill the pool
		f.svc.Pre(context.Background(), callTool(arg(i)))
	}
	runtime.GC()
	warm := heapInUse()
	for i := 0; i < sandboxCalls; i++ {
		c := callTool(arg(i))
		if b := f.svc.Pre(context.Background(), c); b != nil {
			t.Fatal(b)
		}
		if c.Arguments.(map[string]any)["seen"] != float64(sandboxCallArg) {
			t.Fatalf("call %d: the hook did not run: %v", i, c.Arguments.(map[string]any)["seen"])
		}
	}
	runtime.GC()
	grown := heapInUse() - min(heapInUse(), warm)
	t.Logf("heap grown over %d calls with %d KB arguments: %d KB (bound %d KB; %d KB if each call stayed)",
		sandboxCalls, sandboxCallArg>>10, grown>>10, maxHeapAfterCalls>>10, sandboxCalls*2*sandboxCallArg>>10)
	if grown > maxHeapAfterCalls {
		t.Errorf("the heap grew by %d KB over %d calls, over the %d KB bound: the sandbox keeps calls alive", grown>>10, sandboxCalls, maxHeapAfterCalls>>10)
	}
}

func BenchmarkCompile(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := compile("x", earlyReturn); err != nil {
			b.Fatal(err)
		}
	}
}
