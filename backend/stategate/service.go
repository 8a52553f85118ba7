// Package stategate is the state_gate built-in server: process definitions
// (YAML, with CEL guards and JSON Schema payloads), runs kept in the
// router's SQLite store, and the exactly-once emit_event of seed 004. The
// Service is the engine; server.go puts an MCP face on it (mcp-go), which
// the router reaches in-process like any other upstream.
package stategate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/store"
)

// ServerName is the built-in server's name among the router's servers.
const ServerName = "state_gate"

// Actor is who asks: the token's name, a JWT subject and the roles the
// caller carries. An event's roles match an actor by role name, by
// "token:NAME" or "subject:SUB", or "*" for anyone.
type Actor struct {
	Name    string
	Subject string
	Roles   []string
}

func (a Actor) label() string {
	if a.Name != "" {
		return a.Name
	}
	if a.Subject != "" {
		return "subject:" + a.Subject
	}
	return "anonymous"
}

// mayEmit reports whether the actor matches one of roles (none: anyone).
func (a Actor) mayEmit(roles []string) bool {
	if len(roles) == 0 {
		return true
	}
	for _, r := range roles {
		switch {
		case r == "*":
			return true
		case strings.HasPrefix(r, "token:"):
			if a.Name != "" && a.Name == strings.TrimPrefix(r, "token:") {
				return true
			}
		case strings.HasPrefix(r, "subject:"):
			if a.Subject != "" && a.Subject == strings.TrimPrefix(r, "subject:") {
				return true
			}
		default:
			if contains(a.Roles, r) {
				return true
			}
		}
	}
	return false
}

// Options configure the service.
type Options struct {
	DataDir   string       // processes/ and stategate/workspaces/ live here
	Store     *store.Store // runs and their history
	Logger    logrus.FieldLogger
	CostLimit uint64 // per guard evaluation; default DefaultCostLimit
	// Limits are read at every request (the router's settings); nil: the
	// defaults.
	Limits func() Limits
}

// Change tells subscribers what happened to a run.
type Change struct {
	RunID   string
	Created bool // a new run
	Event   bool // an accepted event (state, revision, artifacts, guards may have changed)
}

// Service is the state_gate engine. One per process.
type Service struct {
	o   Options
	st  store.StateGateRepo
	reg *registry
	log logrus.FieldLogger

	defMu sync.Mutex
	defs  map[string]*Process // by hash

	runLocks sync.Map // run id → *sync.Mutex: emits to one run queue here, not on SQLite's lock

	// problems are the runs found errored when listed (a guard over its
	// budget, a context that cannot be read): run id → why.
	problemMu sync.Mutex
	problems  map[string]string

	// hashSlots holds HashWorkers tokens: one per artifact being hashed.
	hashSlots chan struct{}
	// hashed, when set (tests), is told of every chunk an artifact's hash
	// reads.
	hashed func(n int)

	subMu  sync.RWMutex
	subs   map[int]func(Change)
	nextID int
}

// New builds the service over a data dir and store.
func New(o Options) *Service {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	co := CompileOptions{CostLimit: o.CostLimit}
	co.defaults()
	o.CostLimit = co.CostLimit
	return &Service{o: o, st: o.Store.StateGate(), reg: newRegistry(ProcessesDir(o.DataDir), co), log: o.Logger,
		defs: map[string]*Process{}, subs: map[int]func(Change){}, problems: map[string]string{},
		hashSlots: make(chan struct{}, HashWorkers)}
}

// limits are the caps in force now.
func (s *Service) limits() Limits {
	if s.o.Limits == nil {
		return Limits{}.withDefaults()
	}
	return s.o.Limits().withDefaults()
}

// problem records (or, with "", clears) why a run is errored.
func (s *Service) problem(runID, why string) {
	s.problemMu.Lock()
	defer s.problemMu.Unlock()
	if why == "" {
		delete(s.problems, runID)
		return
	}
	s.problems[runID] = why
}

// ProcessesDir is where definitions live.
func ProcessesDir(dataDir string) string { return filepath.Join(dataDir, "processes") }

// WorkspacesDir holds the runs' default workspaces.
func WorkspacesDir(dataDir string) string { return filepath.Join(dataDir, "stategate", "workspaces") }

// Subscribe calls fn after every change; call the returned func to stop.
func (s *Service) Subscribe(fn func(Change)) (unsubscribe func()) {
	s.subMu.Lock()
	id := s.nextID
	s.nextID++
	s.subs[id] = fn
	s.subMu.Unlock()
	return func() {
		s.subMu.Lock()
		delete(s.subs, id)
		s.subMu.Unlock()
	}
}

func (s *Service) emit(c Change) {
	s.subMu.RLock()
	fns := make([]func(Change), 0, len(s.subs))
	for _, fn := range s.subs {
		fns = append(fns, fn)
	}
	s.subMu.RUnlock()
	for _, fn := range fns {
		fn(c)
	}
}

// ---- process definitions ---------------------------------------------------

// Processes lists the definition files, each with its process or its error.
func (s *Service) Processes() ([]ProcessFile, error) { return s.reg.scan() }

// Process returns the current definition of id and its file name.
func (s *Service) Process(id string) (*Process, string, error) { return s.reg.get(id) }

// Check parses a definition without storing it.
func (s *Service) Check(src []byte) (*Process, error) {
	return Parse(src, CompileOptions{CostLimit: s.o.CostLimit})
}

// ErrProcessExists: AddProcess of an id that is there, without replace.
var ErrProcessExists = errors.New("process already exists")

// AddProcess checks a definition and writes it to processes/<id>.yaml (or
// over the file that holds the id, with replace). Nothing is written when
// the definition has a problem.
func (s *Service) AddProcess(src []byte, replace bool) (*Process, error) {
	p, err := s.Check(src)
	if err != nil {
		return nil, err
	}
	files, err := s.reg.scan()
	if err != nil {
		return nil, err
	}
	target := p.ID + ".yaml"
	for _, f := range files {
		if f.Process != nil && f.Process.ID == p.ID {
			if !replace {
				return nil, fmt.Errorf("%w: process %q is defined in %s (replace it to change it)", ErrProcessExists, p.ID, f.File)
			}
			target = f.File
		}
	}
	dir := ProcessesDir(s.o.DataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := writeFileAtomic(filepath.Join(dir, target), src); err != nil {
		return nil, err
	}
	return p, nil
}

// RemoveProcess deletes the file that defines id. Runs of it keep the
// version they started with.
func (s *Service) RemoveProcess(id string) error {
	_, file, err := s.reg.get(id)
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(ProcessesDir(s.o.DataDir), file)); err != nil {
		return fmt.Errorf("remove process %q: %w", id, err)
	}
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// definition returns the definition a run runs, by hash.
func (s *Service) definition(ctx context.Context, hash string) (*Process, error) {
	s.defMu.Lock()
	p := s.defs[hash]
	s.defMu.Unlock()
	if p != nil {
		return p, nil
	}
	d, err := s.st.Definition(ctx, hash)
	if err != nil {
		return nil, err
	}
	p, err = s.Check([]byte(d.Source))
	if err != nil {
		return nil, &loadError{fmt.Errorf("stored definition of %s %s: %w", d.ProcessID, d.Version, err)}
	}
	s.defMu.Lock()
	s.defs[hash] = p
	s.defMu.Unlock()
	return p, nil
}

// loadError: a run's stored data cannot be used (its definition as
// started no longer compiles). The run is errored, not the router.
type loadError struct{ err error }

func (e *loadError) Error() string { return e.err.Error() }
func (e *loadError) Unwrap() error { return e.err }

// ---- runs ------------------------------------------------------------------

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// CreateRun starts a run of the current definition of processID in its
// initial state. context must be a JSON object (or empty). workspace, if
// given, must be a directory inside one of the process's workspace_roots;
// otherwise the run gets its own directory under the data dir.
func (s *Service) CreateRun(ctx context.Context, actor Actor, processID string, runContext json.RawMessage, workspace string) (RunInfo, error) {
	if strings.TrimSpace(processID) == "" {
		return RunInfo{}, refuse(CodeInvalidRequest, "process_id is required")
	}
	p, _, err := s.reg.get(processID)
	if err != nil {
		return RunInfo{}, err
	}
	ctxObj, err := objectJSON(runContext, "context", s.limits().MaxContextBytes, settingContext)
	if err != nil {
		return RunInfo{}, err
	}
	id := "run-" + uuid.NewString()
	ws, err := s.workspaceFor(p, id, workspace)
	if err != nil {
		return RunInfo{}, err
	}
	now := time.Now().UTC()
	run := store.StateGateRun{ID: id, ProcessID: p.ID, ProcessVersion: p.Version, DefinitionHash: p.Hash,
		State: p.Initial().Name, Context: string(ctxObj), Workspace: ws, CreatedBy: actor.label(),
		CreatedAt: now, UpdatedAt: now}
	def := store.StateGateDefinition{Hash: p.Hash, ProcessID: p.ID, Version: p.Version, Source: string(p.Source), CreatedAt: now}
	if err := s.st.CreateRun(ctx, def, run); err != nil {
		return RunInfo{}, err
	}
	s.defMu.Lock()
	s.defs[p.Hash] = p
	s.defMu.Unlock()
	s.emit(Change{RunID: id, Created: true})
	return s.runInfo(run, s.limits()), nil
}

// workspaceFor checks (or makes) a run's workspace and returns it resolved.
func (s *Service) workspaceFor(p *Process, runID, requested string) (string, error) {
	if strings.TrimSpace(requested) == "" {
		dir := filepath.Join(WorkspacesDir(s.o.DataDir), runID)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("create the run's workspace: %w", err)
		}
		return realDir(dir)
	}
	ws, err := realDir(requested)
	if err != nil {
		return "", refuse(CodeInvalidRequest, "workspace %s: %v", requested, err)
	}
	var roots []string
	for _, r := range p.WorkspaceRoots {
		if rr, err := realDir(r); err == nil {
			roots = append(roots, rr)
			if within(rr, ws) {
				return ws, nil
			}
		}
	}
	if len(roots) == 0 {
		return "", refuse(CodeForbidden, "workspace %s is not allowed: process %s names no workspace_roots (runs get their own workspace unless the process lists where theirs may be)", requested, p.ID)
	}
	return "", refuse(CodeForbidden, "workspace %s is outside the process's workspace_roots (%s)", requested, strings.Join(roots, ", "))
}

// objectJSON checks that raw is a JSON object ({} when empty) of at most
// maxBytes when compacted and MaxJSONDepth deep, and returns it compacted.
// The size and depth are checked before anything is decoded; setting names
// the setting that raises maxBytes.
func objectJSON(raw json.RawMessage, what string, maxBytes int64, setting string) (json.RawMessage, error) {
	code := CodeInvalidRequest
	if what == "payload" {
		code = CodeInvalidPayload
	}
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return json.RawMessage("{}"), nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil || !strings.HasPrefix(t, "{") {
		return nil, refuse(code, "%s must be a JSON object", what)
	}
	if int64(compact.Len()) > maxBytes {
		return nil, refuse(code, "%s is %s, over the cap of %s (setting %s)", what, byteSize(int64(compact.Len())), byteSize(maxBytes), setting)
	}
	if d := jsonDepth(compact.Bytes()); d > MaxJSONDepth {
		return nil, refuse(code, "%s is nested %d deep, over the cap of %d (a fixed limit)", what, d, MaxJSONDepth)
	}
	var m map[string]any
	if err := json.Unmarshal(compact.Bytes(), &m); err != nil || m == nil {
		return nil, refuse(code, "%s must be a JSON object", what)
	}
	out, _ := json.Marshal(m)
	return out, nil
}

// jsonDepth is how deeply valid JSON nests objects and arrays.
func jsonDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// runInfo is a run as listed. A run whose context cannot be read (over the
// cap, not an object) is listed with an empty context and why in Error,
// as is a run found errored when it was last listed.
func (s *Service) runInfo(r store.StateGateRun, lim Limits) RunInfo {
	info := RunInfo{RunID: r.ID, ProcessID: r.ProcessID, ProcessVersion: r.ProcessVersion, CurrentState: r.State,
		Revision: r.Revision, Context: json.RawMessage(r.Context), Workspace: r.Workspace, SummaryURI: SummaryURI(r.ID),
		CreatedBy: r.CreatedBy, CreatedAt: stamp(r.CreatedAt), UpdatedAt: stamp(r.UpdatedAt)}
	if err := checkStoredContext(r.Context, lim); err != nil {
		info.Context, info.Error = json.RawMessage("{}"), err.Error()
		return info
	}
	s.problemMu.Lock()
	info.Error = s.problems[r.ID]
	s.problemMu.Unlock()
	return info
}

// checkStoredContext checks a stored run's context without decoding it:
// the caps may have been lowered since, or the row written by hand.
func checkStoredContext(raw string, l Limits) error {
	if int64(len(raw)) > l.MaxContextBytes {
		return &BudgetError{Message: fmt.Sprintf("the run's context is %s, over the cap of %s (setting %s)",
			byteSize(int64(len(raw))), byteSize(l.MaxContextBytes), settingContext)}
	}
	t := strings.TrimSpace(raw)
	if !strings.HasPrefix(t, "{") || !json.Valid([]byte(t)) {
		return errors.New("the run's stored context is not a JSON object")
	}
	if d := jsonDepth([]byte(t)); d > MaxJSONDepth {
		return &BudgetError{Message: fmt.Sprintf("the run's context is nested %d deep, over the cap of %d (a fixed limit)", d, MaxJSONDepth)}
	}
	return nil
}

// SummaryURI is the resource of a run's summary.
func SummaryURI(runID string) string { return "stategate://runs/" + runID + "/summary" }

// Runs lists runs, most recently updated first ("" for every process).
func (s *Service) Runs(ctx context.Context, processID string, limit int) ([]RunInfo, error) {
	rows, err := s.st.Runs(ctx, store.RunFilter{ProcessID: processID, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]RunInfo, 0, len(rows))
	lim := s.limits()
	for _, r := range rows {
		out = append(out, s.runInfo(r, lim))
	}
	return out, nil
}

// runData is a run with what its guards need.
type runData struct {
	run        store.StateGateRun
	p          *Process
	lim        Limits
	context    map[string]any
	contextErr error // the context could not be read: every guard fails with it
	counts     map[string]int64
	artifacts  []store.StateGateArtifact
}

func (s *Service) load(ctx context.Context, runID string) (*runData, error) {
	if strings.TrimSpace(runID) == "" {
		return nil, refuse(CodeInvalidRequest, "run_id is required")
	}
	run, err := s.st.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, refuse(CodeRunNotFound, "Run '%s' not found", runID)
	}
	if err != nil {
		return nil, err
	}
	p, err := s.definition(ctx, run.DefinitionHash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, refuse(CodeProcessNotFound, "Process '%s' version %s of run '%s' not found", run.ProcessID, run.ProcessVersion, runID)
	}
	if err != nil {
		return nil, err
	}
	d := &runData{run: run, p: p, lim: s.limits(), context: map[string]any{}}
	if d.contextErr = checkStoredContext(run.Context, d.lim); d.contextErr == nil {
		d.context = decodeObject(run.Context)
	}
	return d, nil
}

// contextJSON is the run's context as answers show it: {} when it cannot
// be read (RunInfo.Error says why).
func (d *runData) contextJSON() json.RawMessage {
	if d.contextErr != nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(d.run.Context)
}

// withHistory adds the event counts and artifacts.
func (s *Service) withHistory(ctx context.Context, d *runData) error {
	var err error
	if d.counts, err = s.st.EventCounts(ctx, d.run.ID); err != nil {
		return err
	}
	d.artifacts, err = s.st.Artifacts(ctx, d.run.ID)
	return err
}

func decodeObject(s string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil || m == nil {
		m = map[string]any{}
	}
	return normalizeJSON(m).(map[string]any)
}

// vars are a run's guard variables (with extra artifacts and payload of an
// event being emitted).
func (d *runData) vars(event string, payload map[string]any, extra []submittedArtifact) guardVars {
	v := guardVars{Context: d.context, Payload: payload, Event: event, State: d.run.State, Revision: d.run.Revision,
		Artifacts: map[string][]map[string]any{}, Events: map[string]int64{}}
	for _, a := range d.p.Artifacts {
		v.Artifacts[a.Type] = []map[string]any{}
	}
	for _, a := range d.artifacts {
		if _, ok := v.Artifacts[a.Type]; ok {
			v.Artifacts[a.Type] = append(v.Artifacts[a.Type], map[string]any{"path": a.Path, "size": a.Size, "sha256": a.SHA256})
		}
	}
	for _, a := range extra {
		if _, ok := v.Artifacts[a.Type]; ok {
			v.Artifacts[a.Type] = append(v.Artifacts[a.Type], map[string]any{"path": a.Rel, "size": a.Size, "sha256": a.SHA256})
		}
	}
	for _, e := range d.p.Events {
		v.Events[e.Name] = d.counts[e.Name]
	}
	return v
}

// checked is one transition with its guard's verdict.
type checked struct {
	t       *Transition
	status  string
	missing []string
	err     error // the guard could not be evaluated
}

func (d *runData) check(ctx context.Context, t *Transition, v guardVars) checked {
	if t.Guard == "" {
		return checked{t: t, status: GuardNone}
	}
	g := d.p.guards[t.Guard]
	if d.contextErr != nil {
		return checked{t: t, status: GuardUnsatisfied, err: d.contextErr,
			missing: []string{fmt.Sprintf("not evaluated: %v", d.contextErr)}}
	}
	ok, err := g.program.eval(ctx, v)
	if err != nil {
		// Callers put the guard's name before it.
		return checked{t: t, status: GuardUnsatisfied, err: err, missing: []string{err.Error()}}
	}
	if ok {
		return checked{t: t, status: GuardSatisfied}
	}
	return checked{t: t, status: GuardUnsatisfied, missing: []string{guardMessage(ctx, g, v)}}
}

func guardMessage(ctx context.Context, g *Guard, v guardVars) string {
	if g.Message != "" {
		return g.message.render(ctx, v)
	}
	if g.Description != "" {
		return g.Description
	}
	return g.Name
}

// GetState is get_state.
func (s *Service) GetState(ctx context.Context, actor Actor, runID string) (*StateView, error) {
	d, err := s.load(ctx, runID)
	if err != nil {
		return nil, err
	}
	if err := s.withHistory(ctx, d); err != nil {
		return nil, err
	}
	return d.state(ctx, actor), nil
}

func (d *runData) state(ctx context.Context, actor Actor) *StateView {
	sv, _ := d.stateAndProblem(ctx, actor)
	return sv
}

// stateAndProblem is state, with the first guard that could not be
// evaluated within its budget (or at all, for want of a context).
func (d *runData) stateAndProblem(ctx context.Context, actor Actor) (*StateView, error) {
	ctx, cancel := guardCtx(ctx, d.lim)
	defer cancel()
	p, cur := d.p, d.run.State
	var problem error
	sv := &StateView{RunID: d.run.ID, ProcessID: d.run.ProcessID, ProcessVersion: d.run.ProcessVersion, CurrentState: cur,
		Revision: d.run.Revision, Context: d.contextJSON(), UpdatedAt: stamp(d.run.UpdatedAt),
		MissingGuards: []MissingGuard{}, RequiredArtifacts: []RequiredArtifact{}, AllowedEvents: []AllowedEvent{}}
	seenGuard := map[string]bool{}
	for _, t := range p.Transitions {
		if !contains(t.From, cur) || t.Guard == "" || seenGuard[t.Guard] {
			continue
		}
		c := d.check(ctx, t, d.vars(t.Event, nil, nil))
		if problem == nil && c.err != nil && (overBudget(c.err) || c.err == d.contextErr) {
			problem = fmt.Errorf("guard %s: %w", t.Guard, c.err)
		}
		if c.status == GuardUnsatisfied {
			seenGuard[t.Guard] = true
			g := p.guards[t.Guard]
			sv.MissingGuards = append(sv.MissingGuards, MissingGuard{GuardName: g.Name, Description: g.Description,
				CurrentStatus: strings.Join(c.missing, "; ")})
		}
	}
	present := map[string]bool{}
	for _, a := range d.artifacts {
		present[a.Type] = true
	}
	if st, ok := p.states[cur]; ok {
		for _, t := range st.RequiredArtifacts {
			status := "missing"
			if present[t] {
				status = "present"
			}
			sv.RequiredArtifacts = append(sv.RequiredArtifacts, RequiredArtifact{Type: t, Description: p.artifacts[t].Description, Status: status})
		}
	}
	for _, e := range p.Events {
		if len(p.transitionsFrom(cur, e.Name)) == 0 || !actor.mayEmit(e.Roles) {
			continue
		}
		sv.AllowedEvents = append(sv.AllowedEvents, AllowedEvent{EventName: e.Name, Description: e.Description, PayloadSchema: e.PayloadSchema})
	}
	if problem == nil && d.contextErr != nil {
		problem = d.contextErr
	}
	return sv, problem
}

// ListEvents is list_events. Without includeBlocked only the events the
// caller may emit now are listed.
func (s *Service) ListEvents(ctx context.Context, actor Actor, runID string, includeBlocked bool) (*EventsView, error) {
	d, err := s.load(ctx, runID)
	if err != nil {
		return nil, err
	}
	if err := s.withHistory(ctx, d); err != nil {
		return nil, err
	}
	return d.events(ctx, actor, includeBlocked), nil
}

func (d *runData) events(ctx context.Context, actor Actor, includeBlocked bool) *EventsView {
	ctx, cancel := guardCtx(ctx, d.lim)
	defer cancel()
	p, cur := d.p, d.run.State
	out := &EventsView{RunID: d.run.ID, CurrentState: cur, Events: []EventView{}}
	for _, e := range p.Events {
		ts := p.transitionsFrom(cur, e.Name)
		ev := EventView{EventName: e.Name, Description: e.Description, PayloadSchema: e.PayloadSchema, Transitions: []TransitionView{}}
		var reason string
		switch {
		case len(ts) == 0:
			ts = p.transitionsOn(e.Name)
			reason = d.notHere(e.Name)
		case !actor.mayEmit(e.Roles):
			reason = p.words().forbidden(actor.label(), e.Roles)
		}
		for _, t := range ts {
			c := d.check(ctx, t, d.vars(e.Name, nil, nil))
			ev.Transitions = append(ev.Transitions, TransitionView{ToState: t.To, Guard: t.Guard, GuardStatus: c.status, MissingRequirements: c.missing})
		}
		ev.IsAllowed = reason == ""
		if !ev.IsAllowed {
			if !includeBlocked {
				continue
			}
			r := reason
			ev.BlockedReason = &r
		}
		out.Events = append(out.Events, ev)
	}
	return out
}

// notHere says why an event cannot be emitted in the current state.
func (d *runData) notHere(event string) string {
	w := d.p.words()
	if st, ok := d.p.states[d.run.State]; ok && st.Final {
		return w.finished(d.run.State)
	}
	return w.onlyIn(d.p.sourcesOf(event))
}

// ---- emit_event ----------------------------------------------------------------

// EmitRequest is emit_event's arguments.
type EmitRequest struct {
	RunID            string          `json:"run_id"`
	EventName        string          `json:"event_name"`
	Payload          json.RawMessage `json:"payload,omitempty"`
	ExpectedRevision *int64          `json:"expected_revision"`
	IdempotencyKey   string          `json:"idempotency_key"`
	ArtifactPaths    []string        `json:"artifact_paths,omitempty"`
}

// MaxKeyLength bounds an idempotency key.
const MaxKeyLength = 256

// requestHash identifies what a key stands for: the event, its payload and
// its artifacts. expected_revision is left out, so a client that re-read
// the state after a lost answer and retries with the same key gets its
// original result back.
func requestHash(name string, payload json.RawMessage, artifacts []string) string {
	var p any
	_ = json.Unmarshal(payload, &p)
	b, _ := json.Marshal(struct {
		Event     string   `json:"event"`
		Payload   any      `json:"payload"`
		Artifacts []string `json:"artifacts"`
	}{name, p, artifacts})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Emit is emit_event: exactly one event per idempotency key, appended only
// when expected_revision is the run's revision. Refusals are answers
// (success false); the error is for the router's own failures.
func (s *Service) Emit(ctx context.Context, actor Actor, req EmitRequest) (*EmitResponse, error) {
	fail := func(e *Error) (*EmitResponse, error) { return &EmitResponse{Success: false, Error: e}, nil }
	switch {
	case strings.TrimSpace(req.RunID) == "":
		return fail(refuse(CodeInvalidRequest, "run_id is required"))
	case strings.TrimSpace(req.EventName) == "":
		return fail(refuse(CodeInvalidRequest, "event_name is required"))
	case req.ExpectedRevision == nil:
		return fail(refuse(CodeInvalidRequest, "expected_revision is required: pass the revision get_state gave"))
	case *req.ExpectedRevision < 0:
		return fail(refuse(CodeInvalidRequest, "expected_revision must not be negative"))
	case strings.TrimSpace(req.IdempotencyKey) == "":
		return fail(refuse(CodeInvalidRequest, "idempotency_key is required: a unique key for this event"))
	case len(req.IdempotencyKey) > MaxKeyLength:
		return fail(refuse(CodeInvalidRequest, "idempotency_key is longer than %d bytes", MaxKeyLength))
	}
	lim := s.limits()
	payloadJSON, err := objectJSON(req.Payload, "payload", lim.MaxPayloadBytes, settingPayload)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return fail(e)
		}
		return nil, err
	}
	hash := requestHash(req.EventName, payloadJSON, req.ArtifactPaths)

	d, err := s.load(ctx, req.RunID)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return fail(e)
		}
		return nil, err
	}
	// A replay answers before anything else is checked: the state may have
	// moved on since the original was accepted.
	if prior, err := s.st.EventByKey(ctx, req.RunID, req.IdempotencyKey); err == nil {
		return replay(prior, hash)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}

	p := d.p
	ev, ok := p.events[req.EventName]
	if !ok {
		return fail(refuse(CodeInvalidEvent, "Event '%s' is not defined in process %s", req.EventName, p.ID))
	}
	if !actor.mayEmit(ev.Roles) {
		return fail(refuse(CodeForbidden, "%s may not emit '%s' (allowed: %s)", actor.label(), ev.Name, strings.Join(ev.Roles, ", ")))
	}
	payload := normalizeJSON(decodeObject(string(payloadJSON))).(map[string]any)
	if ev.schema != nil {
		if verrs := validatePayload(ev.schema, payloadJSON); len(verrs) > 0 {
			return fail(&Error{Code: CodeInvalidPayload, Message: "Payload does not match the schema of '" + ev.Name + "'",
				Details: &ErrorDetails{ValidationErrors: verrs}})
		}
	}
	var prior recorded
	if len(req.ArtifactPaths) > 0 {
		recordedArts, err := s.st.Artifacts(ctx, req.RunID)
		if err != nil {
			return nil, err
		}
		prior = recordedOf(recordedArts)
	}
	arts, verrs := s.checkArtifacts(ctx, p, d.run.Workspace, req.ArtifactPaths, lim, prior)
	if len(verrs) > 0 {
		return fail(&Error{Code: CodeInvalidPayload, Message: "Artifacts could not be accepted",
			Details: &ErrorDetails{ValidationErrors: verrs}})
	}

	lock := s.runLock(req.RunID)
	lock.Lock()
	defer lock.Unlock()

	expected := *req.ExpectedRevision
	var refusal *Error
	stored, replayed, err := s.st.AppendEvent(ctx, req.RunID, req.IdempotencyKey, hash, func(snap store.AppendSnapshot) (store.Append, error) {
		if snap.Run.Revision != expected {
			cur := snap.Run.Revision
			refusal = &Error{Code: CodeRevisionConflict, Message: fmt.Sprintf("Expected revision %d, but current is %d", expected, cur),
				Details: &ErrorDetails{CurrentRevision: &cur}}
			return store.Append{}, refusal
		}
		now := &runData{run: snap.Run, p: p, lim: lim, context: d.context, contextErr: d.contextErr, counts: snap.Counts, artifacts: snap.Artifacts}
		ts := p.transitionsFrom(snap.Run.State, ev.Name)
		if len(ts) == 0 {
			refusal = refuse(CodeInvalidEvent, "Event '%s' is not valid in state '%s'", ev.Name, snap.Run.State)
			return store.Append{}, refusal
		}
		// The guards see the run as it would be with this event: its
		// payload, its artifacts, and it counted.
		v := now.vars(ev.Name, payload, arts)
		v.Events[ev.Name]++
		// Emits racing past the check before the lock are held to the
		// run's artifact caps here, on what is recorded.
		if len(arts) > 0 {
			if over := checkRecorded(recordedOf(snap.Artifacts), arts, lim); over != nil {
				refusal = &Error{Code: CodeInvalidPayload, Message: "Artifacts could not be accepted",
					Details: &ErrorDetails{ValidationErrors: []ValidationError{*over}}}
				return store.Append{}, refusal
			}
		}
		gctx, cancel := guardCtx(ctx, lim)
		defer cancel()
		var chosen *Transition
		var missing []string
		for _, t := range ts {
			c := now.check(gctx, t, v)
			if c.status != GuardUnsatisfied {
				chosen = t
				break
			}
			for _, m := range c.missing {
				missing = append(missing, t.Guard+": "+m)
			}
		}
		if chosen == nil {
			refusal = &Error{Code: CodeGuardFailed, Message: "Guard conditions not satisfied", Details: &ErrorDetails{MissingGuards: dedupe(missing)}}
			return store.Append{}, refusal
		}
		eventID := "evt-" + uuid.NewString()
		res := EmitResponse{Success: true, Result: &EmitResult{EventID: eventID, Accepted: true,
			Transition: &TransitionPair{FromState: snap.Run.State, ToState: chosen.To}, NewRevision: snap.Run.Revision + 1}}
		resJSON, err := json.Marshal(res)
		if err != nil {
			return store.Append{}, err
		}
		a := store.Append{Event: store.StateGateEvent{EventID: eventID, Name: ev.Name, Payload: string(payloadJSON),
			Actor: actor.label(), FromState: snap.Run.State, ToState: chosen.To, Result: string(resJSON)}}
		for _, art := range arts {
			a.Artifacts = append(a.Artifacts, store.StateGateArtifact{Type: art.Type, Path: art.Rel, Size: art.Size, SHA256: art.SHA256})
		}
		return a, nil
	})
	var keyErr *store.KeyReusedError
	switch {
	case refusal != nil && errors.Is(err, refusal):
		return fail(refusal)
	case errors.As(err, &keyErr):
		return replay(keyErr.Event, hash)
	case errors.Is(err, store.ErrNotFound):
		return fail(refuse(CodeRunNotFound, "Run '%s' not found", req.RunID))
	case err != nil:
		return nil, err
	case replayed:
		return replay(stored, hash)
	}
	var out EmitResponse
	if err := json.Unmarshal([]byte(stored.Result), &out); err != nil {
		return nil, err
	}
	s.emit(Change{RunID: req.RunID, Event: true})
	return &out, nil
}

// replay answers a request whose key is taken: the original result, marked
// IDEMPOTENT_REPLAY, or a refusal if the key stood for something else.
func replay(prior store.StateGateEvent, hash string) (*EmitResponse, error) {
	if prior.RequestHash != hash {
		return &EmitResponse{Success: false, Error: &Error{Code: CodeKeyReused,
			Message: fmt.Sprintf("Idempotency key '%s' was already used for a different request", prior.IdempotencyKey),
			Details: &ErrorDetails{EventID: prior.EventID}}}, nil
	}
	var out EmitResponse
	if err := json.Unmarshal([]byte(prior.Result), &out); err != nil {
		return nil, fmt.Errorf("stored result of %s: %w", prior.EventID, err)
	}
	out.Error = &Error{Code: CodeIdempotentReplay,
		Message: fmt.Sprintf("Already processed with idempotency key '%s': this is the original result", prior.IdempotencyKey)}
	return &out, nil
}

func (s *Service) runLock(id string) *sync.Mutex {
	if m, ok := s.runLocks.Load(id); ok {
		return m.(*sync.Mutex)
	}
	m, _ := s.runLocks.LoadOrStore(id, &sync.Mutex{})
	return m.(*sync.Mutex)
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// ---- summary and history -----------------------------------------------------

// Summary is the resource stategate://runs/{run_id}/summary.
func (s *Service) Summary(ctx context.Context, runID string) (*Summary, error) {
	d, err := s.load(ctx, runID)
	if err != nil {
		return nil, err
	}
	events, err := s.st.Events(ctx, runID)
	if err != nil {
		return nil, err
	}
	return d.summary(events), nil
}

func (d *runData) summary(events []store.StateGateEvent) *Summary {
	p, cur := d.p, d.run.State
	visited := []string{p.Initial().Name}
	for _, e := range events {
		visited = append(visited, e.ToState)
	}
	done := map[string]bool{}
	completed := []string{}
	for _, st := range visited {
		if st != cur && !done[st] {
			done[st] = true
			completed = append(completed, st)
		}
	}
	remaining := []string{}
	if st, ok := p.states[cur]; !ok || !st.Final {
		reach := map[string]bool{cur: true}
		queue := []string{cur}
		for len(queue) > 0 {
			from := queue[0]
			queue = queue[1:]
			for _, t := range p.Transitions {
				if contains(t.From, from) && !reach[t.To] {
					reach[t.To] = true
					queue = append(queue, t.To)
				}
			}
		}
		for _, st := range p.States {
			if reach[st.Name] && st.Name != cur && !done[st.Name] {
				remaining = append(remaining, st.Name)
			}
		}
	}
	return &Summary{RunID: d.run.ID, Process: ProcessRef{ID: p.ID, Version: p.Version, Name: p.Name},
		CurrentState: cur, Revision: d.run.Revision,
		Progress:  Progress{CompletedStates: completed, CurrentState: cur, RemainingStates: remaining},
		CreatedAt: stamp(d.run.CreatedAt), UpdatedAt: stamp(d.run.UpdatedAt)}
}

// Detail is everything about one run, for the UI and the CLI.
func (s *Service) Detail(ctx context.Context, actor Actor, runID string) (*RunDetail, error) {
	d, err := s.load(ctx, runID)
	if err != nil {
		return nil, err
	}
	if err := s.withHistory(ctx, d); err != nil {
		return nil, err
	}
	events, err := s.st.Events(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := &RunDetail{Run: s.runInfo(d.run, d.lim), State: d.state(ctx, actor), Events: d.events(ctx, actor, true),
		Summary: d.summary(events), History: []HistoryEvent{}, Artifacts: []ArtifactInfo{}}
	for _, e := range events {
		out.History = append(out.History, HistoryEvent{Seq: e.Seq, EventID: e.EventID, EventName: e.Name,
			Payload: json.RawMessage(e.Payload), Actor: e.Actor, FromState: e.FromState, ToState: e.ToState,
			IdempotencyKey: e.IdempotencyKey, Time: e.CreatedAt.UTC().Format(time.RFC3339Nano)})
	}
	for _, a := range d.artifacts {
		out.Artifacts = append(out.Artifacts, ArtifactInfo{EventID: a.EventID, Type: a.Type, Path: a.Path, Size: a.Size,
			SHA256: a.SHA256, Time: a.CreatedAt.UTC().Format(time.RFC3339Nano)})
	}
	return out, nil
}

// listing is how a run reads in resources/list: it changes exactly when
// the run's state, artifacts or pending guards do, so list_changed follows
// those (seed 004) and not every revision.
type listing struct {
	name, description string
	revision          int64
	errored           string // why the run is errored, or ""
}

func (l listing) key() string { return l.name + "\x00" + l.description }

// listing lists a run. A run that cannot be loaded (its stored definition
// does not compile or is gone) or whose current guards are over their budget, or cannot see its
// context, is listed as errored, with why; it is recorded (RunInfo.Error)
// and the run is kept as it is. Other failures (the database) are errors.
func (s *Service) listing(ctx context.Context, runID string) (listing, error) {
	name := "run " + runID + " summary"
	d, err := s.load(ctx, runID)
	var refusal *Error
	var broken *loadError
	switch {
	case errors.As(err, &broken) || errors.As(err, &refusal) && refusal.Code == CodeProcessNotFound:
		s.problem(runID, err.Error())
		return listing{name: name, description: "errored: " + err.Error(), revision: -1, errored: err.Error()}, nil
	case err != nil:
		return listing{}, err
	}
	if err := s.withHistory(ctx, d); err != nil {
		return listing{}, err
	}
	sv, problem := d.stateAndProblem(ctx, Actor{})
	var pending []string
	for _, g := range sv.MissingGuards {
		pending = append(pending, g.GuardName)
	}
	sort.Strings(pending)
	desc := fmt.Sprintf("%s %s: state %s; artifacts %d", d.p.Name, d.p.Version, d.run.State, len(d.artifacts))
	if len(pending) > 0 {
		desc += "; pending guards " + strings.Join(pending, ", ")
	}
	l := listing{name: name, description: desc, revision: d.run.Revision}
	if problem != nil {
		l.errored = problem.Error()
		l.description += "; errored: " + l.errored
	}
	if d.contextErr != nil && errors.Is(problem, d.contextErr) {
		// runInfo checks the context itself, against the caps in force.
		s.problem(runID, "")
	} else {
		s.problem(runID, l.errored)
	}
	return l, nil
}
