package stategate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-router/mcp-router/backend/store"
)

type actorKey struct{}

func as(name string, roles ...string) context.Context {
	return context.WithValue(context.Background(), actorKey{}, Actor{Name: name, Roles: roles})
}

// rig is a state_gate server over a real SQLite file, reached by an MCP
// client over mcp-go's in-process transport.
type rig struct {
	t       *testing.T
	dir     string
	st      *store.Store
	svc     *Service
	srv     *Server
	c       *client.Client
	outputs map[string]*jsonschema.Schema

	mu    sync.Mutex
	notes []mcp.JSONRPCNotification
}

func newRig(t *testing.T) *rig {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "mcp-router.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := New(Options{DataDir: dir, Store: st})
	if _, err := svc.AddProcess(readExample(t), false); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(svc, ServerOptions{ActorFrom: func(ctx context.Context) Actor {
		if a, ok := ctx.Value(actorKey{}).(Actor); ok {
			return a
		}
		return Actor{Name: "agent"}
	}})
	t.Cleanup(srv.Close)
	c, err := client.NewInProcessClient(srv.MCPServer())
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, dir: dir, st: st, svc: svc, srv: srv, c: c, outputs: map[string]*jsonschema.Schema{}}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		r.mu.Lock()
		r.notes = append(r.notes, n)
		r.mu.Unlock()
	})
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "test", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool)
		var shape struct {
			Output json.RawMessage `json:"outputSchema"`
		}
		_ = json.Unmarshal(raw, &shape)
		sch, err := compileSchema(shape.Output)
		if err != nil {
			t.Fatalf("output schema of %s: %v", tool.Name, err)
		}
		r.outputs[tool.Name] = sch
	}
	return r
}

// call calls a tool and returns its structured content, having checked it
// against the tool's output schema and against its text content.
func (r *rig) call(ctx context.Context, tool string, args any) (json.RawMessage, bool) {
	r.t.Helper()
	res, err := r.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
	if err != nil {
		r.t.Fatalf("%s: %v", tool, err)
	}
	// The text is the answer's JSON as the server wrote it (the client
	// decodes structuredContent into maps, which loses the key order).
	if len(res.Content) != 1 || res.StructuredContent == nil {
		r.t.Fatalf("%s: want one text content and structured content, got %+v", tool, res)
	}
	raw := json.RawMessage(res.Content[0].(mcp.TextContent).Text)
	var fromText any
	if err := json.Unmarshal(raw, &fromText); err != nil || !reflect.DeepEqual(fromText, res.StructuredContent) {
		r.t.Errorf("%s: text content %s differs from the structured content %v", tool, raw, res.StructuredContent)
	}
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err := r.outputs[tool].Validate(inst); err != nil {
		r.t.Errorf("%s: structured content %s does not match the output schema: %v", tool, raw, err)
	}
	return raw, res.IsError
}

func (r *rig) createRun(ctx context.Context) string {
	r.t.Helper()
	raw, isErr := r.call(ctx, "create_run", map[string]any{"process_id": "exploration-process",
		"context": map[string]any{"exploration_mode": "domain", "team_mode": "solo"}})
	if isErr {
		r.t.Fatalf("create_run: %s", raw)
	}
	var run RunInfo
	_ = json.Unmarshal(raw, &run)
	return run.RunID
}

func (r *rig) workspace(runID string) string {
	run, err := r.st.StateGate().Run(context.Background(), runID)
	if err != nil {
		r.t.Fatal(err)
	}
	return run.Workspace
}

func (r *rig) file(runID, rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.workspace(runID), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

func observation(n int) map[string]any {
	return map[string]any{"findings": "finding " + strings.Repeat("x", n), "confidence_level": "high"}
}

type emitted struct {
	EmitResponse
	raw   json.RawMessage
	isErr bool
}

func (r *rig) emit(ctx context.Context, runID, event string, payload any, rev int64, key string, artifacts ...string) emitted {
	r.t.Helper()
	args := map[string]any{"run_id": runID, "event_name": event, "expected_revision": rev, "idempotency_key": key}
	if payload != nil {
		args["payload"] = payload
	}
	if artifacts != nil {
		args["artifact_paths"] = artifacts
	}
	raw, isErr := r.call(ctx, "emit_event", args)
	var out emitted
	if err := json.Unmarshal(raw, &out.EmitResponse); err != nil {
		r.t.Fatal(err)
	}
	out.raw, out.isErr = raw, isErr
	if out.Success == isErr {
		r.t.Errorf("emit %s: success %v but isError %v", event, out.Success, isErr)
	}
	return out
}

func (r *rig) mustAccept(ctx context.Context, runID, event string, payload any, rev int64, key string, artifacts ...string) EmitResult {
	r.t.Helper()
	out := r.emit(ctx, runID, event, payload, rev, key, artifacts...)
	if !out.Success || out.Result == nil {
		r.t.Fatalf("emit %s: %s", event, out.raw)
	}
	return *out.Result
}

// The seed's examples, request by request: each answer has the seed's
// keys, in the seed's order, with the seed's types, and the values the
// seed's example process gives.
func TestSeedExamples(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	run := r.createRun(ctx)
	r.file(run, "evidence/observation-001.md", "# observation\n")
	r.file(run, "evidence/screenshots/search-test-001.png", "png")

	// One observation in: list_events, as in the seed.
	r.mustAccept(ctx, run, "submit_observation", observation(1), 0, "obs-0")
	raw, isErr := r.call(ctx, "list_events", map[string]any{"run_id": run, "include_blocked": true})
	if isErr {
		t.Fatalf("list_events: %s", raw)
	}
	got := decodeOrdered(t, raw)
	sameShape(t, "list_events", seedExample(t, "list_events.json"), got)
	var ev EventsView
	_ = json.Unmarshal(raw, &ev)
	byName := map[string]EventView{}
	for _, e := range ev.Events {
		byName[e.EventName] = e
	}
	obs, synth := byName["submit_observation"], byName["submit_synthesis"]
	if !obs.IsAllowed || obs.BlockedReason != nil || len(obs.Transitions) != 2 ||
		obs.Transitions[0].GuardStatus != GuardUnsatisfied || obs.Transitions[0].MissingRequirements[0] != "観察件数が不足 (現在: 1, 必要: 3)" ||
		obs.Transitions[1].ToState != "observe" || obs.Transitions[1].GuardStatus != GuardNone {
		t.Errorf("submit_observation: %+v", obs)
	}
	if synth.IsAllowed || synth.BlockedReason == nil || *synth.BlockedReason != "現在の状態では発行できません（synthesize 状態でのみ発行可能）" ||
		synth.Transitions[0].MissingRequirements[0] != "synthesis が必要" {
		t.Errorf("submit_synthesis: %+v", synth)
	}
	// Without include_blocked only what may be emitted now.
	raw, _ = r.call(ctx, "list_events", map[string]any{"run_id": run})
	_ = json.Unmarshal(raw, &ev)
	if len(ev.Events) != 2 || ev.Events[0].EventName != "submit_observation" || ev.Events[1].EventName != "finish_observation" {
		t.Errorf("allowed events: %s", raw)
	}

	// The seed's emit_event request, with its artifacts: accepted, and the
	// unmet guard keeps the state.
	var req map[string]any
	b, _ := os.ReadFile("testdata/seed/emit_event_request.json")
	_ = json.Unmarshal(b, &req)
	req["run_id"], req["expected_revision"] = run, 1
	raw, isErr = r.call(ctx, "emit_event", req)
	sameShape(t, "emit_event", seedExample(t, "emit_event_success.json"), decodeOrdered(t, raw))
	var res EmitResponse
	_ = json.Unmarshal(raw, &res)
	if isErr || !res.Success || !res.Result.Accepted || res.Result.NewRevision != 2 || *res.Result.Transition != (TransitionPair{"observe", "observe"}) ||
		!strings.HasPrefix(res.Result.EventID, "evt-") {
		t.Fatalf("emit_event: %s", raw)
	}
	detail, err := r.svc.Detail(ctx, Actor{}, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(detail.Artifacts) != 2 || detail.Artifacts[0].Path != "evidence/observation-001.md" || detail.Artifacts[0].Type != "observation" ||
		detail.Artifacts[0].Size != 14 || detail.Artifacts[0].SHA256 != fmt.Sprintf("%x", sha256.Sum256([]byte("# observation\n"))) ||
		detail.Artifacts[1].Path != "evidence/screenshots/search-test-001.png" || detail.Artifacts[1].Type != "observation" {
		t.Errorf("artifacts: %+v", detail.Artifacts)
	}

	// A stale revision: the seed's conflict.
	out := r.emit(ctx, run, "submit_observation", observation(2), 1, "obs-stale")
	sameShape(t, "conflict", seedExample(t, "emit_event_conflict.json"), decodeOrdered(t, out.raw))
	if out.Error.Code != CodeRevisionConflict || out.Error.Message != "Expected revision 1, but current is 2" || *out.Error.Details.CurrentRevision != 2 {
		t.Errorf("conflict: %s", out.raw)
	}

	// Two observations: finishing fails the guard, word for word the seed's.
	out = r.emit(ctx, run, "finish_observation", nil, 2, "finish-1")
	sameShape(t, "guard failed", seedExample(t, "emit_event_guard_failed.json"), decodeOrdered(t, out.raw))
	if out.Error.Code != CodeGuardFailed || len(out.Error.Details.MissingGuards) != 1 ||
		out.Error.Details.MissingGuards[0] != "has_sufficient_observations: 観察件数が不足 (現在: 2, 必要: 3)" {
		t.Errorf("guard failed: %s", out.raw)
	}

	// The third observation moves on; then synthesis, the decision, and
	// get_state in the seed's experiment state.
	if res := r.mustAccept(ctx, run, "submit_observation", observation(3), 2, "obs-3"); res.Transition.ToState != "synthesize" {
		t.Fatalf("third observation went to %s", res.Transition.ToState)
	}
	r.mustAccept(ctx, run, "submit_synthesis", map[string]any{"synthesis": "users scan the header first"}, 3, "synth-1")
	r.mustAccept(as("lead-agent"), run, "decide_experiment", nil, 4, "decide-1")
	raw, isErr = r.call(ctx, "get_state", map[string]any{"run_id": run})
	if isErr {
		t.Fatalf("get_state: %s", raw)
	}
	sameShape(t, "get_state", seedExample(t, "get_state.json"), decodeOrdered(t, raw))
	var sv StateView
	_ = json.Unmarshal(raw, &sv)
	seed := seedExample(t, "get_state.json")
	wantContext, _ := json.Marshal(map[string]any{"exploration_mode": "domain", "team_mode": "solo"})
	if sv.CurrentState != "experiment" || sv.Revision != 5 || string(sv.Context) != string(wantContext) ||
		len(sv.MissingGuards) != 1 || sv.MissingGuards[0] != (MissingGuard{"has_experiment_plan", "実験計画が必要です", "成果物 'experiment_plan' が未提出"}) ||
		len(sv.RequiredArtifacts) != 1 || sv.RequiredArtifacts[0] != (RequiredArtifact{"experiment_plan", "実験計画", "missing"}) ||
		len(sv.AllowedEvents) != 1 || sv.AllowedEvents[0].EventName != "submit_experiment_plan" ||
		string(sv.AllowedEvents[0].PayloadSchema) != `{"type":"object","required":["plan"],"properties":{"plan":{"type":"string"}}}` {
		t.Errorf("get_state: %s", raw)
	}
	if _, err := time.Parse(time.RFC3339, sv.UpdatedAt); err != nil || len(sv.UpdatedAt) != len(seed.fields["updated_at"].value.(string)) {
		t.Errorf("updated_at %q is not like the seed's", sv.UpdatedAt)
	}

	// The plan comes with the event: the guard sees it, the run moves on,
	// and the artifact is present from then on.
	r.file(run, "plans/experiment-plan.md", "plan")
	if res := r.mustAccept(ctx, run, "submit_experiment_plan", map[string]any{"plan": "A/B the search bar"}, 5, "plan-1", "plans/experiment-plan.md"); res.Transition.ToState != "run_experiment" {
		t.Fatalf("plan went to %s", res.Transition.ToState)
	}

	// The summary resource, in the seed's shape.
	rr, err := r.c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: SummaryURI(run)}})
	if err != nil {
		t.Fatal(err)
	}
	text := rr.Contents[0].(mcp.TextResourceContents)
	if text.MIMEType != "application/json" || text.URI != SummaryURI(run) {
		t.Errorf("summary contents %+v", text)
	}
	sameShape(t, "summary", seedExample(t, "summary.json"), decodeOrdered(t, []byte(text.Text)))
	var sum Summary
	_ = json.Unmarshal([]byte(text.Text), &sum)
	if sum.Revision != 6 || sum.CurrentState != "run_experiment" ||
		strings.Join(sum.Progress.CompletedStates, ",") != "observe,synthesize,decide,experiment" ||
		strings.Join(sum.Progress.RemainingStates, ",") != "done" || sum.Process.Name != "探索プロセス" {
		t.Errorf("summary %s", text.Text)
	}
}

// Each error code, from the request that earns it.
func TestErrorCodes(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	run := r.createRun(ctx)
	r.file(run, "evidence/a.md", "a")
	outside := filepath.Join(r.dir, "secret.md")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.workspace(run), "evidence", "link.md")); err != nil {
		t.Fatal(err)
	}
	r.mustAccept(ctx, run, "submit_observation", observation(1), 0, "k1", "evidence/a.md")

	type want struct {
		code    string
		message string // substring
		check   func(t *testing.T, e *Error)
	}
	emitCases := []struct {
		name string
		ctx  context.Context
		args map[string]any
		want want
	}{
		{"revision conflict", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "payload": observation(2), "expected_revision": 0, "idempotency_key": "k2"},
			want{CodeRevisionConflict, "Expected revision 0, but current is 1", func(t *testing.T, e *Error) {
				if e.Details == nil || e.Details.CurrentRevision == nil || *e.Details.CurrentRevision != 1 {
					t.Errorf("details %+v", e.Details)
				}
			}}},
		{"forbidden", as("someone", "observer"), map[string]any{"run_id": run, "event_name": "decide_experiment", "expected_revision": 1, "idempotency_key": "k3"},
			want{CodeForbidden, "someone may not emit 'decide_experiment'", nil}},
		{"guard failed", ctx, map[string]any{"run_id": run, "event_name": "finish_observation", "expected_revision": 1, "idempotency_key": "k4"},
			want{CodeGuardFailed, "Guard conditions not satisfied", func(t *testing.T, e *Error) {
				if len(e.Details.MissingGuards) != 1 || !strings.HasPrefix(e.Details.MissingGuards[0], "has_sufficient_observations: ") {
					t.Errorf("missing guards %v", e.Details.MissingGuards)
				}
			}}},
		{"unknown event", ctx, map[string]any{"run_id": run, "event_name": "dance", "expected_revision": 1, "idempotency_key": "k5"},
			want{CodeInvalidEvent, "Event 'dance' is not defined", nil}},
		{"event not valid here", ctx, map[string]any{"run_id": run, "event_name": "submit_synthesis", "expected_revision": 1, "idempotency_key": "k6"},
			want{CodeInvalidEvent, "Event 'submit_synthesis' is not valid in state 'observe'", nil}},
		{"payload missing a property", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "payload": map[string]any{"confidence_level": "high"}, "expected_revision": 1, "idempotency_key": "k7"},
			want{CodeInvalidPayload, "schema", func(t *testing.T, e *Error) {
				if len(e.Details.ValidationErrors) != 1 || e.Details.ValidationErrors[0].Path != "/payload" || !strings.Contains(e.Details.ValidationErrors[0].Message, "findings") {
					t.Errorf("validation errors %+v", e.Details.ValidationErrors)
				}
			}}},
		{"payload with a bad value", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "payload": map[string]any{"findings": "x", "confidence_level": "sure", "compared_with": []any{1}}, "expected_revision": 1, "idempotency_key": "k8"},
			want{CodeInvalidPayload, "schema", func(t *testing.T, e *Error) {
				paths := []string{}
				for _, v := range e.Details.ValidationErrors {
					paths = append(paths, v.Path)
				}
				if strings.Join(paths, " ") != "/payload/compared_with/0 /payload/confidence_level" {
					t.Errorf("validation errors %+v", e.Details.ValidationErrors)
				}
			}}},
		{"payload not an object", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "payload": []any{1}, "expected_revision": 1, "idempotency_key": "k9"},
			want{CodeInvalidPayload, "payload must be a JSON object", nil}},
		{"artifact outside the workspace", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "payload": observation(1), "expected_revision": 1, "idempotency_key": "k10", "artifact_paths": []any{"../../secret.md", outside}},
			want{CodeInvalidPayload, "Artifacts", func(t *testing.T, e *Error) {
				if len(e.Details.ValidationErrors) != 2 || !strings.Contains(e.Details.ValidationErrors[0].Message, "outside the run's workspace") ||
					e.Details.ValidationErrors[1].Path != "/artifact_paths/1" {
					t.Errorf("validation errors %+v", e.Details.ValidationErrors)
				}
			}}},
		{"artifact through a symlink", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "payload": observation(1), "expected_revision": 1, "idempotency_key": "k11", "artifact_paths": []any{"evidence/link.md"}},
			want{CodeInvalidPayload, "Artifacts", func(t *testing.T, e *Error) {
				if !strings.Contains(e.Details.ValidationErrors[0].Message, "symbolic link") {
					t.Errorf("validation errors %+v", e.Details.ValidationErrors)
				}
			}}},
		{"artifact missing", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "payload": observation(1), "expected_revision": 1, "idempotency_key": "k12", "artifact_paths": []any{"evidence/none.md"}},
			want{CodeInvalidPayload, "Artifacts", func(t *testing.T, e *Error) {
				if !strings.Contains(e.Details.ValidationErrors[0].Message, "does not exist") {
					t.Errorf("validation errors %+v", e.Details.ValidationErrors)
				}
			}}},
		{"run not found", ctx, map[string]any{"run_id": "run-nope", "event_name": "submit_observation", "expected_revision": 0, "idempotency_key": "k13"},
			want{CodeRunNotFound, "Run 'run-nope' not found", nil}},
		{"no expected_revision", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "idempotency_key": "k14"},
			want{CodeInvalidRequest, "expected_revision is required", nil}},
		{"no idempotency_key", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "expected_revision": 1},
			want{CodeInvalidRequest, "idempotency_key is required", nil}},
		{"key reused for another request", ctx, map[string]any{"run_id": run, "event_name": "submit_observation", "payload": observation(9), "expected_revision": 1, "idempotency_key": "k1"},
			want{CodeKeyReused, "already used for a different request", func(t *testing.T, e *Error) {
				if !strings.HasPrefix(e.Details.EventID, "evt-") {
					t.Errorf("details %+v", e.Details)
				}
			}}},
	}
	for _, tc := range emitCases {
		t.Run("emit_event/"+tc.name, func(t *testing.T) {
			raw, isErr := r.call(tc.ctx, "emit_event", tc.args)
			var res EmitResponse
			_ = json.Unmarshal(raw, &res)
			if !isErr || res.Success || res.Error == nil || res.Error.Code != tc.want.code || !strings.Contains(res.Error.Message, tc.want.message) {
				t.Fatalf("answer %s, want %s with %q", raw, tc.want.code, tc.want.message)
			}
			if tc.want.check != nil {
				tc.want.check(t, res.Error)
			}
		})
	}
	// Nothing above was appended.
	if ev, _ := r.st.StateGate().Events(ctx, run); len(ev) != 1 {
		t.Fatalf("%d events after refusals, want 1", len(ev))
	}

	// The replay is a success with the original result.
	first := r.mustAccept(ctx, run, "submit_observation", observation(2), 1, "k-replay")
	out := r.emit(ctx, run, "submit_observation", observation(2), 1, "k-replay")
	firstJSON, _ := json.Marshal(first)
	replayJSON, _ := json.Marshal(out.Result)
	if !out.Success || out.isErr || out.Error == nil || out.Error.Code != CodeIdempotentReplay || string(replayJSON) != string(firstJSON) {
		t.Fatalf("replay: %s", out.raw)
	}
	// Even after the run moved on, and with the expected revision the
	// client read after losing the first answer.
	r.mustAccept(ctx, run, "submit_observation", observation(3), 2, "k-next")
	out = r.emit(ctx, run, "submit_observation", observation(2), 2, "k-replay")
	if out.Error == nil || out.Error.Code != CodeIdempotentReplay || out.Result.EventID != first.EventID {
		t.Fatalf("late replay: %s", out.raw)
	}

	// The other tools' refusals, in the envelope.
	for _, tc := range []struct {
		tool string
		args map[string]any
		code string
	}{
		{"get_state", map[string]any{"run_id": "run-nope"}, CodeRunNotFound},
		{"list_events", map[string]any{"run_id": "run-nope"}, CodeRunNotFound},
		{"get_state", map[string]any{}, CodeInvalidRequest},
		{"create_run", map[string]any{"process_id": "no-such-process"}, CodeProcessNotFound},
		{"create_run", map[string]any{"process_id": "exploration-process", "context": []any{1}}, CodeInvalidRequest},
		{"create_run", map[string]any{"process_id": "exploration-process", "workspace": r.dir}, CodeForbidden},
	} {
		raw, isErr := r.call(ctx, tc.tool, tc.args)
		var res EmitResponse
		_ = json.Unmarshal(raw, &res)
		if !isErr || res.Success || res.Error == nil || res.Error.Code != tc.code {
			t.Errorf("%s %v: %s, want %s", tc.tool, tc.args, raw, tc.code)
		}
	}
	if _, err := r.c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: SummaryURI("run-nope")}}); err == nil ||
		!strings.Contains(err.Error(), "not found") {
		t.Errorf("reading a missing run's summary: %v", err)
	}
}

// A run's summary is listed, and its subscribers hear of every accepted
// event; list_changed follows new runs and listing changes.
func TestResourcesAndNotifications(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	run := r.createRun(ctx)
	tmpl, err := r.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate.Raw() != SummaryTemplate {
		t.Fatalf("templates %+v (%v)", tmpl, err)
	}
	waitFor(t, "the run listed", func() bool {
		list, err := r.c.ListResources(ctx, mcp.ListResourcesRequest{})
		return err == nil && len(list.Resources) == 1 && list.Resources[0].URI == SummaryURI(run)
	})
	waitFor(t, "list_changed for the new run", func() bool { return r.count(string(mcp.MethodNotificationResourcesListChanged), "") > 0 })
	if err := r.c.Subscribe(ctx, mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: SummaryURI(run)}}); err != nil {
		t.Fatal(err)
	}
	before := r.count(string(mcp.MethodNotificationResourcesListChanged), "")
	r.mustAccept(ctx, run, "submit_observation", observation(1), 0, "a")
	waitFor(t, "resources/updated after an event", func() bool {
		return r.count(string(mcp.MethodNotificationResourceUpdated), SummaryURI(run)) == 1
	})
	// An observation changes the artifacts count only with an artifact;
	// here the listing (state, artifacts, pending guards) stayed: no
	// list_changed.
	time.Sleep(100 * time.Millisecond)
	if n := r.count(string(mcp.MethodNotificationResourcesListChanged), ""); n != before {
		t.Errorf("list_changed sent for an event that changed no listing (%d → %d)", before, n)
	}
	r.file(run, "evidence/b.md", "b")
	r.mustAccept(ctx, run, "submit_observation", observation(2), 1, "b", "evidence/b.md")
	waitFor(t, "list_changed after a new artifact", func() bool {
		return r.count(string(mcp.MethodNotificationResourcesListChanged), "") > before
	})
	waitFor(t, "the second resources/updated", func() bool {
		return r.count(string(mcp.MethodNotificationResourceUpdated), SummaryURI(run)) == 2
	})
	if err := r.c.Unsubscribe(ctx, mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: SummaryURI(run)}}); err != nil {
		t.Fatal(err)
	}
	r.mustAccept(ctx, run, "submit_observation", observation(3), 2, "c")
	time.Sleep(150 * time.Millisecond)
	if n := r.count(string(mcp.MethodNotificationResourceUpdated), SummaryURI(run)); n != 2 {
		t.Errorf("%d resources/updated after unsubscribing, want 2", n)
	}
}

func (r *rig) count(method, uri string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, note := range r.notes {
		if note.Method == method && (uri == "" || note.Params.AdditionalFields["uri"] == uri) {
			n++
		}
	}
	return n
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A running run keeps the definition it started with when the file is
// replaced by a new version; a new run gets the new one.
func TestRunKeepsItsVersion(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	old := r.createRun(ctx)
	v2 := strings.Replace(string(readExample(t)), "version: 1.0.0", "version: 2.0.0", 1)
	// Version 2 drops the self-transition: a second observation is refused.
	v2 = strings.Replace(v2, "  - { from: observe, event: submit_observation, to: observe }\n", "", 1)
	if _, err := r.svc.AddProcess([]byte(v2), false); err == nil {
		t.Fatal("a second definition of the id was added without replace")
	}
	if _, err := r.svc.AddProcess([]byte(v2), true); err != nil {
		t.Fatal(err)
	}
	fresh := r.createRun(ctx)
	if res := r.mustAccept(ctx, old, "submit_observation", observation(1), 0, "o1"); res.Transition.ToState != "observe" {
		t.Fatalf("the old run: %+v", res)
	}
	out := r.emit(ctx, fresh, "submit_observation", observation(1), 0, "n1")
	if out.Success || out.Error.Code != CodeGuardFailed {
		t.Fatalf("the new run under version 2: %s", out.raw)
	}
	for id, want := range map[string]string{old: "1.0.0", fresh: "2.0.0"} {
		sv, err := r.svc.GetState(ctx, Actor{}, id)
		if err != nil || sv.ProcessVersion != want {
			t.Fatalf("run %s: version %q (%v), want %s", id, sv.ProcessVersion, err, want)
		}
	}
	// The file gone: the runs go on.
	if err := r.svc.RemoveProcess("exploration-process"); err != nil {
		t.Fatal(err)
	}
	r.mustAccept(ctx, old, "submit_observation", observation(2), 1, "o2")
	raw, isErr := r.call(ctx, "create_run", map[string]any{"process_id": "exploration-process"})
	if !isErr || !strings.Contains(string(raw), CodeProcessNotFound) {
		t.Fatalf("create_run of a removed process: %s", raw)
	}
}
