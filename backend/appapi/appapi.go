// Package appapi is what the UI calls: plain Go methods returning (T, error)
// and events pushed through an Emitter. The Wails window binds a thin facade
// over it; the browser UI of `mcp-router serve` will reach the same methods
// over HTTP. It never imports Wails, so it tests headlessly.
package appapi

import (
	"context"
	"sync"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Event names the UI subscribes to.
const (
	EventServersChanged = "servers:changed" // payload: ServerView
	EventServerRemoved  = "servers:removed" // payload: the server's name
)

// Emitter pushes an event to the UI.
type Emitter interface {
	Emit(event string, data any)
}

// ServerView is one row of the Servers page.
type ServerView struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Enabled   bool   `json:"enabled"`
	State     string `json:"state"`
	Error     string `json:"error,omitempty"`
	Restarts  int    `json:"restarts"`
	Tools     int    `json:"tools"`
	Target    string `json:"target"`
}

// API is the UI-facing facade over a running Core.
type API struct {
	core        *core.Core
	unsubscribe func()
	readyOnce   sync.Map // page → struct{}: log readiness once per page
}

// New returns the facade; call Attach once the UI can receive events.
func New(c *core.Core) *API { return &API{core: c} }

// Attach forwards server state changes to the UI until Detach.
func (a *API) Attach(em Emitter) {
	a.unsubscribe = a.core.Servers.Subscribe(func(e upstream.Event) {
		switch e.Kind {
		case upstream.EventRemoved:
			em.Emit(EventServerRemoved, e.Server)
		case upstream.EventState:
			em.Emit(EventServersChanged, a.view(context.Background(), e.Status))
		}
	})
}

// Detach stops forwarding events.
func (a *API) Detach() {
	if a.unsubscribe != nil {
		a.unsubscribe()
	}
}

// ListServers returns every configured server with its live state.
func (a *API) ListServers(ctx context.Context) ([]ServerView, error) {
	rows, err := a.core.Store.Servers().List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ServerView, 0, len(rows))
	for _, r := range rows {
		st, err := a.core.Servers.Status(r.Name)
		if err != nil {
			// Stored but not yet picked up by the supervisor.
			st = upstream.Status{Name: r.Name, Transport: r.Transport, Enabled: r.Enabled, State: upstream.StateStopped}
		}
		out = append(out, makeView(r.Server, st))
	}
	return out, nil
}

func (a *API) view(ctx context.Context, st upstream.Status) ServerView {
	r, err := a.core.Store.Servers().Get(ctx, st.Name)
	if err != nil {
		return ServerView{Name: st.Name, Transport: string(st.Transport), Enabled: st.Enabled, State: string(st.State)}
	}
	return makeView(r.Server, st)
}

func makeView(def spec.Server, st upstream.Status) ServerView {
	return ServerView{
		Name: def.Name, Transport: string(def.Transport), Enabled: def.Enabled,
		State: string(st.State), Error: st.Error, Restarts: st.Restarts, Tools: st.Tools,
		Target: def.Target(),
	}
}

// FrontendReady is called by the UI after a page first rendered; the log
// line lets the desktop smoke test tell a rendered app from a blank window.
func (a *API) FrontendReady(page string) error {
	if _, seen := a.readyOnce.LoadOrStore(page, struct{}{}); !seen {
		a.core.Log.Infof("frontend ready: %s", page)
	}
	return nil
}
