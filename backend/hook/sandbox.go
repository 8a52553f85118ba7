package hook

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// Limits inside the sandbox.
const (
	maxArrayLen    = 1 << 20 // elements a builtin may iterate or build in one call
	maxStringLen   = 1 << 25 // characters a string builtin may build in one call
	tickInterval   = 2 * time.Millisecond
	maxConsoleLine = 4096 // characters kept of one console line
	maxConsoleRun  = 200  // console lines kept per hook run
	maxExportDepth = 200  // nesting of values read back from a script
	maxExportNodes = 4 << 20
)

// Reasons a run was stopped from outside.
var (
	errTimeout  = errors.New("timed out")
	errMemory   = errors.New("used too much memory")
	errCanceled = errors.New("request canceled")
)

// sandbox is one goja runtime with a hook's function loaded. A runtime is
// used by one goroutine at a time; each compiled hook keeps a small pool.
type sandbox struct {
	vm        *goja.Runtime
	fn        goja.Callable
	jsonParse goja.Callable
	svc       *Service

	// ctxProto is the prototype of every context object in this runtime: it
	// holds the accessors of the lazy fields and toJSON, and is frozen.
	ctxProto     *goja.Object
	ctxProtoPost *goja.Object

	mu      sync.Mutex // guards the fields below against the watchdog timer
	timer   *time.Timer
	running bool
	cur     *invocation
	broken  bool // interrupted or overflowed: do not reuse
}

// invocation is the state of one run of one hook.
type invocation struct {
	sb       *sandbox
	call     *Call
	phase    string
	hook     string
	ctx      context.Context
	deadline time.Time
	heapBase uint64
	stopped  atomic.Pointer[error]
	sink     func(LogLine)
	lines    int

	lazy [numLazy]lazyField
	obj  *goja.Object
}

type lazyField struct {
	val goja.Value // nil until read or assigned
	set bool       // assigned by the script
}

// The context fields converted on first access.
const (
	lzArguments = iota
	lzRequest
	lzResponse
	lzError
	lzShared
	lzClient
	numLazy
)

var lazyNames = [numLazy]string{"arguments", "request", "response", "error", "shared", "client"}

func (s *Service) newSandbox(p *goja.Program) (*sandbox, error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(s.opts.MaxCallStack)
	sb := &sandbox{vm: vm, svc: s}
	host := vm.NewObject()
	console := vm.NewObject()
	for _, lv := range []string{"log", "info", "warn", "error", "debug"} {
		level := lv
		_ = console.Set(level, func(c goja.FunctionCall) goja.Value {
			sb.consoleLine(level, c.Arguments)
			return goja.Undefined()
		})
	}
	_ = host.Set("console", console)
	_ = host.Set("sleep", sb.sleep)
	_ = host.Set("validateToken", func(c goja.FunctionCall) goja.Value {
		tok := c.Argument(0)
		if s.opts.ValidateToken == nil || goja.IsUndefined(tok) || goja.IsNull(tok) {
			return vm.ToValue(false)
		}
		return vm.ToValue(s.opts.ValidateToken(tok.String()))
	})
	_ = host.Set("getServerInfo", func(c goja.FunctionCall) goja.Value {
		if s.opts.ServerInfo == nil {
			return goja.Null()
		}
		info, ok := s.opts.ServerInfo(c.Argument(0).String())
		if !ok {
			return goja.Null()
		}
		o := vm.NewObject()
		_ = o.Set("name", info.Name)
		_ = o.Set("transport", info.Transport)
		_ = o.Set("status", info.Status)
		tools := make([]any, len(info.Tools))
		for i, t := range info.Tools {
			tools[i] = t
		}
		_ = o.Set("tools", vm.NewArray(tools...))
		return o
	})

	setup, err := vm.RunProgram(preludeProgram)
	if err != nil {
		return nil, fmt.Errorf("sandbox setup: %w", err)
	}
	setupFn, _ := goja.AssertFunction(setup)
	parse, err := setupFn(goja.Undefined(), vm.ToValue(maxArrayLen), vm.ToValue(maxStringLen), host)
	if err != nil {
		return nil, fmt.Errorf("sandbox setup: %w", err)
	}
	sb.jsonParse, _ = goja.AssertFunction(parse)

	var accessors [numLazy][2]goja.Value
	for i := 0; i < numLazy; i++ {
		i := i
		get := vm.ToValue(func(goja.FunctionCall) goja.Value { return sb.cur.get(i) })
		set := vm.ToValue(func(c goja.FunctionCall) goja.Value {
			sb.cur.lazy[i] = lazyField{val: c.Argument(0), set: true}
			return goja.Undefined()
		})
		accessors[i] = [2]goja.Value{get, set}
	}
	toJSON := vm.ToValue(func(c goja.FunctionCall) goja.Value { return sb.cur.toJSON() })
	freeze, _ := goja.AssertFunction(vm.Get("Object").ToObject(vm).Get("freeze"))
	for _, post := range []bool{false, true} {
		proto := vm.NewObject()
		for i := 0; i < numLazy; i++ {
			if (i == lzResponse || i == lzError) && !post {
				continue
			}
			_ = proto.DefineAccessorProperty(lazyNames[i], accessors[i][0], accessors[i][1], goja.FLAG_FALSE, goja.FLAG_TRUE)
		}
		_ = proto.DefineDataProperty("toJSON", toJSON, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		if _, err := freeze(goja.Undefined(), proto); err != nil {
			return nil, err
		}
		if post {
			sb.ctxProtoPost = proto
		} else {
			sb.ctxProto = proto
		}
	}

	if p != nil {
		v, err := vm.RunProgram(p)
		if err != nil {
			return nil, err
		}
		fn, ok := goja.AssertFunction(v)
		if !ok {
			return nil, errors.New("script did not compile to a function")
		}
		sb.fn = fn
	}
	sb.timer = time.AfterFunc(time.Hour, sb.tick)
	sb.timer.Stop()
	return sb, nil
}

// run calls the hook's function with a fresh context object. The watchdog
// timer interrupts it on timeout, request cancellation or heap growth.
func (sb *sandbox) run(inv *invocation) (res goja.Value, err error) {
	inv.sb = sb
	inv.obj = sb.newContext(inv)
	sb.mu.Lock()
	sb.cur = inv
	sb.running = true
	sb.mu.Unlock()
	sb.timer.Reset(tickInterval)

	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	return sb.fn(goja.Undefined(), inv.obj)
}

// finish disarms the watchdog; after it, no Interrupt can reach the runtime.
func (sb *sandbox) finish() {
	sb.mu.Lock()
	sb.running = false
	sb.mu.Unlock()
	sb.timer.Stop()
	sb.vm.ClearInterrupt()
}

func (sb *sandbox) tick() {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if !sb.running {
		return
	}
	inv := sb.cur
	var why error
	switch {
	case time.Now().After(inv.deadline):
		why = errTimeout
	case inv.ctx.Err() != nil:
		why = errCanceled
	case inv.sb.svc.opts.MaxMemory > 0:
		// The baseline is taken at the first tick: runs shorter than a
		// tick (nearly all) never pay for reading the heap size.
		h := heapBytes()
		if inv.heapBase == 0 {
			inv.heapBase = h
		} else if h > inv.heapBase+uint64(inv.sb.svc.opts.MaxMemory) {
			why = errMemory
		}
	}
	if why != nil {
		sb.stopLocked(why)
		return
	}
	sb.timer.Reset(tickInterval)
}

func (sb *sandbox) abort(why error) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.running {
		sb.stopLocked(why)
	}
}

func (sb *sandbox) stopLocked(why error) {
	if sb.cur.stopped.CompareAndSwap(nil, &why) {
		sb.broken = true
		sb.vm.Interrupt(why)
	}
}

// sleep blocks for up to ms milliseconds, waking early when the run is
// stopped; it never outlives the deadline.
func (sb *sandbox) sleep(c goja.FunctionCall) goja.Value {
	inv := sb.cur
	ms := c.Argument(0).ToFloat()
	if !(ms > 0) {
		return goja.Undefined()
	}
	end := time.Now().Add(time.Duration(ms * float64(time.Millisecond)))
	if end.After(inv.deadline) {
		end = inv.deadline.Add(time.Millisecond)
	}
	for inv.stopped.Load() == nil {
		left := time.Until(end)
		if left <= 0 {
			break
		}
		time.Sleep(min(left, 10*time.Millisecond))
	}
	if !time.Now().Before(inv.deadline) {
		sb.abort(errTimeout) // slept into the deadline: the run is over
	}
	return goja.Undefined()
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
var heapMu sync.Mutex

// heapBytes is the Go heap in use, read without stopping the world.
func heapBytes() uint64 {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSample)
	if heapSample[0].Value.Kind() == metrics.KindUint64 {
		return heapSample[0].Value.Uint64()
	}
	return 0
}

// consoleLine records one console.* call.
func (sb *sandbox) consoleLine(level string, args []goja.Value) {
	inv := sb.cur
	if inv == nil {
		return
	}
	inv.lines++
	if inv.lines > maxConsoleRun {
		if inv.lines == maxConsoleRun+1 {
			inv.sink(LogLine{Time: time.Now(), Level: "warn", Router: true,
				Message: fmt.Sprintf("console output of this run truncated after %d lines", maxConsoleRun)})
		}
		return
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sb.format(a))
		if b.Len() > maxConsoleLine {
			break
		}
	}
	msg := b.String()
	if len(msg) > maxConsoleLine {
		msg = msg[:maxConsoleLine] + "…"
	}
	inv.sink(LogLine{Time: time.Now(), Level: level, Message: msg})
}

// format renders a console argument: strings as they are, the rest as JSON
// where possible (bounded by the export limits), else as String(v).
func (sb *sandbox) format(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	if o, ok := v.(*goja.Object); ok {
		if sb.cur != nil && o == sb.cur.obj {
			v = sb.cur.toJSON()
		}
		if o.ClassName() == "Error" || o.ClassName() == "Function" {
			return o.String()
		}
		x := exporter{vm: sb.vm, limitNodes: 10000}
		if g, err := x.export(v, 0); err == nil {
			if s, err := marshalCompact(g); err == nil {
				return s
			}
		}
		return o.String()
	}
	return v.String()
}

// panicError turns what goja panics with into an error.
func panicError(r any) error {
	switch e := r.(type) {
	case error:
		return e
	case goja.Value:
		return errors.New(e.String())
	}
	return fmt.Errorf("%v", r)
}
