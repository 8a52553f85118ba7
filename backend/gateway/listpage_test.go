package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// pageIndexesBySet is pageIndexes as it was: kept made a set, the catalog
// walked from the cursor. The reference the side-by-side walk must match.
func pageIndexesBySet[T any](l []listed[T], kept []pipeline.ListItem, after string, size int) ([]int, mcp.Cursor) {
	keep := map[string]bool{}
	for _, it := range kept {
		keep[it.Name] = true
	}
	out := []int{}
	for i := range l {
		if l[i].item.Name <= after || !keep[l[i].item.Name] {
			continue
		}
		if len(out) == size {
			return out, mcp.Cursor(encodeCursor(l[i-1].item.Name))
		}
		out = append(out, i)
	}
	return out, ""
}

func encodeCursor(name string) string {
	b, _ := json.Marshal([]byte(name)) // base64, quoted
	return strings.Trim(string(b), `"`)
}

// The side-by-side walk over kept candidates in catalog order, and the set
// for candidates in any other order, page exactly as the set always did:
// every subset, page size and cursor tried, including names kept that the
// catalog does not hold and a cursor between names.
func TestPageIndexesMatchTheSetWalk(t *testing.T) {
	l := jsonCatalog(300, "d")
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var kept []pipeline.ListItem
		for _, e := range l {
			if rng.IntN(4) != 0 {
				kept = append(kept, e.item)
			}
		}
		if round%5 == 0 {
			kept = append(kept, pipeline.ListItem{Name: "srv__t150x"}) // not in the catalog
			slices.SortFunc(kept, func(a, b pipeline.ListItem) int { return strings.Compare(a.Name, b.Name) })
		}
		if round%3 == 0 {
			rng.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
		}
		size := 1 + rng.IntN(120)
		after := ""
		if round%4 != 0 {
			after = l[rng.IntN(len(l))].item.Name
			if round%7 == 0 {
				after += "~" // between two names
			}
		}
		got, gotNext := pageIndexes(l, slices.Clone(kept), after, size)
		want, wantNext := pageIndexesBySet(l, kept, after, size)
		if !slices.Equal(got, want) || gotNext != wantNext {
			t.Fatalf("round %d (size %d, after %q): got %v %q, want %v %q", round, size, after, got, gotNext, want, wantNext)
		}
	}
}

// A page kept whole is served again only for the very same tools and
// cursor: two requests whose steps kept different tools of the same count
// each get their own page, and a new catalog never gets an old one's.
func TestCachedPageIsKeyedByWhatItHolds(t *testing.T) {
	var c toolJSONCache
	l := jsonCatalog(50, "d")
	pageOf := func(l []listed[mcp.Tool], idx []int, next mcp.Cursor) string {
		t.Helper()
		items, raw, ok := c.page(l, idx, next)
		if !ok || len(items) != len(idx) {
			t.Fatalf("page %v: ok %v, %d items", idx, ok, len(items))
		}
		want := make([]mcp.Tool, len(idx))
		for n, i := range idx {
			want[n] = l[i].value
		}
		wantRaw, _ := json.Marshal(&mcp.ListToolsResult{Tools: want, PaginatedResult: mcp.PaginatedResult{NextCursor: next}})
		if string(raw) != string(wantRaw) {
			t.Fatalf("page %v next %q:\n%.200s\nwant\n%.200s", idx, next, raw, wantRaw)
		}
		return string(raw)
	}
	a := pageOf(l, []int{0, 1, 2}, "")
	b := pageOf(l, []int{0, 1, 3}, "")
	pageOf(l, []int{0, 1, 2}, "c")
	if again := pageOf(l, []int{0, 1, 2}, ""); again != a || a == b {
		t.Fatal("the same page was not served the same")
	}
	if len(c.pages) != 3 {
		t.Fatalf("%d pages kept, want 3", len(c.pages))
	}
	fresh := jsonCatalog(50, "other description")
	if pageOf(fresh, []int{0, 1, 2}, "") == a {
		t.Fatal("a new catalog got the old catalog's page")
	}
	if len(c.pages) != 1 {
		t.Fatalf("%d pages kept after a new catalog, want 1", len(c.pages))
	}
}

// An empty catalog (no tools at all, a nil list) has its empty page: the
// zero cache must not take it for the catalog it already holds and skip
// making itself ready (the router panicked on the first tools/list of an
// empty catalog).
func TestEmptyCatalogPage(t *testing.T) {
	var c toolJSONCache
	for range 2 {
		items, raw, ok := c.page(nil, []int{}, "")
		if !ok || len(items) != 0 || string(raw) != `{"tools":[]}` {
			t.Fatalf("empty page: %v %s %v", items, raw, ok)
		}
	}
}

// The cache of whole pages keeps at most MaxCachedListBytes.
func TestCachedPagesStayWithinTheirBudget(t *testing.T) {
	var c toolJSONCache
	l := jsonCatalog(400, strings.Repeat("x", 80000)) // about 80 KB a tool
	for start := range 390 {
		if _, _, ok := c.page(l, []int{start, start + 1, start + 2, start + 3, start + 4, start + 5, start + 6, start + 7, start + 8, start + 9}, ""); !ok {
			t.Fatal("page not made")
		}
		sum := 0
		for _, p := range c.pages {
			sum += p.size()
		}
		if c.pageBytes > MaxCachedListBytes || sum != c.pageBytes {
			t.Fatalf("after %d pages %d bytes kept (counted %d), cap %d", start+1, sum, c.pageBytes, MaxCachedListBytes)
		}
	}
	if len(c.pages) == 0 || len(c.pages) >= 390 {
		t.Fatalf("%d pages kept", len(c.pages))
	}
}

// postAnswer posts a request on a 2025-11-25 session and returns its
// answer, read whole: a JSON body, or an event stream (mcp-go's answer
// behind queued notifications, such as list_changed) ending with it.
func postAnswer(t *testing.T, url, who, sid, body string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("X-Caller", who)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(server.HeaderKeySessionID, sid)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		for _, line := range strings.Split(string(out), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"result"`) {
				return []byte(data)
			}
		}
	}
	return out
}

// listAllRaw reads a complete tools/list on a raw 2025-11-25 session,
// following every cursor, and returns the names in order and the pages.
func listAllRaw(t *testing.T, url, who, sid string) ([]string, int) {
	t.Helper()
	var names []string
	cursor := ""
	for pages := 1; ; pages++ {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		body := postAnswer(t, url, who, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":`+params+`}`)
		var resp struct {
			Result *struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &resp); err != nil || resp.Result == nil {
			t.Fatalf("%s: tools/list page %d: %s", who, pages, body)
		}
		for _, tl := range resp.Result.Tools {
			names = append(names, tl.Name)
		}
		if resp.Result.NextCursor == "" {
			return names, pages
		}
		if pages > 100 {
			t.Fatalf("%s: more than 100 pages", who)
		}
		cursor = resp.Result.NextCursor
	}
}

// Each caller's complete tools/list, page after page, is its own view
// while the pages are cached: its token's scope, its profile's selection,
// the policy's deny-listing for it, and the held tools. The callers list
// in turn, twice, on small pages (three tools, so several pages and
// cursors), on the fast path and on mcp-go's, so a page cached for one
// would be served to the next if the cache were keyed by anything but
// what the page holds (the cursor, the count, the catalog).
func TestCachedListPagesFollowEachCallersView(t *testing.T) {
	var hold atomic.Bool
	callerFrom := func(ctx context.Context) Caller {
		name, _ := ctx.Value(callerKey{}).(string)
		switch name {
		case "scoped":
			return Caller{Name: name, Allows: func(s string) bool { return s == "b" }}
		case "profiled":
			return Caller{Name: name, Profile: "p", Allows: func(s string) bool { return s == "a" || s == "b" },
				InProfile: func(s, item string) bool { return s == "b" || item == "echo" }}
		}
		return Caller{Name: name}
	}
	denyEcho := pipeline.StepFunc(func(ctx context.Context, r *pipeline.Request, next pipeline.Handler) (pipeline.Result, error) {
		if r.List != nil && r.Caller.Name == "denied" {
			r.List.Keep(func(it pipeline.ListItem) bool { return it.Item != "echo" })
		}
		return next(ctx, r)
	})
	r := newRig(t, []spec.Server{everything(t, "a", spec.PrefixAlways), everything(t, "b", spec.PrefixAlways)}, rigOptions{
		auth: headerCaller, callerFrom: callerFrom, listPageSize: 3,
		policy: func() pipeline.Step { return denyEcho },
		heldTools: func(server string) map[string]bool {
			if server == "a" && hold.Load() {
				return map[string]bool{"echo": true}
			}
			return nil
		},
	})
	r.waitTool(t, "a__echo")
	r.waitTool(t, "b__echo")
	callers := []string{"alice", "scoped", "profiled", "denied"}
	sessions := map[string]string{}
	for _, who := range callers {
		_, hdr, body := request(t, "POST", r.url, who, "", initializeBody, nil)
		if sessions[who] = hdr.Get(server.HeaderKeySessionID); sessions[who] == "" {
			t.Fatalf("initialize %s: %s", who, body)
		}
	}
	want := func(all []string, who string) []string {
		var out []string
		for _, n := range all {
			srv, item, _ := strings.Cut(n, "__")
			switch {
			case who == "scoped" && srv != "b",
				who == "profiled" && srv == "a" && item != "echo",
				who == "denied" && item == "echo",
				hold.Load() && n == "a__echo":
				continue
			}
			out = append(out, n)
		}
		return out
	}
	r.gw.SetFastPath(true)
	all, _ := listAllRaw(t, r.url, "alice", sessions["alice"])
	if len(all) < 8 || !contains(all, "a__echo") || !contains(all, "b__echo") || !slices.IsSorted(all) {
		t.Fatalf("alice's list: %v", all)
	}
	check := func(stage string) {
		t.Helper()
		for _, who := range callers { // mcp-go's answer takes the list_changed queued for the session
			postAnswer(t, r.url, who, sessions[who], `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		}
		for _, fast := range []bool{true, false, true} {
			r.gw.SetFastPath(fast)
			for range 2 {
				for _, who := range callers {
					before := r.gw.fast.listed.Load()
					got, pages := listAllRaw(t, r.url, who, sessions[who])
					if w := want(all, who); !slices.Equal(got, w) {
						t.Fatalf("%s, fast path %v, %s's list:\n%v\nwant\n%v", stage, fast, who, got, w)
					}
					if took := r.gw.fast.listed.Load() - before; fast && took != uint64(pages) || !fast && took != 0 {
						t.Fatalf("%s: fast path %v, %d of %d pages taken on it", stage, fast, took, pages)
					}
					if pages != (len(want(all, who))+2)/3 && !(pages == 1 && len(want(all, who)) == 0) {
						t.Fatalf("%s: %s's %d tools in %d pages of 3", stage, who, len(want(all, who)), pages)
					}
				}
			}
		}
	}
	check("before the hold")
	hold.Store(true)
	r.gw.Refresh()
	testpeers.Eventually(t, 10*time.Second, "a__echo withheld", func() bool {
		got, _ := listAllRaw(t, r.url, "alice", sessions["alice"])
		return !contains(got, "a__echo")
	})
	check("a__echo held")
	hold.Store(false)
	r.gw.Refresh()
	testpeers.Eventually(t, 10*time.Second, "a__echo back", func() bool {
		got, _ := listAllRaw(t, r.url, "alice", sessions["alice"])
		return contains(got, "a__echo")
	})
	check("a__echo accepted")
}

// The default page holds the issue-27 catalog (10,000 tools) whole.
func TestDefaultPageHoldsTenThousandTools(t *testing.T) {
	l := jsonCatalog(10000, "d")
	for i := range l { // jsonCatalog names sort as numbers up to 999
		l[i].item.Name = fmt.Sprintf("srv__t%05d", i)
	}
	idx, next := pageIndexes(l, candidates(l), "", DefaultListPageSize)
	if len(idx) != 10000 || next != "" {
		t.Fatalf("%d tools in the first page, next %q", len(idx), next)
	}
}
