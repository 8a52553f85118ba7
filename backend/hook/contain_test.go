package hook

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Hostile scripts of the read-after-return class: the script's function has
// ended, and what it left behind (its return value, a thrown value, the
// context fields it assigned, a promise's result) runs script again when the
// router reads it — getters, toString, valueOf, Symbol.toPrimitive, Proxy
// traps. Each read must be contained like the script's body: bounded by the
// time limit and the memory budget, no Go panic escaping, and its failure
// treated as the hook's failure (logged under the hook's name; the request
// goes on, or is blocked when the hook is fail-closed).

// containLimit is the time limit the cases run under; within bounds the
// whole Pre/Post call (generous: fresh runtimes are slow under -race on a
// loaded 2-core machine, and the bound only has to be finite to prove the
// read was stopped).
const (
	containLimit  = 300 * time.Millisecond
	containWithin = 20 * time.Second
)

type containCase struct {
	name   string
	phase  string // pre or post
	script string
	// want is in the hook's error log line (and in the block message when
	// fail-closed).
	want string
	opts Options // zero: Timeout containLimit
}

var readAfterReturn = []containCase{
	{name: "continue getter loops forever", phase: PhasePre,
		script: `return { get continue() { for (;;) {} } };`, want: "timed out"},
	{name: "continue getter throws", phase: PhasePre,
		script: `return { get continue() { throw new Error('no continue for you'); } };`, want: "Error: no continue for you"},
	{name: "continue getter recurses without end", phase: PhasePre,
		script: `return { get continue() { const f = () => f() + 1; return f(); } };`, want: "call stack exceeded"},
	{name: "error.message getter throws", phase: PhasePre,
		script: `return { continue: false, error: { get message() { throw new Error('no message for you'); } } };`, want: "Error: no message for you"},
	{name: "error.message toString spins", phase: PhasePre,
		script: `return { continue: false, error: { message: { toString() { for (;;) {} } } } };`, want: "timed out"},
	{name: "error.message valueOf and toString throw", phase: PhasePre,
		script: `return { continue: false, error: { message: { toString: null, valueOf() { throw new TypeError('valueOf'); } } } };`, want: "TypeError: valueOf"},
	{name: "error.message Symbol.toPrimitive throws", phase: PhasePre,
		script: `return { continue: false, error: { message: { [Symbol.toPrimitive]() { throw new Error('prim'); } } } };`, want: "Error: prim"},
	{name: "error.code getter loops forever", phase: PhasePre,
		script: `return { continue: false, error: { message: 'm', get code() { for (;;) {} } } };`, want: "timed out"},
	{name: "error getter throws", phase: PhasePre,
		script: `return { continue: false, get error() { throw new Error('no error object'); } };`, want: "Error: no error object"},
	{name: "context getter on the result throws", phase: PhasePre,
		script: `return { continue: true, get context() { throw new Error('no context'); } };`, want: "Error: no context"},
	{name: "Proxy as the return value: get trap spins", phase: PhasePre,
		script: `return new Proxy({}, { get() { for (;;) {} } });`, want: "timed out"},
	{name: "Proxy as the return value: ownKeys trap throws while it is described", phase: PhasePre,
		script: `return new Proxy({}, { ownKeys() { throw new Error('keys'); } });`, want: "Error: keys"},
	{name: "Proxy as the return value: getPrototypeOf and has traps throw", phase: PhasePre,
		script: `return new Proxy({ continue: true }, { getPrototypeOf() { throw new Error('proto'); }, has() { throw new Error('has'); }, get(t, k) { if (k === 'continue') throw new Error('get'); return t[k]; } });`, want: "Error: get"},
	{name: "revoked Proxy as the return value", phase: PhasePre,
		script: `const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy;`, want: "TypeError"},
	{name: "Proxy as context.arguments: ownKeys spins", phase: PhasePre,
		script: `context.arguments = new Proxy({}, { ownKeys() { for (;;) {} } });`, want: "timed out"},
	{name: "Proxy as context.arguments: get trap throws", phase: PhasePre,
		script: `context.arguments = new Proxy({ a: 1 }, { get() { throw new Error('args trap'); } });`, want: "Error: args trap"},
	{name: "Proxy as context.request.params", phase: PhasePre,
		script: `context.request.params = new Proxy({ name: 'x' }, { get() { throw new Error('params trap'); } });`, want: "Error: params trap"},
	{name: "Proxy as context.response: get trap spins", phase: PhasePost,
		script: `context.response = new Proxy({ content: [] }, { get(t, k) { if (k === 'content') for (;;) {} return t[k]; } });`, want: "timed out"},
	{name: "Proxy as context.response: ownKeys throws", phase: PhasePost,
		script: `context.response = new Proxy({}, { ownKeys() { throw new Error('response keys'); } });`, want: "Error: response keys"},
	{name: "context.error with a throwing getter", phase: PhasePost,
		script: `context.error = { get message() { throw new Error('error getter'); } };`, want: "Error: error getter"},
	{name: "context.shared with a throwing getter", phase: PhasePre,
		script: `context.shared = { get k() { throw new Error('shared getter'); } };`, want: "Error: shared getter"},
	{name: "array element getter in context.arguments spins", phase: PhasePre,
		script: `const a = [1, 2]; Object.defineProperty(a, 1, { get() { for (;;) {} }, enumerable: true }); context.arguments = { a };`, want: "timed out"},
	{name: "thrown object with a throwing toString", phase: PhasePre,
		script: `throw { toString() { throw new Error('inner'); } };`, want: "Error: inner"},
	{name: "thrown object with a toString that spins", phase: PhasePre,
		script: `throw { toString() { for (;;) {} } };`, want: "timed out"},
	{name: "thrown Error whose message getter spins", phase: PhasePre,
		script: `const e = new Error('x'); Object.defineProperty(e, 'message', { get() { for (;;) {} } }); throw e;`, want: "timed out"},
	{name: "thrown object whose Symbol.toStringTag getter throws", phase: PhasePre,
		script: `throw { get [Symbol.toStringTag]() { throw new Error('tag'); } };`, want: "Error: tag"},
	{name: "thrown object with Symbol.toPrimitive that spins", phase: PhasePre,
		script: `throw { [Symbol.toPrimitive]() { for (;;) {} } };`, want: "timed out"},
	{name: "thrown Proxy", phase: PhasePre,
		script: `throw new Proxy({}, { get() { throw new Error('thrown proxy'); } });`, want: "Error: thrown proxy"},
	{name: "thrown value whose toString throws a hostile value", phase: PhasePre,
		script: `const evil = { toString() { throw evil; } }; throw evil;`, want: "cannot be shown"},
	{name: "getter that allocates without bound", phase: PhasePre,
		script: `return { get continue() { const a = []; for (let i = 0; ; i++) a.push('x'.repeat(1 << 16) + i); } };`,
		want:   "used too much memory", opts: Options{Timeout: 30 * time.Second, MaxMemory: 32 << 20}},
	{name: "fulfilled promise whose result has a throwing getter", phase: PhasePre,
		script: `return Promise.resolve({ get continue() { throw new Error('late getter'); } });`, want: "Error: late getter"},
	{name: "async function whose result's message getter spins", phase: PhasePre,
		script: `return (async () => ({ continue: false, error: { get message() { for (;;) {} } } }))();`, want: "timed out"},
	{name: "rejected promise whose reason has a getter that spins", phase: PhasePre,
		script: `return Promise.reject({ get x() { for (;;) {} } });`, want: "timed out"},
	{name: "rejected promise whose reason has a throwing toString", phase: PhasePre,
		script: `return Promise.reject(new Proxy({}, { ownKeys() { throw new Error('reason keys'); } }));`, want: "Error: reason keys"},
	{name: "ignored return value whose description spins", phase: PhasePre,
		script: `return { get other() { for (;;) {} } };`, want: "timed out"},
	{name: "ignored continue value whose description throws", phase: PhasePre,
		script: `return { continue: { get x() { throw new Error('continue value'); } } };`, want: "Error: continue value"},
	{name: "console.log of an object with a getter that spins", phase: PhasePre,
		script: `console.log({ get x() { for (;;) {} } });`, want: "timed out"},
	{name: "console.log of a Proxy whose traps throw", phase: PhasePre,
		script: `console.log(new Proxy({}, { ownKeys() { throw new Error('log keys'); } }));`, want: "Error: log keys"},
	{name: "console.log inside a getter read after return", phase: PhasePre,
		script: `return { get continue() { console.log({ get y() { throw new Error('log in getter'); } }); return true; } };`, want: "Error: log in getter"},
}

func (cc containCase) options() Options {
	o := cc.opts
	if o.Timeout == 0 {
		o.Timeout = containLimit
	}
	return o
}

// runPhase runs Pre or Post on its own goroutine and reports a Go panic
// that escaped the engine instead of crashing the test binary; a run that
// never ends fails the test after containWithin.
func runPhase(t *testing.T, svc *Service, phase string, c *Call) (b *Block, d time.Duration) {
	t.Helper()
	type result struct {
		b     *Block
		panic any
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{panic: r}
			}
		}()
		if phase == PhasePre {
			done <- result{b: svc.Pre(context.Background(), c)}
		} else {
			done <- result{b: svc.Post(context.Background(), c)}
		}
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			// Not %v: formatting a goja exception can run the script again.
			t.Fatalf("a Go panic escaped the hook engine: %T", r.panic)
		}
		return r.b, time.Since(start)
	case <-time.After(containWithin):
		t.Fatalf("the %s hooks did not end within %v", phase, containWithin)
	}
	return nil, 0
}

func phaseCall(phase string) *Call {
	c := callTool(map[string]any{"message": "hi"})
	if phase == PhasePost {
		c.Response = map[string]any{"content": []any{map[string]any{"type": "text", "text": "hi"}}}
	}
	return c
}

func TestReadAfterReturnIsContained(t *testing.T) {
	for _, cc := range readAfterReturn {
		t.Run(cc.name, func(t *testing.T) {
			// Fail-open: the failure is logged under the hook's name and the
			// chain goes on to the next hook.
			f := newFixture(t, cc.options())
			typ := cc.phase
			f.add("evil", typ, 0, cc.script)
			f.add("after", typ, 1, `context.shared.after = true;`)
			c := phaseCall(cc.phase)
			b, d := runPhase(t, f.svc, cc.phase, c)
			if b != nil {
				t.Errorf("fail-open hook blocked: %v", b)
			}
			if c.Shared["after"] != true {
				t.Error("the chain did not go on to the next hook")
			}
			logs := f.svc.Logs("evil")
			if len(logs) == 0 || logs[len(logs)-1].Level != "error" || !logs[len(logs)-1].Router ||
				!strings.Contains(logs[len(logs)-1].Message, cc.want) || !strings.Contains(logs[len(logs)-1].Message, "the request goes on") {
				t.Errorf("hook log = %+v; want an error line with %q", logs, cc.want)
			}
			if app := f.logText(); !strings.Contains(app, "hook=evil") || !strings.Contains(app, cc.want) {
				t.Errorf("app log lacks the hook's name or %q:\n%s", cc.want, app)
			}
			if cc.phase == PhasePost {
				if jsonOf(t, c.Response) != `{"content":[{"text":"hi","type":"text"}]}` {
					t.Errorf("response changed by a failed hook: %s", jsonOf(t, c.Response))
				}
			} else if jsonOf(t, c.Arguments) != `{"message":"hi"}` {
				t.Errorf("arguments changed by a failed hook: %s", jsonOf(t, c.Arguments))
			}
			t.Logf("fail-open: %s (%v)", logs[len(logs)-1].Message, d.Round(time.Millisecond))

			// The same hook's runtimes still work: a later, harmless run of
			// the same hook after the failure is not disturbed.
			again := phaseCall(cc.phase)
			runPhase(t, f.svc, cc.phase, again)
			if again.Shared["after"] != true {
				t.Error("a second call did not reach the next hook")
			}

			// Fail-closed: the same failure blocks, naming the hook.
			g := newFixture(t, cc.options())
			g.add("evil", typ, 0, cc.script, failClosed)
			g.add("after", typ, 1, `context.shared.after = true;`)
			c = phaseCall(cc.phase)
			b, _ = runPhase(t, g.svc, cc.phase, c)
			if b == nil || b.Hook != "evil" || b.Phase != cc.phase || !strings.HasPrefix(b.Message, "hook failed: ") || !strings.Contains(b.Message, cc.want) {
				t.Errorf("fail-closed block = %+v; want hook failed: …%s…", b, cc.want)
			}
			if c.Shared["after"] == true {
				t.Error("the chain went on after a fail-closed block")
			}
		})
	}
}

// A toJSON method is never run when the router reads a value back: the
// object's own data is used, as the docs say. (Pinned so that a later
// change to the exporter cannot start running script there unguarded.)
func TestToJSONIsNotRunOnRead(t *testing.T) {
	f := newFixture(t, Options{Timeout: containLimit})
	f.add("tojson", "post", 0, `context.response = { a: 1, toJSON() { for (;;) {} } };
return { continue: true, toJSON() { for (;;) {} } };`)
	c := phaseCall(PhasePost)
	if b, _ := runPhase(t, f.svc, PhasePost, c); b != nil {
		t.Fatal(b)
	}
	if got := jsonOf(t, c.Response); got != `{"a":1}` {
		t.Errorf("response = %s", got)
	}
	for _, l := range f.svc.Logs("tojson") {
		if l.Level == "error" {
			t.Errorf("log: %+v", l)
		}
	}
}

// The time a hostile read may take is the hook's time limit: the limit
// counts from the start of the run, not again for the reads.
func TestReadsShareTheRunsTimeLimit(t *testing.T) {
	f := newFixture(t, Options{Timeout: 400 * time.Millisecond})
	f.add("slow-then-spin", "pre", 0, `sleep(300); return { get continue() { for (;;) {} } };`)
	c := phaseCall(PhasePre)
	_, d := runPhase(t, f.svc, PhasePre, c)
	if logs := f.svc.Logs("slow-then-spin"); len(logs) == 0 || !strings.Contains(logs[len(logs)-1].Message, "timed out") {
		t.Fatalf("logs = %+v", logs)
	}
	t.Logf("ended after %v (limit 400ms)", d.Round(time.Millisecond))
}

// A hostile value in a dry run (`hooks test`, the UI's editor) is contained
// the same way, and the result says why the hook failed.
func TestDryRunContainsHostileReads(t *testing.T) {
	f := newFixture(t, Options{Timeout: containLimit})
	done := make(chan TestResult, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- TestResult{Error: fmt.Sprintf("PANIC %v", r)}
			}
		}()
		res, _ := f.svc.TestUnsaved(context.Background(), hookRow("dry", `throw { toString() { throw new Error('dry inner'); } };`), *phaseCall(PhasePre), PhasePre)
		done <- res
	}()
	select {
	case res := <-done:
		if !res.Continue || !strings.Contains(res.Error, "Error: dry inner") || strings.Contains(res.Error, "PANIC") {
			t.Errorf("result = %+v", res)
		}
	case <-time.After(containWithin):
		t.Fatal("the dry run did not end")
	}
}

// A huge block message or thrown string is cut, so that a script cannot
// put megabytes into the log and the client's error.
func TestLongMessagesAreCut(t *testing.T) {
	f := newFixture(t, Options{})
	f.add("long-block", "pre", 0, `return { continue: false, error: { message: 'm'.repeat(1e6), code: 7 } };`)
	b := f.svc.Pre(context.Background(), phaseCall(PhasePre))
	if b == nil || b.Code != 7 || len(b.Message) > maxErrorText+len("…") || !strings.HasPrefix(b.Message, "mmm") {
		t.Errorf("block = %d chars, code %v", len(b.Message), b)
	}
	// A long time limit: this is about the cut, and building the string
	// under -race on a loaded machine can take seconds.
	g := newFixture(t, Options{Timeout: time.Minute})
	g.add("long-throw", "pre", 0, `throw 't'.repeat(1e6);`, failClosed)
	b = g.svc.Pre(context.Background(), phaseCall(PhasePre))
	if b == nil || len(b.Message) > 2*maxErrorText || !strings.HasPrefix(b.Message, "hook failed: ttt") {
		t.Errorf("thrown string: block message of %d characters", len(b.Message))
	}
}
