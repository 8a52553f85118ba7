package upstream

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// A lazy server (spec.StartLazy) is not started by Sync when the persisted
// catalog already holds its lists (Options.HasCatalog): its tools are
// listed from there while it is stopped. The first request starts it and
// waits for it; it stops again once it has served no request for
// Options.LazyIdle. A lazy server never run has no persisted lists, so
// Sync starts it once to fill them; the idle timer then stops it.

// DefaultLazyIdle is how long a lazy server stays up without a request
// when Options.LazyIdle is nil.
const DefaultLazyIdle = 300 * time.Second

// lazyState tracks a lazy server's requests. mu is held across an idle
// stop, so a request that arrives meanwhile waits for the stop and then
// starts the server again instead of using a closing connection.
type lazyState struct {
	mu       sync.Mutex
	inflight int
	timer    *time.Timer
}

// StartNote records whether a request started its lazy server, and how
// long that took, for the request log (WithStartNote).
type StartNote struct {
	mu      sync.Mutex
	started bool
	took    time.Duration
}

type startNoteKey struct{}

// WithStartNote returns ctx carrying a note that Request fills in when the
// request started a lazy server.
func WithStartNote(ctx context.Context) (context.Context, *StartNote) {
	c := &noteContext{Context: ctx}
	return c, &c.note
}

// noteContext is context.WithValue(ctx, startNoteKey{}, &note) in one
// allocation, not two: every forwarded call makes one. Everything but the
// note's key is ctx's, its cancellation included (the context package
// finds ctx's own cancel context through Value, so a child of this one is
// cancelled with ctx as a child of ctx would be).
type noteContext struct {
	context.Context
	note StartNote
}

func (c *noteContext) Value(key any) any {
	if key == (startNoteKey{}) {
		return &c.note
	}
	return c.Context.Value(key)
}

// Started reports whether the request started its server, and the time
// the start took.
func (n *StartNote) Started() (bool, time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.started, n.took
}

// String is "" or "started the lazy server in 1.2s".
func (n *StartNote) String() string {
	if ok, took := n.Started(); ok {
		return fmt.Sprintf("started the lazy server in %s", took.Round(time.Millisecond))
	}
	return ""
}

// lazyIdle is the idle time of lazy servers.
func (s *Service) lazyIdle() time.Duration {
	if s.opts.LazyIdle != nil {
		if d := s.opts.LazyIdle(); d > 0 {
			return d
		}
	}
	return DefaultLazyIdle
}

// startsAtSync reports whether Sync starts an enabled server now: eager
// ones always, lazy ones only while the persisted catalog has nothing of
// them.
func (s *Service) startsAtSync(m *managed) bool {
	sp := m.currentSpec()
	if !sp.IsLazy() || sp.IsPerClient() {
		return true
	}
	return s.opts.HasCatalog == nil || !s.opts.HasCatalog(sp.Name)
}

// beginLazy counts a request to a lazy server and, when it is not running,
// starts it and waits until it runs (bounded by ctx: the call's timeout).
// The returned func ends the request and re-arms the idle timer.
func (s *Service) beginLazy(ctx context.Context, m *managed) (end func(), err error) {
	m.lazy.mu.Lock()
	m.lazy.inflight++
	if m.lazy.timer != nil {
		m.lazy.timer.Stop()
	}
	m.lazy.mu.Unlock()
	end = func() {
		m.lazy.mu.Lock()
		m.lazy.inflight--
		m.lazy.mu.Unlock()
		s.armIdle(m)
	}
	m.mu.RLock()
	live := m.conn != nil && !m.conn.isLost()
	m.mu.RUnlock()
	if live {
		return end, nil
	}
	began := time.Now()
	if _, err := s.Connect(ctx, m.name); err != nil {
		end()
		return nil, fmt.Errorf("starting lazy server %q: %w", m.name, err)
	}
	if n, ok := ctx.Value(startNoteKey{}).(*StartNote); ok {
		n.mu.Lock()
		n.started, n.took = true, time.Since(began)
		n.mu.Unlock()
	}
	return end, nil
}

// armIdle (re)starts a lazy server's idle timer; when it fires with no
// request in flight, the server stops.
func (s *Service) armIdle(m *managed) {
	if sp := m.currentSpec(); !sp.IsLazy() || sp.IsPerClient() {
		// A per-client server's instances have their own idle time.
		return
	}
	m.lazy.mu.Lock()
	defer m.lazy.mu.Unlock()
	if m.lazy.timer != nil {
		m.lazy.timer.Stop()
	}
	m.lazy.timer = time.AfterFunc(s.lazyIdle(), func() { s.idleStop(m) })
}

func (s *Service) idleStop(m *managed) {
	m.lazy.mu.Lock()
	defer m.lazy.mu.Unlock()
	if sp := m.currentSpec(); m.lazy.inflight > 0 || !sp.IsLazy() || sp.IsPerClient() {
		return
	}
	s.log.WithField("server", m.name).Infof("lazy server idle for %s: stopping it until its next call", s.lazyIdle())
	m.stop()
}
