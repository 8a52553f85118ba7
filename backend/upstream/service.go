// Package upstream is the ServerService: it connects to upstream MCP servers
// over stdio, SSE and streamable HTTP, supervises them (restart with backoff,
// health pings, re-initialize on an expired session), caches what they offer
// and reports every change to subscribers. It has no UI dependency.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Options tune the service; zero values mean the defaults noted.
type Options struct {
	ClientInfo     mcp.Implementation // sent in initialize; default mcp-router
	ConsoleLines   int                // stderr lines kept per server; default 1000
	StartTimeout   time.Duration      // connect + initialize + list; default 60 s
	BackoffBase    time.Duration      // first retry delay; default 500 ms
	BackoffMax     time.Duration      // retry delay cap; default 30 s
	StableAfter    time.Duration      // uptime that resets the backoff; default 30 s
	PingInterval   time.Duration      // health check period; default 30 s
	PingTimeout    time.Duration      // one health check; default 10 s
	PingFailures   int                // failed checks before reconnecting; default 3
	Logger         logrus.FieldLogger // default: logrus standard logger
	OnNotification func(server string, n mcp.JSONRPCNotification)
	// OnNotificationFrom, when set, is used instead of OnNotification and
	// also says where the notification came from (Origin): the call whose
	// answer stream carried it, or the client of the per-client instance
	// that sent it — so a log message reaches its own client only.
	OnNotificationFrom func(server string, from Origin, n mcp.JSONRPCNotification)
	// OnCatalog, if set, receives a server's lists when it connected
	// (lists: all) and when some changed upstream (lists: those refreshed),
	// before anyone can read them from Catalog or is told by an
	// EventCatalog: the persisted catalog (backend/catalog) records them
	// and decides which tools are held first. It runs on the server's
	// supervisor goroutine.
	OnCatalog  func(server string, cat Catalog, lists []string)
	ClientSide ClientSide // answers sampling, elicitation and roots requests
	// Instance is this router's instance id (config.InstanceID): a server
	// whose initialize result carries it is this router, reached again, and
	// is marked errored (ErrSelf) instead of used. "" turns the check off.
	Instance string
	// Chain lists the instance ids of the routers above this one (read from
	// EnvRouterChain); a server carrying one of them is refused the same way.
	Chain []string
	// DefaultTimeout bounds a request to a server whose definition sets no
	// timeout (TimeoutSeconds 0); read at every request, so a changed
	// setting applies to the next one. Default: spec.DefaultTimeoutSeconds.
	DefaultTimeout func() time.Duration
	// MaxMessage caps one message from a server, in bytes; read when a
	// connection is made. Default DefaultMaxMessage.
	MaxMessage func() int
	// Builtins are the servers built into the router (spec.Builtin), by
	// name: each connection to one is an in-process transport to its
	// mcp-go server.
	Builtins map[string]*server.MCPServer
	// Authorizer holds the OAuth logins of HTTP servers (backend/
	// oauthclient); nil: no server has one, and a 401 still puts the
	// server in StateNeedsLogin.
	Authorizer Authorizer
	// Secrets fills in the values of a definition's secret env and header
	// entries just before it is started or connected (backend/secrets
	// ServerValues); nil: a server with secret entries does not start.
	Secrets Secrets
	// PerClient bounds per-client servers' instances (perclient.go), asked
	// at each new instance and each idle check; nil: the defaults.
	PerClient func() PerClientLimits
	// LazyIdle is how long a lazy server stays up without a request
	// (lazy.go), asked at each request's end; nil or 0: DefaultLazyIdle.
	LazyIdle func() time.Duration
	// HasCatalog reports whether the persisted catalog holds a server's
	// lists: a lazy server that has some is not started by Sync. nil:
	// none has, and lazy servers start once to fill it.
	HasCatalog func(server string) bool
}

// Secrets resolves a definition's secret entries: Resolve returns it with
// each value in place of its placeholder, or an error matching
// secrets.ErrNotFound when one is not stored (the server then waits,
// errored, for its definition to change or a restart: retrying would only
// meet the same gap).
type Secrets interface {
	Resolve(spec.Server) (spec.Server, error)
}

func (o *Options) defaults() {
	if o.ClientInfo.Name == "" {
		o.ClientInfo = mcp.Implementation{Name: "mcp-router", Version: "dev"}
	}
	setDefault(&o.StartTimeout, 60*time.Second)
	setDefault(&o.BackoffBase, 500*time.Millisecond)
	setDefault(&o.BackoffMax, 30*time.Second)
	setDefault(&o.StableAfter, 30*time.Second)
	setDefault(&o.PingInterval, 30*time.Second)
	setDefault(&o.PingTimeout, 10*time.Second)
	if o.PingFailures <= 0 {
		o.PingFailures = 3
	}
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	if o.DefaultTimeout == nil {
		o.DefaultTimeout = func() time.Duration { return spec.DefaultTimeoutSeconds * time.Second }
	}
}

func (o *Options) identity() identity { return identity{instance: o.Instance, chain: o.Chain} }

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// Service supervises the configured upstream servers. One per process.
type Service struct {
	opts Options
	log  logrus.FieldLogger

	mu      sync.RWMutex
	servers map[string]*managed
	closed  bool

	subMu  sync.RWMutex
	subs   map[int]func(Event)
	nextID int

	// The empty directory per-client servers' catalog connections take
	// as their roots (catalogValues); made on first use, removed by Close.
	catalogOnce sync.Once
	catalogDir  string
	catalogErr  error
}

// New returns an empty service; call Sync to give it servers.
func New(o Options) *Service {
	o.defaults()
	return &Service{opts: o, log: o.Logger, servers: map[string]*managed{}, subs: map[int]func(Event){}}
}

// backoff is the delay before retry number n (1-based): base·2ⁿ⁻¹, capped.
func (s *Service) backoff(n int) time.Duration {
	d := s.opts.BackoffBase
	for i := 1; i < n && d < s.opts.BackoffMax; i++ {
		d *= 2
	}
	if d > s.opts.BackoffMax {
		d = s.opts.BackoffMax
	}
	return d
}

// Subscribe registers fn for every event; call the returned func to stop.
func (s *Service) Subscribe(fn func(Event)) (unsubscribe func()) {
	s.subMu.Lock()
	id := s.nextID
	s.nextID++
	s.subs[id] = fn
	s.subMu.Unlock()
	return func() {
		s.subMu.Lock()
		delete(s.subs, id)
		s.subMu.Unlock()
	}
}

func (s *Service) emit(e Event) {
	s.subMu.RLock()
	fns := make([]func(Event), 0, len(s.subs))
	for _, fn := range s.subs {
		fns = append(fns, fn)
	}
	s.subMu.RUnlock()
	for _, fn := range fns {
		fn(e)
	}
}

// Sync makes the running set match defs: new servers are added, missing
// ones removed, changed ones restarted, and each is started or stopped
// according to Enabled. Servers start in parallel; one that fails to start
// is marked errored and does not hold up the rest.
func (s *Service) Sync(defs []spec.Server) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	want := map[string]spec.Server{}
	for _, d := range defs {
		want[d.Name] = d
	}
	var removed, restart, start, stop, idle []*managed
	for name, m := range s.servers {
		if _, ok := want[name]; !ok {
			removed = append(removed, m)
			delete(s.servers, name)
		}
	}
	for name, d := range want {
		m, ok := s.servers[name]
		if !ok {
			m = newManaged(s, d)
			s.servers[name] = m
			if d.Enabled && s.startsAtSync(m) {
				start = append(start, m)
			}
			continue
		}
		old := m.currentSpec()
		m.mu.Lock()
		m.spec = d
		m.mu.Unlock()
		if !reflect.DeepEqual(old, d) {
			// Subscribers re-read the definition (prefix mode, disabled tools).
			m.update(func(st *Status) {
				st.Enabled, st.Transport = d.Enabled, d.Transport
				if d.Isolation != old.Isolation {
					st.SuggestPerClient = nil
				}
			})
		}
		switch {
		case !d.Enabled && old.Enabled:
			stop = append(stop, m)
		case d.Enabled && !old.Enabled && s.startsAtSync(m):
			start = append(start, m)
		case d.Enabled && connectionChanged(old, d):
			restart = append(restart, m)
		case d.Enabled && old.IsLazy() && !d.IsLazy():
			// Now eager (say, an auto start resolved anew after a profile
			// change): it runs, as it would at launch.
			start = append(start, m)
		}
		if d.Enabled && !old.IsLazy() && d.IsLazy() {
			// Now lazy: a running server stops once idle.
			idle = append(idle, m)
		}
	}
	s.mu.Unlock()

	parallel(removed, func(m *managed) {
		m.stop()
		s.emit(Event{Kind: EventRemoved, Server: m.name, Status: m.snapshot()})
	})
	parallel(stop, (*managed).stop)
	parallel(restart, func(m *managed) { m.stop(); m.start() })
	for _, m := range start {
		m.start()
	}
	for _, m := range idle {
		s.armIdle(m)
	}
	return nil
}

// connectionChanged reports whether a definition change needs a new
// connection; toggling tools or the prefix mode does not.
func connectionChanged(a, b spec.Server) bool {
	return a.Transport != b.Transport || a.Command != b.Command || a.Cwd != b.Cwd || a.URL != b.URL ||
		!reflect.DeepEqual(a.Args, b.Args) || !reflect.DeepEqual(a.Env, b.Env) ||
		!reflect.DeepEqual(a.Headers, b.Headers) ||
		// A secret value changed, or which entries are secret.
		a.SecretRevision != b.SecretRevision || !slices.Equal(a.SecretEnv, b.SecretEnv) || a.Isolation != b.Isolation ||
		a.Protocol != b.Protocol ||
		!slices.Equal(a.SecretHeaders, b.SecretHeaders)
}

func parallel(ms []*managed, fn func(*managed)) {
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(m)
		}()
	}
	wg.Wait()
}

func (s *Service) get(name string) (*managed, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m, ok := s.servers[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	return m, nil
}

// Restart drops the server's connection and connects again at once,
// starting it if it was stopped. The connection is marked lost before
// Restart returns, so nothing that asks afterwards (Connect, an activate
// gate) takes it for live; a server that is down is retried now instead
// of after its backoff, and no request is left pending to drop the next
// connection.
func (s *Service) Restart(name string) error {
	m, err := s.get(name)
	if err != nil {
		return err
	}
	m.mu.RLock()
	supervised, c := m.cancel != nil, m.conn
	m.mu.RUnlock()
	// A per-client server's instances restart too: each client's next
	// call starts its own again.
	m.dropAllInstances("restart requested")
	switch {
	case !supervised:
		m.start()
	case c != nil:
		c.markLost(reasonReconnectRequested)
	default:
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// Start starts an enabled server that is stopped (say, by Stop). It only
// changes the running state, never the definition; starting a server that
// is already supervised does nothing. A disabled server gives ErrDisabled.
func (s *Service) Start(name string) error {
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	m, err := s.get(name)
	if err != nil {
		return err
	}
	if !m.currentSpec().Enabled {
		return fmt.Errorf("%w: %q (enable it to start it)", ErrDisabled, name)
	}
	m.start()
	return nil
}

// Stop stops a server until Start, Restart or a change of its definition
// starts it again, without touching the definition. It cancels a start in
// progress (a slow npx download, a handshake that never answers) and
// returns once the connection is closed and its process tree has ended.
func (s *Service) Stop(name string) error {
	m, err := s.get(name)
	if err != nil {
		return err
	}
	m.stop()
	return nil
}

// Names lists the known servers, sorted.
func (s *Service) Names() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.servers))
	for n := range s.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Status returns one server's snapshot.
func (s *Service) Status(name string) (Status, error) {
	m, err := s.get(name)
	if err != nil {
		return Status{}, err
	}
	return m.snapshot(), nil
}

// Statuses returns every server's snapshot, sorted by name.
func (s *Service) Statuses() []Status {
	out := []Status{}
	for _, n := range s.Names() {
		if st, err := s.Status(n); err == nil {
			out = append(out, st)
		}
	}
	return out
}

// Catalog returns what a running server offers (empty while it is down).
func (s *Service) Catalog(name string) (Catalog, error) {
	m, err := s.get(name)
	if err != nil {
		return Catalog{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.catalog, nil
}

// Console returns the server's buffered stderr lines, oldest first.
func (s *Service) Console(name string) ([]string, error) {
	m, err := s.get(name)
	if err != nil {
		return nil, err
	}
	return m.console.Lines(), nil
}

// Request sends one JSON-RPC request to a running server and returns the
// raw result, bounded by the server's timeout (else Options.DefaultTimeout).
func (s *Service) Request(ctx context.Context, name, method string, params any) ([]byte, error) {
	m, err := s.get(name)
	if err != nil {
		return nil, err
	}
	m.mu.RLock()
	c, st, sp := m.conn, m.status, m.spec
	m.mu.RUnlock()
	if sp.IsPerClient() {
		// The client's own instance, whatever the catalog connection's
		// state: it is a process or session of its own.
		cl, ok := clientFrom(ctx)
		if !ok {
			return nil, fmt.Errorf("%w (server %q is per-client)", ErrNoClient, name)
		}
		inst, err := m.instanceFor(ctx, cl)
		if err != nil {
			return nil, err
		}
		defer inst.release()
		inst.calls.Add(1)
		if note, ok := ctx.Value(instanceNoteKey{}).(*InstanceNote); ok {
			note.set(inst.id, inst.conn.pid())
		}
		c = inst.conn
	} else if sp.IsLazy() && sp.Enabled {
		timeout := s.requestTimeout(sp)
		if timeout > 0 {
			// The start and the request share the call's timeout.
			var cancel context.CancelFunc
			ctx, cancel = withRequestTimeout(ctx, timeout)
			defer cancel()
		}
		end, err := s.beginLazy(ctx, m)
		if err != nil {
			if errors.Is(context.Cause(ctx), ErrTimeout) {
				return nil, fmt.Errorf("%w: %w", context.Cause(ctx), err)
			}
			return nil, err
		}
		defer end()
		m.mu.RLock()
		c = m.conn
		m.mu.RUnlock()
		if c == nil {
			return nil, fmt.Errorf("%w (lazy server %q lost its connection)", ErrNotRunning, name)
		}
	} else if c == nil {
		if st.Error != "" {
			return nil, fmt.Errorf("%w (%s: %s)", ErrNotRunning, st.State, st.Error)
		}
		return nil, fmt.Errorf("%w (%s)", ErrNotRunning, st.State)
	}
	var within time.Duration
	if timeout := s.requestTimeout(sp); timeout > 0 {
		if c.pipeWithin(ctx) {
			// The pipe keeps the time itself: no timer context (with its
			// timer, closures and registration with ctx) per request.
			within = timeout
		} else {
			var cancel context.CancelFunc
			ctx, cancel = withRequestTimeout(ctx, timeout)
			defer cancel()
		}
	}
	raw, err := c.requestWithin(ctx, method, params, within)
	if err != nil && errors.Is(context.Cause(ctx), ErrTimeout) {
		return nil, context.Cause(ctx)
	}
	return raw, err
}

// requestTimeout bounds one request to the server: its own timeout, else
// the setting's.
func (s *Service) requestTimeout(sp spec.Server) time.Duration {
	if sp.TimeoutSeconds > 0 {
		return time.Duration(sp.TimeoutSeconds) * time.Second
	}
	return s.opts.DefaultTimeout()
}

// Definition returns the server's current definition.
func (s *Service) Definition(name string) (spec.Server, error) {
	m, err := s.get(name)
	if err != nil {
		return spec.Server{}, err
	}
	return m.currentSpec(), nil
}

// Close stops every server in parallel and waits for their processes to end.
func (s *Service) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	all := make([]*managed, 0, len(s.servers))
	for _, m := range s.servers {
		all = append(all, m)
	}
	s.mu.Unlock()
	parallel(all, (*managed).stop)
	if s.catalogDir != "" {
		_ = os.RemoveAll(s.catalogDir)
	}
}

// ProbeResult is what a one-shot connection learned.
type ProbeResult struct {
	ServerName      string `json:"serverName"`
	ServerVersion   string `json:"serverVersion"`
	ProtocolVersion string `json:"protocolVersion"`
	// ProtocolVersions: the revisions named in its answer to
	// server/discover (Status.ProtocolVersions).
	ProtocolVersions []string `json:"protocolVersions,omitempty"`
	Instructions     string   `json:"instructions,omitempty"`
	Catalog          Catalog  `json:"catalog"`
}

// Probe connects to s once, lists what it offers and disconnects, stopping
// any process it started. stderr receives the server's stderr lines.
func Probe(ctx context.Context, s spec.Server, o Options, stderr io.Writer) (ProbeResult, error) {
	o.defaults()
	if s.IsPerClient() {
		// As its catalog connection starts: the router's own values, an
		// empty directory of its own for the roots.
		probe := &Service{opts: o}
		defer func() {
			if probe.catalogDir != "" {
				_ = os.RemoveAll(probe.catalogDir)
			}
		}()
		values, err := probe.catalogValues()
		if err != nil {
			return ProbeResult{}, err
		}
		if s, err = spec.ExpandClient(s, values); err != nil {
			return ProbeResult{}, err
		}
	}
	console := NewConsole(o.ConsoleLines, func(line string) {
		if stderr != nil {
			fmt.Fprintln(stderr, line)
		}
	})
	c, err := dial(ctx, s, dialOptions{clientInfo: o.ClientInfo, console: console, self: o.identity(), builtins: o.Builtins,
		authorizer: o.Authorizer, secrets: o.Secrets})
	if err != nil {
		return ProbeResult{}, err
	}
	defer c.close()
	cat, err := fetchCatalog(ctx, c)
	if err != nil {
		return ProbeResult{}, err
	}
	return ProbeResult{
		ServerName: c.init.ServerInfo.Name, ServerVersion: c.init.ServerInfo.Version,
		ProtocolVersion: c.init.ProtocolVersion, ProtocolVersions: c.discovered.versions, Instructions: c.init.Instructions, Catalog: cat,
	}, nil
}
