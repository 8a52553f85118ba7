package appapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/store"
)

// HookView is one hook on the Hooks page.
type HookView struct {
	ID             uint      `json:"id"`
	Name           string    `json:"name"`
	Enabled        bool      `json:"enabled"`
	ExecutionOrder int       `json:"executionOrder"`
	HookType       string    `json:"hookType"`
	Script         string    `json:"script"`
	FailClosed     bool      `json:"failClosed"`
	UpdatedAt      time.Time `json:"updatedAt"`
	// LoadError: the stored row cannot be read as a hook (store.Hook's);
	// the hook never runs until it is saved again or removed.
	LoadError string `json:"loadError,omitempty"`
}

// HookInput is the hook editor's form; ID 0 creates a hook.
type HookInput struct {
	ID         uint   `json:"id"`
	Name       string `json:"name"`
	Enabled    bool   `json:"enabled"`
	HookType   string `json:"hookType"`
	Script     string `json:"script"`
	FailClosed bool   `json:"failClosed"`
}

// ScriptProblem is one compile error, placed in the user's script.
type ScriptProblem struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// HookResult is what a test run decided.
type HookResult struct {
	Continue bool           `json:"continue"`
	Blocked  *hook.Block    `json:"blocked,omitempty"`
	Context  map[string]any `json:"context"` // the context after the hook
}

// HookTestResult is one dry run of a hook from the editor.
type HookTestResult struct {
	Result     HookResult `json:"result"`
	Console    []string   `json:"console"`
	Error      string     `json:"error,omitempty"`
	DurationMs float64    `json:"durationMs"`
}

func hookView(h store.Hook) HookView {
	return HookView{ID: h.ID, Name: h.Name, Enabled: h.Enabled, ExecutionOrder: h.ExecutionOrder,
		HookType: h.HookType, Script: h.Script, FailClosed: h.FailClosed, UpdatedAt: h.UpdatedAt, LoadError: h.LoadError}
}

// ListHooks returns every hook in execution order.
func (a *API) ListHooks() ([]HookView, error) {
	hooks, err := a.core.Hooks.List(bg())
	if err != nil {
		return nil, err
	}
	out := make([]HookView, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, hookView(h))
	}
	return out, nil
}

// SaveHook creates (ID 0) or replaces a hook, renaming it if the name
// changed. The script must compile; the running set is reloaded at once.
func (a *API) SaveHook(h HookInput) (HookView, error) {
	row := store.Hook{ID: h.ID, Name: strings.TrimSpace(h.Name), Enabled: h.Enabled, HookType: h.HookType,
		Script: h.Script, FailClosed: h.FailClosed}
	if err := hook.Check(row); err != nil {
		return HookView{}, err
	}
	var saved store.Hook
	var err error
	if h.ID == 0 {
		all, lerr := a.core.Hooks.List(bg())
		if lerr != nil {
			return HookView{}, lerr
		}
		for _, x := range all {
			row.ExecutionOrder = max(row.ExecutionOrder, x.ExecutionOrder)
		}
		row.ExecutionOrder++ // new hooks run last
		saved, err = a.core.Hooks.Create(bg(), row)
	} else {
		old, gerr := a.core.Store.Hooks().ByID(bg(), h.ID)
		if gerr != nil {
			return HookView{}, gerr
		}
		row.ExecutionOrder = old.ExecutionOrder
		saved, err = a.core.Store.Hooks().Replace(bg(), row)
	}
	if err != nil {
		return HookView{}, err
	}
	return hookView(saved), a.reloadHooks()
}

func (a *API) reloadHooks() error {
	if err := a.core.Hooks.Reload(bg()); err != nil {
		return fmt.Errorf("saved, but reloading the hooks failed: %w", err)
	}
	return nil
}

func (a *API) hookByID(id uint) (store.Hook, error) { return a.core.Store.Hooks().ByID(bg(), id) }

// RemoveHook deletes a hook, by ID: a hook whose stored name cannot be
// read (LoadError) is removed too.
func (a *API) RemoveHook(id uint) error {
	if err := a.core.Store.Hooks().DeleteByID(bg(), id); err != nil {
		return err
	}
	return a.reloadHooks()
}

// SetHookEnabled turns a hook on or off.
func (a *API) SetHookEnabled(id uint, enabled bool) error {
	h, err := a.hookByID(id)
	if err != nil {
		return err
	}
	if err := a.core.Hooks.SetEnabled(bg(), h.Name, enabled); err != nil {
		return err
	}
	return a.reloadHooks()
}

// ReorderHooks sets the execution order to the order of ids (1..n); ids
// must list every hook exactly once.
func (a *API) ReorderHooks(ids []uint) error {
	if err := a.core.Store.Hooks().Reorder(bg(), ids); err != nil {
		return err
	}
	return a.reloadHooks()
}

// CheckHookScript compiles a script with the router's own engine and
// returns its problems (none: an empty list).
func (a *API) CheckHookScript(script string) ([]ScriptProblem, error) {
	err := hook.Validate(script)
	if err == nil {
		return []ScriptProblem{}, nil
	}
	var se *hook.ScriptError
	if errors.As(err, &se) {
		return []ScriptProblem{{Line: se.Line, Column: se.Column, Message: se.Message}}, nil
	}
	return []ScriptProblem{{Message: err.Error()}}, nil
}

// TestHook runs the hook as given in the editor (saved or not) once
// against a context (JSON, as a script sees it; empty means {}). The phase
// is the context's "phase" if set, else post for a post hook, pre otherwise.
func (a *API) TestHook(h HookInput, contextJSON string) (HookTestResult, error) {
	m := map[string]any{}
	if strings.TrimSpace(contextJSON) != "" {
		if err := json.Unmarshal([]byte(contextJSON), &m); err != nil {
			return HookTestResult{}, fmt.Errorf("the context must be a JSON object: %v", err)
		}
		if m == nil {
			m = map[string]any{}
		}
	}
	phase := hook.PhasePre
	if h.HookType == store.HookPost {
		phase = hook.PhasePost
	}
	if p, ok := m["phase"]; ok {
		ps, _ := p.(string)
		if ps != hook.PhasePre && ps != hook.PhasePost {
			return HookTestResult{}, fmt.Errorf("context.phase %v: want \"pre\" or \"post\"", p)
		}
		phase = ps
	}
	call, err := hook.CallFromContext(m)
	if err != nil {
		return HookTestResult{}, err
	}
	name := strings.TrimSpace(h.Name)
	if name == "" {
		name = "unsaved"
	}
	row := store.Hook{ID: h.ID, Name: name, Enabled: true, HookType: h.HookType, Script: h.Script, FailClosed: h.FailClosed}
	res, err := a.core.Hooks.TestUnsaved(bg(), row, call, phase)
	if err != nil {
		return HookTestResult{}, err
	}
	out := HookTestResult{
		Result:  HookResult{Continue: res.Continue, Blocked: res.Block, Context: res.Context},
		Console: make([]string, 0, len(res.Logs)), Error: res.Error, DurationMs: res.DurationMs,
	}
	for _, l := range res.Logs {
		out.Console = append(out.Console, formatHookLine(l))
	}
	return out, nil
}

// HookLogs returns the hook's recent log lines, oldest first.
func (a *API) HookLogs(id uint) ([]string, error) {
	h, err := a.hookByID(id)
	if err != nil {
		return nil, err
	}
	lines := a.core.Hooks.Logs(h.Name)
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, formatHookLine(l))
	}
	return out, nil
}
