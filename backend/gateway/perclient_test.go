package gateway

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Issue 26, item 2: a per-client stdio upstream. Two clients call it at
// once, 30 rounds of each kind; each client's instance asks its own client,
// and is answered, although two clients are in flight (a shared stdio
// upstream is refused then: TestAStdioUpstreamsRequestWithTwoClientsInFlightIsRefused).
// The request log names the instance; a client's session ending stops its
// instance and leaves the other's.
func TestPerClientStdioUpstreamAsksOnlyItsOwnClient(t *testing.T) {
	def := askerStdio("up")
	def.Isolation = spec.PerClient
	r := newRig(t, []spec.Server{def}, rigOptions{allClientSide: true})
	who, calls := twoClients(t, r)
	for _, kind := range []string{"elicitation", "sampling", "roots"} {
		for round := 0; round < 30; round++ {
			// Each instance is a process of its own: the barrier cannot
			// span them, so each round meets alone, the two at once.
			out, errs := together(calls, map[string]any{"round": fmt.Sprint(kind, round), "together": 1, "kind": kind})
			for i, a := range who {
				want := "answer: answer from " + a.who
				if kind == "roots" {
					want = "answer: file:///projects/" + a.who
				}
				if errs[i] != nil || out[i] != want {
					t.Fatalf("%s round %d: %s got %q, %v; want %q", kind, round, a.who, out[i], errs[i], want)
				}
			}
		}
	}
	for _, a := range who {
		a.onlyOwn(t)
		if n := len(a.questions()); n != 60 {
			t.Errorf("%s was asked %d questions, want 60", a.who, n)
		}
	}
	st, err := r.ups.Status("up")
	if err != nil || len(st.Instances) != 2 || st.Instances[0].PID == st.Instances[1].PID || st.Instances[0].Calls != 90 {
		t.Fatalf("instances %+v, %v", st.Instances, err)
	}
	if st.SuggestPerClient != nil {
		t.Errorf("a per-client server is suggested per-client: %+v", st.SuggestPerClient)
	}
	instances := map[string]bool{}
	r.log.mu.Lock()
	for _, e := range r.log.entries {
		if e.Target == "up__ask" {
			instances[e.Instance] = true
		}
	}
	r.log.mu.Unlock()
	if len(instances) != 2 || instances[""] {
		t.Errorf("the log's instances: %v", instances)
	}
}

// A session that ends (DELETE) takes its instance with it; the other
// client's keeps running.
func TestPerClientInstanceEndsWithItsSession(t *testing.T) {
	def := askerStdio("up")
	def.Isolation = spec.PerClient
	r := newRig(t, []spec.Server{def}, rigOptions{allClientSide: true})
	alice := connect(t, r.url, clientOptions{})
	bob := connect(t, r.url, clientOptions{})
	for _, c := range []*client.Client{alice, bob} {
		if _, err := call(c, "up__ask", map[string]any{"kind": "sleep"}); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := r.ups.Status("up")
	if len(st.Instances) != 2 {
		t.Fatalf("instances %+v", st.Instances)
	}
	pids := []int{st.Instances[0].PID, st.Instances[1].PID}
	if err := alice.Close(); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 10*time.Second, "alice's instance to end", func() bool {
		st, _ := r.ups.Status("up")
		return len(st.Instances) == 1
	})
	st, _ = r.ups.Status("up")
	gone := pids[0]
	if st.Instances[0].PID == pids[0] {
		gone = pids[1]
	}
	testpeers.Eventually(t, 10*time.Second, "the ended instance's process to exit", func() bool { return !testpeers.ProcessAlive(gone) })
	if _, err := call(bob, "up__ask", map[string]any{"kind": "sleep"}); err != nil {
		t.Errorf("bob after alice left: %v", err)
	}
}

// A shared server that asks its client something while two clients use
// it: the Servers page (its status) and the log say so and offer
// per-client, once a minute in the log.
func TestSharedServerThatAsksIsSuggestedPerClient(t *testing.T) {
	logger, logs := logtest.NewNullLogger()
	r := newRig(t, []spec.Server{askerStdio("up")}, rigOptions{allClientSide: true, logger: logger})
	_, calls := twoClients(t, r)
	if st, _ := r.ups.Status("up"); st.SuggestPerClient != nil {
		t.Fatalf("suggested before any request: %+v", st.SuggestPerClient)
	}
	// One client alone: nothing to suggest.
	if _, err := calls[0](map[string]any{"round": "alone", "together": 1, "kind": "elicitation"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.ups.Status("up"); st.SuggestPerClient != nil {
		t.Fatalf("suggested with one client: %+v", st.SuggestPerClient)
	}
	for round := 0; round < 3; round++ {
		together(calls, map[string]any{"round": fmt.Sprint(round), "together": 2, "kind": "roots"})
	}
	st, _ := r.ups.Status("up")
	if s := st.SuggestPerClient; s == nil || s.What != "roots" || s.Clients != 2 {
		t.Fatalf("suggestion %+v", s)
	}
	hints := 0
	for _, e := range logs.AllEntries() {
		if e.Level == logrus.WarnLevel && strings.Contains(e.Message, "--isolation per-client") && e.Data["server"] == "up" {
			hints++
		}
	}
	if hints != 1 {
		t.Errorf("%d log hints, want 1 (once a minute)", hints)
	}
	// Made per-client: the suggestion goes.
	def := askerStdio("up")
	def.Isolation = spec.PerClient
	if err := r.ups.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.ups.Status("up"); st.SuggestPerClient != nil {
		t.Errorf("still suggested once per-client: %+v", st.SuggestPerClient)
	}
}

// A roots template takes the calling client's roots, asked of it as its
// instance starts; the client's notifications/roots/list_changed stops that
// instance (its next call starts it on the new roots); a client that
// declared no roots gets the template's error.
func TestPerClientRootsTemplateFollowsTheClient(t *testing.T) {
	def := askerStdio("up")
	def.Isolation = spec.PerClient
	def.Args = []string{"--root", "${client.root}"}
	r := newRig(t, []spec.Server{def}, rigOptions{allClientSide: true})
	alice := &asked{who: "alice"}
	c := connect(t, r.url, clientOptions{roots: alice, elicitation: alice})
	if _, err := call(c, "up__ask", map[string]any{"kind": "sleep"}); err != nil {
		t.Fatal(err)
	}
	if n := alice.roots.Load(); n != 1 {
		t.Fatalf("alice was asked for her roots %d times, want 1 (as her instance started)", n)
	}
	st, _ := r.ups.Status("up")
	if len(st.Instances) != 1 {
		t.Fatalf("instances %+v", st.Instances)
	}
	if err := c.RootListChanges(context.Background()); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 10*time.Second, "alice's instance to stop on her roots change", func() bool {
		st, _ := r.ups.Status("up")
		return len(st.Instances) == 0
	})
	if _, err := call(c, "up__ask", map[string]any{"kind": "sleep"}); err != nil {
		t.Fatal(err)
	}
	if n := alice.roots.Load(); n != 2 {
		t.Errorf("alice was asked for her roots %d times, want 2", n)
	}

	rootless := connect(t, r.url, clientOptions{})
	res, err := call(rootless, "up__ask", map[string]any{"kind": "sleep"})
	if err == nil && !res.IsError {
		t.Fatalf("a client without roots got %+v", res)
	}
	msg := fmt.Sprint(err)
	if res != nil {
		msg += text(res)
	}
	if !strings.Contains(msg, "${client.root}") {
		t.Errorf("a client without roots: %s", msg)
	}
}

// Stateless (2026-07-28) clients of a per-client server: one instance per
// credential and client name; an instance's question becomes its own
// client's input_required result, answered on the retry.
func TestPerClientStatelessClientsEachGetTheirOwnInstance(t *testing.T) {
	def := goEverythingUpstream(t, "goev", spec.Stdio)
	def.Isolation = spec.PerClient
	r := newRig(t, []spec.Server{def}, rigOptions{allClientSide: true, auth: headerCaller, callerFrom: callerFromHeader})
	waitTool(t, r, "goev__test_input_required_result_elicitation")
	caps := map[string]any{"elicitation": map[string]any{}}
	tool := "goev__test_input_required_result_elicitation"
	for _, who := range []string{"alice", "bob"} {
		res, e := mrtrPostAs(t, r.url, who, "tools/call", tool, map[string]any{"name": tool}, caps)
		state, _ := res["requestState"].(string)
		if e != nil || state == "" {
			t.Fatalf("%s, round 1: %v / %v", who, res, e)
		}
		var key string
		for k := range res["inputRequests"].(map[string]any) {
			key = k
		}
		name := strings.ToUpper(who[:1]) + who[1:]
		answers := map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": name}}}
		res, e = mrtrPostAs(t, r.url, who, "tools/call", tool, map[string]any{"name": tool, "requestState": state, "inputResponses": answers}, caps)
		if e != nil || !strings.Contains(fmt.Sprint(res["content"]), "Hello, "+name+"!") {
			t.Fatalf("%s's retry: %v / %v", who, res, e)
		}
	}
	st, _ := r.ups.Status("goev")
	if len(st.Instances) != 2 || st.Instances[0].PID == st.Instances[1].PID {
		t.Fatalf("instances %+v", st.Instances)
	}
	if !strings.Contains(st.Instances[0].Client, "(alice)") || !strings.Contains(st.Instances[1].Client, "(bob)") {
		t.Errorf("instance clients %q, %q", st.Instances[0].Client, st.Instances[1].Client)
	}
}
