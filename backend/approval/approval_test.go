package approval

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
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
