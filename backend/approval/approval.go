// Package approval holds the tool calls waiting for a person's approval
// while a UI (the desktop window, a browser tab of the UI) is attached, and
// the "always allow this tool for this client" answers given there for the
// rest of the router's run. The policy decides which calls need approval
// (backend/policy); core wires this broker in front of the question to the
// client by elicitation.
package approval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Decision is a person's answer in the UI.
type Decision string

const (
	Approve Decision = "approve"
	Deny    Decision = "deny"
	// Always approves, and approves every later call of the same tool by
	// the same client (name and subject) until the router stops.
	Always Decision = "always"
)

// Who decided, for the log and the error's data.decidedBy.
const (
	ByUI     = "the UI"
	ByAlways = "the always-allow rule (set in the UI)"
)

// Errors.
var (
	// ErrNoUI: no UI is attached; ask someone else (the client).
	ErrNoUI = errors.New("no UI is attached")
	// ErrUnknown: no pending approval has this id (decided, timed out or
	// withdrawn meanwhile).
	ErrUnknown = errors.New("no pending approval with this id (it was decided, timed out or withdrawn)")
	// ErrBadDecision: not approve, deny or always.
	ErrBadDecision = errors.New(`the decision is "approve", "deny" or "always"`)
)

// Request is the call a person is asked about.
type Request struct {
	Rule            string
	Client, Subject string
	Server          string
	Tool, Target    string // the upstream's own name; the name the client called
	Arguments       json.RawMessage
}

// Pending is a call waiting in the UI.
type Pending struct {
	ID        string          `json:"id"`
	Rule      string          `json:"rule"`
	Client    string          `json:"client"`
	Subject   string          `json:"subject,omitempty"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Target    string          `json:"target"`
	Arguments json.RawMessage `json:"arguments"`
	AskedAt   time.Time       `json:"askedAt"`
	Deadline  time.Time       `json:"deadline,omitzero"`
}

// Answer is the outcome of Ask.
type Answer struct {
	Approved bool
	By       string
}

type key struct{ client, subject, server, tool string }

func keyOf(r Request) key { return key{r.Client, r.Subject, r.Server, r.Tool} }

type entry struct {
	p   Pending
	k   key
	ans chan Answer // buffered 1; written once, by whoever removes the entry
}

// Broker is the set of pending approvals. The zero value is not usable;
// call New.
type Broker struct {
	now func() time.Time

	mu      sync.Mutex
	pending map[string]*entry
	always  map[key]struct{}
	uis     int
	subs    map[int]func([]Pending)
	nextSub int

	notifyMu sync.Mutex // subscribers hear the changes in order
}

// New makes an empty broker.
func New() *Broker {
	return &Broker{now: time.Now, pending: map[string]*entry{}, always: map[key]struct{}{}, subs: map[int]func([]Pending){}}
}

// AttachUI counts a UI that shows the pending approvals and can answer
// them, until the returned detach is called.
func (b *Broker) AttachUI() (detach func()) {
	b.mu.Lock()
	b.uis++
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.uis--
			b.mu.Unlock()
		})
	}
}

// UIAttached reports whether a UI is attached.
func (b *Broker) UIAttached() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.uis > 0
}

// AlwaysAllowed reports whether Always was answered for this tool and
// client.
func (b *Broker) AlwaysAllowed(r Request) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.always[keyOf(r)]
	return ok
}

// Ask approves a call already always-allowed; otherwise, when a UI is
// attached, it lists the call as pending and waits for Decide or for ctx
// to end (the timeout, or the client cancelling: the entry is withdrawn
// and ctx.Err() returned). ErrNoUI: nobody to ask here.
func (b *Broker) Ask(ctx context.Context, r Request) (Answer, error) {
	b.mu.Lock()
	if _, ok := b.always[keyOf(r)]; ok {
		b.mu.Unlock()
		return Answer{Approved: true, By: ByAlways}, nil
	}
	if b.uis == 0 {
		b.mu.Unlock()
		return Answer{}, ErrNoUI
	}
	args := r.Arguments
	if len(args) == 0 || !json.Valid(args) {
		args = json.RawMessage("{}")
	}
	e := &entry{k: keyOf(r), ans: make(chan Answer, 1), p: Pending{ID: newID(), Rule: r.Rule, Client: r.Client, Subject: r.Subject,
		Server: r.Server, Tool: r.Tool, Target: r.Target, Arguments: args, AskedAt: b.now()}}
	if d, ok := ctx.Deadline(); ok {
		e.p.Deadline = d
	}
	b.pending[e.p.ID] = e
	b.mu.Unlock()
	b.notify()
	select {
	case a := <-e.ans:
		return a, nil
	case <-ctx.Done():
		b.mu.Lock()
		_, still := b.pending[e.p.ID]
		delete(b.pending, e.p.ID)
		b.mu.Unlock()
		if !still {
			// Decided in the same instant: the answer stands only if the
			// call can still go ahead, which it cannot.
			<-e.ans
		}
		b.notify()
		return Answer{}, ctx.Err()
	}
}

// Decide answers the pending approval id. Always also answers every other
// pending call of the same tool by the same client.
func (b *Broker) Decide(id string, d Decision) error {
	switch d {
	case Approve, Deny, Always:
	default:
		return fmt.Errorf("%w, not %q", ErrBadDecision, string(d))
	}
	b.mu.Lock()
	e, ok := b.pending[id]
	if !ok {
		b.mu.Unlock()
		return ErrUnknown
	}
	delete(b.pending, id)
	e.ans <- Answer{Approved: d != Deny, By: ByUI}
	if d == Always {
		b.always[e.k] = struct{}{}
		for oid, o := range b.pending {
			if o.k == e.k {
				delete(b.pending, oid)
				o.ans <- Answer{Approved: true, By: ByAlways}
			}
		}
	}
	b.mu.Unlock()
	b.notify()
	return nil
}

// Pending lists the calls waiting, oldest first.
func (b *Broker) Pending() []Pending {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.snapshot()
}

func (b *Broker) snapshot() []Pending {
	out := make([]Pending, 0, len(b.pending))
	for _, e := range b.pending {
		out = append(out, e.p)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].AskedAt.Equal(out[j].AskedAt) {
			return out[i].AskedAt.Before(out[j].AskedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Subscribe calls fn with the pending list after every change (a call
// asked about, decided, timed out or withdrawn) until the returned
// function is called. fn must not call back into the broker's Subscribe.
func (b *Broker) Subscribe(fn func([]Pending)) (unsubscribe func()) {
	b.mu.Lock()
	id := b.nextSub
	b.nextSub++
	b.subs[id] = fn
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

func (b *Broker) notify() {
	b.notifyMu.Lock()
	defer b.notifyMu.Unlock()
	b.mu.Lock()
	list := b.snapshot()
	subs := make([]func([]Pending), 0, len(b.subs))
	ids := make([]int, 0, len(b.subs))
	for id := range b.subs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		subs = append(subs, b.subs[id])
	}
	b.mu.Unlock()
	for _, fn := range subs {
		fn(list)
	}
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
