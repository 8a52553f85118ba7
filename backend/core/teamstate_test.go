package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/approval"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Three routers (replicas, each its own data dir) on one Redis: a limit of
// 60 calls a minute holds across them through the endpoint, on the fast
// path and on mcp-go's; with Redis gone a limited call is refused naming
// Redis. Without Options.Redis each router would pass 60 calls of its own.
func TestRateLimitAcrossRoutersOnOneRedis(t *testing.T) {
	rs := testpeers.StartRedisServer(t)
	src := "policies:\n  - name: team-limit\n    limit: {requests_per_minute: 60, per: client}\n    match: {tools: [show]}\n"
	var calls []func(string) []byte
	for i := range 3 {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		ep := serveWith(t, dir, []spec.Server{testmcp.Server("sophia")}, true, Options{Redis: rs.URL, Replica: fmt.Sprintf("r%d", i), ClusterSecret: teamSecret})
		if ep.core.Redis == nil {
			t.Fatal("no Redis client")
		}
		calls = append(calls, httpSession(t, ep.url))
	}
	id := 100
	call := func(replica int, slow bool) []byte {
		id++
		meta := ""
		if slow { // a progress token keeps the call off the fast path
			meta = fmt.Sprintf(`,"_meta":{"progressToken":"p%d"}`, id)
		}
		return calls[replica](fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sophia__show","arguments":{}%s}}`, id, meta))
	}
	for i := range 60 {
		if b := call(i%3, i%2 == 0); !strings.Contains(string(b), `"result"`) || strings.Contains(string(b), `"error"`) {
			t.Fatalf("call %d on router %d: %s", i+1, i%3, b)
		}
	}
	for replica := range 3 {
		for _, slow := range []bool{false, true} {
			e := errorIn(t, call(replica, slow))
			ms, _ := e.Data["retryAfterMs"].(float64)
			if e.Code != pipeline.CodeRateLimited || e.Data["policy"] != "team-limit" || ms <= 0 || ms > 1000 {
				t.Errorf("61st call on router %d (slow %v): %+v", replica, slow, e)
			}
		}
	}
	rs.Stop()
	start := time.Now()
	e := errorIn(t, call(1, false))
	if e.Code != pipeline.CodeRateLimited || !strings.Contains(e.Message, "could not be checked") || !strings.Contains(e.Message, "redis") {
		t.Errorf("with Redis gone: %+v", e)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("with Redis gone the call took %v", took)
	}
}

// Two routers on one Redis: a call waiting for approval on router B is
// listed by router A, whose UI is the only one attached, and A's decision
// releases it. Without Options.Redis, B (no UI of its own, a client
// without elicitation) refused the call at once as approval_unavailable.
func TestApprovalAcrossRoutersOnOneRedis(t *testing.T) {
	url := testpeers.StartRedis(t)
	src := "policies:\n  - name: guard\n    match: {tools: [show]}\n    require: {human_approval: true}\n"
	var eps []*endpoint
	for i := range 2 {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		eps = append(eps, serveWith(t, dir, []spec.Server{testmcp.Server("sophia")}, true, Options{Redis: url, Replica: fmt.Sprintf("r%d", i), ClusterSecret: teamSecret}))
	}
	defer eps[0].core.Approvals.AttachUI()()
	call := httpSession(t, eps[1].url)
	for i, d := range []approval.Decision{approval.Approve, approval.Deny} {
		got := make(chan []byte, 1)
		go func() {
			got <- call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sophia__show","arguments":{}}}`, 10+i))
		}()
		var list []approval.Pending
		testpeers.Eventually(t, 10*time.Second, "router A to list B's call", func() bool {
			list = eps[0].core.Approvals.Pending()
			return len(list) == 1
		})
		if list[0].Target != "sophia__show" || list[0].Rule != "guard" {
			t.Errorf("listed: %+v", list[0])
		}
		if err := eps[0].core.Approvals.Decide(list[0].ID, d); err != nil {
			t.Fatal(err)
		}
		var body []byte
		select {
		case body = <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("the call on B was not released")
		}
		if d == approval.Approve && (!strings.Contains(string(body), `"result"`) || strings.Contains(string(body), `"error"`)) {
			t.Errorf("approved: %s", body)
		}
		if d == approval.Deny {
			if e := errorIn(t, body); e.Code != pipeline.CodeApprovalDenied {
				t.Errorf("denied: %+v", e)
			}
		}
	}
}

// teamSecret is the cluster secret that --redis needs (backend/cluster).
var teamSecret = []byte(strings.Repeat("s", 32))
