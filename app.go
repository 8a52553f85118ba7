//go:build !nogui

package main

import (
	"context"
	"sync"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/mcp-router/mcp-router/backend/appapi"
	"github.com/mcp-router/mcp-router/backend/core"
)

// App is the struct bound to the window: a thin facade whose methods
// delegate to appapi, which holds the logic and tests without Wails.
type App struct {
	api *appapi.API

	mu  sync.Mutex
	ctx context.Context // Wails' context, set on startup
}

// wailsEmitter sends events through the Wails runtime. Only valid with
// Wails' own context: the runtime aborts the process on any other.
type wailsEmitter struct{ ctx context.Context }

var _ appapi.Emitter = wailsEmitter{}

func (e wailsEmitter) Emit(event string, data any) { runtime.EventsEmit(e.ctx, event, data) }

func (a *App) startup(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
	a.api.Attach(wailsEmitter{ctx})
}

func (a *App) shutdown(context.Context) { a.api.Detach() }

// quit closes the window from outside the UI (SIGTERM, Ctrl-C).
func (a *App) quit() {
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if ctx != nil {
		runtime.Quit(ctx)
	}
}

// ListServers returns every configured server with its live state.
func (a *App) ListServers() ([]appapi.ServerView, error) {
	return a.api.ListServers(context.Background())
}

// FrontendReady is called by the UI once a page has rendered.
func (a *App) FrontendReady(page string) error { return a.api.FrontendReady(page) }

// runDesktop shows the window until the user closes it or ctx ends.
func runDesktop(ctx context.Context, c *core.Core) error {
	app := &App{api: appapi.New(c)}
	stop := context.AfterFunc(ctx, app.quit)
	defer stop()
	return wails.Run(&options.App{
		Title:            "MCP Router",
		Width:            1200,
		Height:           800,
		MinWidth:         800,
		MinHeight:        500,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		OnStartup:        app.startup,
		OnShutdown:       app.shutdown,
		Bind:             []interface{}{app},
	})
}
