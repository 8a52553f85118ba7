package stategate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The worked example of docs/state-gate.md parses and does what the text
// says it does.
func TestDocsWorkedExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testpeers.RepoRoot(t), "docs", "state-gate.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "parsed by backend/stategate/docs_test.go -->\n```yaml\n")
	if !ok {
		t.Fatal("docs/state-gate.md has no marked yaml block")
	}
	src, _, _ := strings.Cut(rest, "```\n")
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := New(Options{DataDir: dir, Store: st})
	if _, err := svc.AddProcess([]byte(src), false); err != nil {
		t.Fatalf("the doc's example: %v", err)
	}
	ctx := context.Background()
	agent := Actor{Name: "agent"}
	run, err := svc.CreateRun(ctx, agent, "code-review", json.RawMessage(`{"risk":"high"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	sv, err := svc.GetState(ctx, agent, run.RunID)
	if err != nil || len(sv.MissingGuards) != 1 || sv.MissingGuards[0].GuardName != "has_patch" ||
		!strings.HasPrefix(sv.MissingGuards[0].CurrentStatus, "artifact 'diff' is missing") || sv.RequiredArtifacts[0].Status != "missing" {
		t.Fatalf("get_state: %+v (%v)", sv, err)
	}
	if err := os.MkdirAll(filepath.Join(run.Workspace, "changes"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run.Workspace, "changes", "cache.patch"), []byte("diff"), 0o600); err != nil {
		t.Fatal(err)
	}
	emit := func(a Actor, event, payload string, rev int64, key string, artifacts ...string) *EmitResponse {
		t.Helper()
		res, err := svc.Emit(ctx, a, EmitRequest{RunID: run.RunID, EventName: event, Payload: json.RawMessage(payload),
			ExpectedRevision: &rev, IdempotencyKey: key, ArtifactPaths: artifacts})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := emit(agent, "submit_for_review", `{"title":"Add the cache"}`, 0, "submit-7f3a", "changes/cache.patch"); !r.Success || r.Result.Transition.ToState != "in_review" {
		t.Fatalf("submit: %+v", r)
	}
	if r := emit(agent, "approve", "", 1, "approve-1"); r.Error == nil || r.Error.Code != CodeForbidden {
		t.Fatalf("approve by an agent: %+v", r.Error)
	}
	lead := Actor{Name: "lead-agent"}
	if r := emit(lead, "approve", "", 1, "approve-2"); r.Error == nil || r.Error.Code != CodeGuardFailed ||
		r.Error.Details.MissingGuards[0] != "reviewed_enough: review comments: 0 of 2 for a high-risk change" {
		t.Fatalf("approve before comments: %+v", r.Error)
	}
	emit(agent, "comment", `{"finding":"a"}`, 1, "c1")
	emit(agent, "comment", `{"finding":"b"}`, 2, "c2")
	if r := emit(Actor{Name: "x", Roles: []string{"reviewer"}}, "approve", "", 3, "approve-3"); !r.Success || r.Result.Transition.ToState != "approved" {
		t.Fatalf("approve after two comments: %+v", r)
	}
}
