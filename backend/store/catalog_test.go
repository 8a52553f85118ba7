package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
)

func TestCatalogSaveAndAccept(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Catalog()
		now := time.Now()
		ttl := int64(60000)
		err := r.Save(ctx, CatalogWrite{Server: "fs",
			Lists: []CatalogList{{List: "tools", Items: `[{"name":"read"}]`, TTLMs: &ttl, SeenAt: now}},
			Pins:  []ToolPin{{Tool: "read", PinnedHash: "h1", PinnedDef: `{"name":"read"}`, FirstSeenAt: now, Present: true, LastSeenAt: now}}})
		if err != nil {
			t.Fatal(err)
		}
		lists, err := r.Lists(ctx, "fs")
		if err != nil || len(lists) != 1 || lists[0].TTLMs == nil || *lists[0].TTLMs != ttl || lists[0].Items != `[{"name":"read"}]` {
			t.Fatalf("lists = %+v, %v", lists, err)
		}
		// Nothing waits: accept refuses.
		if _, err := r.Accept(ctx, "fs", "read", "", "me", now); !errors.Is(err, ErrNoPendingChange) {
			t.Fatalf("accept without a change: %v", err)
		}
		if _, err := r.Accept(ctx, "fs", "nope", "", "me", now); !errors.Is(err, ErrNotFound) {
			t.Fatalf("accept of an unknown tool: %v", err)
		}
		// The router records a change: no configuration revision moves.
		rev0, err := s.Revision(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = r.Save(ctx, CatalogWrite{Server: "fs", Pins: []ToolPin{{Tool: "read", PinnedHash: "h1", PinnedDef: `{"name":"read"}`,
			FirstSeenAt: now, Present: true, LastSeenAt: now, PendingHash: "h2", PendingDef: `{"name":"read","description":"x"}`, ChangedAt: &now}}})
		if err != nil {
			t.Fatal(err)
		}
		if rev, _ := s.Revision(ctx); rev != rev0 {
			t.Fatalf("recording a change moved the configuration revision %d -> %d", rev0, rev)
		}
		pending, err := r.Pending(ctx)
		if err != nil || len(pending) != 1 || pending[0].PendingHash != "h2" {
			t.Fatalf("pending = %+v, %v", pending, err)
		}
		// An accept of a definition other than the one waiting is refused.
		if _, err := r.Accept(ctx, "fs", "read", "h3", "me", now); !errors.Is(err, ErrNoPendingChange) {
			t.Fatalf("accept of a stale hash: %v", err)
		}
		pin, err := r.Accept(ctx, "fs", "read", "h2", "me", now)
		if err != nil || pin.PinnedHash != "h2" || pin.PendingHash != "" || pin.AcceptedBy != "me" {
			t.Fatalf("accept = %+v, %v", pin, err)
		}
		// Accepting is a configuration change: a running router (another
		// process) must see it.
		if rev, _ := s.Revision(ctx); rev == rev0 {
			t.Fatal("accepting did not move the configuration revision")
		}
		pins, _ := r.Pins(ctx, "fs")
		if len(pins) != 1 || pins[0].PinnedDef != `{"name":"read","description":"x"}` || pins[0].PendingDef != "" {
			t.Fatalf("pins after accept = %+v", pins)
		}
		if err := r.Save(ctx, CatalogWrite{Server: "fs", DeletePins: []string{"read"}}); err != nil {
			t.Fatal(err)
		}
		if pins, _ := r.Pins(ctx, ""); len(pins) != 0 {
			t.Fatalf("pins after delete = %+v", pins)
		}
	})
}

func TestServerToolChangesColumn(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		if _, err := s.Servers().Create(ctx, spec.Server{Name: "a", Command: "x", ToolChanges: spec.ToolChangesHold}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Servers().Get(ctx, "a")
		if err != nil || got.ToolChanges != spec.ToolChangesHold {
			t.Fatalf("server = %+v, %v", got.Server, err)
		}
		if _, err := s.Servers().Create(ctx, spec.Server{Name: "b", Command: "x", ToolChanges: "ignore"}); !errors.Is(err, spec.ErrInvalid) {
			t.Fatalf("a bad toolChanges was accepted: %v", err)
		}
	})
}
