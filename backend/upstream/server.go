package upstream

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// managed is one supervised server. Its supervisor goroutine owns the
// connection; everything else reads snapshots under mu.
type managed struct {
	name    string // immutable: a rename is a remove and an add
	svc     *Service
	console *Console

	mu      sync.RWMutex
	spec    spec.Server
	status  Status
	catalog Catalog
	conn    *conn
	cancel  context.CancelFunc // stops the supervisor; nil when not supervised
	done    chan struct{}      // closed when the supervisor has exited
	isSelf  bool               // the last attempt met this router itself (ErrSelf)

	wake      chan struct{} // capacity 1: cut a retry's backoff short (Connect)
	refresh   chan struct{} // capacity 1: some list changed upstream
	pendingMu sync.Mutex
	pending   map[string]bool // lists to refresh

	// Per-client instances (perclient.go), by client key.
	instMu    sync.Mutex
	instances map[string]*instance
	instSeq   int

	lazy lazyState // a lazy server's calls in flight and idle timer (lazy.go)
}

func newManaged(svc *Service, s spec.Server) *managed {
	m := &managed{
		name:    s.Name,
		svc:     svc,
		spec:    s,
		wake:    make(chan struct{}, 1),
		refresh: make(chan struct{}, 1),
		pending: map[string]bool{},

		instances: map[string]*instance{},
	}
	m.console = NewConsole(svc.opts.ConsoleLines, func(line string) {
		svc.emit(Event{Kind: EventConsole, Server: s.Name, Line: line})
	})
	m.status = Status{Name: s.Name, Transport: s.Transport, Enabled: s.Enabled, State: StateStopped, StateSince: time.Now()}
	return m
}

// snapshot returns the status, with the console-independent fields filled.
func (m *managed) snapshot() Status {
	m.mu.RLock()
	st := m.status
	m.mu.RUnlock()
	st.Instances = m.instanceStatuses()
	return st
}

func (m *managed) update(fn func(st *Status)) {
	m.mu.Lock()
	was := m.status.State
	fn(&m.status)
	if m.status.State != was {
		m.status.StateSince = time.Now()
	}
	st := m.status
	m.mu.Unlock()
	st.Instances = m.instanceStatuses()
	m.svc.emit(Event{Kind: EventState, Server: st.Name, Status: st})
}

// start launches the supervisor if it is not running.
func (m *managed) start() {
	m.mu.Lock()
	if m.cancel != nil {
		m.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.done = make(chan struct{})
	done := m.done
	m.mu.Unlock()
	// Starting from now, not from when the goroutine gets to it: whoever
	// reads the statuses right after Sync (the gateway, deciding whether a
	// call to an unknown tool should wait) must see it.
	m.update(func(st *Status) {
		if st.State != StateRestarting {
			st.State = StateStarting
		}
	})
	go m.run(ctx, done)
}

// stop ends the supervisor and waits until its connection is closed.
func (m *managed) stop() {
	m.mu.Lock()
	cancel, done := m.cancel, m.done
	m.cancel = nil
	m.mu.Unlock()
	m.dropAllInstances("the server stopped")
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

func (m *managed) currentSpec() spec.Server {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.spec
}

// run is the supervisor: connect, serve until the connection is lost, wait
// with exponential backoff, reconnect; until ctx ends.
func (m *managed) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	failures := 0
	for {
		m.mu.Lock()
		m.isSelf = false
		m.mu.Unlock()
		m.update(func(st *Status) {
			if st.State != StateRestarting {
				st.State = StateStarting
			}
			st.NextRetryAt = time.Time{}
		})
		c, cat, err := m.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				m.setStopped()
				return
			}
			if errors.Is(err, ErrSelf) {
				// Retrying would only meet this router again: stay errored
				// until Restart asks again or the definition changes (Connect,
				// the activate gate, fails at once instead of waking it).
				m.mu.Lock()
				m.isSelf = true
				m.mu.Unlock()
				if !m.holdUntilWoken(ctx, StateErrored, err) {
					return
				}
				continue
			}
			if errors.Is(err, secrets.ErrNotFound) {
				// A secret value is not stored: retrying meets the same
				// gap. Setting it changes the definition (its
				// SecretRevision), which wakes the server, as Restart does.
				if !m.holdUntilWoken(ctx, StateErrored, err) {
					return
				}
				continue
			}
			if errors.Is(err, ErrNeedsLogin) {
				// Retrying without a login meets the same 401: wait for
				// one (a login, Restart or a changed definition wakes it).
				if !m.holdUntilWoken(ctx, StateNeedsLogin, err) {
					return
				}
				continue
			}
			failures++
			wait := m.svc.backoff(failures)
			m.update(func(st *Status) {
				st.State, st.Error = StateErrored, err.Error()
				st.NextRetryAt = time.Now().Add(wait)
			})
			m.svc.log.WithField("server", m.name).Warnf("start failed: %v", err)
			if !m.backoffSleep(ctx, wait) {
				m.setStopped()
				return
			}
			continue
		}
		started := time.Now()
		m.attach(c, cat)
		reason := m.monitor(ctx, c)
		m.detach()
		c.close()
		if ctx.Err() != nil {
			m.setStopped()
			return
		}
		if time.Since(started) > m.svc.opts.StableAfter {
			failures = 0
		}
		failures++
		wait := m.svc.backoff(failures)
		if reason == reasonReconnectRequested || strings.HasPrefix(reason, reasonNeedsLogin) {
			wait = 0
		}
		m.svc.log.WithField("server", m.name).Warnf("connection lost: %s; reconnecting in %s", reason, wait)
		m.update(func(st *Status) {
			st.State, st.Error = StateRestarting, reason
			st.Restarts++
			st.PID, st.SessionID = 0, ""
			st.NextRetryAt = time.Now().Add(wait)
		})
		if !m.backoffSleep(ctx, wait) {
			m.setStopped()
			return
		}
	}
}

const (
	reasonReconnectRequested = "reconnect requested"
	reasonNeedsLogin         = "the login has ended"
)

func (m *managed) connect(ctx context.Context) (*conn, Catalog, error) {
	s := m.currentSpec()
	clientSide := m.svc.opts.ClientSide
	if s.IsPerClient() {
		// The catalog connection serves no client: it takes the
		// router's own template values, and is its own client for roots
		// (an empty directory, so that a server that takes its
		// directories from roots starts); nothing else can be asked.
		values, err := m.svc.catalogValues()
		if err != nil {
			return nil, Catalog{}, err
		}
		clientSide = ClientSide{Roots: func(context.Context, string, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: values.Roots[0], Name: "mcp-router catalog (empty)"}}}, nil
		}}
		if s, err = spec.ExpandClient(s, values); err != nil {
			return nil, Catalog{}, err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, m.svc.opts.StartTimeout)
	defer cancel()
	c, err := dial(cctx, s, dialOptions{
		clientInfo:     m.svc.opts.ClientInfo,
		clientSide:     clientSide,
		console:        m.console,
		builtins:       m.svc.opts.Builtins,
		authorizer:     m.svc.opts.Authorizer,
		secrets:        m.svc.opts.Secrets,
		onNotification: func(n mcp.JSONRPCNotification) { m.onNotification(n) },
		self:           m.svc.opts.identity(),
		maxMessage:     m.svc.opts.maxMessage(),
	})
	if err != nil {
		return nil, Catalog{}, err
	}
	cat, err := fetchCatalog(cctx, c)
	if err != nil {
		c.close()
		return nil, Catalog{}, err
	}
	return c, cat, nil
}

func (m *managed) attach(c *conn, cat Catalog) {
	// A lazy server's idle time runs from each connection (one started to
	// fill the catalog included); not inline: an idle stop in progress
	// waits for this goroutine.
	go m.svc.armIdle(m)
	if fn := m.svc.opts.OnCatalog; fn != nil {
		fn(m.name, cat, allLists)
	}
	m.mu.Lock()
	m.conn = c
	m.catalog = cat
	m.mu.Unlock()
	// A wake asked for this connection; it must not cut the next backoff.
	select {
	case <-m.wake:
	default:
	}
	m.update(func(st *Status) {
		st.State, st.Error = StateRunning, ""
		st.Connection++
		st.PID = c.pid()
		st.SessionID = c.tr.GetSessionId()
		st.StartedAt = time.Now()
		st.NextRetryAt = time.Time{}
		st.ServerName = c.init.ServerInfo.Name
		st.ServerVersion = c.init.ServerInfo.Version
		st.ProtocolVersion = c.init.ProtocolVersion
		st.ProtocolVersions = c.discovered.versions
		st.Instructions = c.init.Instructions
		countCatalog(st, cat)
	})
	m.svc.emit(Event{Kind: EventCatalog, Server: m.name, Status: m.snapshot(), Lists: allLists})
}

var allLists = []string{"tools", "resources", "prompts"}

func countCatalog(st *Status, cat Catalog) {
	st.Tools, st.Resources = len(cat.Tools), len(cat.Resources)
	st.ResourceTemplates, st.Prompts = len(cat.ResourceTemplates), len(cat.Prompts)
}

// detach forgets the connection and its catalog, so nothing routes to a
// server that is down.
func (m *managed) detach() {
	m.mu.Lock()
	m.conn = nil
	hadItems := !reflect.DeepEqual(m.catalog, Catalog{})
	m.catalog = Catalog{}
	m.mu.Unlock()
	m.update(func(st *Status) { countCatalog(st, Catalog{}) })
	if hadItems {
		m.svc.emit(Event{Kind: EventCatalog, Server: m.name, Status: m.snapshot(), Lists: allLists})
	}
}

func (m *managed) setStopped() {
	m.update(func(st *Status) {
		st.State, st.Error = StateStopped, ""
		st.PID, st.SessionID = 0, ""
		st.NextRetryAt = time.Time{}
	})
}

// monitor watches a live connection; it returns why the connection must be
// replaced, or "" when ctx ended.
func (m *managed) monitor(ctx context.Context, c *conn) string {
	ticker := time.NewTicker(m.svc.opts.PingInterval)
	defer ticker.Stop()
	pingFailures := 0
	for {
		select {
		case <-ctx.Done():
			return ""
		case <-c.lost:
			return c.lostWhy()
		case <-m.refresh:
			m.refreshLists(ctx, c)
		case <-ticker.C:
			pctx, cancel := context.WithTimeout(ctx, m.svc.opts.PingTimeout)
			err := c.ping(pctx)
			cancel()
			if err == nil {
				pingFailures = 0
				continue
			}
			var rpcErr *RPCError
			if errors.As(err, &rpcErr) {
				// A stdio server that answers at all is alive, and so is one
				// that merely lacks ping. But an HTTP server that rejects the
				// ping has lost our session: server-everything, for one,
				// answers a stale session with 400 and a JSON-RPC error
				// instead of the 404 the spec asks for.
				if c.modernEra != nil {
					// On 2026-07-28 the check is server/discover, which such
					// a server must answer: one that refuses it (even as an
					// unknown method) may no longer speak that revision
					// (replaced by an older build); connecting again asks.
					return "server/discover refused by the server: " + rpcErr.Message
				}
				if c.spec.Transport == spec.Stdio || rpcErr.Code == mcp.METHOD_NOT_FOUND {
					pingFailures = 0
					continue
				}
				return "session rejected by the server: " + rpcErr.Message
			}
			if ctx.Err() != nil {
				return ""
			}
			pingFailures++
			if pingFailures >= m.svc.opts.PingFailures {
				return "health check failed: " + err.Error()
			}
		}
	}
}

// onNotification runs on the transport's reader goroutine: it must not send
// requests (a stdio reply would be read by this very goroutine), so list
// refreshes are handed to the supervisor.
func (m *managed) onNotification(n mcp.JSONRPCNotification) {
	list := ""
	switch n.Method {
	case string(mcp.MethodNotificationToolsListChanged):
		list = "tools"
	case string(mcp.MethodNotificationResourcesListChanged):
		list = "resources"
	case string(mcp.MethodNotificationPromptsListChanged):
		list = "prompts"
	}
	if list == "" {
		if fn := m.svc.opts.OnNotification; fn != nil {
			fn(m.name, n)
		}
		return
	}
	m.pendingMu.Lock()
	m.pending[list] = true
	m.pendingMu.Unlock()
	select {
	case m.refresh <- struct{}{}:
	default:
	}
}

func (m *managed) refreshLists(ctx context.Context, c *conn) {
	m.pendingMu.Lock()
	pending := m.pending
	m.pending = map[string]bool{}
	m.pendingMu.Unlock()

	rctx, cancel := context.WithTimeout(ctx, m.svc.opts.StartTimeout)
	defer cancel()
	m.mu.RLock()
	cat := m.catalog
	m.mu.RUnlock()
	prev := cat
	var changed []string
	var err error
	for _, list := range allLists {
		if !pending[list] {
			continue
		}
		switch list {
		case "tools":
			cat.Tools, cat.TTLs.Tools, err = listTools(rctx, c)
		case "resources":
			if cat.Resources, cat.TTLs.Resources, err = listResources(rctx, c); err == nil {
				var rpcErr *RPCError
				if cat.ResourceTemplates, cat.TTLs.ResourceTemplates, err = listResourceTemplates(rctx, c); errors.As(err, &rpcErr) {
					err = nil
				}
			}
		case "prompts":
			cat.Prompts, cat.TTLs.Prompts, err = listPrompts(rctx, c)
		}
		if err != nil {
			m.svc.log.WithField("server", m.name).Warnf("refresh %s after list_changed: %v", list, err)
			return
		}
		// A list read again as it was (a list_changed that changed
		// nothing, a 2026-07-28 listen stream reopened) is no change: it
		// must not cost every client's view a rebuild.
		if !sameList(prev, cat, list) {
			changed = append(changed, list)
		}
	}
	if len(changed) == 0 {
		return
	}
	if fn := m.svc.opts.OnCatalog; fn != nil {
		fn(m.name, cat, changed)
	}
	m.mu.Lock()
	if m.conn == c {
		m.catalog = cat
	}
	m.mu.Unlock()
	m.update(func(st *Status) { countCatalog(st, cat) })
	m.svc.emit(Event{Kind: EventCatalog, Server: m.name, Status: m.snapshot(), Lists: changed})
}

// waitWake waits until Connect or Restart asks for another attempt; false
// when ctx ended.
func (m *managed) waitWake(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-m.wake:
		return ctx.Err() == nil
	}
}

// backoffSleep waits d before a retry, or less if Connect wakes it; false
// when ctx ended.
func (m *managed) backoffSleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	case <-m.wake:
		return ctx.Err() == nil
	}
}

// holdUntilWoken shows state with err and waits, without retries, for a
// wake (Restart, a login, a changed definition); false when the server is
// stopping instead (it is then marked stopped).
func (m *managed) holdUntilWoken(ctx context.Context, state State, err error) bool {
	m.update(func(st *Status) {
		st.State, st.Error = state, err.Error()
		st.NextRetryAt = time.Time{}
	})
	m.svc.log.WithField("server", m.name).Warnf("not started: %v", err)
	if !m.waitWake(ctx) {
		m.setStopped()
		return false
	}
	return true
}

// sameList reports whether list (one of allLists) reads the same in a and b,
// its ttlMs included.
func sameList(a, b Catalog, list string) bool {
	switch list {
	case "tools":
		return reflect.DeepEqual(a.Tools, b.Tools) && reflect.DeepEqual(a.TTLs.Tools, b.TTLs.Tools)
	case "resources":
		return reflect.DeepEqual(a.Resources, b.Resources) && reflect.DeepEqual(a.TTLs.Resources, b.TTLs.Resources) &&
			reflect.DeepEqual(a.ResourceTemplates, b.ResourceTemplates) && reflect.DeepEqual(a.TTLs.ResourceTemplates, b.TTLs.ResourceTemplates)
	case "prompts":
		return reflect.DeepEqual(a.Prompts, b.Prompts) && reflect.DeepEqual(a.TTLs.Prompts, b.TTLs.Prompts)
	}
	return false
}
