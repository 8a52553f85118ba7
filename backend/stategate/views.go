package stategate

import (
	"encoding/json"
	"fmt"
)

// The shapes of seed 004's answers. Field order follows the seed, so the
// JSON reads as its examples do.

// StateView is get_state's answer.
type StateView struct {
	RunID             string             `json:"run_id"`
	ProcessID         string             `json:"process_id"`
	ProcessVersion    string             `json:"process_version"`
	CurrentState      string             `json:"current_state"`
	Revision          int64              `json:"revision"`
	Context           json.RawMessage    `json:"context"`
	MissingGuards     []MissingGuard     `json:"missing_guards"`
	RequiredArtifacts []RequiredArtifact `json:"required_artifacts"`
	AllowedEvents     []AllowedEvent     `json:"allowed_events"`
	UpdatedAt         string             `json:"updated_at"`
}

// MissingGuard is a guard that blocks a transition out of the current state.
type MissingGuard struct {
	GuardName     string `json:"guard_name"`
	Description   string `json:"description"`
	CurrentStatus string `json:"current_status"`
}

// RequiredArtifact is an artifact the current state asks for.
type RequiredArtifact struct {
	Type        string `json:"type"`
	Description string `json:"description"`
	Status      string `json:"status"` // missing | present
}

// AllowedEvent is an event the caller may emit now.
type AllowedEvent struct {
	EventName     string          `json:"event_name"`
	Description   string          `json:"description"`
	PayloadSchema json.RawMessage `json:"payload_schema,omitempty"`
}

// EventsView is list_events' answer.
type EventsView struct {
	RunID        string      `json:"run_id"`
	CurrentState string      `json:"current_state"`
	Events       []EventView `json:"events"`
}

// EventView is one event with the transitions it can take.
type EventView struct {
	EventName     string           `json:"event_name"`
	Description   string           `json:"description"`
	PayloadSchema json.RawMessage  `json:"payload_schema,omitempty"`
	Transitions   []TransitionView `json:"transitions"`
	IsAllowed     bool             `json:"is_allowed"`
	BlockedReason *string          `json:"blocked_reason"`
}

// Guard statuses of a transition.
const (
	GuardSatisfied   = "satisfied"
	GuardUnsatisfied = "unsatisfied"
	GuardNone        = "no_guard"
)

// TransitionView is one transition an event can take.
type TransitionView struct {
	ToState             string   `json:"to_state"`
	Guard               string   `json:"guard,omitempty"`
	GuardStatus         string   `json:"guard_status"`
	MissingRequirements []string `json:"missing_requirements,omitempty"`
}

// EmitResponse is emit_event's answer.
type EmitResponse struct {
	Success bool        `json:"success"`
	Result  *EmitResult `json:"result,omitempty"`
	Error   *Error      `json:"error,omitempty"`
}

// EmitResult is an accepted event.
type EmitResult struct {
	EventID     string          `json:"event_id"`
	Accepted    bool            `json:"accepted"`
	Transition  *TransitionPair `json:"transition,omitempty"`
	NewRevision int64           `json:"new_revision"`
}

// TransitionPair is the move an event made (equal states: it stayed).
type TransitionPair struct {
	FromState string `json:"from_state"`
	ToState   string `json:"to_state"`
}

// Error codes (seed 004, plus the three marked as this router's).
const (
	CodeRevisionConflict = "REVISION_CONFLICT"
	CodeForbidden        = "FORBIDDEN"
	CodeGuardFailed      = "GUARD_FAILED"
	CodeInvalidEvent     = "INVALID_EVENT"
	CodeInvalidPayload   = "INVALID_PAYLOAD"
	CodeIdempotentReplay = "IDEMPOTENT_REPLAY"
	CodeRunNotFound      = "RUN_NOT_FOUND"
	CodeProcessNotFound  = "PROCESS_NOT_FOUND"
	// The router's: an idempotency key reused for a different request, a
	// request missing a required argument or malformed, and a failure of
	// the router itself (the database).
	CodeKeyReused      = "IDEMPOTENCY_KEY_REUSED"
	CodeInvalidRequest = "INVALID_REQUEST"
	CodeInternal       = "INTERNAL_ERROR"
)

// Error is a refusal, in the seed's error shape.
type Error struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	Details *ErrorDetails `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// ErrorDetails carries what a refusal needs to be acted on.
type ErrorDetails struct {
	CurrentRevision  *int64            `json:"current_revision,omitempty"`
	MissingGuards    []string          `json:"missing_guards,omitempty"`
	ValidationErrors []ValidationError `json:"validation_errors,omitempty"`
	EventID          string            `json:"event_id,omitempty"`
}

// ValidationError is one way a payload failed its schema (path: a JSON
// pointer into the arguments, such as /payload/plan).
type ValidationError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func refuse(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Summary is the resource stategate://runs/{run_id}/summary.
type Summary struct {
	RunID        string     `json:"run_id"`
	Process      ProcessRef `json:"process"`
	CurrentState string     `json:"current_state"`
	Revision     int64      `json:"revision"`
	Progress     Progress   `json:"progress"`
	CreatedAt    string     `json:"created_at"`
	UpdatedAt    string     `json:"updated_at"`
}

// ProcessRef names a process version.
type ProcessRef struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	Name    string `json:"name"`
}

// Progress is where a run stands.
type Progress struct {
	CompletedStates []string `json:"completed_states"`
	CurrentState    string   `json:"current_state"`
	RemainingStates []string `json:"remaining_states"`
}

// RunInfo is a run as create_run and list_runs give it.
type RunInfo struct {
	RunID          string          `json:"run_id"`
	ProcessID      string          `json:"process_id"`
	ProcessVersion string          `json:"process_version"`
	CurrentState   string          `json:"current_state"`
	Revision       int64           `json:"revision"`
	Context        json.RawMessage `json:"context"`
	Workspace      string          `json:"workspace"`
	SummaryURI     string          `json:"summary_uri"`
	CreatedBy      string          `json:"created_by"`
	CreatedAt      string          `json:"created_at"`
	UpdatedAt      string          `json:"updated_at"`
	// Error says why the run is errored: its stored context cannot be
	// read, or a guard of its current state was over its budget when the
	// run was last listed. An errored run is kept as it is; its guards
	// fail with this reason until it is fixed (or the cap raised).
	Error string `json:"error,omitempty"`
}

// RunList is list_runs' answer.
type RunList struct {
	Runs []RunInfo `json:"runs"`
}

// HistoryEvent is one accepted event of a run's history.
type HistoryEvent struct {
	Seq            int64           `json:"seq"`
	EventID        string          `json:"event_id"`
	EventName      string          `json:"event_name"`
	Payload        json.RawMessage `json:"payload"`
	Actor          string          `json:"actor"`
	FromState      string          `json:"from_state"`
	ToState        string          `json:"to_state"`
	IdempotencyKey string          `json:"idempotency_key"`
	Time           string          `json:"time"`
}

// ArtifactInfo is a recorded artifact.
type ArtifactInfo struct {
	EventID string `json:"event_id"`
	Type    string `json:"type"`
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"`
	Time    string `json:"time"`
}

// RunDetail is everything the UI shows of one run.
type RunDetail struct {
	Run       RunInfo        `json:"run"`
	State     *StateView     `json:"state"`
	Events    *EventsView    `json:"events"`
	Summary   *Summary       `json:"summary"`
	History   []HistoryEvent `json:"history"`
	Artifacts []ArtifactInfo `json:"artifacts"`
}
