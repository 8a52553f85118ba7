package teamstate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/approval"
	"github.com/mcp-router/mcp-router/backend/teamstate"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// sharedBroker is one replica's approval broker, sharing through url.
func sharedBroker(t *testing.T, url string) *approval.Broker {
	t.Helper()
	b := approval.New()
	stop, err := b.Share(teamstate.NewApprovals(client(t, url)), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return b
}

type asked struct {
	a   approval.Answer
	err error
}

func ask(b *approval.Broker, ctx context.Context, r approval.Request) chan asked {
	ch := make(chan asked, 1)
	go func() { a, err := b.Ask(ctx, r); ch <- asked{a, err} }()
	return ch
}

func pendingOn(t *testing.T, b *approval.Broker, n int) []approval.Pending {
	t.Helper()
	var l []approval.Pending
	testpeers.Eventually(t, 5*time.Second, "pending approvals listed", func() bool { l = b.Pending(); return len(l) == n })
	return l
}

func answer(t *testing.T, ch chan asked) asked {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting call was not released")
	}
	return asked{}
}

var rm = approval.Request{Rule: "guard", Client: "claude", Server: "fs", Tool: "rm", Target: "fs__rm", Arguments: json.RawMessage(`{"path":"/x"}`)}

// A UI attached to replica A lists the call waiting on replica B and
// decides it; B's call is released with the answer. On the old code B,
// with no UI of its own, asked nobody (ErrNoUI) and A listed nothing.
func TestApprovalDecidedOnAnotherReplica(t *testing.T) {
	url := testpeers.StartRedis(t)
	a, b := sharedBroker(t, url), sharedBroker(t, url)
	defer a.AttachUI()()
	for _, d := range []approval.Decision{approval.Approve, approval.Deny} {
		got := ask(b, context.Background(), rm)
		p := pendingOn(t, a, 1)[0]
		if p.Client != "claude" || p.Target != "fs__rm" || string(p.Arguments) != `{"path":"/x"}` {
			t.Errorf("listed on A: %+v", p)
		}
		if l := b.Pending(); len(l) != 1 || l[0].ID != p.ID {
			t.Errorf("listed on B: %+v", l)
		}
		if err := a.Decide(p.ID, d); err != nil {
			t.Fatal(err)
		}
		res := answer(t, got)
		if res.err != nil || res.a.Approved != (d == approval.Approve) || res.a.By != approval.ByUI {
			t.Errorf("%s: %+v", d, res)
		}
		pendingOn(t, a, 0)
		if err := a.Decide(p.ID, approval.Approve); !errors.Is(err, approval.ErrUnknown) {
			t.Errorf("deciding twice: %v", err)
		}
	}
}

// Always decided on A for B's call releases B's other waiting calls of the
// same tool by the same client, and B approves the next one at once.
func TestAlwaysReachesEveryReplica(t *testing.T) {
	url := testpeers.StartRedis(t)
	a, b := sharedBroker(t, url), sharedBroker(t, url)
	defer a.AttachUI()()
	first, second := ask(b, context.Background(), rm), ask(b, context.Background(), rm)
	other := ask(a, context.Background(), approval.Request{Client: "other", Server: "fs", Tool: "rm"})
	l := pendingOn(t, a, 3)
	var id string
	for _, p := range l {
		if p.Client == "claude" {
			id = p.ID
		}
	}
	if err := a.Decide(id, approval.Always); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []chan asked{first, second} {
		if res := answer(t, ch); res.err != nil || !res.a.Approved {
			t.Errorf("claude's call: %+v", res)
		}
	}
	testpeers.Eventually(t, 5*time.Second, "B to learn the always-allow", func() bool { return b.AlwaysAllowed(rm) })
	if res, err := b.Ask(context.Background(), rm); err != nil || !res.Approved || res.By != approval.ByAlways {
		t.Errorf("next call on B: %+v %v", res, err)
	}
	// The one left: decided by its own id (not l's first, whose order is
	// the listing's).
	left := pendingOn(t, b, 1)
	if left[0].Client != "other" {
		t.Errorf("left: %+v", left)
	}
	if err := b.Decide(left[0].ID, approval.Deny); err != nil {
		t.Fatal(err)
	}
	if res := answer(t, other); res.err != nil || res.a.Approved {
		t.Errorf("other's call: %+v", res)
	}
}

// A replica that dies leaves nothing pending for long: its listings
// expire (the lease, renewed while it lives). A live one's call withdrawn
// (the client cancelled) leaves the list at once.
func TestApprovalsOfADeadReplicaExpire(t *testing.T) {
	url := testpeers.StartRedis(t)
	a, b := sharedBroker(t, url), sharedBroker(t, url)
	defer a.AttachUI()()
	ctx, cancel := context.WithCancel(context.Background())
	got := ask(b, ctx, rm)
	p := pendingOn(t, a, 1)[0]
	ttl, err := client(t, url).PTTL(context.Background(), teamstate.ApprovalPrefix+p.ID).Result()
	if err != nil || ttl <= 0 || ttl > approval.Lease {
		t.Errorf("TTL of a listing: %v %v", ttl, err)
	}
	cancel()
	if res := answer(t, got); !errors.Is(res.err, context.Canceled) {
		t.Errorf("withdrawn: %+v", res)
	}
	pendingOn(t, a, 0)
	// What a replica that died left: listed until its lease runs out.
	dead := teamstate.NewApprovals(client(t, url))
	if err := dead.Put(context.Background(), approval.Pending{ID: "0123456789abcdef01234567", Client: "ghost", AskedAt: time.Now()}, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if l := a.Pending(); len(l) != 1 || l[0].Client != "ghost" {
		t.Fatalf("listed: %+v", l)
	}
	pendingOn(t, a, 0)
}

// Redis gone: a call that needs approval, on a replica without a UI of its
// own, ends at once with an error naming Redis (fail closed: the policy
// refuses it), never waits for nobody and never passes.
func TestApprovalWithRedisGone(t *testing.T) {
	rs := testpeers.StartRedisServer(t)
	a, b := sharedBroker(t, rs.URL), sharedBroker(t, rs.URL)
	defer a.AttachUI()()
	rs.Stop()
	start := time.Now()
	_, err := b.Ask(context.Background(), rm)
	if !errors.Is(err, approval.ErrShared) || !strings.Contains(err.Error(), "redis") {
		t.Errorf("err = %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	// A replica with its own UI cannot list its call for the others: the
	// same.
	if _, err := a.Ask(context.Background(), rm); !errors.Is(err, approval.ErrShared) {
		t.Errorf("on A: %v", err)
	}
	if err := a.Decide("0123456789abcdef01234567", approval.Approve); !errors.Is(err, approval.ErrShared) {
		t.Errorf("decide: %v", err)
	}
}

// Attack: an id that is not one the router made never reaches Redis as a
// key (a UI, or whatever forges a Decide, cannot claim another key or a
// pattern), and a call's huge arguments reach the other replicas clipped.
func TestApprovalIDsAndArgumentsAreBounded(t *testing.T) {
	url := testpeers.StartRedis(t)
	a, b := sharedBroker(t, url), sharedBroker(t, url)
	defer a.AttachUI()()
	huge := approval.Request{Client: "claude", Server: "fs", Tool: "write", Arguments: json.RawMessage(`{"data":"` + strings.Repeat("x", 1<<20) + `"}`)}
	got := ask(b, context.Background(), huge)
	p := pendingOn(t, a, 1)[0]
	if len(p.Arguments) > 1024 || !strings.Contains(string(p.Arguments), "over the") {
		t.Errorf("arguments as A lists them: %.200s (%d bytes)", p.Arguments, len(p.Arguments))
	}
	if l := b.Pending(); len(l) != 1 || len(l[0].Arguments) < 1<<20 {
		t.Errorf("B lists its own call's arguments clipped")
	}
	for _, id := range []string{"*", teamstate.ApprovalPrefix + p.ID, p.ID + "*", "../" + p.ID, strings.ToUpper(p.ID[:23]) + "z", strings.Repeat("a", 1<<16), ""} {
		if err := a.Decide(id, approval.Approve); !errors.Is(err, approval.ErrUnknown) {
			t.Errorf("Decide(%.40q) = %v", id, err)
		}
	}
	if l := a.Pending(); len(l) != 1 || l[0].ID != p.ID {
		t.Fatalf("after the forged ids: %+v", l)
	}
	if err := a.Decide(p.ID, approval.Deny); err != nil {
		t.Fatal(err)
	}
	if res := answer(t, got); res.a.Approved {
		t.Errorf("%+v", res)
	}
}
