package store

import (
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Live models. Their columns must match what the migrations created; a new
// column needs a new migration, never an AutoMigrate of these structs.

// Server is a stored upstream definition.
type Server struct {
	ID          uint `gorm:"primaryKey" json:"id"`
	spec.Server `gorm:"embedded"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Setting is one key/value preference (port, auth, separator, …).
type Setting struct {
	Key       string `gorm:"primaryKey"`
	Value     string
	UpdatedAt time.Time
}

// Hook types: when a hook runs relative to the upstream call.
const (
	HookPre  = "pre"
	HookPost = "post"
	HookBoth = "both"
)

// Hook is a user JavaScript hook.
type Hook struct {
	ID             uint      `gorm:"primaryKey" json:"id"`
	Name           string    `json:"name"`
	Enabled        bool      `json:"enabled"`
	ExecutionOrder int       `json:"executionOrder"`
	HookType       string    `json:"hookType"`
	Script         string    `json:"script"`
	FailClosed     bool      `json:"failClosed"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
	// LoadError: the row could not be read as a hook (HookRepo.List); the
	// hook is shown with it and never runs.
	LoadError string `gorm:"-" json:"loadError,omitempty"`
}

// Role is what a token may reach.
type Role string

// Token roles. A client token (the default, what snippets carry) reaches
// the MCP endpoint only; an admin token also reaches the browser UI and its
// API, which can start processes and change the configuration.
const (
	RoleClient Role = "client"
	RoleAdmin  Role = "admin"
)

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool { return r == RoleClient || r == RoleAdmin }

// Token is an access token. Only the hash of the secret is stored; Prefix is
// enough of the secret for a user to recognise it in a list.
type Token struct {
	ID      uint     `gorm:"primaryKey" json:"id"`
	Name    string   `json:"name"`
	Hash    string   `json:"-"`
	Prefix  string   `json:"prefix"`
	Servers []string `gorm:"serializer:json" json:"servers"` // empty: all servers
	Role    Role     `json:"role"`                           // RoleClient or RoleAdmin
	// Roles are the token's own roles besides Role (reviewer, …), which a
	// built-in server matches (state_gate's event roles); they never widen
	// what the token reaches (migration 0900_token_custom_roles; none: nil).
	Roles []string `gorm:"serializer:json" json:"roles"`
	// Profile is the profile the token is bound to: it reaches that
	// profile's endpoint only ("" — none: every endpoint; migration 1200).
	Profile    string     `json:"profile"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty"`
}

// Request log statuses.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusBlocked = "blocked"
)

// RequestLog is one request that went through the gateway.
type RequestLog struct {
	ID         uint      `gorm:"primaryKey" json:"id"`
	Time       time.Time `json:"time"`
	Client     string    `json:"client"`
	Server     string    `json:"server"`
	Method     string    `json:"method"`
	Target     string    `json:"target"` // tool name or resource URI
	DurationMs float64   `json:"durationMs"`
	Status     string    `json:"status"`
	Error      string    `json:"error,omitempty"`
	Request    string    `json:"request,omitempty"`
	Response   string    `json:"response,omitempty"`
	// BackendTool is, for a call of an ability, the upstream's own name of
	// the tool it was routed to (on Server); empty for other requests
	// (migration 0700).
	BackendTool string `json:"backendTool,omitempty"`
	// Instance is the per-client instance that served the request ("#3
	// (pid 4242)"); empty for a shared server (migration 1000).
	Instance string `json:"instance,omitempty"`
}
