package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Per-client servers (spec.PerClient, docs/perclient.md): a request made for
// a client (WithClient) goes to that client's own instance of the server, a
// process or HTTP session started on the client's first use, initialized
// with the client's capabilities, whose requests to its client go to that
// client only (InstanceClientFrom). The server's supervised connection stays
// as its catalog connection: it lists what the server offers and follows
// its list_changed, declares no client capability and serves no client's
// call.

// Client is who a request to a per-client server is made for.
type Client struct {
	// Key tells clients apart: the gateway session, else the credential
	// and the client name of a stateless client. One instance per Key.
	Key string
	// Label is what the Servers page shows for the client (its name and a
	// short id), never a secret.
	Label string
	// Name and Token are ${client.name} and ${token.name}.
	Name, Token string
	// Sampling, Elicitation and Roots: the capabilities the client
	// declared; its instance declares the same, and no more.
	Sampling, Elicitation, Roots bool
	// ListRoots asks the client for its roots (file:// URIs), for the
	// ${client.root} and ${client.roots} templates; nil when it has none
	// to give.
	ListRoots func(ctx context.Context) ([]string, error)
}

type clientKey struct{}

// WithClient marks ctx as a request made for c: a per-client server serves
// it on c's instance.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientOf returns the client a request is made for (WithClient).
func ClientOf(ctx context.Context) (Client, bool) { return clientFrom(ctx) }

func clientFrom(ctx context.Context) (Client, bool) {
	c, ok := ctx.Value(clientKey{}).(Client)
	return c, ok && c.Key != ""
}

// InstanceClient is the client an instance belongs to, carried in the
// context of every request that instance sends its client (ClientSide).
type InstanceClient struct {
	Key      string
	Instance int
}

type instanceClientKey struct{}

// InstanceClientFrom returns the client whose instance sent the request
// being answered, if a per-client instance sent it.
func InstanceClientFrom(ctx context.Context) (InstanceClient, bool) {
	c, ok := ctx.Value(instanceClientKey{}).(InstanceClient)
	return c, ok
}

// PerClientLimits bound a per-client server's instances.
type PerClientLimits struct {
	MaxInstances int           // instances of one server at once
	IdleTimeout  time.Duration // an instance with no call for this long is stopped
}

// Defaults of PerClientLimits (the settings' defaults).
const (
	DefaultPerClientMaxInstances = 16
	DefaultPerClientIdle         = 10 * time.Minute
)

// ErrInstanceCap: a per-client server already runs as many instances as
// its cap allows.
var ErrInstanceCap = errors.New("per-client instance cap reached")

// ErrNoClient: a per-client server was asked with no client to run it for.
var ErrNoClient = errors.New("a per-client server serves only requests made for a client")

// InstanceStatus is one running per-client instance, for the Servers page.
type InstanceStatus struct {
	ID       int       `json:"id"`
	Client   string    `json:"client"` // Client.Label
	PID      int       `json:"pid,omitempty"`
	Since    time.Time `json:"since"`
	Calls    int64     `json:"calls"`
	LastUsed time.Time `json:"lastUsed"`
	State    State     `json:"state"` // starting or running
}

// instance is one client's instance of a per-client server.
type instance struct {
	id      int
	key     string
	client  Client
	m       *managed
	console *Console
	since   time.Time

	ready chan struct{} // closed when conn or err is set
	conn  *conn
	err   error

	calls    atomic.Int64
	active   atomic.Int32 // requests in flight: never idle while > 0
	lastUsed atomic.Int64 // unix nanos

	stopOnce sync.Once
	stopped  chan struct{}
}

func (s *Service) perClientLimits() PerClientLimits {
	l := PerClientLimits{}
	if s.opts.PerClient != nil {
		l = s.opts.PerClient()
	}
	if l.MaxInstances <= 0 {
		l.MaxInstances = DefaultPerClientMaxInstances
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultPerClientIdle
	}
	return l
}

// instanceFor returns cl's running instance of m, starting it if there is
// none; the caller must call release on it when its request is done.
// Concurrent first requests of one client share one start.
func (m *managed) instanceFor(ctx context.Context, cl Client) (*instance, error) {
	m.instMu.Lock()
	inst := m.instances[cl.Key]
	if inst != nil {
		select {
		case <-inst.ready:
			if inst.err != nil || inst.conn.isLost() {
				delete(m.instances, cl.Key)
				go inst.stop("connection lost")
				inst = nil
			}
		default:
		}
	}
	starter := false
	if inst == nil {
		// Checked under instMu: stop clears cancel before it drops the
		// instances under instMu, so none is added to a stopped server.
		m.mu.RLock()
		supervised, st := m.cancel != nil, m.status
		m.mu.RUnlock()
		if !supervised {
			m.instMu.Unlock()
			return nil, fmt.Errorf("%w (%s)", ErrNotRunning, st.State)
		}
		limits := m.svc.perClientLimits()
		if len(m.instances) >= limits.MaxInstances {
			n := len(m.instances)
			m.instMu.Unlock()
			m.svc.log.WithField("server", m.name).Warnf("per-client instance for %s refused: %d instances run, the cap", cl.Label, n)
			return nil, fmt.Errorf("%w: server %q already runs %d per-client instances, one per client, and %d is its cap (the setting %s raises it)",
				ErrInstanceCap, m.name, n, limits.MaxInstances, SettingPerClientMaxInstances)
		}
		m.instSeq++
		inst = &instance{id: m.instSeq, key: cl.Key, client: cl, m: m, since: time.Now(),
			ready: make(chan struct{}), stopped: make(chan struct{})}
		// Its lines also go to the server's console, marked with the
		// instance, so the Servers page shows every instance's stderr.
		id := m.instSeq
		inst.console = NewConsole(m.svc.opts.ConsoleLines, func(line string) {
			m.console.Add(fmt.Sprintf("[#%d] %s", id, line))
		})
		inst.lastUsed.Store(time.Now().UnixNano())
		m.instances[cl.Key] = inst
		starter = true
	}
	inst.active.Add(1)
	m.instMu.Unlock()
	if starter {
		m.update(func(*Status) {})
		inst.start(ctx)
	}
	select {
	case <-inst.ready:
	case <-ctx.Done():
		inst.release()
		return nil, ctx.Err()
	}
	if inst.err != nil {
		inst.release()
		m.dropInstance(inst, "")
		return nil, inst.err
	}
	return inst, nil
}

// SettingPerClientMaxInstances and SettingPerClientIdle name the settings
// of PerClientLimits (backend/settings), for error messages.
const (
	SettingPerClientMaxInstances = "perClientMaxInstances"
	SettingPerClientIdle         = "perClientIdleSeconds"
)

func (inst *instance) release() {
	inst.lastUsed.Store(time.Now().UnixNano())
	inst.active.Add(-1)
}

// start dials the instance: the definition with its client's values in the
// templates, the client's capabilities declared, its requests to the
// client marked as this instance's.
func (inst *instance) start(ctx context.Context) {
	m := inst.m
	defer close(inst.ready)
	s := m.currentSpec()
	values := spec.ClientValues{Name: inst.client.Name, Token: inst.client.Token}
	if s.UsesRootTemplates() && inst.client.ListRoots != nil {
		roots, err := inst.client.ListRoots(ctx)
		if err != nil {
			inst.err = fmt.Errorf("server %q: asking the client for its roots (for %s): %w", m.name, spec.TemplateClientRoot, err)
			return
		}
		values.Roots = roots
	}
	expanded, err := spec.ExpandClient(s, values)
	if err != nil {
		inst.err = err
		return
	}
	dctx, cancel := context.WithTimeout(context.Background(), m.svc.opts.StartTimeout)
	defer cancel()
	c, err := dial(dctx, expanded, dialOptions{
		clientInfo: m.svc.opts.ClientInfo,
		clientSide: inst.clientSide(),
		console:    inst.console,
		builtins:   m.svc.opts.Builtins,
		authorizer: m.svc.opts.Authorizer,
		secrets:    m.svc.opts.Secrets,
		maxMessage: m.svc.opts.maxMessage(),
		onNotification: func(n mcp.JSONRPCNotification) {
			// The catalog connection follows the lists; the rest
			// (progress, log messages) carries router-unique tokens.
			if strings.HasSuffix(n.Method, "/list_changed") {
				return
			}
			if fn := m.svc.opts.OnNotification; fn != nil {
				fn(m.name, n)
			}
		},
		self: m.svc.opts.identity(),
	})
	if err != nil {
		inst.err = fmt.Errorf("server %q: starting the instance for %s: %w", m.name, inst.client.Label, err)
		return
	}
	inst.conn = c
	m.svc.log.WithField("server", m.name).WithField("instance", inst.id).Infof("per-client instance started for %s (pid %d)", inst.client.Label, c.pid())
	go inst.watch()
	m.update(func(*Status) {})
}

// clientSide is the service's ClientSide narrowed to what the client
// declared, each request marked with the instance's client.
func (inst *instance) clientSide() ClientSide {
	cs := inst.m.svc.opts.ClientSide
	mark := func(ctx context.Context) context.Context {
		return context.WithValue(ctx, instanceClientKey{}, InstanceClient{Key: inst.key, Instance: inst.id})
	}
	var out ClientSide
	if cs.Sampling != nil && inst.client.Sampling {
		out.Sampling = func(ctx context.Context, server string, r mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return cs.Sampling(mark(ctx), server, r)
		}
	}
	if cs.Elicitation != nil && inst.client.Elicitation {
		out.Elicitation = func(ctx context.Context, server string, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			return cs.Elicitation(mark(ctx), server, r)
		}
	}
	if cs.Roots != nil && inst.client.Roots {
		out.Roots = func(ctx context.Context, server string, r mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			return cs.Roots(mark(ctx), server, r)
		}
	}
	return out
}

// watch stops the instance when it has been idle for the idle time (read
// at every tick, so a changed setting applies) or its connection ends.
func (inst *instance) watch() {
	for {
		idle := inst.m.svc.perClientLimits().IdleTimeout
		tick := min(max(idle/4, 20*time.Millisecond), time.Second)
		select {
		case <-inst.stopped:
			return
		case <-inst.conn.lost:
			inst.m.dropInstance(inst, "connection lost: "+inst.conn.lostWhy())
			return
		case <-time.After(tick):
			if inst.m.dropIfIdle(inst, idle) {
				inst.stop(fmt.Sprintf("idle for %s (setting %s)", idle.Round(time.Millisecond), SettingPerClientIdle))
				inst.m.update(func(*Status) {})
				return
			}
		}
	}
}

// stop closes the instance's connection (and stops its process tree).
func (inst *instance) stop(reason string) {
	inst.stopOnce.Do(func() {
		close(inst.stopped)
		<-inst.ready
		if inst.conn != nil {
			inst.conn.close()
			inst.m.svc.log.WithField("server", inst.m.name).WithField("instance", inst.id).Infof("per-client instance of %s stopped: %s", inst.client.Label, reason)
		}
	})
}

// dropIfIdle forgets inst if no request holds it and none has for idle.
// It decides under instMu, where instanceFor takes an instance for a
// request, so no request is handed an instance about to be stopped.
func (m *managed) dropIfIdle(inst *instance, idle time.Duration) bool {
	m.instMu.Lock()
	defer m.instMu.Unlock()
	last := time.Unix(0, inst.lastUsed.Load())
	if m.instances[inst.key] != inst || inst.active.Load() != 0 || time.Since(last) < idle {
		return false
	}
	delete(m.instances, inst.key)
	return true
}

// dropInstance forgets inst and stops it; reason "" when it never started.
func (m *managed) dropInstance(inst *instance, reason string) {
	m.instMu.Lock()
	if m.instances[inst.key] == inst {
		delete(m.instances, inst.key)
	}
	m.instMu.Unlock()
	inst.stop(reason)
	m.update(func(*Status) {})
}

// dropAllInstances stops every instance (the server stops or restarts).
func (m *managed) dropAllInstances(reason string) {
	m.instMu.Lock()
	all := make([]*instance, 0, len(m.instances))
	for _, inst := range m.instances {
		all = append(all, inst)
	}
	clear(m.instances)
	m.instMu.Unlock()
	var wg sync.WaitGroup
	for _, inst := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inst.stop(reason)
		}()
	}
	wg.Wait()
	if len(all) > 0 {
		m.update(func(*Status) {})
	}
}

// instanceStatuses lists the instances, by id.
func (m *managed) instanceStatuses() []InstanceStatus {
	m.instMu.Lock()
	defer m.instMu.Unlock()
	if len(m.instances) == 0 {
		return nil
	}
	out := make([]InstanceStatus, 0, len(m.instances))
	for _, inst := range m.instances {
		st := InstanceStatus{ID: inst.id, Client: inst.client.Label, Since: inst.since, Calls: inst.calls.Load(),
			LastUsed: time.Unix(0, inst.lastUsed.Load()), State: StateStarting}
		select {
		case <-inst.ready:
			if inst.conn != nil {
				st.State, st.PID = StateRunning, inst.conn.pid()
			}
		default:
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// EndClient stops every per-client instance of the client key (its session
// ended) and waits for their processes to end.
func (s *Service) EndClient(key string) {
	if key == "" {
		return
	}
	s.forEachInstance(key, func(m *managed, inst *instance) { m.dropInstance(inst, "the client's session ended") })
}

// ClientRootsChanged tells the client key's instances that its roots
// changed: an instance whose definition names the roots in its templates is
// stopped (its next call starts it on the new roots); any other is sent
// notifications/roots/list_changed, and asks for them again if it cares.
func (s *Service) ClientRootsChanged(key string) {
	s.forEachInstance(key, func(m *managed, inst *instance) {
		if m.currentSpec().UsesRootTemplates() {
			m.dropInstance(inst, "the client's roots changed")
			return
		}
		select {
		case <-inst.ready:
		default:
			return // it asks for the roots as it starts
		}
		if inst.conn == nil || inst.conn.client == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := inst.conn.client.RootListChanges(ctx); err != nil {
			s.log.WithField("server", m.name).Debugf("roots/list_changed to instance %d: %v", inst.id, err)
		}
	})
}

func (s *Service) forEachInstance(key string, fn func(*managed, *instance)) {
	s.mu.RLock()
	all := make([]*managed, 0, len(s.servers))
	for _, m := range s.servers {
		all = append(all, m)
	}
	s.mu.RUnlock()
	var wg sync.WaitGroup
	for _, m := range all {
		m.instMu.Lock()
		inst := m.instances[key]
		m.instMu.Unlock()
		if inst == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(m, inst)
		}()
	}
	wg.Wait()
}

// catalogValues are the template values of a per-client server's catalog
// connection, which serves no client: the router's own name, and an empty
// directory of its own for the roots, so that a server that needs a
// directory starts and lists what it offers without seeing any client's.
func (s *Service) catalogValues() (spec.ClientValues, error) {
	s.catalogOnce.Do(func() {
		s.catalogDir, s.catalogErr = os.MkdirTemp("", "mcpr-catalog-")
	})
	if s.catalogErr != nil {
		return spec.ClientValues{}, fmt.Errorf("the catalog connection's empty root: %w", s.catalogErr)
	}
	p := filepath.ToSlash(s.catalogDir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return spec.ClientValues{Name: s.opts.ClientInfo.Name, Token: s.opts.ClientInfo.Name,
		Roots: []string{(&url.URL{Scheme: "file", Path: p}).String()}}, nil
}

// InstanceNote records which per-client instance served a request, for the
// request log (WithInstanceNote).
type InstanceNote struct {
	mu       sync.Mutex
	id, pid  int
	recorded bool
}

type instanceNoteKey struct{}

// WithInstanceNote returns ctx carrying a note that Request fills in when a
// per-client instance serves the request.
func WithInstanceNote(ctx context.Context) (context.Context, *InstanceNote) {
	n := &InstanceNote{}
	return context.WithValue(ctx, instanceNoteKey{}, n), n
}

func (n *InstanceNote) set(id, pid int) {
	n.mu.Lock()
	n.id, n.pid, n.recorded = id, pid, true
	n.mu.Unlock()
}

// String is "#ID (pid PID)", or "" when no instance served the request.
func (n *InstanceNote) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.recorded {
		return ""
	}
	if n.pid > 0 {
		return fmt.Sprintf("#%d (pid %d)", n.id, n.pid)
	}
	return fmt.Sprintf("#%d", n.id)
}

// SuggestPerClient records on a shared server's status that it sent its
// client a what request while clients (two or more) had calls in flight
// there (Status.SuggestPerClient).
func (s *Service) SuggestPerClient(name, what string, clients int) {
	m, err := s.get(name)
	if err != nil || m.currentSpec().IsPerClient() {
		return
	}
	// Said already (the same request, as many clients, within the
	// minute): no event for every request of a busy server.
	m.mu.RLock()
	prev := m.status.SuggestPerClient
	m.mu.RUnlock()
	if prev != nil && prev.What == what && prev.Clients == clients && time.Since(prev.At) < time.Minute {
		return
	}
	m.update(func(st *Status) {
		st.SuggestPerClient = &PerClientSuggestion{What: what, Clients: clients, At: time.Now()}
	})
}

// IsPerClient reports whether the named server runs one instance per
// client: cheap enough to ask on every request.
func (s *Service) IsPerClient(name string) bool {
	m, err := s.get(name)
	if err != nil {
		return false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.spec.Isolation == spec.PerClient
}
