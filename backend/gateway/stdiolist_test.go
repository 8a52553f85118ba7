package gateway

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The list requests of `mcp-router stdio` take the fast path (the stdio
// front answers them through the chain) and are answered byte for byte as
// on mcp-go's path, page after page of every list, each logged once; a
// request with _meta (a 2026-07-28 one) still goes to mcp-go. Before, the
// front passed every list on to mcp-go.
func TestStdioListTakesTheFastPath(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "one", spec.PrefixAlways)}, rigOptions{listPageSize: 4})
	p := newStdioPeer(t, r.gw)
	p.rpc(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stdio","version":"1"}}`)
	fmt.Fprintln(p.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	testpeers.Eventually(t, 5*time.Second, "the stdio session initialized", func() bool {
		sp := r.gw.stdio.session.Load()
		return sp != nil && (*sp).Initialized()
	})
	logged := func(method string) int {
		r.log.mu.Lock()
		defer r.log.mu.Unlock()
		n := 0
		for _, e := range r.log.entries {
			if e.Method == method {
				n++
			}
		}
		return n
	}
	id := 100
	for _, method := range listMethods {
		cursor, pages := "", 0
		for {
			params := `{}`
			if cursor != "" {
				params = fmt.Sprintf(`{"cursor":%q}`, cursor)
			}
			answers := map[bool]string{}
			for _, fast := range []bool{true, false} {
				r.gw.SetFastPath(fast)
				before, entries := r.gw.fast.listed.Load(), logged(method)
				id++
				a := p.rpc(id, method, params)
				if took := r.gw.fast.listed.Load() != before; took != fast {
					t.Fatalf("%s, fast path %v: taken %v", method, fast, took)
				}
				testpeers.Eventually(t, 2*time.Second, method+" in the log", func() bool { return logged(method) == entries+1 })
				// The same answer but for the id.
				answers[fast] = string(a[len(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d`, id)):])
			}
			if answers[true] != answers[false] {
				t.Fatalf("%s %s: fast path\n%.400s\nmcp-go\n%.400s", method, params, answers[true], answers[false])
			}
			var page struct {
				Result struct {
					NextCursor string `json:"nextCursor"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(`{"x":0`+answers[true]), &page); err != nil {
				t.Fatalf("%s: %v: %.300s", method, err, answers[true])
			}
			pages++
			if cursor = page.Result.NextCursor; cursor == "" {
				break
			}
		}
		if method == pipeline.MethodToolsList && pages < 3 {
			t.Fatalf("tools/list in %d pages of 4", pages)
		}
	}
	r.gw.SetFastPath(true)
	before := r.gw.fast.listed.Load()
	if a := p.rpc(900, "tools/list", `{"_meta":{"progressToken":1}}`); len(a) == 0 || r.gw.fast.listed.Load() != before {
		t.Fatalf("a list with _meta took the fast path: %s", a)
	}
}
