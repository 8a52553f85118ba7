package policy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// clock is a rate-limit clock the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// rig is the pipeline with the policy step of a Service, a hooks step
// that blocks what block says, and a send that counts what reaches it.
type rig struct {
	svc   *Service
	chain *pipeline.Chain
	clock *clock
	mu    sync.Mutex
	sent  []string
	block func(r *pipeline.Request) bool
}

func newRig(t testing.TB, src string) *rig {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	if src != "" {
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rg := &rig{clock: &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	rg.svc = NewService(path, Options{Now: rg.clock.Now})
	if err := rg.svc.Reload(); err != nil {
		t.Fatal(err)
	}
	hooks := pipeline.StepFunc(func(ctx context.Context, r *pipeline.Request, next pipeline.Handler) (pipeline.Result, error) {
		if rg.block != nil && rg.block(r) {
			return pipeline.Result{}, &hook.Block{Hook: "test", Phase: "pre", Message: "no"}
		}
		return next(ctx, r)
	})
	rg.chain = pipeline.New(pipeline.Steps{
		Identity: pipeline.Identity{},
		Policy:   pipeline.PolicyStep{Current: rg.svc.Current},
		Hooks:    hooks,
	}, func(ctx context.Context, r *pipeline.Request) (pipeline.Result, error) {
		if r.List == nil {
			rg.mu.Lock()
			rg.sent = append(rg.sent, r.Target)
			rg.mu.Unlock()
		}
		return pipeline.Result{Raw: []byte(`{"content":[]}`)}, nil
	})
	return rg
}

func (rg *rig) call(client, server, tool string) error {
	ctx := pipeline.WithCaller(context.Background(), pipeline.Caller{Name: client})
	_, err := rg.chain.Serve(ctx, &pipeline.Request{Method: pipeline.MethodToolsCall, Server: server, Item: tool, Target: server + "__" + tool})
	return err
}

func (rg *rig) list(client string, items ...pipeline.ListItem) []string {
	ctx := pipeline.WithCaller(context.Background(), pipeline.Caller{Name: client})
	r := &pipeline.Request{Method: pipeline.MethodToolsList, List: &pipeline.List{Items: items}}
	rg.chain.Serve(ctx, r)
	var names []string
	for _, it := range r.List.Items {
		names = append(names, it.Name)
	}
	return names
}

func tool(server, name string) pipeline.ListItem {
	return pipeline.ListItem{Server: server, Item: name, Name: server + "__" + name}
}

func routeErr(t *testing.T, err error, reason string) *pipeline.RouteError {
	t.Helper()
	var re *pipeline.RouteError
	if !errors.As(err, &re) || re.Reason != reason {
		t.Fatalf("err = %v, want a %s RouteError", err, reason)
	}
	return re
}

func seedSource(t testing.TB) string {
	b, err := os.ReadFile("testdata/seed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSeedExampleDecisions(t *testing.T) {
	rg := newRig(t, seedSource(t))
	// allowed-servers: everything not in allow is refused and hidden.
	re := routeErr(t, rg.call("local", "everything", "echo"), pipeline.ReasonDenied)
	if re.Code != pipeline.CodeDenied || re.Data()["policy"] != "allowed-servers" || re.Server != "everything" {
		t.Errorf("denial %+v data %v", re, re.Data())
	}
	if got := rg.list("local", tool("everything", "echo"), tool("sophia", "search"), tool("sophia", "delete_note")); fmt.Sprint(got) != "[sophia__search sophia__delete_note]" {
		t.Errorf("listed %v", got)
	}
	// destructive-operations-guard: a delete_* call needs a person.
	re = routeErr(t, rg.call("local", "sophia", "delete_note"), pipeline.ReasonApprovalUnavailable)
	if re.Data()["policy"] != "destructive-operations-guard" {
		t.Errorf("approval refusal names %v", re.Data()["policy"])
	}
	// rate-limit: 60 a minute per client and tool; the 61st waits ~1 s.
	for i := range 60 {
		if err := rg.call("local", "sophia", "search"); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	re = routeErr(t, rg.call("local", "sophia", "search"), pipeline.ReasonRateLimited)
	if ms, _ := re.Data()["retryAfterMs"].(int64); ms < 900 || ms > 1000 {
		t.Errorf("retryAfterMs = %v", re.Data()["retryAfterMs"])
	}
	if re.Code != pipeline.CodeRateLimited || !strings.Contains(re.Error(), `rate limited by policy "rate-limit"`) {
		t.Errorf("rate limit error %q", re.Error())
	}
	// Another client, and another tool, have buckets of their own.
	if err := rg.call("other", "sophia", "search"); err != nil {
		t.Errorf("another client: %v", err)
	}
	if err := rg.call("local", "sophia", "read"); err != nil {
		t.Errorf("another tool: %v", err)
	}
	// A second later one token is back.
	rg.clock.Add(time.Second)
	if err := rg.call("local", "sophia", "search"); err != nil {
		t.Errorf("after a second: %v", err)
	}
	routeErr(t, rg.call("local", "sophia", "search"), pipeline.ReasonRateLimited)
	if len(rg.sent) != 63 {
		t.Errorf("%d calls reached the upstream, want 63: %v", len(rg.sent), rg.sent[60:])
	}
}

func TestMatchByClientsServersAndRouterName(t *testing.T) {
	rg := newRig(t, `
policies:
  - name: ci-cannot-write
    match:
      clients: ["ci-*"]
      tools: ["*__write_*"]
    tools: {hide: ["*"]}
  - name: only-github-for-bots
    match: {clients: ["bot"]}
    servers: {allow: ["github"]}
  - name: hide-debug
    match: {servers: ["everything"]}
    tools: {hide: ["debug_*"]}
`)
	routeErr(t, rg.call("ci-nightly", "fs", "write_file"), pipeline.ReasonDenied)
	if err := rg.call("alice", "fs", "write_file"); err != nil {
		t.Errorf("alice: %v", err)
	}
	if err := rg.call("ci-nightly", "fs", "read_file"); err != nil {
		t.Errorf("ci read: %v", err)
	}
	routeErr(t, rg.call("bot", "fs", "read_file"), pipeline.ReasonDenied)
	if err := rg.call("bot", "github", "search"); err != nil {
		t.Errorf("bot on github: %v", err)
	}
	routeErr(t, rg.call("alice", "everything", "debug_dump"), pipeline.ReasonDenied)
	if err := rg.call("alice", "other", "debug_dump"); err != nil {
		t.Errorf("debug_ of another server: %v", err)
	}
	items := []pipeline.ListItem{tool("fs", "write_file"), tool("fs", "read_file"), tool("github", "search"), tool("everything", "debug_dump"), tool("everything", "echo")}
	if got := fmt.Sprint(rg.list("ci-x", items...)); got != "[fs__read_file github__search everything__echo]" {
		t.Errorf("ci-x sees %v", got)
	}
	if got := fmt.Sprint(rg.list("bot", items...)); got != "[github__search]" {
		t.Errorf("bot sees %v", got)
	}
	// A JWT's subject matches clients too.
	ctx := pipeline.WithCaller(context.Background(), pipeline.Caller{Name: "jwt", Subject: "ci-runner"})
	_, err := rg.chain.Serve(ctx, &pipeline.Request{Method: pipeline.MethodToolsCall, Server: "fs", Item: "write_x", Target: "fs__write_x"})
	routeErr(t, err, pipeline.ReasonDenied)
}

// Prompts, resources and setLevel of a denied server are refused and
// unlisted; tool rules leave them alone.
func TestServerDenialCoversEveryMethod(t *testing.T) {
	rg := newRig(t, "policies:\n  - name: no-fs\n    servers: {deny: [fs]}\n  - name: h\n    tools: {hide: ['*']}\n")
	ctx := context.Background()
	_, err := rg.chain.Serve(ctx, &pipeline.Request{Method: pipeline.MethodPromptsGet, Server: "fs", Item: "p", Target: "fs__p"})
	routeErr(t, err, pipeline.ReasonDenied)
	if _, err := rg.chain.Serve(ctx, &pipeline.Request{Method: pipeline.MethodPromptsGet, Server: "gh", Item: "p", Target: "gh__p"}); err != nil {
		t.Errorf("prompt of an allowed server with every tool hidden: %v", err)
	}
	r := &pipeline.Request{Method: pipeline.MethodSetLevel, List: &pipeline.List{Items: []pipeline.ListItem{{Server: "fs"}, {Server: "gh"}}}}
	rg.chain.Serve(ctx, r)
	if len(r.List.Items) != 1 || r.List.Items[0].Server != "gh" {
		t.Errorf("setLevel goes to %v", r.List.Items)
	}
}

// A call a later step refuses spends no token; a bucket survives a reload
// that leaves its rule alone and starts afresh when the rule changes.
func TestTokensAndReloads(t *testing.T) {
	src := "policies:\n  - name: lim\n    limit: {requests_per_minute: 2, per: client}\n"
	rg := newRig(t, src)
	rg.block = func(r *pipeline.Request) bool { return r.Item == "blocked" }
	for range 5 {
		var b *hook.Block
		if err := rg.call("a", "s", "blocked"); !errors.As(err, &b) {
			t.Fatalf("blocked call: %v", err)
		}
	}
	if err := rg.call("a", "s", "x"); err != nil {
		t.Fatalf("first call after 5 blocked ones: %v", err)
	}
	// Reload the same rule (the file rewritten with a comment): the
	// bucket keeps its state.
	if err := os.WriteFile(rg.svc.Path(), []byte("# same rule\n"+src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := rg.svc.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := rg.call("a", "s", "y"); err != nil {
		t.Fatal(err)
	}
	routeErr(t, rg.call("a", "s", "z"), pipeline.ReasonRateLimited)
	// per: client counts every tool together; another client is apart.
	if err := rg.call("b", "s", "z"); err != nil {
		t.Fatal(err)
	}
	// A changed rule starts with full buckets.
	if err := os.WriteFile(rg.svc.Path(), []byte("policies:\n  - name: lim\n    limit: {requests_per_minute: 3, per: client}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := rg.svc.Reload(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := rg.call("a", "s", "z"); err != nil {
			t.Fatalf("call %d under the changed rule: %v", i+1, err)
		}
	}
	routeErr(t, rg.call("a", "s", "z"), pipeline.ReasonRateLimited)
}

// A call two limits cover passes only when both have a token, and spends
// from neither when one is empty.
func TestTwoLimitsAllOrNothing(t *testing.T) {
	rg := newRig(t, `
policies:
  - name: per-server
    limit: {requests_per_minute: 3, per: server}
  - name: per-tool
    match: {tools: [hot]}
    limit: {requests_per_minute: 1, per: tool}
`)
	if err := rg.call("a", "s", "hot"); err != nil {
		t.Fatal(err)
	}
	re := routeErr(t, rg.call("a", "s", "hot"), pipeline.ReasonRateLimited)
	if re.Data()["policy"] != "per-tool" {
		t.Errorf("refused by %v", re.Data()["policy"])
	}
	// per-server still has 2 tokens: the refused call spent none.
	for i := range 2 {
		if err := rg.call("a", "s", "cold"); err != nil {
			t.Fatalf("cold %d: %v", i+1, err)
		}
	}
	routeErr(t, rg.call("a", "s", "cold"), pipeline.ReasonRateLimited)
}

// Concurrent calls never pass more than the burst.
func TestLimitUnderConcurrency(t *testing.T) {
	rg := newRig(t, "policies:\n  - name: lim\n    limit: {requests_per_minute: 10}\n")
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); rg.call("a", "s", "t") }()
	}
	wg.Wait()
	if len(rg.sent) != 10 {
		t.Errorf("%d calls passed a limit of 10", len(rg.sent))
	}
}

func TestServiceKeepsTheLastGoodPolicy(t *testing.T) {
	rg := newRig(t, "policies:\n  - name: no-fs\n    servers: {deny: [fs]}\n")
	routeErr(t, rg.call("a", "fs", "t"), pipeline.ReasonDenied)
	if err := os.WriteFile(rg.svc.Path(), []byte("policies:\n  - name: no-fs\n    servers: {deny: [fs]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err := rg.svc.Poll()
	var fe *FileError
	if !changed || !errors.As(err, &fe) || fe.Problems[0].Line == 0 {
		t.Fatalf("poll: %v %v", changed, err)
	}
	st := rg.svc.Status()
	if !st.Active || st.Error == nil || st.Rules != 1 {
		t.Errorf("status %+v", st)
	}
	routeErr(t, rg.call("a", "fs", "t"), pipeline.ReasonDenied) // still in force
	// Polling again does not reload nor log again.
	if changed, _ := rg.svc.Poll(); changed {
		t.Error("an unchanged bad file counted as a change")
	}
	// Fixed: the new policy applies to the next request.
	if err := os.WriteFile(rg.svc.Path(), []byte("policies:\n  - name: no-gh\n    servers: {deny: [gh]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if changed, err := rg.svc.Poll(); !changed || err != nil {
		t.Fatalf("poll: %v %v", changed, err)
	}
	if err := rg.call("a", "fs", "t"); err != nil {
		t.Error(err)
	}
	routeErr(t, rg.call("a", "gh", "t"), pipeline.ReasonDenied)
	if st := rg.svc.Status(); st.Error != nil {
		t.Errorf("error kept after a good load: %+v", st.Error)
	}
	// Removed: no policy.
	os.Remove(rg.svc.Path())
	if changed, _ := rg.svc.Poll(); !changed {
		t.Error("removal not seen")
	}
	if err := rg.call("a", "gh", "t"); err != nil || rg.svc.Current() != nil {
		t.Errorf("after removal: %v, current %v", err, rg.svc.Current())
	}
}

func TestSaveRefusesABadFileAndWritesNothing(t *testing.T) {
	rg := newRig(t, "policies:\n  - name: no-fs\n    servers: {deny: [fs]}\n")
	before, _ := rg.svc.Source()
	if err := rg.svc.Save([]byte("policies:\n  - name: x\n    nope: 1\n")); err == nil {
		t.Fatal("saved a bad file")
	}
	if after, _ := rg.svc.Source(); after != before {
		t.Errorf("file changed to %q", after)
	}
	if err := rg.svc.Save([]byte("policies:\n  - name: no-gh\n    servers: {deny: [gh]}\n")); err != nil {
		t.Fatal(err)
	}
	routeErr(t, rg.call("a", "gh", "t"), pipeline.ReasonDenied)
}

func TestExplain(t *testing.T) {
	p, err := Parse([]byte(seedSource(t)))
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Explain(Query{Client: "local", Server: "sophia", Tool: "delete_note", Target: "sophia__delete_note"})
	if ex.Decision != "approval" || ex.Rule != "destructive-operations-guard" || !ex.Audit || len(ex.Matches) != 3 || !ex.Listed {
		t.Errorf("delete_note: %+v", ex)
	}
	ex = p.Explain(Query{Client: "local", Server: "everything", Tool: "echo", Target: "everything__echo"})
	if ex.Decision != "deny" || ex.Rule != "allowed-servers" || ex.Listed {
		t.Errorf("everything: %+v", ex)
	}
	ex = p.Explain(Query{Client: "local", Server: "sophia", Tool: "search", Target: "sophia__search"})
	if ex.Decision != "limit" || ex.Audit {
		t.Errorf("search: %+v", ex)
	}
}

func TestChangedIsCalledWhenThePolicyInForceChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	calls := 0
	svc := NewService(path, Options{Changed: func() { calls++ }})
	if err := svc.Reload(); err != nil || calls != 0 {
		t.Fatalf("no file: %v, %d calls", err, calls)
	}
	write := func(src string) {
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("policies:\n  - name: a\n    tools: {hide: [x]}\n")
	svc.Poll()
	if calls != 1 {
		t.Errorf("after a load: %d calls", calls)
	}
	write("policies: [\n")
	svc.Poll()
	if calls != 1 {
		t.Errorf("a bad file changed nothing, yet %d calls", calls)
	}
	if err := svc.Save([]byte("policies:\n  - name: b\n    tools: {hide: [y]}\n")); err != nil || calls != 2 {
		t.Errorf("after a save: %v, %d calls", err, calls)
	}
	os.Remove(path)
	svc.Poll()
	if calls != 3 {
		t.Errorf("after removal: %d calls", calls)
	}
}

// Audit rules record each matching call as it ended: sent, refused by
// the policy, refused by a hook; other calls are not recorded.
func TestAuditRecords(t *testing.T) {
	rg := newRig(t, `
policies:
  - name: audit-deletes
    match: {tools: ["delete_*"]}
    require: {log_level: audit}
  - name: no-secret
    servers: {deny: [secret]}
`)
	var mu sync.Mutex
	var recs []AuditRecord
	rg.svc.o.Audit = func(_ context.Context, r AuditRecord) error {
		mu.Lock()
		recs = append(recs, r)
		mu.Unlock()
		return nil
	}
	if err := rg.svc.Reload(); err != nil {
		t.Fatal(err)
	}
	rg.block = func(r *pipeline.Request) bool { return r.Server == "hooked" }
	ctx := pipeline.WithCaller(context.Background(), pipeline.Caller{Name: "claude", Subject: "sub"})
	rg.chain.Serve(ctx, &pipeline.Request{Method: pipeline.MethodToolsCall, Server: "fs", Item: "delete_file", Target: "fs__delete_file", Args: []byte(`{"path":"/x"}`)})
	rg.call("claude", "secret", "delete_all")
	rg.call("claude", "hooked", "delete_it")
	rg.call("claude", "fs", "read_file")
	if len(recs) != 3 {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	if r := recs[0]; r.Status != "ok" || string(r.Arguments) != `{"path":"/x"}` || string(r.Result) != `{"content":[]}` || r.Subject != "sub" ||
		r.Policies[0] != "audit-deletes" || r.Tool != "delete_file" || r.Target != "fs__delete_file" {
		t.Errorf("sent: %+v", r)
	}
	if r := recs[1]; r.Status != "blocked" || !strings.Contains(r.Error, `denied by policy "no-secret"`) {
		t.Errorf("denied: %+v", r)
	}
	if r := recs[2]; r.Status != "blocked" || !strings.Contains(r.Error, "blocked by hook") {
		t.Errorf("hook: %+v", r)
	}
}

// Many callers (JWT subjects) do not grow a rule's buckets for ever: full
// buckets are swept out, spent ones kept.
func TestBucketsAreBounded(t *testing.T) {
	rg := newRig(t, "policies:\n  - name: lim\n    limit: {requests_per_minute: 1, per: client}\n")
	// The spent bucket of "first" must survive the sweeps.
	if err := rg.call("first", "s", "t"); err != nil {
		t.Fatal(err)
	}
	b := rg.svc.Policy().rules[0].buckets
	for i := range 3 * maxBuckets {
		// A caller that is checked but never sent (refused later) leaves
		// a full bucket behind.
		b.wait(fmt.Sprint("probe-", i), rg.clock.Now())
	}
	if n := b.size(); n > maxBuckets {
		t.Errorf("%d buckets kept", n)
	}
	routeErr(t, rg.call("first", "s", "t"), pipeline.ReasonRateLimited)
}

// A human_approval rule asks (Options.Ask) and the answer decides; a
// timeout, a client cancelling and nobody to ask each refuse in their own
// words; a call the policy refuses anyway never bothers a person.
func TestApproval(t *testing.T) {
	rg := newRig(t, `
policies:
  - name: guard
    match: {tools: ["delete_*"]}
    require: {human_approval: true, approval_timeout_seconds: 1}
  - name: no-secret
    servers: {deny: [secret]}
`)
	var mu sync.Mutex
	var asked []Approval
	answer := func(ctx context.Context, a Approval) (Answer, error) {
		return Answer{Approved: true, By: "tester"}, nil
	}
	rg.svc.o.Ask = func(ctx context.Context, a Approval) (Answer, error) {
		mu.Lock()
		asked = append(asked, a)
		mu.Unlock()
		return answer(ctx, a)
	}
	if err := rg.svc.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := rg.call("claude", "fs", "delete_file"); err != nil || len(rg.sent) != 1 {
		t.Fatalf("approved: %v, %d sent", err, len(rg.sent))
	}
	if a := asked[0]; a.Rule != "guard" || a.Client != "claude" || a.Target != "fs__delete_file" || a.Tool != "delete_file" {
		t.Errorf("asked %+v", a)
	}
	answer = func(context.Context, Approval) (Answer, error) { return Answer{Approved: false, By: "tester"}, nil }
	re := routeErr(t, rg.call("claude", "fs", "delete_file"), pipeline.ReasonApprovalDenied)
	if re.Code != pipeline.CodeApprovalDenied || re.Data()["decidedBy"] != "tester" || !strings.Contains(re.Error(), "denied by tester") {
		t.Errorf("denied: %v %v", re, re.Data())
	}
	answer = func(ctx context.Context, _ Approval) (Answer, error) { <-ctx.Done(); return Answer{}, ctx.Err() }
	re = routeErr(t, rg.call("claude", "fs", "delete_file"), pipeline.ReasonApprovalTimeout)
	if re.Code != pipeline.CodeApprovalTimeout || !strings.Contains(re.Error(), "within 1s") {
		t.Errorf("timeout: %v", re)
	}
	// The client cancels while the person thinks: withdrawn, reported as
	// cancelled.
	ctx, cancel := context.WithCancel(pipeline.WithCaller(context.Background(), pipeline.Caller{Name: "claude"}))
	answer = func(actx context.Context, _ Approval) (Answer, error) {
		cancel()
		<-actx.Done()
		return Answer{}, actx.Err()
	}
	_, err := rg.chain.Serve(ctx, &pipeline.Request{Method: pipeline.MethodToolsCall, Server: "fs", Item: "delete_x", Target: "fs__delete_x"})
	routeErr(t, err, pipeline.ReasonCancelled)
	answer = func(context.Context, Approval) (Answer, error) { return Answer{}, ErrCannotAsk }
	routeErr(t, rg.call("claude", "fs", "delete_file"), pipeline.ReasonApprovalUnavailable)
	// The UI asked went away and the client cannot be asked: unavailable,
	// saying why.
	answer = func(context.Context, Approval) (Answer, error) { return Answer{}, ErrUIGone }
	re = routeErr(t, rg.call("claude", "fs", "delete_file"), pipeline.ReasonApprovalUnavailable)
	if re.Code != pipeline.CodeApproval || !strings.Contains(re.Error(), "the UI that was asked went away") {
		t.Errorf("UI gone: %v", re)
	}
	// Refused anyway: nobody asked.
	n := len(asked)
	routeErr(t, rg.call("claude", "secret", "delete_all"), pipeline.ReasonDenied)
	if len(asked) != n {
		t.Error("a person was asked about a call the policy refuses anyway")
	}
	if len(rg.sent) != 1 {
		t.Errorf("%d calls sent", len(rg.sent))
	}
}

// A rule without approval_timeout_seconds waits as long as
// Options.ApprovalTimeout says (the approvalTimeoutSeconds setting), read
// at each call; a rule's own timeout wins.
func TestApprovalTimeoutFromTheSetting(t *testing.T) {
	rg := newRig(t, `
policies:
  - name: guard
    match: {tools: ["delete_*"]}
    require: {human_approval: true}
  - name: quick
    match: {tools: ["drop_*"]}
    require: {human_approval: true, approval_timeout_seconds: 5}
`)
	setting := 2 * time.Hour
	rg.svc.o.ApprovalTimeout = func() time.Duration { return setting }
	var left time.Duration
	rg.svc.o.Ask = func(ctx context.Context, a Approval) (Answer, error) {
		d, ok := ctx.Deadline()
		if !ok {
			t.Fatal("asked without a deadline")
		}
		left = time.Until(d)
		return Answer{Approved: true, By: "tester"}, nil
	}
	if err := rg.svc.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := rg.call("claude", "fs", "delete_file"); err != nil || left <= time.Hour || left > 2*time.Hour {
		t.Errorf("setting 2h: err %v, deadline in %v", err, left)
	}
	setting = 3 * time.Hour // read at each call, no reload
	if err := rg.call("claude", "fs", "delete_file"); err != nil || left <= 2*time.Hour || left > 3*time.Hour {
		t.Errorf("setting 3h: err %v, deadline in %v", err, left)
	}
	if err := rg.call("claude", "fs", "drop_table"); err != nil || left > 5*time.Second {
		t.Errorf("rule's 5s: err %v, deadline in %v", err, left)
	}
	rg.svc.o.ApprovalTimeout = nil
	if err := rg.svc.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := rg.call("claude", "fs", "delete_file"); err != nil || left > DefaultApprovalTimeout || left < DefaultApprovalTimeout-10*time.Second {
		t.Errorf("no setting: err %v, deadline in %v", err, left)
	}
}
