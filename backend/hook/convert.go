package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"time"

	"github.com/dop251/goja"
)

// newContext builds the object a script sees as `context`. Cheap fields are
// plain properties; the ones that may be large (arguments, request,
// response, …) are accessors that convert their Go value on first access, so
// a hook that returns early pays nothing for a large response.
func (sb *sandbox) newContext(inv *invocation) *goja.Object {
	vm := sb.vm
	c := inv.call
	proto := sb.ctxProto
	if inv.phase == PhasePost {
		proto = sb.ctxProtoPost
	}
	o := vm.CreateObject(proto)
	_ = o.Set("phase", inv.phase)
	_ = o.Set("requestType", c.RequestType)
	_ = o.Set("method", c.Method)
	_ = o.Set("serverName", c.ServerName)
	_ = o.Set("toolName", c.ToolName)
	if inv.phase == PhasePost {
		_ = o.Set("duration", c.DurationMs)
	}
	return o
}

// toJSON gives JSON.stringify(context) and console.log(context) every field,
// including the lazy ones that live on the prototype.
func (inv *invocation) toJSON() goja.Value {
	vm := inv.sb.vm
	o := vm.NewObject()
	for _, k := range []string{"phase", "requestType", "method", "serverName", "toolName", "duration"} {
		if v := inv.obj.Get(k); v != nil {
			_ = o.Set(k, v)
		}
	}
	for i := 0; i < numLazy; i++ {
		if (i == lzResponse || i == lzError) && inv.phase != PhasePost {
			continue
		}
		_ = o.Set(lazyNames[i], inv.get(i))
	}
	return o
}

// get materializes a lazy field.
func (inv *invocation) get(i int) goja.Value {
	f := &inv.lazy[i]
	if f.val != nil {
		return f.val
	}
	sb, c := inv.sb, inv.call
	switch i {
	case lzArguments:
		f.val = sb.toJS(c.Arguments)
	case lzRequest:
		args := inv.get(lzArguments)
		params := sb.vm.NewObject()
		keys := make([]string, 0, len(c.Params))
		for k := range c.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "arguments" {
				continue
			}
			_ = params.Set(k, sb.toJS(c.Params[k]))
		}
		if c.Arguments != nil || c.Params["arguments"] != nil {
			_ = params.Set("arguments", args)
		}
		req := sb.vm.NewObject()
		_ = req.Set("method", c.Method)
		_ = req.Set("params", params)
		f.val = req
	case lzResponse:
		f.val = sb.toJS(c.Response)
	case lzError:
		if c.Error == nil {
			f.val = goja.Null()
		} else {
			e := sb.vm.NewObject()
			_ = e.Set("code", c.Error.Code)
			_ = e.Set("message", c.Error.Message)
			if c.Error.Data != nil {
				_ = e.Set("data", sb.toJS(c.Error.Data))
			}
			f.val = e
		}
	case lzShared:
		if c.Shared == nil {
			f.val = sb.vm.NewObject()
		} else {
			f.val = sb.toJS(c.Shared)
		}
	case lzClient:
		cl := sb.vm.NewObject()
		_ = cl.Set("tokenName", c.Client.TokenName)
		_ = cl.Set("sessionId", c.Client.SessionID)
		f.val = cl
	}
	return f.val
}

// toJS converts a Go value to a plain JS value. Only JSON-shaped data
// crosses: Go structs are marshalled to JSON and parsed, never wrapped, so a
// script never sees a Go object or method.
func (sb *sandbox) toJS(v any) goja.Value {
	vm := sb.vm
	switch x := v.(type) {
	case nil:
		return goja.Null()
	case string:
		return vm.ToValue(x)
	case bool:
		return vm.ToValue(x)
	case float64:
		return vm.ToValue(x)
	case int:
		return vm.ToValue(x)
	case int64:
		return vm.ToValue(x)
	case json.Number:
		f, _ := x.Float64()
		return vm.ToValue(f)
	case map[string]any:
		o := vm.NewObject()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			_ = o.Set(k, sb.toJS(x[k]))
		}
		return o
	case []any:
		items := make([]any, len(x))
		for i, e := range x {
			items[i] = sb.toJS(e)
		}
		return vm.NewArray(items...)
	case json.RawMessage:
		return sb.parseJSON(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return goja.Null()
	}
	return sb.parseJSON(b)
}

func (sb *sandbox) parseJSON(b []byte) goja.Value {
	if len(b) == 0 {
		return goja.Null()
	}
	v, err := sb.jsonParse(goja.Undefined(), sb.vm.ToValue(string(b)))
	if err != nil {
		return goja.Null()
	}
	return v
}

// exporter reads a script's value back as plain JSON data (map[string]any,
// []any, string, float64, bool, nil) with JSON.stringify's rules: functions,
// symbols and undefined are left out of objects and become null in arrays.
// It walks in Go with limits on depth, size and cycles, because the native
// JSON.stringify would recurse without bound on hostile input. It never
// calls toJSON.
//
// Reading a property can run script (a getter, a Proxy trap): the exporter
// must run inside sandbox.guard (or inside the script's own run, for
// console.*), which turns what such script does into an error. A plain
// object large enough to take a while is walked in Go without running
// script; the exporter checks every few thousand values whether the run
// has been stopped.
type exporter struct {
	vm         *goja.Runtime
	inv        *invocation // nil: no stop check
	nodes      int
	limitNodes int
	path       []*goja.Object
}

const stopCheckEvery = 4096

var errSkip = errors.New("skip")

func (x *exporter) export(v goja.Value, depth int) (any, error) {
	x.nodes++
	if x.limitNodes > 0 && x.nodes > x.limitNodes {
		return nil, fmt.Errorf("value has more than %d parts", x.limitNodes)
	}
	if x.inv != nil && x.nodes%stopCheckEvery == 0 {
		if p := x.inv.stopped.Load(); p != nil {
			return nil, *p
		}
	}
	if v == nil || goja.IsUndefined(v) {
		return nil, errSkip
	}
	if goja.IsNull(v) {
		return nil, nil
	}
	o, ok := v.(*goja.Object)
	if !ok {
		switch e := v.Export().(type) {
		case float64:
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return nil, nil
			}
			return e, nil
		case int64:
			return float64(e), nil
		case string, bool:
			return e, nil
		case *big.Int:
			return e.String(), nil
		}
		// Symbols are left out, as JSON.stringify does.
		return nil, errSkip
	}
	if depth > maxExportDepth {
		return nil, fmt.Errorf("value is nested more than %d levels deep", maxExportDepth)
	}
	for _, p := range x.path {
		if p == o {
			return nil, errors.New("value is circular")
		}
	}
	x.path = append(x.path, o)
	defer func() { x.path = x.path[:len(x.path)-1] }()

	switch o.ClassName() {
	case "Function":
		return nil, errSkip
	case "String", "Number", "Boolean":
		return x.export(x.vm.ToValue(o.Export()), depth)
	case "Date":
		if t, ok := o.Export().(time.Time); ok {
			return t.UTC().Format("2006-01-02T15:04:05.000Z"), nil
		}
		return nil, nil
	case "Array":
		n := o.Get("length").ToInteger()
		if n > maxArrayLen {
			return nil, fmt.Errorf("array of length %d is over the limit of %d", n, maxArrayLen)
		}
		out := make([]any, n)
		for i := int64(0); i < n; i++ {
			e, err := x.export(o.Get(strconv.FormatInt(i, 10)), depth+1)
			if err == errSkip {
				e, err = nil, nil
			}
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	}
	keys := o.Keys()
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		e, err := x.export(o.Get(k), depth+1)
		if err == errSkip {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[k] = e
	}
	return out, nil
}

// exportValue reads a script's value back as JSON data. An error is a value
// JSON cannot represent (a cycle, too deep, too large) or the stop reason of
// the run; script that fails while it is read (a getter that throws, an
// interrupt) panics, as every goja call from Go does: call it inside
// sandbox.guard.
func (sb *sandbox) exportValue(inv *invocation, v goja.Value) (out any, err error) {
	x := exporter{vm: sb.vm, inv: inv, limitNodes: maxExportNodes}
	out, err = x.export(v, 0)
	if err == errSkip {
		return nil, nil
	}
	return out, err
}

func marshalCompact(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
