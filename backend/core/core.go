// Package core wires the per-process services together: it is the one place
// that builds them and passes each what it needs. The desktop shell, the
// headless modes and the CLI all start from here.
package core

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/redis/go-redis/v9"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/approval"
	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/catalog"
	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/connlimit"
	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/gateway"
	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/metrics"
	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/reqlog"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/teamstate"
	"github.com/mcp-router/mcp-router/backend/tracing"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Version is the router's version, set at build time with -ldflags.
var Version = "dev"

// Core holds the services of one running router.
type Core struct {
	DataDir  string
	Instance string // this router's instance id (config.InstanceID), announced in initialize results
	Store    *store.Store
	Settings *settings.Settings
	// Approvals: the calls waiting for a person in the UI (issue 18).
	Approvals *approval.Broker
	Auth      *auth.Service
	// Profiles are the named profiles, each served at /mcp/<name>
	// (profiles.go, docs/profiles.md).
	Profiles *profile.Service
	Requests *reqlog.Writer
	// Metrics counts what the request log records and serves /metrics
	// (metrics.go, docs/metrics.md).
	Metrics *metrics.Metrics
	// Tracer exports traces of the calls (docs/metrics.md, "Traces");
	// nil when no OTLP endpoint is configured.
	Tracer *tracing.Tracer
	// Charts keeps the last minutes of those figures for the app's charts
	// (metrics.go, docs/metrics.md "In the app").
	Charts  *metrics.Series
	Servers *upstream.Service
	Gateway *gateway.Gateway
	Hooks   *hook.Service
	// Policy is policy.yaml in the data dir, followed while Run's watch
	// runs (docs/policy.md).
	Policy *policy.Service
	Log    logrus.FieldLogger
	// Redis is the one client of the Redis given with --redis (redis.go);
	// nil without it.
	Redis *redis.Client
	// StateGate is the state_gate engine; StateGateServer its MCP face,
	// which the upstream service reaches in-process.
	StateGate       *stategate.Service
	StateGateServer *stategate.Server
	// The chat panel (chat.go).
	Chat     *chat.Service
	ChatKeys *chat.Keys
	// ServerSecrets are the values of servers' secret env and header
	// entries (the OS keychain, else a 0600 file): the database has only
	// their names.
	ServerSecrets *secrets.ServerValues
	// Catalog is the persisted catalog: servers' last lists, readable
	// while they are stopped, and their tools' pinned definitions
	// (catalog.go).
	Catalog *catalog.Catalog
	// Logins are the OAuth logins of HTTP upstreams (logins.go).
	Logins    *oauthclient.Manager
	loginMu   sync.Mutex
	loginGens map[string]int64 // each login's generation in the store, as last applied

	chain []string // ids of the routers this one runs under (instance.go)

	epMu sync.Mutex
	ep   EndpointState

	changeMu   sync.Mutex
	changeSubs map[int]func()
	changeID   int

	// Cluster is this replica's part in a cluster (nil: a single router).
	Cluster *cluster.Cluster

	reloads atomic.Int64 // configuration reloads by watch
	// conns counts the endpoint's connections (the latest Serve's).
	conns         atomic.Pointer[connlimit.Listener]
	beforeServers func(ctx context.Context)

	stopWatch context.CancelFunc
	watchDone chan struct{}
	// stopSharing end what listens to Redis (before its client closes).
	stopSharing []func()
	// chartsDone is closed when the charts' sampler (started by Run) ends.
	chartsDone chan struct{}
	closeOnce  sync.Once
}

// Options configure Open; zero values are the defaults.
type Options struct {
	Logger   logrus.FieldLogger
	Upstream upstream.Options
	// BeforeServers, if set, runs in the background when Run is called,
	// and the servers start only after it returns (or when the router
	// closes, never): the desktop app takes the login shell's environment
	// there, without holding up its window. Its ctx ends at Close.
	BeforeServers func(ctx context.Context)
	// PolicyClock is the policy's rate-limit clock; default time.Now.
	PolicyClock func() time.Time
	// Database is --database: "" the SQLite file in the data dir, a
	// postgres:// URL a PostgreSQL database shared by replicas
	// (docs/team.md).
	Database string
	// Redis is the URL of the Redis that replicas share their runtime
	// state in (team mode, docs/team.md); empty: all of it stays in
	// this process.
	Redis string
	// Replica, Advertise and ClusterSecret make this router a replica
	// (--replica, --advertise, MCP_ROUTER_CLUSTER_SECRET; backend/cluster):
	// without a secret it is a single router.
	Replica       string
	Advertise     string
	ClusterSecret []byte
}

// Open opens the store in dataDir and builds the services. It starts no
// server: call Run for that.
func Open(dataDir string, o Options) (*Core, error) {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	var rdb *redis.Client
	if o.Redis != "" && len(o.ClusterSecret) == 0 {
		// Said before dialling: replicas could not check each other's
		// session ids (cluster.New says the same).
		return nil, fmt.Errorf("--redis needs a cluster secret of at least %d bytes in %s, the same on every replica",
			cluster.MinSecretBytes, cluster.EnvSecret)
	}
	if o.Redis != "" {
		var err error
		if rdb, err = openRedis(context.Background(), o.Redis); err != nil {
			return nil, err
		}
	}
	cl, err := cluster.New(cluster.Options{Replica: o.Replica, Advertise: o.Advertise, Secret: o.ClusterSecret,
		Redis: rdb, Logger: o.Logger})
	if err != nil {
		if rdb != nil {
			_ = rdb.Close()
		}
		return nil, err
	}
	if o.Database != "" {
		protectDataDir(dataDir, o.Logger)
	}
	st, err := store.OpenDatabase(context.Background(), o.Database, config.DBPath(dataDir), store.Options{Logger: o.Logger})
	if err != nil {
		if rdb != nil {
			_ = rdb.Close()
		}
		return nil, err
	}
	protectSecretFiles(dataDir, o.Logger)
	id, chain := identity(dataDir, o.Logger)
	c := &Core{DataDir: dataDir, Store: st, Log: o.Logger, Instance: id, chain: chain, beforeServers: o.BeforeServers,
		Redis: rdb, Cluster: cl}
	c.Settings = settings.New(st)
	c.Settings.SetLogger(o.Logger)
	c.Auth = auth.New(st)
	c.Auth.SetLogger(o.Logger)
	c.Auth.SetOAuth(c.oauthConfig)
	c.Profiles = profile.New(st)
	if err := c.Profiles.Reload(context.Background()); err != nil {
		_ = st.Close()
		if rdb != nil {
			_ = rdb.Close()
		}
		return nil, fmt.Errorf("load profiles: %w", err)
	}
	c.Requests = reqlog.New(st.Logs(), reqlog.Options{
		Logger: o.Logger,
		Retention: func() time.Duration {
			return time.Duration(c.Settings.RetentionDays(context.Background())) * 24 * time.Hour
		},
	})

	c.Metrics = c.newMetrics()
	c.Tracer = c.openTracer()
	c.Charts = c.Metrics.NewSeries(metrics.SeriesInterval, metrics.SeriesPoints)

	// The gateway and the upstream service need each other: upstream
	// notifications and requests go to the gateway, which calls upstreams.
	var gw *gateway.Gateway
	uo := o.Upstream
	uo.Logger = o.Logger
	if uo.ClientInfo.Name == "" {
		uo.ClientInfo = mcp.Implementation{Name: "mcp-router", Version: Version}
	}
	uo.Instance, uo.Chain = id, chain
	uo.OnNotificationFrom = func(server string, from upstream.Origin, n mcp.JSONRPCNotification) { gw.NotifyFrom(server, from, n) }
	c.openCatalog()
	uo.OnCatalog = c.Catalog.Record
	uo.HasCatalog = c.hasPersistedLists
	uo.LazyIdle = func() time.Duration { return c.Settings.LazyIdle(context.Background()) }
	uo.ClientSide = upstream.ClientSide{
		Sampling: func(ctx context.Context, s string, r mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return gw.ClientSide().Sampling(ctx, s, r)
		},
		Elicitation: func(ctx context.Context, s string, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			return gw.ClientSide().Elicitation(ctx, s, r)
		},
		Roots: func(ctx context.Context, s string, r mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			return gw.ClientSide().Roots(ctx, s, r)
		},
	}
	if uo.DefaultTimeout == nil {
		// Servers without a timeout of their own follow the setting.
		uo.DefaultTimeout = func() time.Duration { return c.Settings.Timeout(context.Background()) }
	}
	if uo.MaxMessage == nil {
		uo.MaxMessage = func() int { return c.Settings.UpstreamMaxMessage(context.Background()) }
	}
	if uo.PerClient == nil {
		// Read at each new instance and each idle check: a changed
		// setting applies to the next.
		uo.PerClient = func() upstream.PerClientLimits {
			ctx := context.Background()
			return upstream.PerClientLimits{MaxInstances: c.Settings.PerClientMaxInstances(ctx), IdleTimeout: c.Settings.PerClientIdle(ctx)}
		}
	}
	c.openLogins()
	uo.Authorizer = c.Logins
	c.ServerSecrets = secrets.NewServerValues(dataDir, o.Logger)
	uo.Secrets = c.ServerSecrets
	c.StateGate = stategate.New(stategate.Options{DataDir: dataDir, Store: st, Logger: o.Logger, Limits: StateGateLimits(c.Settings)})
	c.StateGateServer = stategate.NewServer(c.StateGate, stategate.ServerOptions{ActorFrom: actorFrom, Version: Version})
	uo.Builtins = map[string]*server.MCPServer{stategate.ServerName: c.StateGateServer.MCPServer()}
	c.Servers = upstream.New(uo)
	c.Hooks = hook.New(st.Hooks(), hook.Options{
		Logger: logrus.StandardLogger(),
		ValidateToken: func(token string) bool {
			_, err := c.Auth.Verify(context.Background(), token)
			return err == nil
		},
		ServerInfo: c.serverInfo,
		Observe:    c.Metrics.ObserveHook,
		// Read at the start of every request's hooks: a changed setting
		// applies to the next request.
		Limits: func() hook.Limits {
			ctx := context.Background()
			return hook.Limits{Timeout: c.Settings.HookTimeout(ctx), MaxMemory: int64(c.Settings.HookMemoryMB(ctx)) << 20}
		},
	})
	// A policy file that does not load is logged and shown in the UI; the
	// router runs without a policy until it is fixed.
	c.Approvals = approval.New()
	if rdb != nil {
		stop, err := c.Approvals.Share(teamstate.NewApprovals(rdb), o.Logger.Warnf)
		if err != nil {
			_ = st.Close()
			_ = rdb.Close()
			return nil, err
		}
		c.stopSharing = append(c.stopSharing, stop)
	}
	var sharedBuckets policy.SharedBuckets
	if rdb != nil {
		sharedBuckets = teamstate.NewBuckets(rdb)
	}
	c.Policy = policy.NewService(filepath.Join(dataDir, policy.FileName), policy.Options{Logger: o.Logger, Now: o.PolicyClock,
		SharedBuckets: sharedBuckets,
		// Clients re-list: the new policy may hide or show servers and tools.
		Changed: func() {
			if gw != nil {
				gw.ListsChanged()
				gw.Refresh() // its abilities may have changed
			}
		},
		Audit: func(ctx context.Context, r policy.AuditRecord) error {
			_, err := st.Audit().Append(ctx, store.AuditRow{Client: r.Client, Subject: r.Subject, Server: r.Server,
				Tool: r.Tool, Target: r.Target, Policies: strings.Join(r.Policies, ","), Arguments: string(r.Arguments),
				Status: r.Status, Result: string(r.Result), Error: r.Error}, r.Time)
			return err
		},
		// Who is asked (the UI, else the calling client by elicitation,
		// else nobody): gateway.Approve.
		Ask: func(ctx context.Context, a policy.Approval) (policy.Answer, error) {
			return gw.Approve(ctx, c.Approvals, a)
		},
		ApprovalTimeout: func() time.Duration { return c.Settings.ApprovalTimeout(context.Background()) },
	})
	_ = c.Policy.Reload()
	var gateUnlocks gate.SharedUnlocks
	if rdb != nil {
		gateUnlocks = teamstate.NewUnlocks(rdb)
	}
	gw = gateway.New(c.Servers, gateway.Options{
		GateUnlocks: gateUnlocks,
		Hooks:       c.Hooks,
		Tracer:      c.Tracer,
		Policy:      c.Policy.Current,
		AsksClient:  c.Policy.MayAsk,
		Abilities:   c.abilities,
		Separator:   func() string { return c.Settings.Separator(context.Background()) },
		CallerFrom:  c.profileCaller,
		Credential:  credentialOf,
		// Read at each new session and each sweep: a changed setting
		// applies to the next.
		Sessions: func() gateway.SessionLimits {
			ctx := context.Background()
			return gateway.SessionLimits{PerCredential: c.Settings.SessionsPerCredential(ctx),
				Total: c.Settings.SessionsTotal(ctx), IdleTTL: c.Settings.SessionIdleTimeout(ctx)}
		},
		// Read at each new task.
		Tasks: func() gateway.TaskLimits {
			ctx := context.Background()
			return gateway.TaskLimits{PerCredential: c.Settings.TasksPerCredential(ctx),
				Total: c.Settings.TasksTotal(ctx), MaxAge: c.Settings.TaskMaxAge(ctx)}
		},
		RequestLog: countedLog{log: c.Requests, metrics: c.Metrics},
		Logger:     o.Logger,
		Version:    Version,
		Instance:   id,
		HeldTools:  c.Catalog.HeldTools,
		Persisted:  c.persistedLists,
		Cluster:    cl,
		// A forward to another replica carries the client's upstream
		// credentials again (serve.go).
		ForwardHeaders: forwardHeaders,
	})
	if cl != nil {
		cl.Start() // its directory entry appears once Serve knows the address
	}
	c.Gateway = gw
	c.openChat()
	return c, nil
}

// serverInfo is what a hook's getServerInfo(name) returns.
func (c *Core) serverInfo(name string) (hook.ServerInfo, bool) {
	st, err := c.Servers.Status(name)
	if err != nil {
		return hook.ServerInfo{}, false
	}
	info := hook.ServerInfo{Name: name, Transport: string(st.Transport), Status: string(st.State), Tools: []string{}}
	if cat, err := c.Servers.Catalog(name); err == nil {
		for _, t := range cat.Tools {
			info.Tools = append(info.Tools, t.Name)
		}
	}
	return info, true
}

// profileCaller is the caller of ctx (callerFrom), narrowed to the
// profile the request came through.
func (c *Core) profileCaller(ctx context.Context) gateway.Caller {
	return c.narrowToProfile(ctx, callerFrom(ctx))
}

// callerFrom turns the identity the auth middleware found into the
// gateway's caller. Without one (stdio mode) the caller is the local user.
func callerFrom(ctx context.Context) gateway.Caller {
	id, ok := auth.IdentityFrom(ctx)
	if !ok {
		return gateway.Caller{Name: "local"}
	}
	caller := gateway.Caller{Name: id.Label(), Subject: id.Subject}
	if len(id.Servers) > 0 || id.Scoped {
		caller.Allows = id.Allows
	}
	if len(id.Tools) > 0 {
		// A tool scope on a gated server also reaches its activate tool:
		// without it the tool could never be unlocked.
		caller.AllowsTool = func(server, item string) bool {
			return id.AllowsTool(server, item) || item == gate.ActivateItem && len(id.Tools[server]) > 0
		}
	}
	// The token's role (client, admin) is a role the caller carries: a
	// state_gate event may be kept to it (roles: [admin]); so are the
	// token's own roles (roles: [reviewer]; auth.CheckRoles keeps them apart
	// from client and admin).
	if id.Role != "" {
		caller.Roles = []string{string(id.Role)}
	}
	caller.Roles = append(caller.Roles, id.Roles...)
	return caller
}

// StateGateLimits reads state_gate's caps from the settings at every
// request: a changed setting applies to the next one.
func StateGateLimits(s *settings.Settings) func() stategate.Limits {
	return func() stategate.Limits {
		ctx := context.Background()
		return stategate.Limits{
			MaxContextBytes:      s.StateGateMaxContextBytes(ctx),
			MaxPayloadBytes:      s.StateGateMaxPayloadBytes(ctx),
			GuardTimeout:         s.StateGateGuardTimeout(ctx),
			MaxArtifactBytes:     s.StateGateMaxArtifactBytes(ctx),
			MaxRunArtifactsBytes: s.StateGateMaxRunArtifactsBytes(ctx),
		}
	}
}

// credentialOf names the credential the auth middleware found, which owns
// the sessions it opens (gateway.Options.Credential): a token by its name
// (names are unique, and hold no NUL: auth.ValidName, so no name meets the
// other kinds' keys, and the hot path builds no string), a JWT by its
// issuer and subject (a refreshed access token keeps its sessions), the
// anonymous identity of auth off as one. Without an identity (stdio mode)
// it is the local user.
func credentialOf(ctx context.Context) string {
	cred := credentialOfIdentity(ctx)
	// A session belongs to its profile too: one opened at /mcp/a is
	// unknown at /mcp/b.
	if p, ok := profile.Selected(ctx); ok {
		return cred + "\x00profile\x00" + p
	}
	return cred
}

func credentialOfIdentity(ctx context.Context) string {
	id, ok := auth.IdentityFrom(ctx)
	switch {
	case !ok:
		return "\x00local"
	case id.Subject != "":
		return "\x00jwt\x00" + id.Issuer + "\x00" + id.Subject
	case id.IsAnonymous():
		return "\x00anonymous"
	default:
		return id.TokenName
	}
}

// actorFrom is who called state_gate: the caller the pipeline's identity
// step put in the context. A request that did not pass the pipeline has no
// name and no roles.
func actorFrom(ctx context.Context) stategate.Actor {
	c, ok := pipeline.CallerOf(ctx)
	if !ok {
		return stategate.Actor{}
	}
	return stategate.Actor{Name: c.Name, Subject: c.Subject, Roles: c.Roles}
}

// Run starts every enabled server and the gateway, and keeps both in step
// with the configuration in the database, so a change made by the CLI (or
// this process) while the router runs takes effect within a second. Only
// configuration changes reload (store.Revision): the request log and the
// tokens' last-used times do not.
func (c *Core) Run(ctx context.Context, interval time.Duration) error {
	if c.BehindSelf() {
		return c.runBehindSelf()
	}
	if interval <= 0 {
		interval = 500 * time.Millisecond
	}
	// Taken before the first load, so a write landing in between is seen
	// as a change rather than missed.
	startRev, err := c.Store.Revision(ctx)
	if err != nil {
		return err
	}
	c.syncLogins(ctx, true)
	if c.beforeServers == nil {
		if err := c.SyncServers(ctx); err != nil {
			return err
		}
	}
	if err := c.Hooks.Reload(ctx); err != nil {
		return fmt.Errorf("load hooks: %w", err)
	}
	if c.beforeServers != nil {
		c.Gateway.HoldForServers()
	}
	c.Gateway.Start()
	wctx, cancel := context.WithCancel(context.Background())
	c.stopWatch = cancel
	c.watchDone = make(chan struct{})
	c.startCharts(wctx)
	if c.beforeServers == nil {
		go c.watch(wctx, interval, startRev)
		return nil
	}
	go func() {
		defer c.Gateway.ServersLoaded()
		c.beforeServers(wctx)
		if wctx.Err() != nil {
			close(c.watchDone)
			return
		}
		if err := c.SyncServers(wctx); err != nil {
			c.Log.Errorf("start the servers: %v", err)
		}
		c.Gateway.ServersLoaded()
		c.watch(wctx, interval, startRev)
	}()
	return nil
}

// SyncServers loads the server definitions and applies them.
func (c *Core) SyncServers(ctx context.Context) error {
	rows, err := c.Store.Servers().List(ctx)
	if err != nil {
		return fmt.Errorf("load servers: %w", err)
	}
	defs := make([]spec.Server, 0, len(rows))
	for _, r := range rows {
		defs = append(defs, r.Server)
	}
	// An auto start is lazy for a server only search profiles have.
	profile.MarkSearchOnly(defs, c.Profiles.Loaded())
	return c.Servers.Sync(defs)
}

// WaitStarted waits until no enabled server is still starting, or until
// ctx ends (tests use it to begin with every server up; the stdio mode
// does not wait: it answers at once and sends list_changed later).
func (c *Core) WaitStarted(ctx context.Context) {
	for {
		starting := false
		for _, st := range c.Servers.Statuses() {
			if st.Enabled && (st.State == upstream.StateStarting || st.State == upstream.StateStopped && !c.startsOnUse(st.Name)) {
				starting = true
			}
		}
		if !starting {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startsOnUse: a lazy server stays stopped until a call needs it.
func (c *Core) startsOnUse(name string) bool {
	def, err := c.Servers.Definition(name)
	return err == nil && def.IsLazy()
}

func (c *Core) watch(ctx context.Context, interval time.Duration, last int64) {
	defer close(c.watchDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	var lastData int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.Store.Changes(): // PostgreSQL: another replica wrote
		}
		// policy.yaml changed on disk: the next request sees it (a bad
		// edit is logged and the last good policy stays).
		_, _ = c.Policy.Poll()
		revs, err := c.Store.Revisions(ctx)
		if err != nil {
			continue
		}
		if revs.Data != lastData {
			// Runs created or moved by another process (the CLI) reach
			// state_gate's subscribers; one query when nothing moved.
			lastData = revs.Data
			c.StateGateServer.Resync(ctx)
		}
		if revs.Config == last {
			continue
		}
		last = revs.Config
		c.reload(ctx)
		c.changeMu.Lock()
		subs := make([]func(), 0, len(c.changeSubs))
		for _, fn := range c.changeSubs {
			subs = append(subs, fn)
		}
		c.changeMu.Unlock()
		for _, fn := range subs {
			fn()
		}
	}
}

// reload re-applies the configuration after a change.
func (c *Core) reload(ctx context.Context) {
	c.reloads.Add(1)
	c.Settings.Invalidate() // read what the other process wrote, not a cached value
	// Profiles first: they resolve the servers' auto start (SyncServers).
	profilesChanged, err := c.Profiles.ReloadChanged(ctx)
	if err != nil {
		c.Log.Warnf("reload profiles after a database change: %v", err)
	}
	if err := c.SyncServers(ctx); err != nil {
		c.Log.Warnf("reload after a database change: %v", err)
	}
	c.syncLogins(ctx, false)
	if err := c.Hooks.Reload(ctx); err != nil {
		c.Log.Warnf("reload hooks after a database change: %v", err)
	}
	if profilesChanged {
		c.Gateway.ListsChanged() // a profile's servers, tools or mode changed: its clients re-list
	}
	// An accept by the CLI releases a held tool.
	c.Catalog.Reload(ctx)
	// A setting such as the separator (or toolChanges) may have changed.
	c.Gateway.Refresh()
}

// Reloads counts how often Run's watch has re-applied the configuration
// because it changed.
func (c *Core) Reloads() int64 { return c.reloads.Load() }

// OnDatabaseChange calls fn after Run's watch has applied a change another
// process (the CLI) made to the database, until unsubscribe is called.
func (c *Core) OnDatabaseChange(fn func()) (unsubscribe func()) {
	c.changeMu.Lock()
	defer c.changeMu.Unlock()
	if c.changeSubs == nil {
		c.changeSubs = map[int]func(){}
	}
	id := c.changeID
	c.changeID++
	c.changeSubs[id] = fn
	return func() {
		c.changeMu.Lock()
		delete(c.changeSubs, id)
		c.changeMu.Unlock()
	}
}

// Close stops the gateway, every server (and its processes), flushes the
// request log and closes the store.
func (c *Core) Close() error {
	var err error
	c.closeOnce.Do(func() {
		if c.stopWatch != nil {
			c.stopWatch()
			<-c.watchDone
			if c.chartsDone != nil {
				<-c.chartsDone
			}
		}
		c.Chat.Close()
		c.Gateway.Close()
		c.Servers.Close()
		c.StateGateServer.Close()
		if cerr := c.Requests.Close(); cerr != nil {
			c.Log.Warnf("request log: %v", cerr)
		}
		c.Auth.Close()
		if terr := c.Tracer.Close(); terr != nil {
			c.Log.Warnf("traces: %v", terr)
		}
		if c.Cluster != nil {
			c.Cluster.Close() // out of the directory: others answer its sessions 404 at once
		}
		err = c.Store.Close()
		for _, stop := range c.stopSharing {
			stop()
		}
		if c.Redis != nil { // last: the cluster and the shared state use it until here
			_ = c.Redis.Close()
		}
	})
	return err
}

// abilities are the policy's abilities as the gateway publishes them.
func (c *Core) abilities() []gateway.Ability {
	var out []gateway.Ability
	for _, a := range c.Policy.Policy().Abilities() {
		out = append(out, gateway.Ability{Name: a.Name, Description: a.Description, InputSchema: a.Schema,
			Permission: a.Permission, Server: a.Server, Tool: a.Tool, Prepare: a.Prepare})
	}
	return out
}
