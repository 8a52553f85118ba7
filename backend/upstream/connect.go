package upstream

import (
	"context"
	"fmt"
	"time"
)

// Connect returns once the named server is running on a connection not
// known to be lost, connecting it now if it is down: a server waiting out a retry's backoff is retried at once, an
// enabled server with no supervisor is started. It never drops a live
// connection, and any number of concurrent calls share the supervisor's one
// attempt, so they end on the same connection (Status.Connection).
func (s *Service) Connect(ctx context.Context, name string) (Status, error) {
	m, err := s.get(name)
	if err != nil {
		return Status{}, err
	}
	changed := make(chan struct{}, 1)
	unsubscribe := s.Subscribe(func(e Event) {
		if e.Server == name && e.Kind == EventState {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	defer unsubscribe()
	for {
		s.mu.RLock()
		closed := s.closed
		s.mu.RUnlock()
		if closed {
			return Status{}, ErrClosed
		}
		m.mu.RLock()
		// A connection already known lost is not live, even before the
		// supervisor has noticed and replaced it.
		st, live, supervised, enabled := m.status, m.conn != nil && !m.conn.isLost(), m.cancel != nil, m.spec.Enabled
		isSelf := m.isSelf
		m.mu.RUnlock()
		switch {
		case st.State == StateRunning && live:
			return st, nil
		case isSelf && supervised && st.State == StateErrored:
			// Another attempt would meet this router again.
			return st, fmt.Errorf("%w (%s: %s)", ErrNotRunning, st.State, st.Error)
		case supervised && st.State == StateNeedsLogin:
			// Only a login gets it further.
			return st, fmt.Errorf("%w (%s: %s)", ErrNotRunning, st.State, st.Error)
		case !supervised && !enabled:
			return st, fmt.Errorf("%w (the server is disabled)", ErrNotRunning)
		case !supervised:
			m.start()
		case st.State == StateErrored || st.State == StateRestarting:
			select {
			case m.wake <- struct{}{}:
			default:
			}
		}
		select {
		case <-ctx.Done():
			if st.Error != "" {
				return st, fmt.Errorf("%w (%s: %s)", ErrNotRunning, st.State, st.Error)
			}
			return st, fmt.Errorf("%w (%s)", ErrNotRunning, st.State)
		case <-changed:
		case <-time.After(250 * time.Millisecond): // a change between the read and the subscription
		}
	}
}
