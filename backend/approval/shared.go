package approval

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Shared is where the pending approvals of every replica of a team router
// meet (team mode: Redis, backend/teamstate): a UI attached to any replica
// lists every replica's waiting calls and decides them; the replica whose
// call it is releases it. Without one a Broker keeps its calls to itself.
type Shared interface {
	// Put lists p, waiting on this replica, for ttl (renewed by Renew).
	Put(ctx context.Context, p Pending, ttl time.Duration) error
	// Renew extends the listing of ids by ttl (gone ones stay gone).
	Renew(ctx context.Context, ids []string, ttl time.Duration) error
	// Remove takes id off the list.
	Remove(ctx context.Context, id string) error
	// Claim takes id off the list for a decision and returns it; false:
	// it was not listed (decided, timed out or withdrawn meanwhile).
	Claim(ctx context.Context, id string) (Pending, bool, error)
	// List is every replica's pending approvals.
	List(ctx context.Context) ([]Pending, error)
	// Publish tells every replica (this one too) of m.
	Publish(ctx context.Context, m Message) error
	// Listen calls fn with every message published, until stop.
	Listen(fn func(Message)) (stop func(), err error)
	// SetUI says whether a UI is attached to the replica named owner, for
	// ttl; UIAttached whether one is attached to any replica.
	SetUI(ctx context.Context, owner string, attached bool, ttl time.Duration) error
	UIAttached(ctx context.Context) (bool, error)
}

// Message is what replicas tell each other about approvals.
type Message struct {
	// ID was decided (Decision); empty: only the list changed.
	ID       string   `json:"id,omitempty"`
	Decision Decision `json:"decision,omitempty"`
	// Client, Subject, Server, Tool: the call decided Always, which every
	// replica then allows for the rest of its run.
	Client  string `json:"client,omitempty"`
	Subject string `json:"subject,omitempty"`
	Server  string `json:"server,omitempty"`
	Tool    string `json:"tool,omitempty"`
}

// Lease is how long a replica's listing of a waiting call (and of an
// attached UI) lasts unless renewed: a replica that dies leaves nothing
// listed for longer. It is renewed every Lease/3.
const Lease = 10 * time.Second

// sharedTimeout bounds one exchange with the shared store.
const sharedTimeout = 3 * time.Second

// MaxSharedArguments caps a call's arguments as other replicas' UIs see
// them; larger ones are replaced by a note (the replica of the call keeps
// them whole, and its own UI shows them).
const MaxSharedArguments = 256 << 10

// ErrShared wraps a failure of the shared store: the call is refused, never
// let through (fail closed).
var ErrShared = errors.New("the approvals shared by the replicas (Redis) did not answer")

// validID reports whether id could be one newID made: 24 hex digits. No
// other text reaches the shared store as part of a key.
func validID(id string) bool {
	if len(id) != 24 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

// Share makes the broker list its waiting calls in s and decide the other
// replicas' through it, until stop is called. Call it before any Ask.
func (b *Broker) Share(s Shared, logf func(format string, args ...any)) (stop func(), err error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	b.mu.Lock()
	b.shared, b.logf, b.owner = s, logf, newID()
	b.mu.Unlock()
	stopListen, err := s.Listen(b.heard)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrShared, err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				b.renew()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			stopListen()
			ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
			defer cancel()
			_ = s.SetUI(ctx, b.owner, false, 0)
		})
	}, nil
}

// renew extends the listing of this replica's waiting calls and UI.
func (b *Broker) renew() {
	b.mu.Lock()
	ids := make([]string, 0, len(b.pending))
	for id := range b.pending {
		ids = append(ids, id)
	}
	ui := b.uis > 0
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	if len(ids) > 0 {
		if err := b.shared.Renew(ctx, ids, Lease); err != nil {
			b.logf("approvals: renewing %d waiting calls in Redis: %v", len(ids), err)
		}
	}
	if ui {
		if err := b.shared.SetUI(ctx, b.owner, true, Lease); err != nil {
			b.logf("approvals: renewing this replica's UI in Redis: %v", err)
		}
	}
}

// heard handles a message from a replica (this one's own included).
func (b *Broker) heard(m Message) {
	if m.ID != "" && validID(m.ID) {
		b.settle(m)
	}
	b.notify()
}

// settle releases this replica's call m decided (if it is here) and, for
// Always, every call of the same tool by the same client.
func (b *Broker) settle(m Message) {
	var released []string
	b.mu.Lock()
	if e, ok := b.pending[m.ID]; ok {
		delete(b.pending, m.ID)
		e.ans <- outcome{a: Answer{Approved: m.Decision != Deny, By: ByUI}}
		released = append(released, m.ID)
	}
	if m.Decision == Always {
		k := key{m.Client, m.Subject, m.Server, m.Tool}
		b.always[k] = struct{}{}
		for oid, o := range b.pending {
			if o.k == k {
				delete(b.pending, oid)
				o.ans <- outcome{a: Answer{Approved: true, By: ByAlways}}
				released = append(released, oid)
			}
		}
	}
	b.mu.Unlock()
	if len(released) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		defer cancel()
		for _, id := range released {
			_ = b.shared.Remove(ctx, id)
		}
	}
}

// decideShared answers the pending approval id of any replica: whoever
// claims it in the shared store decides it, and its replica releases it.
func (b *Broker) decideShared(id string, d Decision) error {
	if !validID(id) {
		return ErrUnknown
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	b.mu.Lock()
	e, local := b.pending[id]
	b.mu.Unlock()
	p, claimed, err := b.shared.Claim(ctx, id)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrShared, err)
	}
	if !claimed {
		return ErrUnknown
	}
	m := Message{ID: id, Decision: d}
	if d == Always {
		m.Client, m.Subject, m.Server, m.Tool = p.Client, p.Subject, p.Server, p.Tool
		if local {
			m.Client, m.Subject, m.Server, m.Tool = e.k.client, e.k.subject, e.k.server, e.k.tool
		}
	}
	if local {
		b.settle(m)
	}
	if err := b.shared.Publish(ctx, m); err != nil {
		return fmt.Errorf("%w: %w", ErrShared, err)
	}
	return nil
}

// sharedList is every replica's pending calls, oldest first; this
// replica's alone when the store does not answer.
func (b *Broker) sharedList() []Pending {
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	list, err := b.shared.List(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.logf("approvals: listing the other replicas' waiting calls: %v", err)
		return b.snapshot()
	}
	seen := map[string]bool{}
	out := make([]Pending, 0, len(list)+len(b.pending))
	for _, p := range list {
		if !validID(p.ID) || seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		if e, ok := b.pending[p.ID]; ok {
			p = e.p // this replica's own, with the arguments whole
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].AskedAt.Equal(out[j].AskedAt) {
			return out[i].AskedAt.Before(out[j].AskedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// sharedArgs is args as other replicas see them, within
// MaxSharedArguments.
func sharedArgs(p Pending) Pending {
	if len(p.Arguments) > MaxSharedArguments {
		p.Arguments = []byte(fmt.Sprintf(`{"(not shown)":"%d bytes of arguments: over the %d-byte cap of approvals shared between replicas (docs/limits.md); the UI of the replica the call waits on shows them"}`,
			len(p.Arguments), MaxSharedArguments))
	}
	return p
}

// setSharedUI lists (or unlists) this replica's UI in the shared store.
func (b *Broker) setSharedUI(attached bool) {
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	if err := b.shared.SetUI(ctx, b.owner, attached, Lease); err != nil {
		b.logf("approvals: telling the other replicas a UI is attached here (%v): %v", attached, err)
	}
}

// sharedUIAttachedErr reports whether a UI is attached to any replica.
func (b *Broker) sharedUIAttachedErr() (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	ui, err := b.shared.UIAttached(ctx)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrShared, err)
	}
	return ui, nil
}

func (b *Broker) sharedUIAttached() bool {
	ui, err := b.sharedUIAttachedErr()
	return err == nil && ui
}
