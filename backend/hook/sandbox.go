package hook

import (
	"context"
	"errors"
	"fmt"
	"runtime"
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
	// A run whose heap grows by a budget and a half (memoryHardNum /
	// memoryHardDen budgets) is stopped without waiting for garbage to be
	// collected.
	memoryHardNum, memoryHardDen = 3, 2
	// dirtyGrowth is how much a run may grow the heap before the next run's
	// memory baseline is taken after a garbage collection.
	dirtyGrowth = 16 << 20
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

	// guardCall runs guarded, the function guard was given, as a call
	// from Go into the runtime (see guard).
	guardCall goja.Callable
	guarded   func()

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
	// maxMemory is the run's memory budget in bytes (0: none); heapBase is
	// the heap size at the first tick and nextGC the heap size from which the
	// watchdog collects garbage again before it judges the budget.
	maxMemory  int64
	heapBase   uint64
	nextGC     uint64
	collecting bool // a collection asked for by the watchdog is running
	stopped    atomic.Pointer[error]
	sink       func(LogLine)
	lines      int

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
	sb.guardCall, _ = goja.AssertFunction(vm.ToValue(func(goja.FunctionCall) goja.Value {
		sb.guarded()
		return goja.Undefined()
	}))
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
			sb.broken = true
			err = panicError(r)
		}
	}()
	return sb.fn(goja.Undefined(), inv.obj)
}

// guard runs f, which reads script values (a result, a thrown value, the
// context fields a script assigned), the way the script itself runs: as a
// call into the runtime, under the run's watchdog (time limit, memory
// budget, cancellation), with the call-depth limit, and with every way it
// can fail — a getter, toString or Proxy trap that throws, spins or
// recurses, or an interrupt — returned as an error instead of a Go panic.
// Call it between run and finish. Once the run has been stopped it does
// not call f and returns the reason.
func (sb *sandbox) guard(inv *invocation, f func()) (err error) {
	if p := inv.stopped.Load(); p != nil {
		return *p
	}
	defer func() {
		sb.guarded = nil
		if r := recover(); r != nil {
			// Not a JavaScript exception or an interrupt (goja returns
			// those): the runtime may be in any state, do not reuse it.
			sb.broken = true
			err = panicError(r)
		}
		if err != nil {
			if p := inv.stopped.Load(); p != nil {
				err = *p
			}
		}
	}()
	sb.guarded = f
	_, err = sb.guardCall(goja.Undefined())
	return err
}

// finish disarms the watchdog; after it, no Interrupt can reach the runtime.
// A run that lasted past its first tick and left the heap more than
// dirtyGrowth larger marks the heap dirty: the next run's baseline is then
// taken after a collection, not from a heap full of this run's garbage.
func (sb *sandbox) finish(inv *invocation) {
	sb.mu.Lock()
	sb.running = false
	base := inv.heapBase
	sb.mu.Unlock()
	sb.timer.Stop()
	sb.vm.ClearInterrupt()
	if base != 0 && heapBytes() > base+dirtyGrowth {
		sb.svc.heapDirty.Store(true)
	}
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
	case inv.maxMemory > 0:
		why = sb.overBudget(inv)
	}
	if why != nil {
		sb.stopLocked(why)
		return
	}
	sb.timer.Reset(tickInterval)
}

// overBudget reports errMemory when the heap has grown by more than the
// run's budget since the run's first tick (runs shorter than a tick, nearly
// all, never pay for reading the heap size). Called with sb.mu held.
//
// The heap size counts garbage not yet collected. So that garbage does not
// count as what a run holds, the watchdog has it collected (on another
// goroutine, so that the time limit keeps being checked) where it would
// distort the figure:
//
//   - at the first tick, when more than a budget of garbage lies around or
//     a run that grew the heap by more than dirtyGrowth has ended since the
//     last such collection: the baseline is then the heap left after it;
//   - past the budget, before stopping the run: the run goes on if what is
//     left is within the budget, and is looked at again after half a budget
//     of further growth.
//
// A run whose heap grows by more than one and a half budgets meanwhile is
// stopped without waiting.
func (sb *sandbox) overBudget(inv *invocation) error {
	budget := uint64(inv.maxMemory)
	if inv.heapBase == 0 {
		h, live := heapSizes()
		inv.heapBase = h
		// The live size is the one the last collection found: right after a
		// heavy run it still counts what that run held (heapDirty).
		if dirty := inv.sb.svc.heapDirty.Swap(false); dirty || h > live+budget {
			sb.collect(inv, func(after uint64) {
				if after < inv.heapBase {
					inv.heapBase = after
				}
			})
		}
		return nil
	}
	h := heapBytes()
	limit := inv.heapBase + budget
	switch {
	case h <= limit:
		return nil
	case h > inv.heapBase+budget*memoryHardNum/memoryHardDen:
		return errMemory
	case h <= inv.nextGC || inv.collecting:
		return nil
	}
	sb.collect(inv, func(after uint64) {
		if after > inv.heapBase+budget {
			sb.stopLocked(errMemory)
			return
		}
		inv.nextGC = after + budget/2
	})
	return nil
}

// collect runs a garbage collection on its own goroutine and then calls
// then with the heap size left, under sb.mu, if inv is still running.
func (sb *sandbox) collect(inv *invocation, then func(after uint64)) {
	inv.collecting = true
	go func() {
		runtime.GC()
		after := heapBytes()
		sb.mu.Lock()
		defer sb.mu.Unlock()
		inv.collecting = false
		if sb.running && sb.cur == inv {
			then(after)
		}
	}()
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

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
var heapMu sync.Mutex

// heapBytes is the Go heap in use (live values and garbage not yet
// collected), read without stopping the world.
func heapBytes() uint64 {
	h, _ := heapSizes()
	return h
}

// heapSizes is the Go heap in use and the live heap the last garbage
// collection found.
func heapSizes() (inUse, live uint64) {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSample)
	if heapSample[0].Value.Kind() == metrics.KindUint64 {
		inUse = heapSample[0].Value.Uint64()
	}
	if heapSample[1].Value.Kind() == metrics.KindUint64 {
		live = heapSample[1].Value.Uint64()
	}
	return inUse, live
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
		x := exporter{vm: sb.vm, inv: sb.cur, limitNodes: 10000}
		g, err := x.export(v, 0)
		if err == nil {
			if s, err := marshalCompact(g); err == nil {
				return s
			}
		}
		if sb.cur != nil && sb.cur.stopped.Load() != nil {
			return "[not shown: the run was stopped]"
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
		// Converting an object to a string runs script; only primitives
		// are shown.
		if _, isObj := e.(*goja.Object); !isObj && e != nil {
			return errors.New(e.String())
		}
		return errors.New("a JavaScript value was thrown")
	}
	return fmt.Errorf("%v", r)
}
