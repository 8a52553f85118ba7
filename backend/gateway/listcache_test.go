package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
)

// hintingHooks is a post hook that returns every list with caching hints
// of its own, marking it shareable across callers for an hour.
type hintingHooks struct{}

func (hintingHooks) Active() bool                                { return true }
func (hintingHooks) Pre(context.Context, *hook.Call) *hook.Block { return nil }
func (hintingHooks) Post(_ context.Context, c *hook.Call) *hook.Block {
	if !strings.HasSuffix(c.Method, "/list") {
		return nil
	}
	raw, _ := json.Marshal(c.Response)
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	m["cacheScope"], m["ttlMs"] = "public", 3600000
	c.Response = m
	c.Changed |= hook.ChangedResponse
	return nil
}

var listMethods = []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"}

// TestListsAreNeverSharedAcrossCallers: every list the router answers is
// one caller's view (scope, gate, policy, hooks), so a 2026-07-28 client's
// list carries cacheScope "private" and ttlMs 0, set by the router, even
// when a hook's version of the list says "public" for an hour; a
// 2025-11-25 client's list carries no hints. Before, the hook's hints went
// out on prompts, resources and templates lists (to both eras), and the
// router's lists got mcp-go's defaults only by accident of the library.
func TestListsAreNeverSharedAcrossCallers(t *testing.T) {
	r := newRig(t, []spec.Server{recorder("rec", false)},
		rigOptions{auth: headerCaller, callerFrom: callerFromHeader, hooks: hintingHooks{}})
	r.waitTool(t, "rec__echo")
	for _, method := range listMethods {
		res, e := mrtrPostAs(t, r.url, "alice", method, "", map[string]any{}, map[string]any{})
		if e != nil {
			t.Fatalf("%s: %v", method, e)
		}
		if res["cacheScope"] != "private" || res["ttlMs"] != float64(0) {
			t.Errorf("%s (2026-07-28): cacheScope %v, ttlMs %v; want private, 0", method, res["cacheScope"], res["ttlMs"])
		}
		if len(res) < 4 {
			t.Errorf("%s: the list is empty: %v", method, res)
		}
	}
	_, hdr, body := request(t, "POST", r.url, "alice", "", initializeBody, nil)
	sid := hdr.Get(server.HeaderKeySessionID)
	if sid == "" {
		t.Fatalf("initialize: %s", body)
	}
	for _, method := range listMethods {
		_, _, body = request(t, "POST", r.url, "alice", sid, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{}}`, nil)
		if strings.Contains(string(body), "cacheScope") || strings.Contains(string(body), "ttlMs") || !strings.Contains(string(body), `"result"`) {
			t.Errorf("%s (2025-11-25): %s", method, body)
		}
	}
}

// TestListOrderIsDeterministic pins the order of the lists: by the
// client-facing name (the pagination order), whatever order the servers
// started and listed in, the same on every request and in both eras.
// (It held before too; SEP-2549's caches and the models' prompt caches
// depend on it.)
func TestListOrderIsDeterministic(t *testing.T) {
	r := newRig(t, []spec.Server{testmcp.Server("zeta"), testmcp.Server("alpha"), recorder("mid", false)}, rigOptions{})
	r.waitTool(t, "mid__echo")
	names := func() []string {
		res, e := mrtrPost(t, r.url, "tools/list", "", map[string]any{}, map[string]any{})
		if e != nil {
			t.Fatal(e)
		}
		var out []string
		for _, tool := range res["tools"].([]any) {
			out = append(out, tool.(map[string]any)["name"].(string))
		}
		return out
	}
	first := names()
	if !slices.IsSorted(first) || len(first) < 3 || !slices.Contains(first, "alpha__delete_note") || !slices.Contains(first, "zeta__delete_note") {
		t.Fatalf("tools/list: %q, want every server's tools sorted by name", first)
	}
	for range 5 {
		if again := names(); !slices.Equal(again, first) {
			t.Fatalf("tools/list changed order: %q, then %q", first, again)
		}
	}
}
