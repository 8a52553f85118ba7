package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/toolsearch"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Discovery modes the discovery step acts on (backend/profile's).
const (
	DiscoveryAll    = "all"
	DiscoverySearch = "search"
)

// The router's own tools, offered to a search profile's clients in place
// of the profile's tools (docs/profiles.md).
const (
	ToolSearch = "search_tools"
	ToolCall   = "call_tool"
	ToolAdd    = "add_tools"
)

// Caps of the discovery step (docs/limits.md, "Profiles").
const (
	// DefaultSearchLimit is how many tools search_tools returns when the
	// client does not say; at most toolsearch.MaxLimit.
	DefaultSearchLimit = 10
	// MaxAddedTools bounds the tools one client may add to its list.
	MaxAddedTools = 128
	// MaxAddingClients bounds how many clients hold added tools at once
	// (sessions, or stateless clients by token and declared identity).
	MaxAddingClients = 10000
)

// routerTools are the definitions of the router's own tools, in the order
// a search profile's tools/list shows them.
var routerTools = []mcp.Tool{
	mcp.NewTool(ToolSearch,
		mcp.WithDescription("Find tools by what they do. Returns the best matching tools with their input schemas; "+
			"call one with "+ToolCall+". Matches tool names, descriptions, parameters and server names, in any language."),
		mcp.WithString("query", mcp.Required(), mcp.Description("what the tool should do, e.g. \"weather forecast\" or \"天気予報\"")),
		mcp.WithNumber("limit", mcp.Description(fmt.Sprintf("how many tools to return (default %d, at most %d)", DefaultSearchLimit, toolsearch.MaxLimit)))),
	mcp.NewTool(ToolCall,
		mcp.WithDescription("Call a tool found with "+ToolSearch+" by its name, with its arguments."),
		mcp.WithString("name", mcp.Required(), mcp.Description("the tool's name as "+ToolSearch+" returned it")),
		mcp.WithObject("arguments", mcp.Description("the tool's arguments, as its input schema says"))),
	mcp.NewTool(ToolAdd,
		mcp.WithDescription("Add tools found with "+ToolSearch+" to your own tool list (for clients that follow tools/list_changed); "+
			"they can then be called directly."),
		mcp.WithArray("names", mcp.Required(), mcp.Description("the tools' names as "+ToolSearch+" returned them"),
			mcp.Items(map[string]any{"type": "string"}))),
}

// discovery is the pipeline's discovery step: how a profile offers its
// tools. Under "all" (and without a profile) it lets everything through
// and refuses the router's own tools as unknown; under "search" the
// client's tools/list holds the router's tools and the tools it added,
// and the router's tools are answered here. A tool found by search is
// called through the whole chain again (identity, gate, policy, hooks,
// send, log), as the caller: search never widens what a caller reaches.
type discovery struct {
	g *Gateway

	mu    sync.Mutex
	added map[string]map[string]bool // client (gate.Key) → client-facing names it added

	idxMu  sync.Mutex
	idx    *toolsearch.Index
	idxSig string              // the tools signature the index was built from
	defs   map[string]mcp.Tool // client-facing name → definition, of that catalog
}

func newDiscovery(g *Gateway) *discovery {
	return &discovery{g: g, added: map[string]map[string]bool{}}
}

// Serve implements pipeline.Step.
func (d *discovery) Serve(ctx context.Context, r *pipeline.Request, next pipeline.Handler) (pipeline.Result, error) {
	search := r.Caller.Discovery == DiscoverySearch
	gated := r.Caller.Discovery == gate.ProfileGated
	if r.List != nil {
		if r.Method != pipeline.MethodToolsList {
			return next(ctx, r)
		}
		if !search {
			r.List.Keep(func(it pipeline.ListItem) bool {
				return it.Server != pipeline.RouterTools && (gated || !d.g.lockOnly(it.Server, it.Item))
			})
			return next(ctx, r)
		}
		added := d.addedBy(gate.Key(r))
		r.List.Keep(func(it pipeline.ListItem) bool { return added[it.Name] })
		res, err := next(ctx, r)
		if err != nil {
			return res, err
		}
		if cursor, _ := r.Params["cursor"].(string); cursor != "" {
			return res, nil // the router's tools lead the first page only
		}
		return withRouterTools(r, res)
	}
	if r.Server != pipeline.RouterTools {
		if r.Method == pipeline.MethodToolsCall && !gated && d.g.lockOnly(r.Server, r.Item) {
			return pipeline.Result{}, pipeline.NotFound(r)
		}
		return next(ctx, r)
	}
	if !search {
		return pipeline.Result{}, pipeline.NotFound(r)
	}
	switch r.Item {
	case ToolSearch:
		return d.search(ctx, r)
	case ToolCall:
		return d.call(ctx, r)
	case ToolAdd:
		return d.add(ctx, r)
	}
	return pipeline.Result{}, pipeline.NotFound(r)
}

// withRouterTools puts the router's tools before the page's own.
func withRouterTools(r *pipeline.Request, res pipeline.Result) (pipeline.Result, error) {
	list, ok := res.Value.(*mcp.ListToolsResult)
	if !ok {
		raw, err := res.JSON()
		if err != nil {
			return res, err
		}
		v, err := decodeList(r.Method, raw)
		if err != nil {
			return res, pipeline.BadResponse(pipeline.RouterServer, r.Method, err)
		}
		list = v.(*mcp.ListToolsResult)
	}
	out := *list
	out.Tools = append(append(make([]mcp.Tool, 0, len(routerTools)+len(list.Tools)), routerTools...), list.Tools...)
	return pipeline.Result{Value: &out}, nil
}

func (d *discovery) addedBy(key string) map[string]bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]bool, len(d.added[key]))
	for n := range d.added[key] {
		out[n] = true
	}
	return out
}

// forget drops what a closed session added.
func (d *discovery) forget(sessionID string) {
	d.mu.Lock()
	delete(d.added, "session\x00"+sessionID)
	d.mu.Unlock()
}

// index is the search index of the current catalog, rebuilt when the
// catalog's tools changed since it was built.
func (d *discovery) index() (*toolsearch.Index, map[string]mcp.Tool, error) {
	d.g.mu.RLock()
	sig := d.g.published["tools"]
	d.g.mu.RUnlock()
	d.idxMu.Lock()
	defer d.idxMu.Unlock()
	if d.idx != nil && d.idxSig == sig {
		return d.idx, d.defs, nil
	}
	d.g.mu.RLock()
	sig = d.g.published["tools"]
	tools := make([]toolsearch.Tool, 0, len(d.g.catalog.tools))
	defs := make(map[string]mcp.Tool, len(d.g.catalog.tools))
	for _, e := range d.g.catalog.tools {
		if d.g.lockOnly(e.item.Server, e.item.Item) {
			continue // a gated profile's; never a search profile's
		}
		raw, err := json.Marshal(e.value)
		if err != nil {
			continue
		}
		tools = append(tools, toolsearch.Tool{Name: e.item.Name, Server: e.item.Server, Raw: raw})
		defs[e.item.Name] = e.value
	}
	d.g.mu.RUnlock()
	idx, err := toolsearch.Build(tools)
	if err != nil {
		return nil, nil, err
	}
	if d.idx != nil {
		_ = d.idx.Close()
	}
	d.idx, d.idxSig, d.defs = idx, sig, defs
	return idx, defs, nil
}

// visible narrows names (client-facing tool names) to those the caller of
// ctx would see in its tools/list under "all": the chain's identity, gate
// and policy steps decide, as for its own list requests (hooks, user
// code, and the log are left out: nobody asked for a list).
func (d *discovery) visible(ctx context.Context, r *pipeline.Request, names []string) map[string]bool {
	d.g.mu.RLock()
	items := make([]pipeline.ListItem, 0, len(names))
	for _, n := range names {
		if un, ok := d.g.tools[n]; ok && !d.g.lockOnly(un.Server, un.Item) {
			it := pipeline.ListItem{Server: un.Server, Item: un.Item, Name: n}
			if ab, isAbility := d.g.abilities[n]; isAbility {
				it.Permission = ab.Permission
			}
			items = append(items, it)
		}
	}
	d.g.mu.RUnlock()
	kept := map[string]bool{}
	chain := pipeline.New(pipeline.Steps{Identity: pipeline.Identity{}, Gate: d.g.gate, Policy: pipeline.PolicyStep{Current: d.g.o.Policy}},
		func(_ context.Context, lr *pipeline.Request) (pipeline.Result, error) {
			for _, it := range lr.List.Items {
				kept[it.Name] = true
			}
			return pipeline.Result{}, nil
		})
	// The caller as the identity step named it (ctx carries it), on the
	// same connection, so the gate's per-client state applies.
	lr := &pipeline.Request{Method: pipeline.MethodToolsList, Client: r.Client, List: &pipeline.List{Items: items}}
	if _, err := chain.Serve(pipeline.WithCaller(ctx, r.Caller), lr); err != nil {
		return map[string]bool{}
	}
	return kept
}

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

func (d *discovery) search(ctx context.Context, r *pipeline.Request) (pipeline.Result, error) {
	var a searchArgs
	if err := decodeArgs(r.Args, &a); err != nil {
		return toolError(ToolSearch + ": " + err.Error()), nil
	}
	if strings.TrimSpace(a.Query) == "" {
		return toolError(ToolSearch + ": give a query: what the tool should do"), nil
	}
	if a.Limit <= 0 {
		a.Limit = DefaultSearchLimit
	}
	idx, defs, err := d.index()
	if err != nil {
		return pipeline.Result{}, err
	}
	hits, err := idx.Search(ctx, a.Query, a.Limit, func(names []string) map[string]bool { return d.visible(ctx, r, names) })
	if err != nil {
		return toolError(ToolSearch + ": " + err.Error()), nil
	}
	found := make([]mcp.Tool, 0, len(hits))
	for _, h := range hits {
		found = append(found, defs[h.Name])
	}
	body, err := json.Marshal(map[string]any{"tools": found})
	if err != nil {
		return pipeline.Result{}, err
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(body))}}
	return result(res), nil
}

type callArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// call runs the named tool through the whole chain, as the caller.
func (d *discovery) call(ctx context.Context, r *pipeline.Request) (pipeline.Result, error) {
	var a callArgs
	if err := decodeArgs(r.Args, &a); err != nil {
		return toolError(ToolCall + ": " + err.Error()), nil
	}
	d.g.mu.RLock()
	un, ok := d.g.tools[a.Name]
	ab, isAbility := d.g.abilities[a.Name]
	d.g.mu.RUnlock()
	if !ok {
		// The same error as a call of a tool that does not exist.
		return pipeline.Result{}, pipeline.UnknownTool(a.Name)
	}
	inner := &pipeline.Request{Method: pipeline.MethodToolsCall, Client: r.Client, Server: un.Server, Item: un.Item,
		Target: a.Name, Meta: r.Meta, Decode: decodeCallTool}
	if args := strings.TrimSpace(string(a.Arguments)); args != "" && args != "null" {
		inner.Args = a.Arguments
	}
	if isAbility {
		ab.attach(inner)
	}
	// A new request of the chain: identity (the same caller, from ctx),
	// discovery, gate, policy, hooks, send and its own log entry.
	return d.g.chain.Serve(ctx, inner)
}

type addArgs struct {
	Names []string `json:"names"`
}

func (d *discovery) add(ctx context.Context, r *pipeline.Request) (pipeline.Result, error) {
	var a addArgs
	if err := decodeArgs(r.Args, &a); err != nil {
		return toolError(ToolAdd + ": " + err.Error()), nil
	}
	if len(a.Names) > MaxAddedTools {
		return toolError(fmt.Sprintf("%s: %d names, more than the %d one client may add (MaxAddedTools, fixed)", ToolAdd, len(a.Names), MaxAddedTools)), nil
	}
	visible := d.visible(ctx, r, a.Names)
	var unknown []string
	for _, n := range a.Names {
		if !visible[n] {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return toolError(fmt.Sprintf("%s: no tool %s (find tools with %s)", ToolAdd, strings.Join(unknown, ", "), ToolSearch)), nil
	}
	key := gate.Key(r)
	d.mu.Lock()
	set, known := d.added[key]
	if !known && len(d.added) >= MaxAddingClients {
		d.mu.Unlock()
		return toolError(fmt.Sprintf("%s: %d clients hold added tools, the cap (MaxAddingClients, fixed); call the tools with %s", ToolAdd, MaxAddingClients, ToolCall)), nil
	}
	if set == nil {
		set = map[string]bool{}
	}
	fresh := 0
	for _, n := range a.Names {
		if !set[n] {
			fresh++
		}
	}
	if len(set)+fresh > MaxAddedTools {
		d.mu.Unlock()
		return toolError(fmt.Sprintf("%s: the list would hold %d added tools, more than the cap of %d (MaxAddedTools, fixed)", ToolAdd, len(set)+fresh, MaxAddedTools)), nil
	}
	for _, n := range a.Names {
		set[n] = true
	}
	d.added[key] = set
	d.mu.Unlock()
	if sid := r.Client.SessionID(); sid != "" && fresh > 0 {
		d.g.toolsChanged(sid)
	}
	d.warm(a.Names)
	return result(mcp.NewToolResultText(fmt.Sprintf("added %d tools to your list: %s", len(a.Names), strings.Join(a.Names, ", ")))), nil
}

// warm starts, in the background, the stopped lazy servers of tools a
// client just added, so its first call does not wait for the start (issue
// 27: a lazy server starts on its first call, activation or add_tools);
// each then stops after its idle time as after a call.
func (d *discovery) warm(names []string) {
	servers := map[string]bool{}
	for _, n := range names {
		if server, _, ok := d.g.ToolRoute(n); ok {
			servers[server] = true
		}
	}
	for server := range servers {
		def, err := d.g.ups.Definition(server)
		if err != nil || !def.IsLazy() || def.IsPerClient() {
			continue
		}
		if st, err := d.g.ups.Status(server); err == nil && st.State == upstream.StateRunning {
			continue
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), warmTimeout)
			defer cancel()
			if _, err := d.g.ups.Connect(ctx, server); err != nil {
				d.g.log.WithField("server", server).Warnf("starting the lazy server for add_tools: %v", err)
			}
		}()
	}
}

// warmTimeout bounds warm's start of one server (a slow npx download).
const warmTimeout = 2 * time.Minute

func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("bad arguments: %w", err)
	}
	return nil
}

func result(res *mcp.CallToolResult) pipeline.Result {
	raw, _ := json.Marshal(res)
	return pipeline.Result{Raw: raw, Value: res}
}

func toolError(msg string) pipeline.Result {
	res := result(mcp.NewToolResultError(msg))
	return res
}

// routerToolHandlers are mcp-go's handlers of the router's own tools: a
// request of the chain, which the discovery step answers or refuses.
func (g *Gateway) routerToolHandlers(taken map[string]upstreamName) []server.ServerTool {
	var out []server.ServerTool
	for _, t := range routerTools {
		if _, clash := taken[t.Name]; clash {
			g.log.Warnf("name collision: the router's own tool %q is not offered: an upstream tool has that name", t.Name)
			continue
		}
		out = append(out, server.ServerTool{Tool: t, Handler: g.callTool(upstreamName{pipeline.RouterTools, t.Name})})
	}
	return out
}

// maxOverviewTools is how many tool names a gated profile's activate tool
// names in its description.
const maxOverviewTools = 12

// lockableServers gives every running server without a gate of its own the
// activate tool a gated profile locks it behind (<server><sep>activate,
// unless an upstream tool has that name), into names, tools and list. The
// discovery step keeps these tools from every caller but a gated
// profile's; the gate locks the server for such a caller (gate.ProfileGated).
func (g *Gateway) lockableServers(snap snapshot, sep string, names map[string]upstreamName, tools *[]server.ServerTool,
	list *[]listed[mcp.Tool]) map[string]gate.Server {
	out := map[string]gate.Server{}
	for _, name := range snap.servers {
		def := snap.defs[name]
		if def.Gate.Enabled {
			continue
		}
		final := name + sep + "activate"
		if _, taken := names[final]; taken || !validToolName(final) {
			continue // the server cannot be locked: a gated profile lists its tools as they are
		}
		desc := toolOverview(name, def, snap.catalogs[name].Tools) + fmt.Sprintf(". They are locked: call %s to unlock them.", final)
		un := upstreamName{name, gate.ActivateItem}
		names[final] = un
		t := gate.Tool(final, desc)
		*tools = append(*tools, server.ServerTool{Tool: t, Handler: g.callTool(un)})
		*list = append(*list, listed[mcp.Tool]{pipeline.ListItem{Server: name, Item: gate.ActivateItem, Name: final}, t})
		out[name] = gate.Server{Gate: spec.Gate{Enabled: true, HideTools: true}, Activate: final}
	}
	return out
}

// toolOverview is "<server> has N tools: a, b, …" (the first
// maxOverviewTools of its enabled tools): what an activate tool unlocks.
func toolOverview(name string, def spec.Server, tools []upstream.Tool) string {
	var toolNames []string
	for _, t := range tools {
		if def.ToolEnabled(t.Name) {
			toolNames = append(toolNames, t.Name)
		}
	}
	desc := fmt.Sprintf("%s has %d tools", name, len(toolNames))
	if len(toolNames) > 0 {
		shown := toolNames
		if len(shown) > maxOverviewTools {
			shown = shown[:maxOverviewTools]
		}
		desc += ": " + strings.Join(shown, ", ")
		if len(toolNames) > len(shown) {
			desc += ", …"
		}
	}
	return desc
}

// lockOnly reports whether it is the activate tool of a server that only a
// gated profile locks.
func (g *Gateway) lockOnly(server, item string) bool {
	if item != gate.ActivateItem {
		return false
	}
	_, gated := g.gate.Gated(server)
	return !gated
}

func validToolName(s string) bool { return validName.MatchString(s) || validDotted.MatchString(s) }

// ProfileOnly reports whether name is a tool only some profiles' clients
// are offered: the router's search tools, or the activate tool of a server
// without a gate of its own (a gated profile's). Lists of the published
// tools that are not a client's (the UI's Tools page) leave them out.
func (g *Gateway) ProfileOnly(name string) bool {
	g.mu.RLock()
	un, routed := g.tools[name]
	g.mu.RUnlock()
	if routed {
		return g.lockOnly(un.Server, un.Item)
	}
	for _, t := range routerTools {
		if t.Name == name {
			return true
		}
	}
	return false
}
