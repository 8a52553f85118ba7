package upstream

import (
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// State is where a server is in its lifecycle.
type State string

const (
	StateStopped    State = "stopped"     // disabled, stopped by the user, or service closed
	StateStarting   State = "starting"    // connecting and initializing
	StateRunning    State = "running"     // initialized and answering
	StateRestarting State = "restarting"  // lost after running; waiting to reconnect
	StateErrored    State = "errored"     // could not start; retried with backoff, except a server that is this router itself (ErrSelf)
	StateNeedsLogin State = "needs_login" // an HTTP server answered 401 (ErrNeedsLogin): waits, without retries, for a login
)

// Status is a snapshot of one server, safe to hand to the UI.
type Status struct {
	Name              string         `json:"name"`
	Transport         spec.Transport `json:"transport"`
	Enabled           bool           `json:"enabled"`
	State             State          `json:"state"`
	StateSince        time.Time      `json:"stateSince"` // when State last changed (the UI's "starting for 12 s")
	Error             string         `json:"error,omitempty"`
	Restarts          int            `json:"restarts"`
	Connection        int            `json:"connection,omitempty"` // numbers the connections: 1, 2, … (0: never connected)
	PID               int            `json:"pid,omitempty"`
	SessionID         string         `json:"sessionId,omitempty"`
	StartedAt         time.Time      `json:"startedAt,omitempty"`
	NextRetryAt       time.Time      `json:"nextRetryAt,omitempty"`
	Tools             int            `json:"tools"`
	Resources         int            `json:"resources"`
	ResourceTemplates int            `json:"resourceTemplates"`
	Prompts           int            `json:"prompts"`
	ServerName        string         `json:"serverName,omitempty"`
	ServerVersion     string         `json:"serverVersion,omitempty"`
	ProtocolVersion   string         `json:"protocolVersion,omitempty"` // the revision of the router's connection to it
	// ProtocolVersions: the revisions the server named in its answer to
	// server/discover (supportedVersions), asked before initialize; empty
	// when it had no answer or was not asked (SSE, builtins, HTTP through
	// a proxy).
	ProtocolVersions []string `json:"protocolVersions,omitempty"`
	Instructions     string   `json:"instructions,omitempty"`
	// Instances: a per-client server's running instances (perclient.go).
	Instances []InstanceStatus `json:"instances,omitempty"`
	// SuggestPerClient: this shared server sent its client a request
	// (sampling, elicitation, roots) while two or more clients used it,
	// so it depends on who its client is: the Servers page offers to make
	// it per-client. nil until then; cleared when the definition changes.
	SuggestPerClient *PerClientSuggestion `json:"suggestPerClient,omitempty"`
}

// PerClientSuggestion is the last such request: what it was, how many
// clients had calls in flight there, and when.
type PerClientSuggestion struct {
	What    string    `json:"what"`
	Clients int       `json:"clients"`
	At      time.Time `json:"at"`
}

// EventKind says what an Event reports.
type EventKind string

const (
	EventState   EventKind = "state"   // Status changed
	EventCatalog EventKind = "catalog" // tools/resources/prompts changed; see Lists
	EventConsole EventKind = "console" // one stderr line; see Line
	EventRemoved EventKind = "removed" // the server is gone
)

// Event is what subscribers receive. Handlers run synchronously on the
// goroutine that made the change: keep them quick and never call back into
// the Service from one.
type Event struct {
	Kind   EventKind `json:"kind"`
	Server string    `json:"server"`
	Status Status    `json:"status"`
	Lists  []string  `json:"lists,omitempty"` // "tools", "resources", "prompts"
	Line   string    `json:"line,omitempty"`
	// Instance: the per-client instance a console line came from; 0 for
	// the server's own connection.
	Instance int `json:"instance,omitempty"`
}
