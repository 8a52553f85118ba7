package approval

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"
)

// waitPending waits (on the broker's own notifications, no sleeping) until
// n calls are pending, and returns them.
func waitPending(t *testing.T, b *Broker, n int) []Pending {
	t.Helper()
	ch := make(chan []Pending, 64)
	unsub := b.Subscribe(func(l []Pending) { ch <- l })
	defer unsub()
	if l := b.Pending(); len(l) == n {
		return l
	}
	for l := range ch {
		if len(l) == n {
			return l
		}
	}
	return nil
}

func TestNoUIAsksNobody(t *testing.T) {
	b := New()
	if _, err := b.Ask(context.Background(), Request{Client: "c", Tool: "t"}); !errors.Is(err, ErrNoUI) {
		t.Fatalf("no UI: %v", err)
	}
	detach := b.AttachUI()
	detach()
	detach() // twice is once
	if b.UIAttached() {
		t.Fatal("UI still attached after detach")
	}
	if _, err := b.Ask(context.Background(), Request{Client: "c", Tool: "t"}); !errors.Is(err, ErrNoUI) {
		t.Fatalf("detached UI: %v", err)
	}
}

func TestDecide(t *testing.T) {
	b := New()
	defer b.AttachUI()()
	type res struct {
		a   Answer
		err error
	}
	ask := func(r Request) chan res {
		ch := make(chan res, 1)
		go func() { a, err := b.Ask(context.Background(), r); ch <- res{a, err} }()
		return ch
	}
	r := Request{Rule: "guard", Client: "claude", Server: "fs", Tool: "rm", Target: "fs__rm", Arguments: json.RawMessage(`{"path":"/x"}`)}
	got := ask(r)
	p := waitPending(t, b, 1)[0]
	if p.Client != "claude" || p.Server != "fs" || p.Tool != "rm" || string(p.Arguments) != `{"path":"/x"}` || p.AskedAt.IsZero() {
		t.Errorf("pending %+v", p)
	}
	if err := b.Decide(p.ID, "maybe"); !errors.Is(err, ErrBadDecision) {
		t.Errorf("bad decision: %v", err)
	}
	if err := b.Decide("nope", Approve); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown id: %v", err)
	}
	if len(b.Pending()) != 1 {
		t.Fatal("a bad decision removed the pending call")
	}
	if err := b.Decide(p.ID, Deny); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g.err != nil || g.a.Approved || g.a.By != ByUI {
		t.Errorf("deny: %+v", g)
	}
	if err := b.Decide(p.ID, Approve); !errors.Is(err, ErrUnknown) {
		t.Errorf("decided twice: %v", err)
	}
	// Always answers the other pending calls of the same tool and client,
	// not those of another client, and later calls without asking.
	g1, g2 := ask(r), ask(r)
	other := r
	other.Client = "cursor"
	g3 := ask(other)
	l := waitPending(t, b, 3)
	var id, otherID string
	for _, p := range l {
		if p.Client == "claude" && id == "" {
			id = p.ID
		}
		if p.Client == "cursor" {
			otherID = p.ID
		}
	}
	if err := b.Decide(id, Always); err != nil {
		t.Fatal(err)
	}
	for _, g := range []chan res{g1, g2} {
		if x := <-g; x.err != nil || !x.a.Approved {
			t.Errorf("always: %+v", x)
		}
	}
	if l := b.Pending(); len(l) != 1 || l[0].ID != otherID {
		t.Errorf("left pending: %+v", l)
	}
	if a, err := b.Ask(context.Background(), r); err != nil || !a.Approved || a.By != ByAlways {
		t.Errorf("after always: %+v %v", a, err)
	}
	if b.AlwaysAllowed(other) {
		t.Error("always leaked to another client")
	}
	_ = b.Decide(otherID, Deny)
	<-g3
}

func TestWithdrawn(t *testing.T) {
	b := New()
	defer b.AttachUI()()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var err error
	go func() {
		defer wg.Done()
		_, err = b.Ask(ctx, Request{Client: "c", Tool: "t", Arguments: json.RawMessage("not json")})
	}()
	p := waitPending(t, b, 1)[0]
	if string(p.Arguments) != "{}" {
		t.Errorf("bad arguments shown as %s", p.Arguments)
	}
	cancel()
	wg.Wait()
	if !errors.Is(err, context.Canceled) || len(b.Pending()) != 0 {
		t.Errorf("withdrawn: %v, %d pending", err, len(b.Pending()))
	}
}

// fakeTimer replaces the grace timer: the test fires it by hand, so no
// test waits for the real Grace.
type fakeTimer struct {
	mu      sync.Mutex
	armed   []time.Duration
	fire    []func()
	stopped int
}

func withFakeTimer(b *Broker) *fakeTimer {
	ft := &fakeTimer{}
	b.afterFunc = func(d time.Duration, f func()) func() bool {
		ft.mu.Lock()
		defer ft.mu.Unlock()
		ft.armed = append(ft.armed, d)
		ft.fire = append(ft.fire, f)
		return func() bool {
			ft.mu.Lock()
			defer ft.mu.Unlock()
			ft.stopped++
			return true
		}
	}
	return ft
}

// last is the function of the timer armed last (nil: none armed).
func (ft *fakeTimer) last() func() {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if len(ft.fire) == 0 {
		return nil
	}
	return ft.fire[len(ft.fire)-1]
}

func (ft *fakeTimer) count() (armed, stopped int) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return len(ft.armed), ft.stopped
}

type asked struct {
	a   Answer
	err error
}

func askAsync(b *Broker, ctx context.Context, r Request) chan asked {
	ch := make(chan asked, 1)
	go func() { a, err := b.Ask(ctx, r); ch <- asked{a, err} }()
	return ch
}

// The last UI detaching with calls waiting arms the grace timer; when it
// runs out every waiting call ends with ErrUIGone (its asker falls back),
// leaves the list, and can no longer be decided. A UI detaching while
// another stays attached changes nothing.
func TestUIGoneEndsTheWaitingCalls(t *testing.T) {
	b := New()
	ft := withFakeTimer(b)
	detach1, detach2 := b.AttachUI(), b.AttachUI()
	g1 := askAsync(b, context.Background(), Request{Client: "a", Tool: "rm"})
	g2 := askAsync(b, context.Background(), Request{Client: "b", Tool: "rm"})
	l := waitPending(t, b, 2)
	detach1()
	if armed, _ := ft.count(); armed != 0 {
		t.Fatal("the grace timer started while a UI is still attached")
	}
	detach2()
	detach2() // twice is once
	if armed, _ := ft.count(); armed != 1 || ft.armed[0] != Grace {
		t.Fatalf("after the last UI detached: %d timers armed (%v), want one of %v", armed, ft.armed, Grace)
	}
	if len(b.Pending()) != 2 {
		t.Fatal("the calls left the list before the grace ran out")
	}
	// A new call while no UI is attached: nobody to ask here, as before.
	if _, err := b.Ask(context.Background(), Request{Client: "c", Tool: "rm"}); !errors.Is(err, ErrNoUI) {
		t.Errorf("a call during the grace: %v", err)
	}
	ft.last()()
	for _, g := range []chan asked{g1, g2} {
		if x := <-g; !errors.Is(x.err, ErrUIGone) || x.a.Approved {
			t.Errorf("a waiting call after the UI went away: %+v", x)
		}
	}
	if n := len(b.Pending()); n != 0 {
		t.Errorf("%d calls still listed", n)
	}
	for _, p := range l {
		if err := b.Decide(p.ID, Approve); !errors.Is(err, ErrUnknown) {
			t.Errorf("deciding a call that fell back: %v", err)
		}
	}
	// A UI attaching later is asked about new calls as usual.
	defer b.AttachUI()()
	g := askAsync(b, context.Background(), Request{Client: "a", Tool: "rm"})
	if err := b.Decide(waitPending(t, b, 1)[0].ID, Approve); err != nil {
		t.Fatal(err)
	}
	if x := <-g; x.err != nil || !x.a.Approved || x.a.By != ByUI {
		t.Errorf("after a UI attached again: %+v", x)
	}
}

// A UI attaching within the grace (a page reload) keeps the waiting calls:
// the timer is stopped, and even one that fires late ends nothing. The
// last UI detaching with no call waiting arms no timer.
func TestUIReattachedWithinGraceKeepsTheCalls(t *testing.T) {
	b := New()
	ft := withFakeTimer(b)
	detach := b.AttachUI()
	g := askAsync(b, context.Background(), Request{Client: "a", Tool: "rm"})
	p := waitPending(t, b, 1)[0]
	detach()
	stale := ft.last()
	if stale == nil {
		t.Fatal("no grace timer after the last UI detached with a call waiting")
	}
	detach = b.AttachUI()
	if _, stopped := ft.count(); stopped != 1 {
		t.Errorf("the grace timer was stopped %d times, want 1", stopped)
	}
	stale() // fired in the same instant as it was stopped
	select {
	case x := <-g:
		t.Fatalf("the call ended although a UI came back: %+v", x)
	default:
	}
	if l := b.Pending(); len(l) != 1 || l[0].ID != p.ID {
		t.Fatalf("the list after the UI came back: %+v", l)
	}
	if err := b.Decide(p.ID, Deny); err != nil {
		t.Fatal(err)
	}
	if x := <-g; x.err != nil || x.a.Approved || x.a.By != ByUI {
		t.Errorf("decided in the UI that came back: %+v", x)
	}
	detach()
	if armed, _ := ft.count(); armed != 1 {
		t.Errorf("%d grace timers armed, want 1 (none without a waiting call)", armed)
	}
}

// The UI deciding, the grace running out and the client withdrawing the
// call in the same instant: each call ends exactly once, and a decision
// the caller did not get is not reported as taken. Run with -race.
func TestNoDoubleDecision(t *testing.T) {
	b := New()
	ft := withFakeTimer(b)
	for i := range 200 {
		detach := b.AttachUI()
		ctx, cancel := context.WithCancel(context.Background())
		g := askAsync(b, ctx, Request{Client: "a", Tool: "rm"})
		p := waitPending(t, b, 1)[0]
		detach()
		fire := ft.last()
		var wg sync.WaitGroup
		var decideErr error
		wg.Add(2)
		go func() { defer wg.Done(); decideErr = b.Decide(p.ID, Approve) }()
		go func() { defer wg.Done(); fire() }()
		if i%3 == 0 {
			cancel()
		}
		wg.Wait()
		x := <-g
		switch {
		case decideErr == nil && x.err == nil:
			if !x.a.Approved || x.a.By != ByUI {
				t.Fatalf("round %d: decided in the UI but got %+v", i, x)
			}
		case decideErr == nil && errors.Is(x.err, context.Canceled):
			// Decided as the client withdrew the call: it does not run.
		case errors.Is(decideErr, ErrUnknown) && (errors.Is(x.err, ErrUIGone) || errors.Is(x.err, context.Canceled)):
		default:
			t.Fatalf("round %d: decide %v, call %+v", i, decideErr, x)
		}
		cancel()
		if n := len(b.Pending()); n != 0 {
			t.Fatalf("round %d: %d calls left", i, n)
		}
	}
}

// AskAlongside (a call whose client is asked at the same time) is listed
// with no UI attached, so a UI opened later shows it and decides it; it
// outlives the last UI detaching (the client is still being asked); it is
// withdrawn when its context ends (the client answered first); and an
// always-allowed call is approved at once. Ask, with no UI, lists nothing.
func TestAskAlongsideIsListedWithoutAUI(t *testing.T) {
	b := New()
	ft := withFakeTimer(b)
	g := make(chan asked, 1)
	go func() {
		a, err := b.AskAlongside(context.Background(), Request{Client: "a", Tool: "rm"})
		g <- asked{a, err}
	}()
	p := waitPending(t, b, 1)[0]
	// A UI comes and goes: the grace timer's end does not end the call.
	detach := b.AttachUI()
	detach()
	if armed, _ := ft.count(); armed != 1 {
		t.Fatalf("%d grace timers armed, want 1", armed)
	}
	ft.last()()
	if len(b.Pending()) != 1 {
		t.Fatal("a call asked alongside the client ended when the UI went away")
	}
	defer b.AttachUI()()
	if err := b.Decide(p.ID, Approve); err != nil {
		t.Fatal(err)
	}
	if x := <-g; x.err != nil || !x.a.Approved || x.a.By != ByUI {
		t.Fatalf("decided in a UI opened later: %+v", x)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		a, err := b.AskAlongside(ctx, Request{Client: "a", Tool: "rm"})
		g <- asked{a, err}
	}()
	p = waitPending(t, b, 1)[0]
	cancel()
	if x := <-g; !errors.Is(x.err, context.Canceled) {
		t.Fatalf("withdrawn: %+v", x)
	}
	if err := b.Decide(p.ID, Approve); !errors.Is(err, ErrUnknown) {
		t.Errorf("deciding a withdrawn call: %v", err)
	}

	go func() {
		a, err := b.AskAlongside(context.Background(), Request{Client: "a", Tool: "rm"})
		g <- asked{a, err}
	}()
	if err := b.Decide(waitPending(t, b, 1)[0].ID, Always); err != nil {
		t.Fatal(err)
	}
	<-g
	if a, err := b.AskAlongside(context.Background(), Request{Client: "a", Tool: "rm"}); err != nil || a.By != ByAlways {
		t.Errorf("always-allowed: %+v %v", a, err)
	}
}
