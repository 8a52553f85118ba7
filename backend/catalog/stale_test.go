package catalog

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/upstream"
)

// A persisted list goes stale once its ttlMs has passed since it was
// fetched (0: at once), is reported so by Lists, and is still served; a
// list without a ttlMs never goes stale, and a fresh fetch makes it fresh
// again. An upstream's ttlMs too large for a duration (9e18 ms) means "for
// ever", not an overflow into a time already past.
func TestListsGoStaleAfterTheirTTL(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	cat := New(context.Background(), Options{Store: f.st.Catalog(), Limits: func() Limits { return f.limits }, Now: clock})
	minute, zero, forever := int64(60000), int64(0), int64(math.MaxInt64)
	read := tool("read", `{"name":"read","inputSchema":{"type":"object"}}`)
	cat.Record("fs", upstream.Catalog{
		Tools:     []upstream.Tool{read},
		Prompts:   []upstream.Prompt{{Name: "hi", Raw: []byte(`{"name":"hi"}`)}},
		Resources: []upstream.Resource{{URI: "file:///a", Raw: []byte(`{"uri":"file:///a","name":"a"}`)}},
		TTLs:      upstream.ListTTLs{Tools: &minute, Prompts: &zero, Resources: &forever},
	}, allLists)
	stale := func() []string {
		t.Helper()
		l, err := cat.Lists(context.Background(), "fs")
		if err != nil || len(l.Tools) != 1 {
			t.Fatalf("lists: %+v %v", l, err)
		}
		return l.Stale
	}
	if got := stale(); !slices.Equal(got, []string{ListPrompts}) {
		t.Fatalf("just fetched: stale %v, want prompts alone (ttlMs 0)", got)
	}
	advance(59 * time.Second)
	if got := stale(); !slices.Equal(got, []string{ListPrompts}) {
		t.Fatalf("59 s on: stale %v", got)
	}
	advance(time.Second)
	if got := stale(); !slices.Equal(got, []string{ListTools, ListPrompts}) {
		t.Fatalf("a minute on: stale %v, want tools and prompts (still served)", got)
	}
	advance(100 * 365 * 24 * time.Hour)
	if got := stale(); slices.Contains(got, ListResources) || slices.Contains(got, ListResourceTemplates) {
		t.Fatalf("a century on: stale %v; resources (ttlMs 9e18) and templates (no ttlMs) never go stale", got)
	}
	cat.Record("fs", upstream.Catalog{Tools: []upstream.Tool{read}, TTLs: upstream.ListTTLs{Tools: &minute}}, []string{ListTools})
	if got := stale(); !slices.Equal(got, []string{ListPrompts}) {
		t.Fatalf("tools fetched anew: stale %v", got)
	}
}
