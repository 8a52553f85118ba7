package hook

import (
	"context"
	"github.com/mcp-router/mcp-router/internal/testbombs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/store"
)

// scriptBombs cost goja's parser far more than their size: 200,000 nested
// brackets (about 940 MB of stack before the cap), a chain of 20,000 arrow
// functions (4 s; a 1 MB chain runs for hours).
var scriptBombs = []struct{ name, src, want string }{
	{"nested brackets", "return " + strings.Repeat("[", 200_000), "line 1, column 10008: more than 10000 opening brackets"},
	{"arrow chain", "return " + strings.Repeat("a=>", 20_000) + "1", "line 1, column 15009: more than 5000 arrow functions"},
}

func TestScriptBombsAreRefused(t *testing.T) {
	for _, tc := range scriptBombs {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			start := time.Now()
			alloc := testbombs.Allocated(func() { err = Validate(tc.src) })
			t.Logf("%d bytes refused in %s, %d KB allocated: %v", len(tc.src), time.Since(start), alloc>>10, err)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if alloc > 16<<20 {
				t.Errorf("refusing it allocated %d MB", alloc>>20)
			}
		})
	}
	// Under the caps, a script as people write them compiles.
	ok := strings.Repeat("if (context.a) { context.b = [1, (2), {c: 3}].map(x => x); }\n", MaxScriptBrackets/6) // 6 brackets and an arrow a line
	if err := Validate(ok); err != nil {
		t.Errorf("%d-byte script: %v", len(ok), err)
	}
}

// A stored hook that is a bomb is marked broken at reload, with the cap
// in its log, and the other hooks run.
func TestBombStoredHookIsBroken(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	f.svc.repo.Create(ctx, store.Hook{Name: "bomb", HookType: "pre", Script: scriptBombs[0].src, Enabled: true})
	f.svc.repo.Create(ctx, store.Hook{Name: "good", HookType: "pre", ExecutionOrder: 1, Enabled: true,
		Script: `return {continue: false, error: {message: 'good ran'}};`})
	if err := f.svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if b := f.svc.Pre(ctx, callTool(nil)); b == nil || b.Hook != "good" {
		t.Errorf("block = %v", b)
	}
	if logs := f.svc.Logs("bomb"); len(logs) == 0 || !strings.Contains(logs[0].Message, "opening brackets") {
		t.Errorf("logs = %+v", logs)
	}
}

// Any script, the bombs first: Validate answers within bounded time and
// allocation, never panics.
func FuzzValidate(f *testing.F) {
	for _, b := range scriptBombs {
		f.Add(b.src)
	}
	for _, s := range []string{"return;", "if (", "})(); (function(){", "return `${`${1}`}`", "return /[/]/.test('\\'')", strings.Repeat("!", 100_000) + "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		var err error
		start := time.Now()
		alloc := testbombs.Allocated(func() { err = Validate(script) })
		if took := time.Since(start); took > 20*time.Second || alloc > 1<<30 {
			t.Fatalf("%d bytes took %s and %d MB (%v)", len(script), took, alloc>>20, err)
		}
	})
}

// A row written around the router with a column SQLite kept but a hook
// cannot have (an order that is not a number) made the whole list fail,
// and with it the router's start ("load hooks"). It is now a broken hook,
// logged, and the others run.
func TestUnreadableHookRowIsBroken(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "hooks.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := st.Hooks().Create(ctx, store.Hook{Name: "good", HookType: "pre", Enabled: true,
		Script: `return {continue: false, error: {message: 'good ran'}};`}); err != nil {
		t.Fatal(err)
	}
	if err := st.DB().Exec(`INSERT INTO hooks (name, enabled, execution_order, hook_type, script, fail_closed)
		VALUES ('garbled', 1, 'first', 'pre', 'return;', 0)`).Error; err != nil {
		t.Fatal(err)
	}
	svc := New(st.Hooks(), Options{})
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if b := svc.Pre(ctx, callTool(nil)); b == nil || b.Hook != "good" {
		t.Errorf("block = %v", b)
	}
	if logs := svc.Logs("garbled"); len(logs) == 0 || logs[0].Message != "cannot be loaded: the stored row cannot be read as a hook: bad execution_order" {
		t.Errorf("logs = %+v", logs)
	}
}
