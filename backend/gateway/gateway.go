// Package gateway is the aggregated MCP server: it exposes the tools,
// resources and prompts of every running upstream under one endpoint,
// namespaced and scoped per caller, routes each request to the right
// upstream, forwards progress, cancellation and server-initiated requests,
// and logs every request. Transports (HTTP, SSE, stdio) sit in front of it.
package gateway

import (
	"context"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Caller is who sent a request: a token's name and the servers it may use.
type Caller struct {
	Name   string
	Allows func(server string) bool // nil: every server
}

func (c Caller) allows(server string) bool { return c.Allows == nil || c.Allows(server) }

// RequestLogger receives one entry per request; it must not block.
type RequestLogger interface{ Log(store.RequestLog) }

// Options configure the gateway; zero values are the defaults noted.
type Options struct {
	Separator  func() string                    // tool/prompt name separator; default "__"
	CallerFrom func(ctx context.Context) Caller // default: anonymous, every server
	RequestLog RequestLogger                    // default: none
	Logger     logrus.FieldLogger               // default: logrus standard logger
	Version    string                           // reported in serverInfo
	Debounce   time.Duration                    // coalesces catalog rebuilds; default 50 ms
	Hooks      Hooks                            // user JavaScript hooks; default none
	// SessionIdleTTL ends streamable HTTP sessions idle this long (idle.go);
	// default DefaultSessionIdleTTL, negative: never.
	SessionIdleTTL time.Duration
}

// Gateway is the aggregated server. One per process.
type Gateway struct {
	ups   *upstream.Service
	srv   *server.MCPServer
	o     Options
	log   logrus.FieldLogger
	call  *callRegistry
	subs  subscriptions
	lists pendingLists
	fast  fastPath
	idle  *idleSessions

	rebuildMu      sync.Mutex
	mu             sync.RWMutex
	tools          map[string]upstreamName // client-facing name → upstream tool
	taskOnly       map[string]bool         // tools that need task augmentation (mcp-go's path answers them)
	prompts        map[string]upstreamName
	resources      map[string]string // URI → server
	templates      map[string]string // URI template → server
	templateRoutes []templateRoute
	collisions     []Collision
	published      map[string]string      // list → signature last published, to skip no-op updates
	gates          map[string]gatedServer // gated servers (enabled, with the gate on)

	gate       gateState
	remembered map[string][]upstream.Tool // a gated server's tools while it is down; under rebuildMu

	kick chan struct{}
	stop context.CancelFunc
	done chan struct{}
}

// New builds the gateway over ups. Wire ClientSideFor and Notify into the
// upstream options, then call Start.
func New(ups *upstream.Service, o Options) *Gateway {
	if o.Separator == nil {
		o.Separator = func() string { return "__" }
	}
	if o.CallerFrom == nil {
		o.CallerFrom = func(context.Context) Caller { return Caller{} }
	}
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	if o.Debounce <= 0 {
		o.Debounce = 50 * time.Millisecond
	}
	if o.SessionIdleTTL == 0 {
		o.SessionIdleTTL = DefaultSessionIdleTTL
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	g := &Gateway{ups: ups, o: o, log: o.Logger, call: newCallRegistry(),
		tools: map[string]upstreamName{}, prompts: map[string]upstreamName{}, resources: map[string]string{},
		templates: map[string]string{}, published: map[string]string{}, kick: make(chan struct{}, 1),
		gates: map[string]gatedServer{}, remembered: map[string][]upstream.Tool{},
		subs: subscriptions{byURI: map[string]map[string]bool{}}}
	g.fast.disabled.Store(os.Getenv(EnvFastPath) == "off")
	hooks := &server.Hooks{}
	g.shapeErrors(hooks) // first: the log records the error as the client gets it
	g.logHooks(hooks)
	// Before the user's post hooks, so they see the list the client gets.
	// Not a tool filter: mcp-go applies those to calls too, and a call to a
	// hidden tool must get the gate message, not "tool not found".
	hooks.AddAfterListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		g.hideLockedTools(ctx, res)
	})
	g.trackSessions(hooks)
	g.idle = newIdleSessions(o.SessionIdleTTL, g.log, hooks)
	g.registerHookPoints(hooks)
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		res.Instructions = g.instructions(o.CallerFrom(ctx))
	})
	hooks.AddAfterListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		g.filterResources(o.CallerFrom(ctx), res)
	})
	hooks.AddAfterListResourceTemplates(func(ctx context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
		g.filterTemplates(o.CallerFrom(ctx), res)
	})
	hooks.AddAfterSetLevel(func(ctx context.Context, _ any, req *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		g.forwardLevel(ctx, req.Params.Level)
	})
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		g.subscribe(ctx, req.Params.URI)
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if s := server.ClientSessionFromContext(ctx); s != nil {
			g.unsubscribe(s.SessionID(), req.Params.URI)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		g.dropSession(s.SessionID())
		g.gate.forget(sessionGateKey(s.SessionID()))
	})
	g.srv = server.NewMCPServer("mcp-router", o.Version,
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(g),
		server.WithResourceCompletionProvider(g),
		server.WithPromptCapabilities(true),
		server.WithToolFilter(g.filterTools),
		server.WithPromptFilter(g.filterPrompts),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithPaginationLimit(500),
	)
	return g
}

// Server is the MCP server the transports serve.
func (g *Gateway) Server() *server.MCPServer { return g.srv }

// Start publishes the current catalog and follows upstream changes.
func (g *Gateway) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	g.stop = cancel
	g.done = make(chan struct{})
	unsubscribe := g.ups.Subscribe(func(e upstream.Event) {
		if e.Kind == upstream.EventConsole {
			return
		}
		g.Refresh()
	})
	g.rebuild()
	go func() {
		defer close(g.done)
		defer unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case <-g.kick:
			}
			// Coalesce a burst (servers starting together) into one update.
			select {
			case <-ctx.Done():
				return
			case <-time.After(g.o.Debounce):
			}
			g.rebuild()
		}
	}()
}

// Rebuild publishes the current catalog now, without waiting for the
// debounce (the stdio mode wants it complete before the first request).
func (g *Gateway) Rebuild() { g.rebuild() }

// Refresh asks for the catalog to be rebuilt soon (e.g. after a setting
// such as the separator changed).
func (g *Gateway) Refresh() {
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// Close stops following upstream changes.
func (g *Gateway) Close() {
	if g.stop != nil {
		g.stop()
		<-g.done
	}
}

// Collisions reports names that two upstreams both wanted.
func (g *Gateway) Collisions() []Collision {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return append([]Collision(nil), g.collisions...)
}

// ToolRoute tells which upstream tool a client-facing name reaches.
func (g *Gateway) ToolRoute(name string) (server, tool string, ok bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	r, ok := g.tools[name]
	if r.Item == gateToolItem {
		return r.Server, "", false
	}
	return r.Server, r.Item, ok
}

func (g *Gateway) filterTools(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	return filterByRoute(g, ctx, tools, func() map[string]upstreamName { return g.tools }, func(t mcp.Tool) string { return t.Name })
}

func (g *Gateway) filterPrompts(ctx context.Context, prompts []mcp.Prompt) []mcp.Prompt {
	return filterByRoute(g, ctx, prompts, func() map[string]upstreamName { return g.prompts }, func(p mcp.Prompt) string { return p.Name })
}

// filterByRoute keeps the items whose server the caller may use. routes
// is called under g.mu, since a rebuild replaces the maps.
func filterByRoute[T any](g *Gateway, ctx context.Context, items []T, routes func() map[string]upstreamName, name func(T) string) []T {
	c := g.o.CallerFrom(ctx)
	if c.Allows == nil {
		return items
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	byName := routes()
	out := items[:0:0]
	for _, it := range items {
		if r, ok := byName[name(it)]; ok && c.allows(r.Server) {
			out = append(out, it)
		}
	}
	return out
}

func (g *Gateway) filterResources(c Caller, res *mcp.ListResourcesResult) {
	if c.Allows == nil || res == nil {
		return
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	kept := res.Resources[:0]
	for _, r := range res.Resources {
		if c.allows(g.resources[r.URI]) {
			kept = append(kept, r)
		}
	}
	res.Resources = kept
}

func (g *Gateway) filterTemplates(c Caller, res *mcp.ListResourceTemplatesResult) {
	if c.Allows == nil || res == nil {
		return
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	kept := res.ResourceTemplates[:0]
	for _, t := range res.ResourceTemplates {
		if t.URITemplate != nil && c.allows(g.templates[t.URITemplate.Raw()]) {
			kept = append(kept, t)
		}
	}
	res.ResourceTemplates = kept
}

// instructions joins the running servers' own instructions, each labelled
// with its server, for what the caller may use. A gated server contributes
// its gate message instead: its own instructions come with activation.
func (g *Gateway) instructions(c Caller) string {
	var parts []string
	for _, st := range g.ups.Statuses() {
		if !c.allows(st.Name) {
			continue
		}
		if s, ok := g.gated(st.Name); ok {
			parts = append(parts, "## "+st.Name+"\n\n"+s.message(st.Name))
			continue
		}
		if st.State != upstream.StateRunning || st.Instructions == "" {
			continue
		}
		parts = append(parts, "## "+st.Name+"\n\n"+strings.TrimSpace(st.Instructions))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return ""
	}
	return "MCP Router serves several servers; tools are named <server>" + g.o.Separator() + "<tool>.\n\n" +
		strings.Join(parts, "\n\n")
}
