//go:build !nogui

package main

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/mcp-router/mcp-router/backend/appapi"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/tray"
)

//go:embed build/appicon.png
var appIcon []byte

// desktop is the window's lifecycle around the bound *appapi.API: the
// window calls the API's methods directly (window.go.appapi.API.<Method>).
type desktop struct {
	api   *appapi.API
	core  *core.Core
	tray  *tray.Tray
	done  <-chan struct{} // closed on SIGTERM / Ctrl-C
	ended chan struct{}   // closed when the window's loop has returned

	mu       sync.Mutex
	ctx      context.Context // Wails' context, set on startup
	detach   func()
	quitting atomic.Bool // a real quit (tray Quit, SIGTERM), not a close to the tray
}

// wailsEmitter sends events through the Wails runtime. Only valid with
// Wails' own context: the runtime aborts the process on any other.
type wailsEmitter struct{ ctx context.Context }

var _ appapi.Emitter = wailsEmitter{}

func (e wailsEmitter) Emit(event string, data any) { runtime.EventsEmit(e.ctx, event, data) }

func (d *desktop) startup(ctx context.Context) {
	d.mu.Lock()
	d.ctx = ctx
	d.detach = appapi.Attach(d.api, wailsEmitter{ctx})
	d.mu.Unlock()
	if d.quitting.Load() { // SIGTERM arrived before the window was up
		runtime.Quit(ctx)
	}
}

func (d *desktop) shutdown(context.Context) {
	d.mu.Lock()
	detach := d.detach
	d.detach = nil
	d.mu.Unlock()
	if detach != nil {
		detach()
	}
}

func (d *desktop) wailsCtx() context.Context {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ctx
}

// quit ends the app: the window, the tray and the router (the tray's Quit).
func (d *desktop) quit() {
	if !d.quitting.CompareAndSwap(false, true) {
		return // a quit is under way
	}
	if ctx := d.wailsCtx(); ctx != nil {
		runtime.Quit(ctx)
	}
}

// quitOnSignal ends the app on SIGTERM or Ctrl-C. Wails' own signal handler
// closes the window then (beforeClose lets it), and on Linux each close ends
// in gtk_main_quit called off the main thread: a second one, racing the
// first while GTK's main loop winds down, could leave the app hanging (seen
// once in the tray check). So this only marks the quit; it closes the
// window itself only if it is still open 3 s later, or, if the window is
// not up yet, startup does.
func (d *desktop) quitOnSignal() {
	if !d.quitting.CompareAndSwap(false, true) {
		return
	}
	go func() {
		select {
		case <-d.ended:
		case <-time.After(3 * time.Second):
			if ctx := d.wailsCtx(); ctx != nil {
				logrus.Warn("the window is still open 3 s after the signal; closing it")
				runtime.Quit(ctx)
			}
		}
	}()
}

// current is the running desktop, for showDesktop.
var current atomic.Pointer[desktop]

// showDesktop brings the window forward when the app is launched again for
// the same data directory (cli.Options.ShowDesktop, package single).
func showDesktop() {
	if d := current.Load(); d != nil {
		d.show()
	}
}

// instanceID names the app to Wails' single-instance lock: one per data
// directory, as package single's claim, so apps on other data directories
// (tests, a second profile) run side by side.
func instanceID(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	return "io.mcp-router.desktop." + hex.EncodeToString(sum[:6])
}

// show brings the window back from the tray, or to front.
func (d *desktop) show() {
	if ctx := d.wailsCtx(); ctx != nil {
		runtime.WindowShow(ctx)
		runtime.WindowUnminimise(ctx)
	}
}

// beforeClose decides what closing the window does: with closeToTray on
// and a tray to come back from, the window hides and the router keeps
// running; otherwise the app quits.
func (d *desktop) beforeClose(ctx context.Context) (prevent bool) {
	// On SIGTERM or Ctrl-C, Wails' own signal handler also closes the
	// window, racing ours (which sets quitting): give ours a moment, so a
	// signal always quits. Wails calls this on its own goroutine.
	select {
	case <-d.done:
		return false
	case <-time.After(150 * time.Millisecond):
	}
	if d.quitting.Load() {
		return false
	}
	if !d.core.Settings.CloseToTray(ctx) {
		return false
	}
	if !d.tray.Visible() {
		logrus.Info("closeToTray is on but there is no tray icon to reopen the window from; quitting")
		return false
	}
	runtime.WindowHide(ctx)
	logrus.Info("window closed to the tray; the router keeps running (tray menu: Quit to exit)")
	return true
}

// trayRefresher updates the tray's status line on server events and
// approvals (the count of calls waiting), its language when the settings
// change, and brings the window to front when a call starts waiting for
// approval. It is an observer: the window, not the tray, is the UI that
// answers approvals.
type trayRefresher struct {
	t       *tray.Tray
	d       *desktop
	waiting *atomic.Int64 // calls pending as of the last approvals:changed
}

func (trayRefresher) Observer() {}

func (r trayRefresher) Emit(event string, data any) {
	switch event {
	case appapi.EventApprovalsChanged:
		l, _ := data.([]appapi.PendingApproval)
		if n := int64(len(l)); r.waiting.Swap(n) < n {
			r.d.show() // a new call waits: bring the window to front
		}
		r.t.Refresh()
	case appapi.EventServersChanged, appapi.EventServerRemoved:
		r.t.Refresh()
	case appapi.EventSettingsChanged:
		r.t.Refresh()
		// A new port moves the endpoint within a second of the change: show
		// where it went.
		time.AfterFunc(2*time.Second, r.t.Refresh)
	}
}

// runDesktop shows the window until the user quits or ctx ends.
func runDesktop(ctx context.Context, c *core.Core, api *appapi.API) error {
	d := &desktop{api: api, core: c, done: ctx.Done(), ended: make(chan struct{})}
	current.Store(d)
	defer current.Store(nil)
	// The tray follows the UI's language setting (system, en, ja).
	lang := func() string { return tray.Language(c.Settings.Language(context.Background())) }
	d.tray = tray.Start(tray.Options{Icon: appIcon, Status: func() string { return tray.RouterStatus(c, lang()) },
		Language: lang, OnOpen: d.show, OnQuit: d.quit, Logf: logrus.Infof})
	defer d.tray.Stop()
	detachTray := appapi.Attach(api, trayRefresher{t: d.tray, d: d, waiting: new(atomic.Int64)})
	defer detachTray()
	stop := context.AfterFunc(ctx, d.quitOnSignal)
	defer stop()
	defer close(d.ended)
	return wails.Run(&options.App{
		Title:            "MCP Router",
		Width:            1200,
		Height:           800,
		MinWidth:         800,
		MinHeight:        500,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		OnStartup:        d.startup,
		OnShutdown:       d.shutdown,
		OnBeforeClose:    d.beforeClose,
		Bind:             []interface{}{api},
		// Package single (cli) already sends a second launch for this
		// data directory back before it opens anything; Wails' lock
		// catches two launches racing past that check.
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId:               instanceID(c.DataDir),
			OnSecondInstanceLaunch: func(options.SecondInstanceData) { d.show() },
		},
	})
}
