package appapi

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// The Servers page gets a server's isolation, its per-client instances
// (client, pid, since, calls) and the suggestion to make a shared server
// that asks its clients per-client.
func TestServerViewPerClient(t *testing.T) {
	since := time.UnixMilli(1_700_000_000_000)
	st := upstream.Status{Name: "fs", State: upstream.StateRunning,
		Instances: []upstream.InstanceStatus{{ID: 2, Client: "claude-code (dev) a1b2c3", PID: 4242, Since: since, Calls: 7, State: upstream.StateRunning}}}
	v := makeView(spec.Server{Name: "fs", Transport: spec.Stdio, Command: "srv", Isolation: spec.PerClient}, st, false)
	if v.Isolation != "per-client" || len(v.Instances) != 1 || v.Instances[0] != (InstanceView{ID: 2, Client: "claude-code (dev) a1b2c3", PID: 4242,
		Since: since.UnixMilli(), Calls: 7, State: "running"}) || v.SuggestPerClient != nil {
		t.Errorf("per-client view %+v", v)
	}
	st = upstream.Status{Name: "fs", State: upstream.StateRunning, SuggestPerClient: &upstream.PerClientSuggestion{What: "roots", Clients: 2, At: since}}
	v = makeView(spec.Server{Name: "fs", Transport: spec.Stdio, Command: "srv"}, st, false)
	if v.Isolation != "shared" || v.Instances != nil || v.SuggestPerClient == nil || *v.SuggestPerClient != (PerClientSuggestionView{What: "roots", Clients: 2, At: since.UnixMilli()}) {
		t.Errorf("shared view %+v", v)
	}
}

// A lazy server's row says so (the page shows "stopped — starts on use").
func TestServerViewLazy(t *testing.T) {
	lazy := makeView(spec.Server{Name: "l", Transport: spec.Stdio, Command: "srv", Start: spec.StartLazy}, upstream.Status{State: upstream.StateStopped}, false)
	eager := makeView(spec.Server{Name: "e", Transport: spec.Stdio, Command: "srv"}, upstream.Status{State: upstream.StateStopped}, false)
	if !lazy.Lazy || eager.Lazy {
		t.Fatalf("lazy %v, eager %v", lazy.Lazy, eager.Lazy)
	}
}

// The Servers page's lazy tag follows the resolved start: a server left to
// auto is lazy once only a search profile has it (lazyWhy "search-only"),
// and a gated one is lazy because it is gated; an explicit lazy has no why.
// Before, auto did not exist and ListServers read the stored start only.
func TestServerViewAutoLazy(t *testing.T) {
	f := newFixture(t,
		spec.Server{Name: "found", Transport: spec.Stdio, Command: "srv"},
		spec.Server{Name: "locked", Transport: spec.Stdio, Command: "srv", Gate: spec.Gate{Enabled: true}},
		spec.Server{Name: "asked", Transport: spec.Stdio, Command: "srv", Start: spec.StartLazy},
		spec.Server{Name: "plain", Transport: spec.Stdio, Command: "srv"})
	if _, err := f.api.CreateProfile(ProfileView{Name: "finder", Mode: "search", Servers: []string{"found"}}); err != nil {
		t.Fatal(err)
	}
	rows, err := f.api.ListServers()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.Name] = fmt.Sprintf("%v/%s", r.Lazy, r.LazyWhy)
	}
	want := map[string]string{"found": "true/search-only", "locked": "true/gated", "asked": "true/", "plain": "false/"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("lazy/why = %v, want %v", got, want)
	}
}
