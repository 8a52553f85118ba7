package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// The list requests (tools/list, prompts/list, resources/list,
// resources/templates/list) pass the pipeline like forwarded requests: the
// candidates are the published catalog, which identity, gate and policy
// narrow, the hooks see and may change, and send pages. mcp-go lets a
// request be refused only before it dispatches it (OnRequestInitialization),
// so the chain runs there; mcp-go then computes its own answer, which the
// After hook replaces with the chain's.

// DefaultListPageSize is how many items a list answer holds at most,
// unless Options.ListPageSize says otherwise. It was 500; every page costs
// the chain over the whole catalog (a page's items are only known once the
// steps have narrowed every candidate), so a complete list cost pages ×
// catalog, and clients that read only the first page missed the rest. At
// 10,000 a catalog of the issue-27 size (100 servers × 100 tools, 2.7 MB of
// definitions) is one answer (docs/limits.md, docs/benchmarks.md).
const DefaultListPageSize = 10000

// listed is one catalog entry of a list and where it routes.
type listed[T any] struct {
	item  pipeline.ListItem
	value T
}

// catalogLists are what the list requests are answered from, each sorted
// by client-facing name (the pagination order).
type catalogLists struct {
	tools     []listed[mcp.Tool]
	prompts   []listed[mcp.Prompt]
	resources []listed[mcp.Resource]
	templates []listed[mcp.ResourceTemplate]
	// The candidates of each list, made once per catalog: a list request
	// gets a copy (the steps narrow it in place).
	toolItems, promptItems, resourceItems, templateItems []pipeline.ListItem
}

// newCatalogLists sorts the lists by client-facing name and makes their
// candidates.
func newCatalogLists(tools []listed[mcp.Tool], prompts []listed[mcp.Prompt], resources []listed[mcp.Resource],
	templates []listed[mcp.ResourceTemplate]) catalogLists {
	c := catalogLists{tools: sortListed(tools), prompts: sortListed(prompts),
		resources: sortListed(resources), templates: sortListed(templates)}
	c.toolItems, c.promptItems = candidates(c.tools), candidates(c.prompts)
	c.resourceItems, c.templateItems = candidates(c.resources), candidates(c.templates)
	return c
}

func sortListed[T any](l []listed[T]) []listed[T] {
	sort.Slice(l, func(i, j int) bool { return l[i].item.Name < l[j].item.Name })
	return l
}

func candidates[T any](l []listed[T]) []pipeline.ListItem {
	out := make([]pipeline.ListItem, len(l))
	for i, e := range l {
		out[i] = e.item
	}
	return out
}

// pendingLists carries a list request's answer from the chain, run before
// mcp-go dispatches the request, to mcp-go's After hook. mcp-go can still
// refuse the request after the chain ran without calling any hook (a
// 2026-07-28 request with bad headers): answers nobody took are dropped
// after a minute.
type pendingLists struct {
	mu     sync.Mutex
	m      map[requestKey]pendingList
	stored int
}

type pendingList struct {
	res pipeline.Result
	at  time.Time
}

const pendingListTTL = time.Minute

func (p *pendingLists) store(k requestKey, res pipeline.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[requestKey]pendingList{}
	}
	now := time.Now()
	p.m[k] = pendingList{res, now}
	if p.stored++; p.stored%256 == 0 {
		for k, v := range p.m {
			if now.Sub(v.at) > pendingListTTL {
				delete(p.m, k)
			}
		}
	}
}

func (p *pendingLists) take(k requestKey) (pipeline.Result, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.m[k]
	delete(p.m, k)
	return v.res, ok
}

// requestKey identifies a request in flight: ids are unique per session,
// and a request of the 2026-07-28 revision has a session object of its own
// (mcp-go makes one per request), so the object names it, not its empty id.
type requestKey struct {
	session server.ClientSession
	id      string
}

func keyOf(ctx context.Context, id any) requestKey {
	return requestKey{server.ClientSessionFromContext(ctx), fmt.Sprint(id)}
}

// listRequest is what the chain reads of a list request.
type listRequest struct {
	Method string `json:"method"`
	Params struct {
		Cursor string    `json:"cursor,omitempty"`
		Meta   *mcp.Meta `json:"_meta,omitempty"`
	} `json:"params"`
}

// frontLists routes the list requests, and the subscriptions, through the
// chain at the one point mcp-go lets the router refuse a request.
func (g *Gateway) frontLists(h *server.Hooks) {
	h.AddOnRequestInitialization(g.beforeDispatch)
	// A list request that fails after the chain answered it never reaches
	// the After hooks: forget its answer so the map cannot grow.
	h.AddOnError(func(ctx context.Context, id any, _ mcp.MCPMethod, _ any, _ error) {
		g.answers.take(keyOf(ctx, id))
	})
	h.AddAfterListTools(func(ctx context.Context, id any, _ *mcp.ListToolsRequest, r *mcp.ListToolsResult) {
		g.answerList(ctx, id, r)
	})
	h.AddAfterListPrompts(func(ctx context.Context, id any, _ *mcp.ListPromptsRequest, r *mcp.ListPromptsResult) {
		g.answerList(ctx, id, r)
	})
	h.AddAfterListResources(func(ctx context.Context, id any, _ *mcp.ListResourcesRequest, r *mcp.ListResourcesResult) {
		g.answerList(ctx, id, r)
	})
	h.AddAfterListResourceTemplates(func(ctx context.Context, id any, _ *mcp.ListResourceTemplatesRequest, r *mcp.ListResourceTemplatesResult) {
		g.answerList(ctx, id, r)
	})
}

var (
	listMarker      = []byte("/list")
	subscribeMarker = []byte("subscribe")
)

// beforeDispatch runs the chain for a list request or a subscription
// before mcp-go dispatches it; its error refuses the request.
func (g *Gateway) beforeDispatch(ctx context.Context, id any, message any) error {
	raw, ok := message.(json.RawMessage)
	if ok {
		g.awaitStartingFor(ctx, raw)
	}
	if !ok || (!bytes.Contains(raw, listMarker) && !bytes.Contains(raw, subscribeMarker)) {
		return nil // this runs for every request on mcp-go's path: stay cheap
	}
	var head struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return nil // mcp-go answers a message it cannot parse
	}
	switch head.Method {
	case pipeline.MethodToolsList, pipeline.MethodPromptsList, pipeline.MethodResourcesList, pipeline.MethodTemplatesList:
		return g.serveList(ctx, id, raw)
	case pipeline.MethodSubscribe, pipeline.MethodUnsubscribe:
		return g.serveSubscription(ctx, head.Method, raw)
	case string(mcp.MethodSubscriptionsListen):
		return g.serveListen(ctx, raw)
	}
	return nil
}

// serveList answers a list request through the chain.
func (g *Gateway) serveList(ctx context.Context, id any, raw json.RawMessage) error {
	var req listRequest
	if json.Unmarshal(raw, &req) != nil {
		return nil
	}
	res, err := g.runList(ctx, &req)
	if err != nil {
		return pipeline.Unlogged(err)
	}
	g.answers.store(keyOf(ctx, id), res)
	return nil
}

// runList passes a list request through the chain; its result's Value is
// the typed mcp-go result.
func (g *Gateway) runList(ctx context.Context, req *listRequest) (pipeline.Result, error) {
	res, _, err := g.runListOwn(ctx, req)
	return res, err
}

// ownPage is where sendList leaves the result it made, so that a front
// end can tell its own page (whose JSON is canonical) from a hook's
// version of it.
type ownPage struct{ value any }

type ownPageKey struct{}

// runListOwn is runList, also reporting whether the result is the page
// sendList made, unchanged by any step.
func (g *Gateway) runListOwn(ctx context.Context, req *listRequest) (pipeline.Result, bool, error) {
	own := &ownPage{}
	res, err := g.runListIn(context.WithValue(ctx, ownPageKey{}, own), req)
	return res, err == nil && own.value != nil && res.Value == own.value, err
}

func (g *Gateway) runListIn(ctx context.Context, req *listRequest) (pipeline.Result, error) {
	r := &pipeline.Request{Method: req.Method, Client: clientOf(ctx, req.Params.Meta), Meta: req.Params.Meta,
		List: &pipeline.List{Items: g.listCandidates(req.Method)}}
	if req.Params.Cursor != "" {
		r.Params = map[string]any{"cursor": req.Params.Cursor}
	}
	method := req.Method
	r.Decode = func(b json.RawMessage) (any, error) { return decodeList(method, b) }
	return g.chain.Serve(ctx, r)
}

// listCandidates are the catalog entries of one list, in page order.
func (g *Gateway) listCandidates(method string) []pipeline.ListItem {
	g.mu.RLock()
	defer g.mu.RUnlock()
	switch method {
	case pipeline.MethodToolsList:
		return slices.Clone(g.catalog.toolItems)
	case pipeline.MethodPromptsList:
		return slices.Clone(g.catalog.promptItems)
	case pipeline.MethodResourcesList:
		return slices.Clone(g.catalog.resourceItems)
	default:
		return slices.Clone(g.catalog.templateItems)
	}
}

// sendList is the end of a list request's chain: one page of what the
// steps left, as the typed mcp-go result.
func (g *Gateway) sendList(ctx context.Context, r *pipeline.Request) (pipeline.Result, error) {
	res, err := g.sendPage(r)
	if own, ok := ctx.Value(ownPageKey{}).(*ownPage); ok && err == nil {
		own.value = res.Value
	}
	return res, err
}

func (g *Gateway) sendPage(r *pipeline.Request) (pipeline.Result, error) {
	cursor, _ := r.Params["cursor"].(string)
	after := ""
	if cursor != "" {
		b, err := base64.StdEncoding.DecodeString(cursor)
		if err != nil {
			return pipeline.Result{}, fmt.Errorf("invalid cursor: %w", err)
		}
		after = string(b)
	}
	kept, size := r.List.Items, g.pageSize
	g.mu.RLock()
	defer g.mu.RUnlock()
	switch r.Method {
	case pipeline.MethodToolsList:
		idx, next := pageIndexes(g.catalog.tools, kept, after, size)
		items, raw, ok := g.fast.toolJSON.page(g.catalog.tools, idx, next)
		res := pipeline.Result{Value: &mcp.ListToolsResult{Tools: items, PaginatedResult: mcp.PaginatedResult{NextCursor: next}}}
		if ok {
			res.Raw = raw
		}
		return res, nil
	case pipeline.MethodPromptsList:
		items, next := page(g.catalog.prompts, kept, after, size)
		return pipeline.Result{Value: &mcp.ListPromptsResult{Prompts: items, PaginatedResult: mcp.PaginatedResult{NextCursor: next}}}, nil
	case pipeline.MethodResourcesList:
		items, next := page(g.catalog.resources, kept, after, size)
		return pipeline.Result{Value: &mcp.ListResourcesResult{Resources: items, PaginatedResult: mcp.PaginatedResult{NextCursor: next}}}, nil
	default:
		items, next := page(g.catalog.templates, kept, after, size)
		return pipeline.Result{Value: &mcp.ListResourceTemplatesResult{ResourceTemplates: items, PaginatedResult: mcp.PaginatedResult{NextCursor: next}}}, nil
	}
}

// page is up to size kept entries named after `after`, and the cursor of
// the next page ("" on the last).
func page[T any](l []listed[T], kept []pipeline.ListItem, after string, size int) ([]T, mcp.Cursor) {
	idx, next := pageIndexes(l, kept, after, size)
	out := make([]T, len(idx))
	for n, i := range idx {
		out[n] = l[i].value
	}
	return out, next
}

// pageIndexes is page, as indexes into l. The steps narrow the candidates
// in place, so kept is normally in l's order: then l and kept are walked
// side by side (no set of 10,000 names built per request); otherwise kept
// is made a set first.
func pageIndexes[T any](l []listed[T], kept []pipeline.ListItem, after string, size int) ([]int, mcp.Cursor) {
	size = max(size, 1)
	start := sort.Search(len(l), func(i int) bool { return l[i].item.Name > after })
	out := make([]int, 0, min(size, len(kept)))
	take := func(i int) bool {
		if len(out) == size {
			return false
		}
		out = append(out, i)
		return true
	}
	if slices.IsSortedFunc(kept, func(a, b pipeline.ListItem) int { return strings.Compare(a.Name, b.Name) }) {
		k := sort.Search(len(kept), func(i int) bool { return kept[i].Name > after })
		i := start
		for ; k < len(kept); k++ {
			for i < len(l) && l[i].item.Name < kept[k].Name {
				i++
			}
			if i == len(l) {
				break
			}
			if l[i].item.Name != kept[k].Name {
				continue // not in the catalog (a step cannot add, but stay exact)
			}
			if !take(i) {
				return out, mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(l[i-1].item.Name)))
			}
			i++
		}
		return out, ""
	}
	keep := make(map[string]bool, len(kept))
	for _, it := range kept {
		keep[it.Name] = true
	}
	for i := start; i < len(l); i++ {
		if !keep[l[i].item.Name] {
			continue
		}
		if !take(i) {
			return out, mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(l[i-1].item.Name)))
		}
	}
	return out, ""
}

// The caching hints (SEP-2549) of a list answer to a 2026-07-28 client.
// Every list the router answers is one caller's view: its token's scope,
// the activate gate (per client), the policy (per client) and the hooks
// narrow or change it. So a list is never shareable across authorization
// contexts (cacheScope "private", whatever a hook's version of it says),
// and it is stale at once (ttlMs 0): it changes whenever a server starts,
// stops or changes its lists, the policy is reloaded, or the caller
// activates a gated server, none of which the router can foresee; a
// client that wants to hear of changes opens subscriptions/listen.
const (
	listCacheTTLMs int64 = 0
	listCacheScope       = mcp.CacheScopePrivate
)

// answerList puts the chain's answer in the place of mcp-go's. result is a
// pointer to the mcp-go result struct.
func (g *Gateway) answerList(ctx context.Context, id any, result any) {
	res, ok := g.answers.take(keyOf(ctx, id))
	if !ok {
		return
	}
	var hints *mcp.CacheableResult
	switch ours := res.Value.(type) {
	case *mcp.ListToolsResult:
		*result.(*mcp.ListToolsResult) = *ours
		hints = &result.(*mcp.ListToolsResult).CacheableResult
	case *mcp.ListPromptsResult:
		*result.(*mcp.ListPromptsResult) = *ours
		hints = &result.(*mcp.ListPromptsResult).CacheableResult
	case *mcp.ListResourcesResult:
		*result.(*mcp.ListResourcesResult) = *ours
		hints = &result.(*mcp.ListResourcesResult).CacheableResult
	case *mcp.ListResourceTemplatesResult:
		*result.(*mcp.ListResourceTemplatesResult) = *ours
		hints = &result.(*mcp.ListResourceTemplatesResult).CacheableResult
	default:
		return
	}
	pi := server.RequestProtocolInfoFromContext(ctx)
	setListHints(hints, pi != nil && pi.Modern)
}

// setListHints gives a list answer the router's caching hints. A hook's
// version of the list may carry hints of its own; they are the router's to
// give, and only on the revision that has them.
func setListHints(hints *mcp.CacheableResult, modern bool) {
	hints.TTLMs, hints.CacheScope = nil, ""
	if modern {
		hints.SetCacheHints(listCacheTTLMs, listCacheScope)
	}
}

// decodeList turns a hook's version of a list result into the typed result.
func decodeList(method string, raw json.RawMessage) (any, error) {
	var v any
	switch method {
	case pipeline.MethodToolsList:
		v = &mcp.ListToolsResult{}
	case pipeline.MethodPromptsList:
		v = &mcp.ListPromptsResult{}
	case pipeline.MethodResourcesList:
		v = &mcp.ListResourcesResult{}
	default:
		v = &mcp.ListResourceTemplatesResult{}
	}
	if err := replaceList(v, raw); err != nil {
		return nil, err
	}
	return v, nil
}

// replaceList decodes a hook's version of a list result into fresh values
// (decoding over the old ones would mix typed and raw tool schemas), keeping
// tool schemas byte for byte.
func replaceList(result any, changed []byte) error {
	switch r := result.(type) {
	case *mcp.ListToolsResult:
		var list struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor mcp.Cursor        `json:"nextCursor"`
		}
		if err := json.Unmarshal(changed, &list); err != nil {
			return err
		}
		tools := make([]mcp.Tool, 0, len(list.Tools))
		for _, raw := range list.Tools {
			var named struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &named); err != nil {
				return err
			}
			t, err := convertTool(raw, named.Name)
			if err != nil {
				return err
			}
			tools = append(tools, t)
		}
		r.Tools, r.NextCursor = tools, list.NextCursor
		return nil
	case *mcp.ListPromptsResult:
		var fresh mcp.ListPromptsResult
		if err := json.Unmarshal(changed, &fresh); err != nil {
			return err
		}
		*r = fresh
	case *mcp.ListResourcesResult:
		var fresh mcp.ListResourcesResult
		if err := json.Unmarshal(changed, &fresh); err != nil {
			return err
		}
		*r = fresh
	case *mcp.ListResourceTemplatesResult:
		var fresh mcp.ListResourceTemplatesResult
		if err := json.Unmarshal(changed, &fresh); err != nil {
			return err
		}
		*r = fresh
	}
	return nil
}
