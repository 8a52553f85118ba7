package hook

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/store"
)

// pausingStore lets the first List read the database, then holds its
// answer until released: a reload that read before a change but would store
// after a later reload.
type pausingStore struct {
	hookStore
	read    chan struct{} // closed once the first List has read
	release chan struct{} // closed to let it return
	first   bool
}

func (p *pausingStore) List(ctx context.Context) ([]store.Hook, error) {
	rows, err := p.hookStore.List(ctx)
	if p.first {
		p.first = false
		close(p.read)
		<-p.release
	}
	return rows, err
}

func TestOverlappingReloadsEndWithTheNewestHooks(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	slow := &pausingStore{hookStore: f.svc.repo, read: make(chan struct{}), release: make(chan struct{}), first: true}
	f.svc.repo = slow

	stale := make(chan error, 1)
	go func() { stale <- f.svc.Reload(ctx) }() // reads the empty table, then waits
	<-slow.read
	if _, err := slow.hookStore.Create(ctx, store.Hook{Name: "late", HookType: store.HookPre, Script: "return;", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	fresh := make(chan error, 1)
	go func() { fresh <- f.svc.Reload(ctx) }() // reads the new hook
	// Give the second reload the chance to finish first, as it could before
	// the fix; with the fix it waits for the first one.
	select {
	case err := <-fresh:
		fresh <- err
	case <-time.After(200 * time.Millisecond):
	}
	close(slow.release)
	if err := <-stale; err != nil {
		t.Fatal(err)
	}
	if err := <-fresh; err != nil {
		t.Fatal(err)
	}
	if !f.svc.Active() {
		t.Fatal("the older reload overwrote the newer one: the added hook is not loaded")
	}
}
