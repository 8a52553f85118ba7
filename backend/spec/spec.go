// Package spec defines what an upstream MCP server is: the definition the
// user writes (by CLI, import or UI), that the store persists and that the
// upstream supervisor runs. It is a leaf package so every domain can share it
// without importing each other.
package spec

import (
	"errors"
	"fmt"
	"net/textproto"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// Transport is how the router talks to an upstream server.
type Transport string

const (
	Stdio Transport = "stdio" // a subprocess speaking JSON-RPC on stdin/stdout
	SSE   Transport = "sse"   // the legacy HTTP+SSE transport
	HTTP  Transport = "http"  // streamable HTTP
	// Builtin is a server that runs inside the router (no process, no
	// socket), reached through an in-process transport. Its name says which:
	// one of BuiltinServers.
	Builtin Transport = "builtin"
)

// BuiltinServers are the servers built into the router, by name.
var BuiltinServers = map[string]string{
	"state_gate": "holds agents to a process: runs, guarded transitions, exactly-once events",
}

// IsBuiltin reports whether s is one of the router's built-in servers.
func (s Server) IsBuiltin() bool { return s.Transport == Builtin }

// PrefixMode decides whether a server's tool names get the "<server><sep>" prefix.
type PrefixMode string

const (
	PrefixAlways PrefixMode = "always"
	PrefixNever  PrefixMode = "never"
)

// DefaultTimeoutSeconds bounds one upstream request when neither the server
// (TimeoutSeconds) nor the timeout setting says otherwise.
const DefaultTimeoutSeconds = 60

// ErrInvalid is wrapped by every validation error, so callers can tell bad
// input from an internal failure with errors.Is.
var ErrInvalid = errors.New("invalid server definition")

// nameRe keeps server names usable inside tool names (^[a-zA-Z0-9_-]{1,64}$
// once prefixed), in file names and on a command line.
var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$`)

// ValidName reports whether name can be a server's name.
func ValidName(name string) bool { return nameRe.MatchString(name) }

// Server is one upstream server definition. The gorm tags let the store
// embed it; the package itself does not import gorm.
type Server struct {
	Name      string            `json:"name" gorm:"uniqueIndex;not null"`
	Transport Transport         `json:"transport" gorm:"not null"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty" gorm:"serializer:json"`
	Env       map[string]string `json:"env,omitempty" gorm:"serializer:json"`
	Cwd       string            `json:"cwd,omitempty"`
	URL       string            `json:"url,omitempty"`
	Headers   map[string]string `json:"headers,omitempty" gorm:"serializer:json"`
	// SecretEnv and SecretHeaders name the Env and Headers entries whose
	// values are secret: written down as their placeholder, kept in the
	// OS keychain (secret.go). SecretRevision moves whenever one of those
	// values changes, so a router running the server restarts it.
	SecretEnv      []string `json:"secretEnv,omitempty" gorm:"serializer:json"`
	SecretHeaders  []string `json:"secretHeaders,omitempty" gorm:"serializer:json"`
	SecretRevision int      `json:"secretRevision,omitempty"`
	// PassUpstreamAuth: a client's X-Upstream-Authorization header is sent
	// as this HTTP/SSE server's Authorization on that client's requests
	// (docs/auth.md). Off by default.
	PassUpstreamAuth bool `json:"passUpstreamAuth,omitempty"`
	// Isolation: shared (one instance for every client) or per-client
	// (isolation.go); "" reads as shared.
	Isolation Isolation `json:"isolation,omitempty"`
	// Protocol: the revision of the router's connection to the server
	// (protocol.go); "" is auto.
	Protocol       Protocol   `json:"protocol,omitempty"`
	Enabled        bool       `json:"enabled"`
	PrefixMode     PrefixMode `json:"prefixMode"`
	TimeoutSeconds int        `json:"timeoutSeconds,omitempty"` // 0: the timeout setting
	DisabledTools  []string   `json:"disabledTools,omitempty" gorm:"serializer:json"`
	Gate           Gate       `json:"gate" gorm:"serializer:json"`
	// Chat: the chat panel's instructions and approvals (chat.go).
	Chat Chat `json:"chat" gorm:"serializer:json"`
	// ToolChanges: what a changed tool definition does on this server
	// (docs/tools.md): notify or hold; empty follows the toolChanges
	// setting.
	ToolChanges ToolChangeMode `json:"toolChanges,omitempty"`
	// Start: auto, eager (at launch) or lazy (on first use, stopped when
	// idle; start.go); "" is auto.
	Start StartMode `json:"start,omitempty"`
	// SearchOnly: the server is in some profile and every profile that has
	// it is a search profile, so an auto start resolves to lazy. Set by the
	// router from the profiles each time it loads the definitions; never
	// stored or exported.
	SearchOnly bool `json:"-" gorm:"-"`
	// Bundle: the .mcpb bundle the server was installed from (bundle.go);
	// nil for a server added any other way.
	Bundle *Bundle `json:"bundle,omitempty" gorm:"serializer:json"`
	// Source: the MCP Registry entry the server was installed from
	// (source.go); zero when it was added by hand.
	Source Source `json:"source,omitzero" gorm:"embedded;embeddedPrefix:source_"`
}

// ToolChangeMode says what happens when an upstream changes a tool after
// it was first seen.
type ToolChangeMode string

// Tool change modes.
const (
	// ToolChangesNotify serves the changed tool and records the change.
	ToolChangesNotify ToolChangeMode = "notify"
	// ToolChangesHold withholds the changed tool until a person accepts it.
	ToolChangesHold ToolChangeMode = "hold"
)

// ValidToolChangeMode reports whether m is a mode ("" is not).
func ValidToolChangeMode(m ToolChangeMode) bool {
	return m == ToolChangesNotify || m == ToolChangesHold
}

// Normalize fills defaults in place: prefix mode and the transport implied
// by the fields set (a command means stdio, a URL means streamable HTTP). A
// timeout of 0 stays 0: the server follows the timeout setting.
func (s *Server) Normalize() {
	s.Name = strings.TrimSpace(s.Name)
	if s.Transport == "" {
		switch {
		case s.Command != "":
			s.Transport = Stdio
		case s.URL != "":
			s.Transport = HTTP
		}
	}
	if s.PrefixMode == "" {
		s.PrefixMode = PrefixAlways
	}
	if s.Protocol == "auto" {
		s.Protocol = ProtocolAuto
	}
	s.normalizeSecrets()
	s.Chat.Trim()
}

// Validate reports the first problem with the definition as a one-line error
// wrapping ErrInvalid.
func (s Server) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if !nameRe.MatchString(s.Name) {
		return bad("server name %q must be 1-48 letters, digits, '-' or '_', starting with a letter or digit", s.Name)
	}
	switch s.Transport {
	case Stdio:
		if strings.TrimSpace(s.Command) == "" {
			return bad("server %q: a stdio server needs a command", s.Name)
		}
		if s.URL != "" {
			return bad("server %q: a stdio server takes a command, not a URL", s.Name)
		}
	case SSE, HTTP:
		if s.Command != "" {
			return bad("server %q: an %s server takes a URL, not a command", s.Name, s.Transport)
		}
		if err := ValidateURL(s.URL); err != nil {
			return bad("server %q: %v", s.Name, err)
		}
	case Builtin:
		if _, ok := BuiltinServers[s.Name]; !ok {
			return bad("server %q: no built-in server has that name", s.Name)
		}
		if s.Command != "" || s.URL != "" || len(s.Args) > 0 || len(s.Env) > 0 || len(s.Headers) > 0 || s.Cwd != "" ||
			len(s.SecretEnv) > 0 || len(s.SecretHeaders) > 0 {
			return bad("server %q: a built-in server takes no command, URL, environment or headers", s.Name)
		}
	case "":
		return bad("server %q: needs a command (stdio) or a URL (http, sse)", s.Name)
	default:
		return bad("server %q: unknown transport %q (want stdio, http or sse)", s.Name, s.Transport)
	}
	if s.PassUpstreamAuth && s.Transport != HTTP && s.Transport != SSE {
		return bad("server %q: passUpstreamAuth is for http and sse servers", s.Name)
	}
	switch s.PrefixMode {
	case PrefixAlways, PrefixNever:
	default:
		return bad("server %q: prefix mode %q must be always or never", s.Name, s.PrefixMode)
	}
	if s.TimeoutSeconds < 0 {
		return bad("server %q: timeout must not be negative", s.Name)
	}
	if s.ToolChanges != "" && !ValidToolChangeMode(s.ToolChanges) {
		return bad("server %q: toolChanges %q must be notify or hold (or empty: the toolChanges setting)", s.Name, s.ToolChanges)
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return bad("server %q: bad environment variable name %q", s.Name, k)
		}
	}
	for k, v := range s.Headers {
		if err := CheckHeader(k, v); err != nil {
			return bad("server %q: %v", s.Name, err)
		}
	}
	if err := s.validateSecrets(); err != nil {
		return bad("server %q: %v", s.Name, err)
	}
	if err := s.validateProtocol(); err != nil {
		return bad("server %q: %v", s.Name, err)
	}
	if err := s.validateStart(); err != nil {
		return bad("server %q: %v", s.Name, err)
	}
	if err := s.validateIsolation(); err != nil {
		return bad("server %q: %v", s.Name, err)
	}
	if err := s.Gate.validate(); err != nil {
		return bad("server %q: %v", s.Name, err)
	}
	if err := s.Source.validate(); err != nil {
		return bad("server %q: %v", s.Name, err)
	}
	if err := s.Chat.validate(); err != nil {
		return bad("server %q: %v", s.Name, err)
	}
	return nil
}

// TransportHeaders are the HTTP headers the HTTP and SSE transports set
// themselves (canonical names); a server definition may not.
var TransportHeaders = map[string]bool{
	"Accept": true, "Content-Type": true, "Content-Length": true, "Transfer-Encoding": true,
	"Connection": true, "Upgrade": true, "Te": true, "Trailer": true,
	"Mcp-Session-Id": true, "Mcp-Protocol-Version": true, "Last-Event-Id": true,
}

// CheckHeader reports what is wrong with a configured HTTP header, if
// anything: a name that is not a token, a value with a line break or
// control character, or one of the TransportHeaders.
func CheckHeader(name, value string) error {
	if !httpguts.ValidHeaderFieldName(name) {
		return fmt.Errorf("bad header name %q", name)
	}
	c := textproto.CanonicalMIMEHeaderKey(name)
	if !httpguts.ValidHeaderFieldValue(value) {
		return fmt.Errorf("header %s: the value has a line break or control character", c)
	}
	if TransportHeaders[c] {
		return fmt.Errorf("header %s is set by the transport, not by the server's definition", c)
	}
	return nil
}

// ValidateURL accepts absolute http and https URLs with a host.
func ValidateURL(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return errors.New("a URL is required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("bad URL %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("bad URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("bad URL %q: no host", raw)
	}
	return nil
}

// EnvList renders Env as KEY=VALUE pairs in a stable order.
func (s Server) EnvList() []string {
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+s.Env[k])
	}
	return out
}

// ToolEnabled reports whether the user left the named upstream tool enabled.
func (s Server) ToolEnabled(tool string) bool {
	for _, t := range s.DisabledTools {
		if t == tool {
			return false
		}
	}
	return true
}

// Target is the one-line "where" of a server: its command line or its URL.
func (s Server) Target() string {
	if s.Transport == Builtin {
		return "built in"
	}
	if s.Transport != Stdio {
		return s.URL
	}
	parts := append([]string{s.Command}, s.Args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\"'") {
			parts[i] = fmt.Sprintf("%q", p)
		}
	}
	return strings.Join(parts, " ")
}
