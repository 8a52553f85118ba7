// Running one hook: a pooled sandbox, the script, and what its result means for the call.

package hook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"
)

func (s *Service) runLive(ctx context.Context, h *compiled, c *Call, phase string) *Block {
	out := s.runHook(ctx, h, c, phase, func(l LogLine) { s.emit(h.hook.Name, l) })
	return out.block
}

// outcome is what one run of one hook did.
type outcome struct {
	block *Block
	err   error // the script failed (threw, timed out, …)
}

// runHook runs one hook against c and applies its result.
func (s *Service) runHook(ctx context.Context, h *compiled, c *Call, phase string, sink func(LogLine)) outcome {
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
		deadline: time.Now().Add(s.opts.Timeout)}
	res, runErr := sb.run(inv)
	var o outcome
	if runErr == nil {
		o, runErr = s.apply(sb, inv, res)
	}
	sb.finish()
	if p := inv.stopped.Load(); p != nil {
		runErr = *p // timeout, memory or cancel: say that, not goja's wording
	}
	if runErr != nil {
		var so *goja.StackOverflowError
		if errors.As(runErr, &so) {
			sb.broken = true
			runErr = errors.New("call stack exceeded (too deep recursion)")
		}
		s.putSandbox(h, sb)
		return fail(scriptErr(runErr))
	}
	s.putSandbox(h, sb)
	return o
}

// scriptErr gives a script failure a short message with the script position.
func scriptErr(err error) error {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		msg := ex.Value().String()
		for _, f := range ex.Stack() {
			p := f.Position()
			if p.Line > 0 && f.SrcName() != "prelude" {
				l, c := scriptPos(p.Line, p.Column)
				return fmt.Errorf("%s (line %d, column %d)", msg, l, c)
			}
		}
		return errors.New(msg)
	}
	return err
}

// apply interprets the return value (the seed's HookResult) and copies the
// context fields the script touched back into the Call.
func (s *Service) apply(sb *sandbox, inv *invocation, res goja.Value) (outcome, error) {
	warn := func(msg string) {
		inv.sink(LogLine{Time: time.Now(), Level: "warn", Router: true, Message: inv.phase + ": " + msg})
	}
	// An async function's promise has settled by now if it never waited on
	// anything outside; use its value.
	if o, ok := res.(*goja.Object); ok {
		if p, ok := o.Export().(*goja.Promise); ok {
			switch p.State() {
			case goja.PromiseStateFulfilled:
				res = p.Result()
			case goja.PromiseStateRejected:
				return outcome{}, fmt.Errorf("promise rejected: %s", sb.format(p.Result()))
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
				if b, ok := v.Export().(bool); ok {
					cont = b
				} else {
					warn(fmt.Sprintf("ignored continue: %s (want true or false); continuing", short(sb.format(v))))
				}
			}
			if !cont {
				blockMsg = "request blocked"
				if e, ok := obj.Get("error").(*goja.Object); ok {
					if m := e.Get("message"); m != nil && !goja.IsUndefined(m) && !goja.IsNull(m) {
						blockMsg = m.String()
					}
					if c, ok := prop(e, "code").Export().(int64); ok {
						blockCode = int(c)
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
			if v := obj.Get("error"); !known && v != nil && !goja.IsUndefined(v) {
				known = true
			}
			if !known {
				warn(fmt.Sprintf("ignored return value %s: it has no continue or context; continuing", short(sb.format(res))))
			}
		}
	}
	if !cont {
		return outcome{block: &Block{Hook: inv.hook, Phase: inv.phase, Message: blockMsg, Code: blockCode}}, nil
	}
	return outcome{}, s.writeBack(sb, inv, warn)
}

// writeBack copies the lazy fields the script read or assigned into the Call.
func (s *Service) writeBack(sb *sandbox, inv *invocation, warn func(string)) error {
	c := inv.call
	lz := &inv.lazy
	export := func(what string, v goja.Value) (any, bool, error) {
		out, err := sb.exportValue(v)
		if err != nil {
			if p := inv.stopped.Load(); p != nil {
				return nil, false, *p
			}
			var ie *goja.InterruptedError
			var so *goja.StackOverflowError
			if errors.As(err, &ie) || errors.As(err, &so) {
				return nil, false, err
			}
			warn(fmt.Sprintf("ignored the change to context.%s: %v", what, err))
			return nil, false, nil
		}
		return out, true, nil
	}
	var args any
	argsChanged := false
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
			return err
		}
		if ok {
			args, argsChanged = v, true
		}
	}
	if lz[lzRequest].val != nil {
		var params map[string]any
		ok := false
		if req, isObj := lz[lzRequest].val.(*goja.Object); isObj {
			v, fine, err := export("request.params", req.Get("params"))
			if err != nil {
				return err
			}
			params, ok = v.(map[string]any)
			if fine && !ok && v != nil {
				warn("ignored context.request.params: not an object")
			}
		} else {
			warn("ignored context.request: not an object")
		}
		if ok {
			delete(params, "arguments")
			c.Params, c.Changed = params, c.Changed|ChangedParams
		}
	}
	if argsChanged {
		c.Arguments, c.Changed = args, c.Changed|ChangedArguments
		if c.Params == nil {
			c.Params = map[string]any{}
		} else if c.Changed&ChangedParams == 0 {
			c.Params = cloneMap(c.Params)
			c.Changed |= ChangedParams
		}
		if args != nil {
			c.Params["arguments"] = args
		} else {
			delete(c.Params, "arguments")
		}
	} else if c.Changed&ChangedParams != 0 && c.Arguments != nil {
		c.Params["arguments"] = c.Arguments
	}
	if lz[lzResponse].val != nil {
		v, ok, err := export("response", lz[lzResponse].val)
		if err != nil {
			return err
		}
		if ok {
			c.Response, c.Changed = v, c.Changed|ChangedResponse
		}
	}
	if lz[lzError].set {
		v, ok, err := export("error", lz[lzError].val)
		if err != nil {
			return err
		}
		if ok {
			switch e := v.(type) {
			case nil:
				c.Error = nil
				c.Changed |= ChangedError
			case map[string]any:
				ce := &CallError{Data: e["data"]}
				ce.Message, _ = e["message"].(string)
				if f, ok := e["code"].(float64); ok {
					ce.Code = int(f)
				}
				c.Error, c.Changed = ce, c.Changed|ChangedError
			default:
				warn("ignored context.error: not an object or null")
			}
		}
	}
	if lz[lzShared].val != nil {
		v, ok, err := export("shared", lz[lzShared].val)
		if err != nil {
			return err
		}
		if m, isMap := v.(map[string]any); ok && isMap {
			c.Shared, c.Changed = m, c.Changed|ChangedShared
		} else if ok {
			warn("ignored context.shared: not an object")
		}
	}
	return nil
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
	case sb := <-h.pool:
		return sb, nil
	default:
	}
	h.created.Add(1)
	return s.newSandbox(h.prog)
}

func (s *Service) putSandbox(h *compiled, sb *sandbox) {
	if sb.broken {
		return
	}
	sb.cur = nil
	select {
	case h.pool <- sb:
	default:
	}
}

// ---- validation and storage, for the CLI and the UI ----
