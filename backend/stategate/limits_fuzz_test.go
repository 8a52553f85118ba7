package stategate

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A client's context or payload: whatever the bytes, objectJSON answers at
// once, and what it accepts is a JSON object within the size and depth
// caps. Seeded with the shapes that hurt: deep nesting, a long string, the
// CEL bomb's context.
func FuzzClientJSON(f *testing.F) {
	f.Add([]byte(`{"a": 1}`))
	f.Add([]byte(strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)))
	f.Add([]byte(`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`))
	f.Add([]byte(`{"s": "` + strings.Repeat("x", 70_000) + `"}`))
	f.Add([]byte(`{"s": "\"{[", "t": "\\"}`))
	f.Add([]byte(`[1, 2]`))
	f.Add([]byte(`{"l": [` + strings.TrimSuffix(strings.Repeat("0,", 1000), ",") + `], "s": "` + strings.Repeat("x", 4000) + `"}`))
	const maxBytes = 64 << 10
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 1<<20 {
			return
		}
		start := time.Now()
		out, err := objectJSON(raw, "context", maxBytes, settingContext)
		if took := time.Since(start); took > time.Second {
			t.Fatalf("objectJSON took %v over %d bytes", took, len(raw))
		}
		if err != nil {
			return
		}
		if trimmed := strings.TrimSpace(string(raw)); trimmed == "" || trimmed == "null" {
			if string(out) != "{}" {
				t.Fatalf("no context must be {}, not %s", out)
			}
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil || compact.Len() > maxBytes || jsonDepth(compact.Bytes()) > MaxJSONDepth {
			t.Fatalf("accepted %d bytes (compact), depth %d, over the caps (%d, %d)", compact.Len(), jsonDepth(compact.Bytes()), maxBytes, MaxJSONDepth)
		}
		var m map[string]any
		if json.Unmarshal(out, &m) != nil || m == nil || jsonDepth(out) > MaxJSONDepth {
			t.Fatalf("accepted something that is not an object within the depth cap: %.200q", out)
		}
	})
}

// Guards over a client's context: whatever the context (within its cap),
// the bomb and its cousins stop within their budgets, allocating
// a bounded amount.
func FuzzGuardOverClientContext(f *testing.F) {
	f.Add([]byte(`{"l": [` + strings.TrimSuffix(strings.Repeat("0,", 1000), ",") + `], "s": "` + strings.Repeat("x", 60_000) + `"}`))
	f.Add([]byte(`{"l": [[1,2],[3]], "s": "ab", "m": {"k": "v"}}`))
	f.Add([]byte(`{"l": "not a list", "s": 5}`))
	env, err := guardEnv(nil)
	if err != nil {
		f.Fatal(err)
	}
	var guards []*guardProgram
	for _, expr := range []string{
		`size(context.l.map(x, context.s + context.s)) > 0`,
		`context.l.exists(x, context.l.exists(y, context.s + string(x) == context.s))`,
		`context.l.all(x, x in context.l)`,
		`size(context.l + context.l + context.l) > 0`,
		`context.s.contains(context.s + context.s)`,
	} {
		g, iss := compileGuard(env, expr, CompileOptions{CostLimit: DefaultCostLimit})
		if iss != nil {
			f.Fatalf("%s: %v", expr, iss)
		}
		guards = append(guards, g)
	}
	lim := Limits{}.withDefaults()
	f.Fuzz(func(t *testing.T, raw []byte) {
		ctxJSON, err := objectJSON(raw, "context", lim.MaxContextBytes, settingContext)
		if err != nil {
			return
		}
		vars := guardVars{Context: decodeObject(string(ctxJSON))}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		for _, g := range guards {
			gctx, cancel := guardCtx(context.Background(), lim)
			_, _ = g.eval(gctx, vars)
			cancel()
		}
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if took > 2*lim.GuardTimeout*time.Duration(len(guards)) {
			t.Fatalf("the guards took %v", took)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 128<<20 {
			t.Fatalf("the guards allocated %d MB over a %d-byte context", grew>>20, len(ctxJSON))
		}
	})
}
