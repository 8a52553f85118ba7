// Package gateway is the aggregated MCP server: it exposes the tools,
// resources and prompts of every running upstream under one endpoint,
// namespaced and scoped per caller, routes each request to the right
// upstream, forwards progress, cancellation and server-initiated requests,
// and logs every request. Transports (HTTP, SSE, stdio) sit in front of it.
package gateway

import (
	"context"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Caller is who sent a request (pipeline.Caller).
type Caller = pipeline.Caller

// Options configure the gateway; zero values are the defaults noted.
type Options struct {
	Separator  func() string                    // tool/prompt name separator; default "__"
	CallerFrom func(ctx context.Context) Caller // default: anonymous, every server
	RequestLog pipeline.RequestLogger           // default: none
	Logger     logrus.FieldLogger               // default: logrus standard logger
	Version    string                           // reported in serverInfo
	Debounce   time.Duration                    // coalesces catalog rebuilds; default 50 ms
	Hooks      pipeline.HookEngine              // user JavaScript hooks; default none
	// Policy is the policy in force, asked per request (pipeline.PolicyStep);
	// default none.
	Policy func() pipeline.Step
	// AsksClient reports whether the policy may ask the calling client
	// (elicitation, for a human approval) about this tool call; such calls
	// of a client that declared elicitation take mcp-go's path. nil: never.
	AsksClient func(c Caller, server, item, target string) bool
	// Sessions bound the HTTP sessions (sessions.go), asked at each new
	// session and each sweep, so a changed setting applies to the next;
	// nil: the defaults.
	Sessions func() SessionLimits
	// Credential names the credential a request carries (the token, the
	// JWT's issuer and subject, the anonymous identity): a session belongs
	// to the credential that opened it, and the caps count per credential.
	// Default: the caller's name (CallerFrom).
	Credential func(ctx context.Context) string
	// Abilities are the virtual tools of the policy in force (abilities.go);
	// nil: none. Call Refresh when they change.
	Abilities func() []Ability
	// Instance is the router's instance id, announced in initialize results
	// (instance.go); "" announces none.
	Instance string
	// HeldTools names the tools of a server withheld from clients (by the
	// upstream's own names): changed upstream and not yet accepted, under
	// toolChanges: hold (backend/catalog). They are not listed, and a call
	// is refused with tool_held. Asked at each rebuild; call Refresh when
	// it changes. nil: none.
	HeldTools func(server string) map[string]bool
	// Persisted returns a server's lists as the persisted catalog keeps
	// them (backend/catalog), false when it has none: a lazy server is
	// listed from there while it is stopped. Asked at each rebuild. nil:
	// a stopped lazy server lists nothing.
	Persisted func(server string) (upstream.Catalog, bool)
	// Tasks bound the tasks the router passes on (tasks.go), asked at each
	// new task; nil: the defaults.
	Tasks func() TaskLimits
	// GateUnlocks, if set, shares the activate gate's unlocks with the
	// other replicas (team mode); nil: they stay in this process.
	GateUnlocks gate.SharedUnlocks
	// ListPageSize is how many items one list answer holds at most; 0:
	// DefaultListPageSize. Tests set small pages.
	ListPageSize int
	// Cluster is this replica's part in a cluster of replicas
	// (clusterfront.go): session ids name the replica and are signed,
	// another replica's session is forwarded to it, and MRTR states are
	// signed with the cluster secret. nil: a single router.
	Cluster *cluster.Cluster
	// ForwardHeaders are headers an earlier handler took off a request
	// (the client's X-Upstream-Authorization) that a forward to the
	// session's replica must carry again; nil: none.
	ForwardHeaders func(ctx context.Context) http.Header
}

// Upstreams is what the gateway needs of the upstream service: the
// servers' states, definitions and catalogs, their changes, and requests
// to them (gate.Upstreams adds connecting, for the gate).
type Upstreams interface {
	gate.Upstreams
	Statuses() []upstream.Status
	Definition(name string) (spec.Server, error)
	Catalog(name string) (upstream.Catalog, error)
	Subscribe(fn func(upstream.Event)) (unsubscribe func())
}

var _ Upstreams = (*upstream.Service)(nil)

// Gateway is the aggregated server. One per process.
type Gateway struct {
	ups      Upstreams
	srv      *server.MCPServer
	o        Options
	pageSize int // items per list answer (Options.ListPageSize)
	log      logrus.FieldLogger
	chain    *pipeline.Chain
	gate     *gate.Gate
	call     *callRegistry
	asks     *pendingAsks // requests sent on calls' streams, awaiting answers
	held     *heldCalls   // stateless clients' calls held for their retries (mrtr.go)
	subs     subscriptions
	answers  pendingLists // list requests answered by the chain, for mcp-go to send
	fast     fastPath
	sessions *sessionTable
	tasks    *taskTable // upstreams' tasks by the router's ids (tasks.go)
	stdio    stdioFront // the stdio transport's task front (taskstdio.go)
	disc     *discovery // the pipeline's discovery step (discovery.go)
	// suggested: when the log last said a shared server should be
	// per-client (perclient.go).
	suggested suggestions

	rebuildMu      sync.Mutex
	mu             sync.RWMutex
	tools          map[string]upstreamName // client-facing name → upstream tool
	taskOnly       map[string]bool         // tools that need task augmentation (mcp-go's path answers them)
	taskTools      map[string]bool         // tools that may run as a task (taskSupport optional or required)
	abilities      map[string]Ability      // client-facing name → ability (its route is in tools)
	prompts        map[string]upstreamName
	resources      map[string]string // URI → server
	templates      map[string]string // URI template → server
	templateRoutes []templateRoute
	catalog        catalogLists // what the list requests are answered from
	collisions     []Collision
	published      map[string]string // list → signature last published, to skip no-op updates
	// withheld: tools held by Options.HeldTools, by the name they would
	// have (for tool_held's message) and by upstream name (send refuses
	// them whatever path a call took).
	withheld      map[string]upstreamName
	withheldItems map[upstreamName]bool

	remembered map[string][]upstream.Tool // a gated server's tools while it is down; under rebuildMu

	startup *startup // which servers are starting, for calls that wait (startup.go)

	kick chan struct{}
	stop context.CancelFunc
	done chan struct{}
}

// New builds the gateway over ups. Wire ClientSideFor and Notify into the
// upstream options, then call Start.
func New(ups Upstreams, o Options) *Gateway {
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
	if o.Credential == nil {
		o.Credential = func(ctx context.Context) string { return o.CallerFrom(ctx).Name }
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.ListPageSize <= 0 {
		o.ListPageSize = DefaultListPageSize
	}
	g := &Gateway{ups: ups, o: o, log: o.Logger, call: newCallRegistry(), asks: newPendingAsks(), held: newHeldCalls(o.Cluster),
		tools: map[string]upstreamName{}, prompts: map[string]upstreamName{}, resources: map[string]string{},
		templates: map[string]string{}, published: map[string]string{}, kick: make(chan struct{}, 1),
		remembered: map[string][]upstream.Tool{}, startup: newStartup(),
		subs: subscriptions{byURI: map[string]map[string]bool{}}, tasks: newTaskTable(o.Tasks),
		suggested: suggestions{last: map[string]time.Time{}}}
	g.pageSize = o.ListPageSize
	g.fast.disabled.Store(os.Getenv(EnvFastPath) == "off")
	g.gate = gate.New(gate.Options{Upstreams: ups, Publish: g.rebuild, Tools: g.toolsOf,
		ToolsChanged: g.toolsChanged, Logger: o.Logger, Shared: o.GateUnlocks})
	g.disc = newDiscovery(g)
	g.chain = pipeline.New(g.steps(), g.send)

	hooks := &server.Hooks{}
	g.shapeErrors(hooks) // first: the log records the error as the client gets it
	g.logHooks(hooks)
	g.trackSessions(hooks)
	g.trackStdioSession(hooks)
	g.sessions = newSessionTable(o.Sessions, o.Credential, func(ctx context.Context) string {
		return o.CallerFrom(ctx).Name
	}, g.log, hooks)
	g.sessions.cluster = o.Cluster
	g.frontLists(hooks)
	// The instance id first, so the log step of the instructions' chain
	// records the result as the client gets it.
	g.announceInstance(hooks)
	g.advertiseTasks(hooks)
	g.advertiseModernTasks(hooks)
	g.frontInstructions(hooks)
	hooks.AddAfterSetLevel(func(ctx context.Context, _ any, req *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		g.forwardLevel(ctx, req)
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		g.dropSession(s.SessionID())
		g.gate.ForgetSession(s.SessionID())
		g.endSession(s.SessionID())
		g.disc.forget(s.SessionID())
	})
	g.srv = server.NewMCPServer("mcp-router", o.Version,
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(g),
		server.WithResourceCompletionProvider(g),
		server.WithPromptCapabilities(true),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithPaginationLimit(o.ListPageSize),
	)
	g.srv.AddNotificationHandler(string(mcp.MethodNotificationRootsListChanged), g.rootsChanged)
	return g
}

// steps are the gateway's links of the forwarding pipeline, in the
// pipeline's order; send (send.go) ends it.
func (g *Gateway) steps() pipeline.Steps {
	s := pipeline.Steps{
		Identity:  pipeline.Identity{CallerFrom: g.o.CallerFrom},
		Discovery: g.disc,
		Gate:      g.gate,
		Policy:    pipeline.PolicyStep{Current: g.o.Policy},
		Hooks:     pipeline.Hooks{Engine: g.o.Hooks},
	}
	if g.o.RequestLog != nil {
		s.Log = pipeline.Log{Sink: g.o.RequestLog}
	}
	return s
}

// Server is the MCP server the transports serve.
func (g *Gateway) Server() *server.MCPServer { return g.srv }

// Start publishes the current catalog and follows upstream changes.
func (g *Gateway) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	g.stop = cancel
	g.done = make(chan struct{})
	unsubscribe := g.ups.Subscribe(func(e upstream.Event) {
		switch e.Kind {
		case upstream.EventConsole:
			return
		case upstream.EventRemoved:
			g.startup.follow(upstream.Status{Name: e.Server, State: upstream.StateStopped})
		default:
			g.startup.follow(e.Status)
		}
		g.Refresh()
	})
	for _, st := range g.ups.Statuses() {
		g.startup.follow(st)
	}
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
	if r.Item == gate.ActivateItem {
		return r.Server, "", false
	}
	return r.Server, r.Item, ok
}

// UnlistedAbility reports whether name is an ability the router knows but
// does not list, because its backend tool runs only as a task: a call of
// it is refused with TaskRequired (docs/policy.md, "Abilities"). The
// Tools page leaves it out, as tools/list does.
func (g *Gateway) UnlistedAbility(name string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	a, ok := g.abilities[name]
	return ok && a.taskOnly
}

// toolsOf are a server's published tools: upstream name → client-facing
// name, its activate tool left out (the gate's summary counts them).
// Abilities routed to the server are not its tools: an ability's name
// beside the tool's own would make the overview name a coin toss.
func (g *Gateway) toolsOf(serverName string) map[string]string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := map[string]string{}
	for name, un := range g.tools {
		if _, ability := g.abilities[name]; ability {
			continue
		}
		if un.Server == serverName && un.Item != gate.ActivateItem {
			out[un.Item] = name
		}
	}
	return out
}

// ListsChanged tells every connected client that its lists may have
// changed without the catalog changing (a new policy hides or shows
// servers and tools): tools, prompts and resources list_changed.
func (g *Gateway) ListsChanged() {
	g.oweAllListChanges()
	for _, m := range []mcp.MCPMethod{mcp.MethodNotificationToolsListChanged, mcp.MethodNotificationPromptsListChanged,
		mcp.MethodNotificationResourcesListChanged} {
		g.srv.SendNotificationToAllClients(string(m), nil)
	}
}

// toolsChanged tells a session that its tools/list changed.
func (g *Gateway) toolsChanged(sessionID string) {
	if err := g.srv.SendNotificationToSpecificClient(sessionID,
		string(mcp.MethodNotificationToolsListChanged), nil); err != nil {
		g.log.Debugf("tools/list_changed not delivered: %v", err)
	}
}
