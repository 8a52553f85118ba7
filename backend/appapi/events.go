package appapi

import (
	"context"
	"sync"
	"time"

	"github.com/mcp-router/mcp-router/backend/approval"
	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// ConsoleLines is the payload of console:lines.
type ConsoleLines struct {
	Server string   `json:"server"`
	Lines  []string `json:"lines"`
}

// HookLogLines is the payload of hooks:log.
type HookLogLines struct {
	HookID uint     `json:"hookId"`
	Lines  []string `json:"lines"`
}

// hub fans events out to every attached emitter. The sources (upstream
// events, the request log, hook logs, the gateway's tool list) are followed
// only while at least one emitter is attached.
type hub struct {
	a *API

	sinkMu sync.RWMutex
	sinks  map[int]Emitter
	nextID int
	uis    map[int]func() // detach from the approval broker, per UI sink

	lifeMu sync.Mutex // serializes starting and stopping the sources
	stop   func()     // stops the sources; nil when not running
	closed bool
}

func newHub(a *API) *hub { return &hub{a: a, sinks: map[int]Emitter{}, uis: map[int]func(){}} }

func (h *hub) add(em Emitter) func() {
	h.lifeMu.Lock()
	defer h.lifeMu.Unlock()
	if h.closed {
		return func() {}
	}
	h.sinkMu.Lock()
	id := h.nextID
	h.nextID++
	h.sinks[id] = em
	first := len(h.sinks) == 1
	h.sinkMu.Unlock()
	if first && h.stop == nil {
		h.stop = h.startSources()
	}
	// A window or a browser tab is where a person answers approvals; an
	// observer (the tray) is not.
	if _, obs := em.(Observer); !obs {
		h.uis[id] = h.a.core.Approvals.AttachUI()
	}
	var once sync.Once
	return func() { once.Do(func() { h.remove(id) }) }
}

func (h *hub) remove(id int) {
	h.lifeMu.Lock()
	defer h.lifeMu.Unlock()
	h.sinkMu.Lock()
	delete(h.sinks, id)
	last := len(h.sinks) == 0
	h.sinkMu.Unlock()
	if detach, ok := h.uis[id]; ok {
		detach()
		delete(h.uis, id)
	}
	if last && h.stop != nil {
		h.stop()
		h.stop = nil
	}
}

func (h *hub) close() {
	h.lifeMu.Lock()
	defer h.lifeMu.Unlock()
	h.closed = true
	if h.stop != nil {
		h.stop()
		h.stop = nil
	}
	h.sinkMu.Lock()
	h.sinks = map[int]Emitter{}
	h.sinkMu.Unlock()
	for id, detach := range h.uis {
		detach()
		delete(h.uis, id)
	}
}

// emit sends one event to every attached emitter.
func (h *hub) emit(event string, data any) {
	h.sinkMu.RLock()
	sinks := make([]Emitter, 0, len(h.sinks))
	for _, em := range h.sinks {
		sinks = append(sinks, em)
	}
	h.sinkMu.RUnlock()
	for _, em := range sinks {
		em.Emit(event, data)
	}
}

// startSources subscribes to everything the UI hears about and returns
// the function that unsubscribes, flushing what is still batched.
func (h *hub) startSources() (stop func()) {
	a := h.a
	every := a.opts.BatchInterval
	console := newBatcher(every, func(server string, lines []string) {
		h.emit(EventConsoleLines, ConsoleLines{Server: server, Lines: lines})
	})
	logs := newBatcher(every, func(_ string, rows []LogRow) { h.emit(EventLogsAppended, rows) })
	ids := map[string]uint{} // hook name → id; only the flusher touches it
	hooks := newBatcher(every, func(name string, lines []string) {
		id, ok := ids[name]
		if !ok {
			hk, err := a.core.Store.Hooks().Get(context.Background(), name)
			if err != nil {
				return // deleted meanwhile: nobody shows its log any more
			}
			id = hk.ID
			ids[name] = id
		}
		h.emit(EventHookLog, HookLogLines{HookID: id, Lines: lines})
	})
	tools := newBatcher(every, func(string, []struct{}) { h.emit(EventToolsChanged, nil) })
	// state_gate: runs created or moved here, or by the CLI (a database
	// change), coalesced like the other streams.
	runs := newBatcher(every, func(string, []struct{}) { h.emit(EventStateGateChanged, nil) })
	unsubRuns := a.core.StateGate.Subscribe(func(stategate.Change) { runs.add("", struct{}{}) })
	unsubRunsDB := a.core.OnDatabaseChange(func() { runs.add("", struct{}{}) })

	unsubUp := a.core.Servers.Subscribe(func(e upstream.Event) {
		switch e.Kind {
		case upstream.EventRemoved:
			h.emit(EventServerRemoved, e.Server)
		case upstream.EventState:
			h.emit(EventServersChanged, a.view(e.Status))
		case upstream.EventConsole:
			console.add(e.Server, e.Line)
		}
	})
	unsubLog := a.core.Requests.Subscribe(func(e store.RequestLog) { logs.add("", makeRow(e)) })
	unsubHook := a.core.Hooks.Subscribe(func(name string, l hook.LogLine) { hooks.add(name, formatHookLine(l)) })
	// Settings changed by the CLI while the app runs: tell the pages when
	// what they show differs from what they were last told.
	// Servers added or edited there reach the pages too, even those the
	// supervisor reports nothing about (a new disabled server).
	a.noteSettings(readSettings(context.Background(), a.core.Settings))
	views := map[string]ServerView{} // as of the last database change; only the watch touches it
	if vs, err := a.ListServers(); err == nil {
		for _, v := range vs {
			views[v.Name] = v
		}
	}
	unsubDB := a.core.OnDatabaseChange(func() {
		if now := readSettings(context.Background(), a.core.Settings); a.noteSettings(now) {
			h.emit(EventSettingsChanged, now)
		}
		vs, err := a.ListServers()
		if err != nil {
			return
		}
		seen := make(map[string]ServerView, len(vs))
		for _, v := range vs {
			seen[v.Name] = v
			if old, ok := views[v.Name]; !ok || !sameView(old, v) {
				h.emit(EventServersChanged, v)
			}
		}
		views = seen
	})
	// The in-process MCP session hears the gateway's list_changed.
	if err := a.inproc.start(a, func() { tools.add("", struct{}{}) }); err != nil {
		a.core.Log.Warnf("UI: in-process MCP session: %v (tools:changed will not be sent)", err)
	}
	stopChat := a.followChat(h.emit) // chat.go
	unsubApprovals := a.core.Approvals.Subscribe(func(l []approval.Pending) { h.emit(EventApprovalsChanged, l) })
	return func() {
		unsubApprovals()
		unsubRuns()
		unsubRunsDB()
		stopChat()
		unsubDB()
		unsubUp()
		unsubLog()
		unsubHook()
		a.inproc.onToolsChanged(nil)
		for _, b := range []interface{ stop() }{console, logs, hooks, tools, runs} {
			b.stop()
		}
	}
}

// view is the row of a server whose state changed.
func (a *API) view(st upstream.Status) ServerView {
	r, err := a.core.Store.Servers().Get(context.Background(), st.Name)
	if err != nil {
		return ServerView{Name: st.Name, Transport: string(st.Transport), Enabled: st.Enabled, State: string(st.State),
			StateSince: unixMilli(st.StateSince), Error: st.Error, Restarts: st.Restarts, Tools: st.Tools}
	}
	return makeView(a.core.ResolveStart(r.Server), st, a.loggedIn(r.Server))
}

func formatHookLine(l hook.LogLine) string {
	who := ""
	if l.Router {
		who = " (router)"
	}
	return l.Time.Format("2006-01-02T15:04:05.000Z07:00") + " " + l.Level + who + ": " + l.Message
}

// batcher coalesces items per key and hands each key's items to flush at
// most once per interval, in arrival order, so a burst of a thousand lines
// becomes a few events and nothing is lost.
type batcher[T any] struct {
	interval time.Duration
	flush    func(key string, items []T)

	flushMu sync.Mutex // one flush at a time, so batches stay in order
	mu      sync.Mutex
	pending map[string][]T
	order   []string
	timer   *time.Timer
	stopped bool
}

func newBatcher[T any](interval time.Duration, flush func(string, []T)) *batcher[T] {
	return &batcher[T]{interval: interval, flush: flush, pending: map[string][]T{}}
}

func (b *batcher[T]) add(key string, item T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return
	}
	if _, ok := b.pending[key]; !ok {
		b.order = append(b.order, key)
	}
	b.pending[key] = append(b.pending[key], item)
	if b.timer == nil {
		b.timer = time.AfterFunc(b.interval, b.fire)
	}
}

func (b *batcher[T]) fire() {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.mu.Lock()
	pending, order := b.pending, b.order
	b.pending, b.order, b.timer = map[string][]T{}, nil, nil
	b.mu.Unlock()
	for _, k := range order {
		b.flush(k, pending[k])
	}
}

// stop flushes what is pending and drops anything added later.
func (b *batcher[T]) stop() {
	b.mu.Lock()
	b.stopped = true
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	b.fire()
}
