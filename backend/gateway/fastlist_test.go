package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The list requests of a 2025-11-25 HTTP session take the fast path (the
// chain alone, without mcp-go's handler), and answer byte for byte what
// mcp-go's path answers: for a caller of every server and a caller scoped
// to one, with and without a hook that rewrites the lists and gives them
// hints of its own, on the first page, after a cursor, and for a cursor
// that is not one (the chain's error). On the old code no list took the
// fast path (the counter stayed put).
func TestFastListMatchesTheMcpGoPath(t *testing.T) {
	for _, hooked := range []bool{false, true} {
		ro := rigOptions{auth: headerCaller, callerFrom: callerFromHeader}
		if hooked {
			ro.hooks = refusalSafeHints{}
		}
		r := newRig(t, []spec.Server{recorder("rec", false), recorder("other", false)}, ro)
		r.waitTool(t, "rec__echo")
		r.waitTool(t, "other__echo")
		for _, who := range []string{"alice", "scoped"} {
			_, hdr, body := request(t, "POST", r.url, who, "", initializeBody, nil)
			sid := hdr.Get(server.HeaderKeySessionID)
			if sid == "" {
				t.Fatalf("initialize: %s", body)
			}
			cursor := base64.StdEncoding.EncodeToString([]byte("other__echo"))
			for _, method := range listMethods {
				for n, params := range []string{`{}`, `{"cursor":"` + cursor + `"}`, `{"cursor":"not base64!"}`} {
					req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, 40+n, method, params)
					r.gw.SetFastPath(true)
					before := r.gw.fast.listed.Load()
					status, fh, fast := request(t, "POST", r.url, who, sid, req, nil)
					if r.gw.fast.listed.Load() != before+1 {
						t.Fatalf("%s %s did not take the fast path", method, params)
					}
					r.gw.SetFastPath(false)
					_, sh, slow := request(t, "POST", r.url, who, sid, req, nil)
					if r.gw.fast.listed.Load() != before+1 {
						t.Fatalf("%s took the fast path while it was off", method)
					}
					if status != http.StatusOK || fh.Get("Content-Type") != sh.Get("Content-Type") || !bytes.Equal(fast, slow) {
						t.Errorf("hooked %v, %s, %s %s: the paths disagree:\nfast   %d %s %s\nmcp-go %s %s",
							hooked, who, method, params, status, fh.Get("Content-Type"), fast, sh.Get("Content-Type"), slow)
					}
					if bytes.Contains(fast, []byte("cacheScope")) || bytes.Contains(fast, []byte("ttlMs")) {
						t.Errorf("%s: a 2025-11-25 list carries hints: %s", method, fast)
					}
					if n == 0 && !bytes.Contains(fast, []byte(`"result":{"`)) {
						t.Errorf("%s: the first page was answered %s", method, fast)
					}
					if n == 2 && !bytes.Contains(fast, []byte(`"error"`)) {
						t.Errorf("%s: a bad cursor was answered %s", method, fast)
					}
				}
			}
			// The scoped caller's fast list holds none of the other server's tools.
			_, _, tools := request(t, "POST", r.url, who, sid, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, nil)
			if who == "scoped" && (bytes.Contains(tools, []byte("rec__")) || !bytes.Contains(tools, []byte("other__echo"))) {
				t.Errorf("scoped caller's tools/list: %s", tools)
			}
		}
		r.gw.SetFastPath(true)
	}
}

// refusalSafeHints is hintingHooks that leaves a refused list (no
// response to rewrite) alone.
type refusalSafeHints struct{ hintingHooks }

func (h refusalSafeHints) Post(ctx context.Context, c *hook.Call) *hook.Block {
	if c.Response == nil {
		return nil
	}
	return h.hintingHooks.Post(ctx, c)
}

// A list on the fast path is logged once, as on mcp-go's path: the chain's
// log step writes the entry, and nothing else does.
func TestFastListIsLoggedOnce(t *testing.T) {
	r := newRig(t, []spec.Server{recorder("rec", false)}, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	r.waitTool(t, "rec__echo")
	_, hdr, _ := request(t, "POST", r.url, "alice", "", initializeBody, nil)
	sid := hdr.Get(server.HeaderKeySessionID)
	count := func() int {
		r.log.mu.Lock()
		defer r.log.mu.Unlock()
		n := 0
		for _, e := range r.log.entries {
			if e.Method == pipeline.MethodToolsList {
				n++
			}
		}
		return n
	}
	for i, fast := range []bool{true, false} {
		r.gw.SetFastPath(fast)
		before := r.gw.fast.listed.Load()
		_, _, body := request(t, "POST", r.url, "alice", sid, `{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{}}`, nil)
		if !strings.Contains(string(body), "rec__echo") {
			t.Fatalf("tools/list: %s", body)
		}
		if took := r.gw.fast.listed.Load() != before; took != fast {
			t.Fatalf("fast path %v, taken %v", fast, took)
		}
		testpeers.Eventually(t, 2*time.Second, "the list in the log", func() bool { return count() >= i+1 })
		time.Sleep(100 * time.Millisecond)
		if n := count(); n != i+1 {
			t.Fatalf("fast path %v: %d tools/list entries, want %d", fast, n, i+1)
		}
	}
}
