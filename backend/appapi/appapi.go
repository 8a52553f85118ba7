// Package appapi is what the UI calls: plain Go methods returning (T, error)
// and events pushed through an Emitter. The desktop window binds *API
// directly (Wails calls its exported methods with positional arguments);
// the browser UI of `mcp-router serve` reaches the very same methods over
// HTTP (see Handler). Every exported method of API is therefore part of the
// UI contract in docs/ui-api.md; lifecycle functions (Attach) are package
// functions so that neither shell exposes them. It never imports Wails, so
// it tests headlessly.
package appapi

import (
	"context"
	"reflect"
	"sync"
	"time"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/update"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Event names the UI subscribes to.
const (
	EventServersChanged  = "servers:changed"  // payload: ServerView
	EventServerRemoved   = "servers:removed"  // payload: the server's name
	EventConsoleLines    = "console:lines"    // payload: ConsoleLines (batched)
	EventLogsAppended    = "logs:appended"    // payload: []LogRow (batched)
	EventHookLog         = "hooks:log"        // payload: HookLogLines (batched)
	EventToolsChanged    = "tools:changed"    // payload: null
	EventSettingsChanged = "settings:changed" // payload: AppSettings
	// EventStateGateChanged: a run was created or moved, or the database
	// changed (the CLI): the Processes page refetches. Payload: null.
	EventStateGateChanged = "stategate:changed"
)

// chatEvent is EventChat (chat.go) in Events.
var chatEvent = []string{EventChat}

// Events lists every event name, for the HTTP event stream and tests.
var Events = append([]string{EventServersChanged, EventServerRemoved, EventConsoleLines, EventLogsAppended,
	EventHookLog, EventToolsChanged, EventSettingsChanged, EventStateGateChanged}, chatEvent...)

// Emitter pushes an event to the UI.
type Emitter interface {
	Emit(event string, data any)
}

// Options configure New; zero values are the defaults.
type Options struct {
	// BatchInterval coalesces the high-rate streams (console, request log,
	// hook logs, tools:changed); default 100 ms.
	BatchInterval time.Duration
	// Autostart turns starting at login on or off when the startAtLogin
	// setting changes; nil uses the per-OS login item (package autostart).
	Autostart func(on bool) error
	// Executable is the binary a stdio snippet runs; default os.Executable.
	Executable func() (string, error)
	// LogFile is the file this process logs to (the desktop app's, see
	// package applog); empty: none.
	LogFile string
	// OpenPath shows a folder in the file manager; default the OS's opener.
	OpenPath func(path string) error
	// Updates asks for the latest release (about.go); nil: the project's
	// GitHub Releases, compared with core.Version.
	Updates *update.Checker
}

// API is the UI-facing facade over a running Core. Every exported method is
// callable from the UI.
type API struct {
	core *core.Core
	opts Options
	hub  *hub

	readyOnce sync.Map // page → struct{}: log readiness once per page
	inproc    inprocClient
	settingMu sync.Mutex // one SaveSettings at a time

	sentMu sync.Mutex // the settings last sent in settings:changed
	sent   AppSettings
	sentOK bool

	updates updateCache // about.go

	uploads bundleUploads // bundles.go
}

// New returns the facade. Call Attach to receive events.
func New(c *core.Core, o Options) *API {
	if o.BatchInterval <= 0 {
		o.BatchInterval = 100 * time.Millisecond
	}
	if o.Autostart == nil {
		o.Autostart = DefaultAutostart
	}
	if o.Executable == nil {
		o.Executable = executablePath
	}
	if o.OpenPath == nil {
		o.OpenPath = openPath
	}
	if o.Updates == nil {
		o.Updates = &update.Checker{Current: core.Version}
	}
	a := &API{core: c, opts: o}
	a.hub = newHub(a)
	return a
}

// Attach sends every UI event to em until the returned detach is called.
// Several emitters may be attached at once (the window and browser tabs);
// the sources are followed while at least one is.
func Attach(a *API, em Emitter) (detach func()) { return a.hub.add(em) }

// Close ends what the API started (the in-process MCP session of CallTool,
// event sources). Attached emitters get nothing afterwards.
func Close(a *API) {
	a.hub.close()
	a.inproc.close()
	a.uploads.closeAll()
}

// ServerView is one row of the Servers page.
type ServerView struct {
	Name       string `json:"name"`
	Transport  string `json:"transport"`
	Enabled    bool   `json:"enabled"`
	State      string `json:"state"`
	StateSince int64  `json:"stateSince"` // when the state last changed, ms since the epoch (0: unknown)
	Error      string `json:"error,omitempty"`
	Restarts   int    `json:"restarts"`
	Tools      int    `json:"tools"`
	Target     string `json:"target"`
	PrefixMode string `json:"prefixMode"`
	// LoggedIn: an OAuth login of this HTTP/SSE server is stored and has
	// not ended (the page offers Log out).
	LoggedIn bool `json:"loggedIn,omitempty"`
	// Protocol: the MCP revision of the router's connection to it, as its
	// handshake settled it; empty until it first connected.
	Protocol string `json:"protocol,omitempty"`
	// ProtocolsOffered: the revisions the server named in its answer to
	// server/discover (upstream.Status.ProtocolVersions); empty when it
	// has none or was not asked.
	ProtocolsOffered []string `json:"protocolsOffered,omitempty"`
	// Isolation: "per-client" for a server that runs one instance per
	// client (docs/perclient.md), else "shared".
	Isolation string `json:"isolation"`
	// Instances: a per-client server's running instances.
	Instances []InstanceView `json:"instances,omitempty"`
	// SuggestPerClient: this shared server asked its client something
	// (What: sampling, elicitation, roots) while Clients clients used it;
	// the page offers to make it per-client.
	SuggestPerClient *PerClientSuggestionView `json:"suggestPerClient,omitempty"`
	// PassUpstreamAuth: a client's X-Upstream-Authorization goes to this
	// server as its Authorization (the Connect page offers it a value).
	PassUpstreamAuth bool `json:"passUpstreamAuth,omitempty"`
	// Lazy: the server starts on its first call and stops when idle
	// (docs/lazy.md); stopped, the page says it starts on use.
	Lazy bool `json:"lazy,omitempty"`
	// LazyWhy: why the server's auto start made it lazy — "gated" or
	// "search-only" (spec.AutoLazyCause); empty when it was set lazy, or is
	// not lazy.
	LazyWhy string `json:"lazyWhy,omitempty"`
	// Bundle: the .mcpb bundle the server was installed from (bundles.go);
	// absent for a server added any other way.
	Bundle *spec.Bundle `json:"bundle,omitempty"`
}

// InstanceView is one per-client instance: whose it is, its process (0
// for an HTTP session), since when (ms since the epoch), and its calls.
type InstanceView struct {
	ID     int    `json:"id"`
	Client string `json:"client"`
	PID    int    `json:"pid,omitempty"`
	Since  int64  `json:"since"`
	Calls  int64  `json:"calls"`
	State  string `json:"state"`
}

// PerClientSuggestionView is upstream.PerClientSuggestion for the page.
type PerClientSuggestionView struct {
	What    string `json:"what"`
	Clients int    `json:"clients"`
	At      int64  `json:"at"` // ms since the epoch
}

func instanceViews(st upstream.Status) []InstanceView {
	var out []InstanceView
	for _, i := range st.Instances {
		out = append(out, InstanceView{ID: i.ID, Client: i.Client, PID: i.PID, Since: unixMilli(i.Since), Calls: i.Calls, State: string(i.State)})
	}
	return out
}

func suggestionView(st upstream.Status) *PerClientSuggestionView {
	if st.SuggestPerClient == nil {
		return nil
	}
	s := st.SuggestPerClient
	return &PerClientSuggestionView{What: s.What, Clients: s.Clients, At: unixMilli(s.At)}
}

func makeView(def spec.Server, st upstream.Status, loggedIn bool) ServerView {
	v := ServerView{
		Name: def.Name, Transport: string(def.Transport), Enabled: def.Enabled,
		State: string(st.State), StateSince: unixMilli(st.StateSince), Error: st.Error, Restarts: st.Restarts, Tools: st.Tools,
		Target: def.Target(), PrefixMode: string(def.PrefixMode), LoggedIn: loggedIn,
		Protocol: st.ProtocolVersion, ProtocolsOffered: st.ProtocolVersions, PassUpstreamAuth: def.PassUpstreamAuth,
		Isolation: string(spec.Shared), Instances: instanceViews(st), SuggestPerClient: suggestionView(st),
		Lazy: def.IsLazy(), LazyWhy: def.AutoLazyCause(), Bundle: def.Bundle,
	}
	if def.IsPerClient() {
		v.Isolation = string(spec.PerClient)
	}
	return v
}

// sameView reports whether a and b show the same (the struct holds a
// slice, so == does not compile).
func sameView(a, b ServerView) bool {
	return reflect.DeepEqual(a, b)
}

// unixMilli is t in ms since the epoch, 0 for the zero time.
func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// bg is the context of a call: the UI's calls carry none (Wails passes only
// the arguments), and none of them should outlive the app.
func bg() context.Context { return context.Background() }

// FrontendReady is called by the UI after a page first rendered; the log
// line lets the desktop smoke test tell a rendered app from a blank window.
func (a *API) FrontendReady(page string) error {
	if _, seen := a.readyOnce.LoadOrStore(page, struct{}{}); !seen {
		a.core.Log.Infof("frontend ready: %s", page)
	}
	return nil
}
