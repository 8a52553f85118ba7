// Package approval holds the tool calls waiting for a person's approval
// while a UI (the desktop window, a browser tab of the UI) is attached, and
// the "always allow this tool for this client" answers given there for the
// rest of the router's run. The policy decides which calls need approval
// (backend/policy); core wires this broker in front of the question to the
// client by elicitation.
//
// When the last UI detaches while calls wait, they are not left waiting
// for nobody: after a short grace (Grace, long enough for a page reload to
// attach again and keep them) every waiting call ends with ErrUIGone, and
// its asker falls back as if no UI had been there.
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

// Grace is how long calls keep waiting after the last UI detached, for a
// UI to attach again (a browser tab reloading its page) and keep them in
// its list. After it they end with ErrUIGone.
const Grace = 5 * time.Second

// Errors.
var (
	// ErrNoUI: no UI is attached; ask someone else (the client).
	ErrNoUI = errors.New("no UI is attached")
	// ErrUnknown: no pending approval has this id (decided, timed out or
	// withdrawn meanwhile).
	ErrUnknown = errors.New("no pending approval with this id (it was decided, timed out or withdrawn)")
	// ErrUIGone: the call waited in a UI, and every UI detached without
	// another attaching within Grace; ask someone else (the client), within
	// what is left of the call's timeout.
	ErrUIGone = errors.New("the UI that was asked went away")
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

// outcome ends a pending call: an answer, or ErrUIGone.
type outcome struct {
	a   Answer
	err error
}

type entry struct {
	p   Pending
	k   key
	ans chan outcome // buffered 1; written once, by whoever removes the entry
	// alongside: someone else (the client) is asked at the same time, so
	// the entry stays listed with no UI attached and never ends with
	// ErrUIGone (AskAlongside).
	alongside bool
}

// Broker is the set of pending approvals. The zero value is not usable;
// call New.
type Broker struct {
	now func() time.Time
	// afterFunc starts the grace timer (time.AfterFunc; tests fire it by
	// hand).
	afterFunc func(time.Duration, func()) (stop func() bool)
	grace     time.Duration

	mu      sync.Mutex
	pending map[string]*entry
	always  map[key]struct{}
	uis     int
	subs    map[int]func([]Pending)
	nextSub int
	// stopGrace stops the grace timer running since the last UI detached
	// (nil: none); graceGen tells a timer that fires late it was stopped.
	stopGrace func() bool
	graceGen  uint64

	notifyMu sync.Mutex // subscribers hear the changes in order

	// shared (nil: none) lists this replica's waiting calls for the
	// others, and theirs for this one (shared.go); owner names this
	// broker there, logf logs what went wrong with it.
	shared Shared
	owner  string
	logf   func(format string, args ...any)
}

// New makes an empty broker.
func New() *Broker {
	return &Broker{now: time.Now, grace: Grace, pending: map[string]*entry{}, always: map[key]struct{}{}, subs: map[int]func([]Pending){},
		afterFunc: func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }}
}

// AttachUI counts a UI that shows the pending approvals and can answer
// them, until the returned detach is called. The calls waiting when the
// last UI detaches end with ErrUIGone unless a UI attaches again within
// Grace.
func (b *Broker) AttachUI() (detach func()) {
	b.mu.Lock()
	b.uis++
	first := b.uis == 1 && b.shared != nil
	if b.stopGrace != nil {
		// Back in time: the calls stay in the list.
		b.stopGrace()
		b.stopGrace = nil
		b.graceGen++
	}
	b.mu.Unlock()
	if first {
		b.setSharedUI(true)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.uis--
			last := b.uis == 0 && b.shared != nil
			if b.uis == 0 && len(b.pending) > 0 {
				b.graceGen++
				gen := b.graceGen
				b.stopGrace = b.afterFunc(b.grace, func() { b.uiGone(gen) })
			}
			b.mu.Unlock()
			if last {
				b.setSharedUI(false)
			}
		})
	}
}

// uiGone ends every waiting call with ErrUIGone when the grace timer gen
// ran out with no UI attached.
func (b *Broker) uiGone(gen uint64) {
	if b.shared != nil && b.sharedUIAttached() {
		// A UI of another replica lists these calls and may decide them:
		// they wait on, until decided or their timeout.
		return
	}
	b.mu.Lock()
	if gen != b.graceGen || b.uis > 0 {
		b.mu.Unlock()
		return
	}
	b.stopGrace = nil
	n := 0
	for id, e := range b.pending {
		if e.alongside {
			continue
		}
		delete(b.pending, id)
		e.ans <- outcome{err: ErrUIGone}
		n++
	}
	b.mu.Unlock()
	if n > 0 {
		b.notify()
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
// and ctx.Err() returned). ErrNoUI: nobody to ask here. ErrUIGone: the
// call waited, but every UI went away (see AttachUI); ask someone else.
func (b *Broker) Ask(ctx context.Context, r Request) (Answer, error) {
	b.mu.Lock()
	if _, ok := b.always[keyOf(r)]; ok {
		b.mu.Unlock()
		return Answer{Approved: true, By: ByAlways}, nil
	}
	if b.uis == 0 {
		if b.shared == nil {
			b.mu.Unlock()
			return Answer{}, ErrNoUI
		}
		b.mu.Unlock()
		ui, err := b.sharedUIAttachedErr()
		if err != nil {
			return Answer{}, err
		}
		if !ui {
			return Answer{}, ErrNoUI
		}
		b.mu.Lock()
	}
	return b.wait(ctx, r, false)
}

// AskAlongside lists a call as pending whether or not a UI is attached,
// for a call whose client is asked at the same time (a 2026-07-28 client,
// asked by an input_required result it may take long to answer): a UI
// open now, or opened while the call waits, shows it and may decide it.
// It waits for Decide or for ctx to end (the client answered first, the
// timeout, the call cancelled: the entry is withdrawn and ctx.Err()
// returned). An always-allowed call is approved at once. It never ends
// with ErrNoUI or ErrUIGone.
func (b *Broker) AskAlongside(ctx context.Context, r Request) (Answer, error) {
	b.mu.Lock()
	if _, ok := b.always[keyOf(r)]; ok {
		b.mu.Unlock()
		return Answer{Approved: true, By: ByAlways}, nil
	}
	return b.wait(ctx, r, true)
}

// wait lists r as pending (b.mu held on entry, released here) and waits
// for its outcome.
func (b *Broker) wait(ctx context.Context, r Request, alongside bool) (Answer, error) {
	args := r.Arguments
	if len(args) == 0 || !json.Valid(args) {
		args = json.RawMessage("{}")
	}
	e := &entry{k: keyOf(r), alongside: alongside, ans: make(chan outcome, 1), p: Pending{ID: newID(), Rule: r.Rule, Client: r.Client, Subject: r.Subject,
		Server: r.Server, Tool: r.Tool, Target: r.Target, Arguments: args, AskedAt: b.now()}}
	if d, ok := ctx.Deadline(); ok {
		e.p.Deadline = d
	}
	b.pending[e.p.ID] = e
	shared := b.shared
	b.mu.Unlock()
	if shared != nil {
		pctx, cancel := context.WithTimeout(ctx, sharedTimeout)
		err := shared.Put(pctx, sharedArgs(e.p), Lease)
		cancel()
		if err != nil {
			b.mu.Lock()
			delete(b.pending, e.p.ID)
			b.mu.Unlock()
			return Answer{}, fmt.Errorf("%w: %w", ErrShared, err)
		}
	}
	b.changed()
	select {
	case o := <-e.ans:
		return o.a, o.err
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
		if shared != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sharedTimeout)
			_ = shared.Remove(rctx, e.p.ID)
			cancel()
		}
		b.changed()
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
	if b.shared != nil {
		return b.decideShared(id, d)
	}
	b.mu.Lock()
	e, ok := b.pending[id]
	if !ok {
		b.mu.Unlock()
		return ErrUnknown
	}
	delete(b.pending, id)
	e.ans <- outcome{a: Answer{Approved: d != Deny, By: ByUI}}
	if d == Always {
		b.always[e.k] = struct{}{}
		for oid, o := range b.pending {
			if o.k == e.k {
				delete(b.pending, oid)
				o.ans <- outcome{a: Answer{Approved: true, By: ByAlways}}
			}
		}
	}
	b.mu.Unlock()
	b.notify()
	return nil
}

// Pending lists the calls waiting, oldest first.
func (b *Broker) Pending() []Pending {
	if b.shared != nil {
		return b.sharedList()
	}
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
	list := b.Pending()
	b.mu.Lock()
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

// changed tells the subscribers (of every replica, when shared) that the
// list changed.
func (b *Broker) changed() {
	if b.shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		err := b.shared.Publish(ctx, Message{})
		cancel()
		if err == nil {
			return // heard back, and notified then
		}
		b.logf("approvals: telling the other replicas the list changed: %v", err)
	}
	b.notify()
}
