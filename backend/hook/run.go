// Running one hook: a pooled sandbox, the script, and what its result means for the call.

package hook

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/dop251/goja"
)

func (s *Service) runLive(ctx context.Context, h *compiled, c *Call, phase string, lim Limits) *Block {
	start := time.Now()
	out := s.runHook(ctx, h, c, phase, lim, func(l LogLine) { s.emit(h.hook.Name, l) })
	if s.opts.Observe != nil {
		s.opts.Observe(phase, time.Since(start))
	}
	return out.block
}

// outcome is what one run of one hook did.
type outcome struct {
	block *Block
	err   error // the script failed (threw, timed out, …)
}

// runHook runs one hook against c and applies its result.
//
// Everything that reads a value the script made — its result, a thrown
// value, the context fields it assigned, a promise's result — happens
// between run and finish, under sandbox.guard: the same watchdog and the
// same recovery as the script's body. A read that fails is the hook's
// failure, like a throw in its body: c is left as it was, and the request
// goes on or, when the hook is fail-closed, is blocked.
func (s *Service) runHook(ctx context.Context, h *compiled, c *Call, phase string, lim Limits, sink func(LogLine)) outcome {
	name := h.hook.Name
	fail := func(err error) outcome {
		if h.hook.FailClosed {
			sink(LogLine{Time: time.Now(), Level: "error", Router: true, Message: phase + ": " + err.Error() + "; blocking the request (fail-closed)"})
			return outcome{block: &Block{Hook: name, Phase: phase, Message: "hook failed: " + err.Error()}, err: err}
		}
		sink(LogLine{Time: time.Now(), Level: "error", Router: true, Message: phase + ": " + err.Error() + "; the request goes on"})
		return outcome{err: err}
	}
	if h.broken != nil {
		return fail(h.broken)
	}
	sb, err := s.getSandbox(h)
	if err != nil {
		return fail(err)
	}
	inv := &invocation{call: c, phase: phase, hook: name, ctx: ctx, sink: sink,
		deadline: time.Now().Add(lim.Timeout)}
	if lim.MaxMemory > 0 {
		inv.maxMemory = lim.MaxMemory
	}
	res, runErr := sb.run(inv)
	var o outcome
	var up *update
	if runErr == nil && inv.leftSomething(res) {
		o, up, runErr = s.readResult(sb, inv, res)
	}
	if runErr != nil {
		runErr = sb.describe(inv, runErr) // may read the thrown value: before finish
	}
	sb.finish(inv)
	stopped := inv.stopped.Load()
	if stopped != nil {
		runErr = *stopped // timeout, memory or cancel: say that, not goja's wording
	}
	s.putSandbox(h, sb)
	if stopped != nil && *stopped == errMemory {
		s.releaseMemory()
	}
	if runErr != nil {
		return fail(runErr)
	}
	if up != nil {
		up.commit(c)
	}
	return o
}

// readResult runs apply guarded.
func (s *Service) readResult(sb *sandbox, inv *invocation, res goja.Value) (o outcome, up *update, err error) {
	err = sb.guard(inv, func() { o, up = s.apply(sb, inv, res) })
	if err == nil && o.err != nil {
		err = o.err
	}
	return o, up, err
}

// leftSomething reports whether the run left anything to read: a result
// other than undefined or null, or a context field it read or assigned. A
// hook that returns early without touching the context (the common case)
// skips the guarded reading.
func (inv *invocation) leftSomething(res goja.Value) bool {
	if res != nil && !goja.IsUndefined(res) && !goja.IsNull(res) {
		return true
	}
	for i := range inv.lazy {
		if inv.lazy[i].val != nil {
			return true
		}
	}
	return false
}

var errCallStack = errors.New("call stack exceeded (too deep recursion)")

// maxErrorText bounds a script error message (a thrown 30 MB string).
const maxErrorText = 1000

// describe gives a script failure a short message with the script
// position. Converting a thrown value to a string can run script
// (toString, a getter, Symbol.toPrimitive, a Proxy trap); that runs
// guarded, and a value that cannot be converted is described without it.
func (sb *sandbox) describe(inv *invocation, err error) error {
	if p := inv.stopped.Load(); p != nil {
		return *p
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		sb.broken = true
		return errCallStack
	}
	var ex *goja.Exception
	if !errors.As(err, &ex) {
		return err
	}
	msg := sb.thrownText(inv, ex.Value(), 0)
	for _, f := range ex.Stack() {
		p := f.Position()
		if p.Line > 0 && f.SrcName() != "prelude" {
			l, c := scriptPos(p.Line, p.Column)
			return fmt.Errorf("%s (line %d, column %d)", msg, l, c)
		}
	}
	return errors.New(msg)
}

// thrownText converts a thrown value to a string, as String(v) would, under
// the guard. Never call Error() or String() on a goja.Exception whose value
// may be an object: that runs script unguarded.
func (sb *sandbox) thrownText(inv *invocation, v goja.Value, depth int) string {
	if v == nil {
		return "an unknown error"
	}
	var text string
	err := sb.guard(inv, func() { text = v.String() })
	if err == nil {
		return clip(text, maxErrorText)
	}
	const cannot = "a thrown value that cannot be shown"
	var inner *goja.Exception
	var so *goja.StackOverflowError
	switch {
	case inv.stopped.Load() != nil:
		return cannot // the caller reports the stop reason
	case errors.As(err, &so):
		sb.broken = true
		return cannot + " (converting it to a string exceeded the call stack)"
	case errors.As(err, &inner) && depth < 2:
		return cannot + " (converting it to a string threw " + sb.thrownText(inv, inner.Value(), depth+1) + ")"
	case errors.As(err, &inner):
		return cannot
	}
	return cannot + " (" + err.Error() + ")"
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

var promiseType = reflect.TypeOf((*goja.Promise)(nil))

// apply interprets the return value (the seed's HookResult) and reads the
// context fields the script touched. It runs inside sandbox.guard: any read
// may panic with a script failure. It changes nothing in the Call: the
// update is committed only when every read succeeded.
func (s *Service) apply(sb *sandbox, inv *invocation, res goja.Value) (outcome, *update) {
	warn := func(msg string) {
		inv.sink(LogLine{Time: time.Now(), Level: "warn", Router: true, Message: inv.phase + ": " + msg})
	}
	// An async function's promise has settled by now if it never waited on
	// anything outside; use its value. (ExportType does not read the
	// object; Export of an object that is not a promise would.)
	if o, ok := res.(*goja.Object); ok && o.ExportType() == promiseType {
		if p, ok := o.Export().(*goja.Promise); ok {
			switch p.State() {
			case goja.PromiseStateFulfilled:
				res = p.Result()
			case goja.PromiseStateRejected:
				return outcome{err: fmt.Errorf("promise rejected: %s", clip(sb.format(p.Result()), maxErrorText))}, nil
			default:
				warn("the returned promise is still pending (hooks run synchronously); continuing")
				res = goja.Undefined()
			}
		}
	}
	cont := true
	var blockMsg string
	var blockCode int
	if res != nil && !goja.IsUndefined(res) && !goja.IsNull(res) {
		obj, isObj := res.(*goja.Object)
		if !isObj || obj.ClassName() == "Array" || obj.ClassName() == "Function" {
			warn(fmt.Sprintf("ignored return value %s: return nothing, {continue: true} or {continue: false, error: {message}}; continuing", short(sb.format(res))))
		} else {
			known := false
			if v := obj.Get("continue"); v != nil && !goja.IsUndefined(v) {
				known = true
				if _, isObj := v.(*goja.Object); !isObj && v.ExportType() == boolType {
					cont = v.ToBoolean()
				} else {
					warn(fmt.Sprintf("ignored continue: %s (want true or false); continuing", short(sb.format(v))))
				}
			}
			if !cont {
				blockMsg = "request blocked"
				if e, ok := obj.Get("error").(*goja.Object); ok {
					if m := e.Get("message"); m != nil && !goja.IsUndefined(m) && !goja.IsNull(m) {
						blockMsg = clip(m.String(), maxErrorText)
					}
					if c := e.Get("code"); c != nil && goja.IsNumber(c) {
						if n, ok := c.Export().(int64); ok {
							blockCode = int(n)
						}
					}
				} else {
					warn("blocked without error.message")
				}
			}
			if rc, ok := obj.Get("context").(*goja.Object); ok {
				known = true
				if rc != inv.obj {
					for i := 0; i < numLazy; i++ {
						if i == lzClient {
							continue
						}
						if v := rc.Get(lazyNames[i]); v != nil && !goja.IsUndefined(v) {
							inv.lazy[i] = lazyField{val: v, set: true}
						}
					}
				}
			}
			if !known {
				if v := obj.Get("error"); v != nil && !goja.IsUndefined(v) {
					known = true
				}
			}
			if !known {
				warn(fmt.Sprintf("ignored return value %s: it has no continue or context; continuing", short(sb.format(res))))
			}
		}
	}
	if !cont {
		return outcome{block: &Block{Hook: inv.hook, Phase: inv.phase, Message: blockMsg, Code: blockCode}}, nil
	}
	up, err := s.readBack(sb, inv, warn)
	return outcome{err: err}, up
}

var boolType = reflect.TypeOf(true)

// update is what a hook changed in the Call, read and checked in full
// before any of it is applied.
type update struct {
	args        any
	argsSet     bool
	params      map[string]any
	paramsSet   bool
	response    any
	responseSet bool
	callErr     *CallError
	errSet      bool
	shared      map[string]any
	sharedSet   bool
}

// readBack reads the lazy fields the script read or assigned. It runs
// inside sandbox.guard. The error is the run's stop reason; a value that
// JSON cannot represent is ignored with a warning.
func (s *Service) readBack(sb *sandbox, inv *invocation, warn func(string)) (*update, error) {
	lz := &inv.lazy
	up := &update{}
	export := func(what string, v goja.Value) (any, bool, error) {
		out, err := sb.exportValue(inv, v)
		if err != nil {
			if p := inv.stopped.Load(); p != nil {
				return nil, false, *p
			}
			warn(fmt.Sprintf("ignored the change to context.%s: %v", what, err))
			return nil, false, nil
		}
		return out, true, nil
	}
	if lz[lzArguments].val != nil || lz[lzRequest].val != nil {
		var src goja.Value = lz[lzArguments].val
		if !lz[lzArguments].set && lz[lzRequest].val != nil {
			// context.request.params.arguments wins unless context.arguments was assigned.
			if req, ok := lz[lzRequest].val.(*goja.Object); ok {
				if p, ok := req.Get("params").(*goja.Object); ok {
					src = p.Get("arguments")
				}
			}
		}
		v, ok, err := export("arguments", src)
		if err != nil {
			return nil, err
		}
		up.args, up.argsSet = v, ok
	}
	if lz[lzRequest].val != nil {
		if req, isObj := lz[lzRequest].val.(*goja.Object); isObj {
			v, fine, err := export("request.params", req.Get("params"))
			if err != nil {
				return nil, err
			}
			params, ok := v.(map[string]any)
			if fine && !ok && v != nil {
				warn("ignored context.request.params: not an object")
			}
			if ok {
				delete(params, "arguments")
				up.params, up.paramsSet = params, true
			}
		} else {
			warn("ignored context.request: not an object")
		}
	}
	if lz[lzResponse].val != nil {
		v, ok, err := export("response", lz[lzResponse].val)
		if err != nil {
			return nil, err
		}
		up.response, up.responseSet = v, ok
	}
	if lz[lzError].set {
		v, ok, err := export("error", lz[lzError].val)
		if err != nil {
			return nil, err
		}
		if ok {
			switch e := v.(type) {
			case nil:
				up.callErr, up.errSet = nil, true
			case map[string]any:
				ce := &CallError{Data: e["data"]}
				ce.Message, _ = e["message"].(string)
				if f, ok := e["code"].(float64); ok {
					ce.Code = int(f)
				}
				up.callErr, up.errSet = ce, true
			default:
				warn("ignored context.error: not an object or null")
			}
		}
	}
	if lz[lzShared].val != nil {
		v, ok, err := export("shared", lz[lzShared].val)
		if err != nil {
			return nil, err
		}
		if m, isMap := v.(map[string]any); ok && isMap {
			up.shared, up.sharedSet = m, true
		} else if ok {
			warn("ignored context.shared: not an object")
		}
	}
	return up, nil
}

// commit applies the update to the Call.
func (up *update) commit(c *Call) {
	if up.paramsSet {
		c.Params, c.Changed = up.params, c.Changed|ChangedParams
	}
	if up.argsSet {
		c.Arguments, c.Changed = up.args, c.Changed|ChangedArguments
		if c.Params == nil {
			c.Params = map[string]any{}
		} else if c.Changed&ChangedParams == 0 {
			c.Params = cloneMap(c.Params)
			c.Changed |= ChangedParams
		}
		if up.args != nil {
			c.Params["arguments"] = up.args
		} else {
			delete(c.Params, "arguments")
		}
	} else if c.Changed&ChangedParams != 0 && c.Arguments != nil {
		c.Params["arguments"] = c.Arguments
	}
	if up.responseSet {
		c.Response, c.Changed = up.response, c.Changed|ChangedResponse
	}
	if up.errSet {
		c.Error, c.Changed = up.callErr, c.Changed|ChangedError
	}
	if up.sharedSet {
		c.Shared, c.Changed = up.shared, c.Changed|ChangedShared
	}
}

// prop reads a property, undefined when missing.
func prop(o *goja.Object, k string) goja.Value {
	if v := o.Get(k); v != nil {
		return v
	}
	return goja.Undefined()
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func (s *Service) getSandbox(h *compiled) (*sandbox, error) {
	select {
	case sb := <-h.pool.ch:
		return sb, nil
	default:
	}
	h.created.Add(1)
	return s.newSandbox(h.prog)
}

func (s *Service) putSandbox(h *compiled, sb *sandbox) {
	sb.cur = nil
	if sb.broken || h.pool.retired.Load() {
		return
	}
	select {
	case h.pool.ch <- sb:
	default:
	}
}

// ---- validation and storage, for the CLI and the UI ----
