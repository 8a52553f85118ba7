package appapi

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

type fakeEmitter struct {
	mu      sync.Mutex
	events  []ServerView
	removed []string
}

func (f *fakeEmitter) Emit(event string, data any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch event {
	case EventServersChanged:
		f.events = append(f.events, data.(ServerView))
	case EventServerRemoved:
		f.removed = append(f.removed, data.(string))
	}
}

func (f *fakeEmitter) removedNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.removed...)
}

func (f *fakeEmitter) states(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.events {
		if e.Name == name {
			out = append(out, e.State)
		}
	}
	return out
}

func TestListServersAndEvents(t *testing.T) {
	c, err := core.Open(t.TempDir(), core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for _, s := range []spec.Server{
		{Name: "everything", Command: testpeers.Everything(t), Args: []string{"stdio"}, Enabled: true},
		{Name: "off", URL: "http://127.0.0.1:1/mcp", Enabled: false},
	} {
		if _, err := c.Store.Servers().Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	api := New(c)
	em := &fakeEmitter{}
	api.Attach(em)
	defer api.Detach()
	if err := c.Run(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 30*time.Second, "a running event", func() bool {
		st := em.states("everything")
		return len(st) > 0 && st[len(st)-1] == "running"
	})
	views, err := api.ListServers(ctx)
	if err != nil || len(views) != 2 {
		t.Fatalf("ListServers = %v, %v", views, err)
	}
	ev, off := views[0], views[1]
	if ev.Name != "everything" || ev.State != "running" || ev.Tools == 0 || ev.Transport != "stdio" {
		t.Errorf("everything view = %+v", ev)
	}
	if off.State != "stopped" || off.Enabled || off.Target != "http://127.0.0.1:1/mcp" {
		t.Errorf("off view = %+v", off)
	}

	if err := c.Store.Servers().Delete(ctx, "off"); err != nil {
		t.Fatal(err)
	}
	if err := c.SyncServers(ctx); err != nil {
		t.Fatal(err)
	}
	if got := em.removedNames(); len(got) != 1 || got[0] != "off" {
		t.Errorf("removed events = %v", got)
	}
}
