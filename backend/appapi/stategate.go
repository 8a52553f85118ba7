package appapi

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/backend/store"
)

// The Processes page: state_gate's definitions and runs.

// ProcessView is one definition file: the process drawn on the page, or
// the problems that keep it from loading.
type ProcessView struct {
	File        string              `json:"file"`
	ID          string              `json:"id"`
	Version     string              `json:"version"`
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Source      string              `json:"source"`
	States      []ProcessState      `json:"states"`
	Events      []ProcessEvent      `json:"events"`
	Guards      []ProcessGuard      `json:"guards"`
	Transitions []ProcessTransition `json:"transitions"`
	Problems    []stategate.Problem `json:"problems"`
	Error       string              `json:"error,omitempty"`
	Artifacts   []ProcessArtifact   `json:"artifacts"`
}

// ProcessState is a state of a process.
type ProcessState struct {
	Name              string   `json:"name"`
	Description       string   `json:"description"`
	Initial           bool     `json:"initial"`
	Final             bool     `json:"final"`
	RequiredArtifacts []string `json:"requiredArtifacts"`
}

// ProcessEvent is an event of a process.
type ProcessEvent struct {
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	Roles         []string        `json:"roles"`
	PayloadSchema json.RawMessage `json:"payloadSchema,omitempty"`
}

// ProcessGuard is a guard of a process.
type ProcessGuard struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Expression  string `json:"expression"`
}

// ProcessTransition is an arrow of the diagram.
type ProcessTransition struct {
	From  []string `json:"from"`
	Event string   `json:"event"`
	To    string   `json:"to"`
	Guard string   `json:"guard,omitempty"`
}

// ProcessArtifact is an artifact type.
type ProcessArtifact struct {
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Patterns    []string `json:"patterns"`
}

// StateGateStatus tells the page whether the built-in server is added and
// enabled (its tools reach clients only then).
type StateGateStatus struct {
	Added   bool   `json:"added"`
	Enabled bool   `json:"enabled"`
	State   string `json:"state"`
	Dir     string `json:"dir"` // where definitions live
}

func processView(file string, p *stategate.Process, err error) ProcessView {
	v := ProcessView{File: file, States: []ProcessState{}, Events: []ProcessEvent{}, Guards: []ProcessGuard{},
		Transitions: []ProcessTransition{}, Problems: []stategate.Problem{}, Artifacts: []ProcessArtifact{}}
	if p == nil {
		var de *stategate.DefinitionError
		if errors.As(err, &de) {
			v.Problems = append(v.Problems, de.Problems...)
		}
		if err != nil {
			v.Error = err.Error()
		}
		return v
	}
	v.ID, v.Version, v.Name, v.Description, v.Source = p.ID, p.Version, p.Name, p.Description, string(p.Source)
	for _, s := range p.States {
		req := s.RequiredArtifacts
		if req == nil {
			req = []string{}
		}
		v.States = append(v.States, ProcessState{Name: s.Name, Description: s.Description, Initial: s.Initial, Final: s.Final, RequiredArtifacts: req})
	}
	for _, e := range p.Events {
		roles := e.Roles
		if roles == nil {
			roles = []string{}
		}
		v.Events = append(v.Events, ProcessEvent{Name: e.Name, Description: e.Description, Roles: roles, PayloadSchema: e.PayloadSchema})
	}
	for _, g := range p.Guards {
		v.Guards = append(v.Guards, ProcessGuard{Name: g.Name, Description: g.Description, Expression: g.Expression})
	}
	for _, t := range p.Transitions {
		v.Transitions = append(v.Transitions, ProcessTransition{From: t.From, Event: t.Event, To: t.To, Guard: t.Guard})
	}
	for _, a := range p.Artifacts {
		v.Artifacts = append(v.Artifacts, ProcessArtifact{Type: a.Type, Description: a.Description, Patterns: a.Patterns})
	}
	return v
}

// ListProcesses lists the definition files, each drawn or with its problems.
func (a *API) ListProcesses() ([]ProcessView, error) {
	files, err := a.core.StateGate.Processes()
	if err != nil {
		return nil, err
	}
	out := make([]ProcessView, 0, len(files))
	for _, f := range files {
		out = append(out, processView(f.File, f.Process, f.Err))
	}
	return out, nil
}

// CheckProcess returns the problems of a definition (none: it is valid),
// each with its line and column, for the editor.
func (a *API) CheckProcess(source string) ([]stategate.Problem, error) {
	_, err := a.core.StateGate.Check([]byte(source))
	var de *stategate.DefinitionError
	switch {
	case err == nil:
		return []stategate.Problem{}, nil
	case errors.As(err, &de):
		return de.Problems, nil
	}
	return nil, err
}

// SaveProcess checks a definition and stores it; replace allows changing a
// process that exists (its runs keep the version they started with).
func (a *API) SaveProcess(source string, replace bool) (ProcessView, error) {
	p, err := a.core.StateGate.AddProcess([]byte(source), replace)
	if err != nil {
		return ProcessView{}, err
	}
	_, file, err := a.core.StateGate.Process(p.ID)
	if err != nil {
		return ProcessView{}, err
	}
	return processView(file, p, nil), nil
}

// RemoveProcess removes a definition.
func (a *API) RemoveProcess(id string) error {
	if err := a.core.StateGate.RemoveProcess(id); err != nil {
		return notFoundIf(err)
	}
	return nil
}

// ListRuns lists runs ("" for every process), most recently updated first.
func (a *API) ListRuns(processID string) ([]stategate.RunInfo, error) {
	return a.core.StateGate.Runs(bg(), processID, 500)
}

// GetRun is one run: state, pending guards, events, history, artifacts.
func (a *API) GetRun(runID string) (stategate.RunDetail, error) {
	d, err := a.core.StateGate.Detail(bg(), stategate.Actor{Name: "ui"}, runID)
	if err != nil {
		return stategate.RunDetail{}, notFoundIf(err)
	}
	return *d, nil
}

// CreateRun starts a run; contextJSON is a JSON object ("" for {}).
func (a *API) CreateRun(processID, contextJSON, workspace string) (stategate.RunInfo, error) {
	run, err := a.core.StateGate.CreateRun(bg(), stategate.Actor{Name: "ui"}, processID, json.RawMessage(contextJSON), workspace)
	if err != nil {
		return stategate.RunInfo{}, notFoundIf(err)
	}
	return run, nil
}

// GetStateGateStatus says whether the built-in server is added and running.
func (a *API) GetStateGateStatus() (StateGateStatus, error) {
	st := StateGateStatus{Dir: stategate.ProcessesDir(a.core.DataDir)}
	row, err := a.core.Store.Servers().Get(bg(), stategate.ServerName)
	if errors.Is(err, store.ErrNotFound) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	st.Added, st.Enabled = row.Transport == spec.Builtin, row.Enabled
	if s, err := a.core.Servers.Status(stategate.ServerName); err == nil {
		st.State = string(s.State)
	}
	return st, nil
}

// EnableStateGate adds the built-in server if it is missing and enables it.
func (a *API) EnableStateGate() (StateGateStatus, error) {
	ctx := bg()
	row, err := a.core.Store.Servers().Get(ctx, stategate.ServerName)
	switch {
	case errors.Is(err, store.ErrNotFound):
		def := spec.Server{Name: stategate.ServerName, Transport: spec.Builtin, Enabled: true}
		if _, err := a.core.Store.Servers().Create(ctx, def); err != nil {
			return StateGateStatus{}, err
		}
	case err != nil:
		return StateGateStatus{}, err
	case row.Transport != spec.Builtin:
		return StateGateStatus{}, (fmt.Errorf("a server named %s already exists and is not the built-in one: rename it first", stategate.ServerName))
	default:
		if err := a.core.Store.Servers().SetEnabled(ctx, stategate.ServerName, true); err != nil {
			return StateGateStatus{}, err
		}
	}
	if err := a.core.SyncServers(ctx); err != nil {
		return StateGateStatus{}, err
	}
	return a.GetStateGateStatus()
}

// notFoundIf marks the engine's not-found refusals for the HTTP status.
func notFoundIf(err error) error {
	var e *stategate.Error
	if errors.As(err, &e) && (e.Code == stategate.CodeRunNotFound || e.Code == stategate.CodeProcessNotFound) {
		return fmt.Errorf("%w: %s", store.ErrNotFound, e.Message)
	}
	if errors.As(err, &e) {
		return errors.New(e.Message)
	}
	return err
}
