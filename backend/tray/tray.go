// Package tray is the desktop app's status icon: a status line, "Open
// window" and "Quit". Wails v2 has no tray API; fyne.io/systray's
// RunWithExternalLoop lives beside Wails' main loop, and on Linux it speaks
// D-Bus StatusNotifierItem through godbus (no second GTK loop). Where the
// desktop shows no tray (no session bus, or no StatusNotifierWatcher, as on
// a bare Xvfb) the app runs without an icon: Start never blocks or fails,
// and Visible says whether the user can reopen the window from the tray.
// It does not import Wails.
package tray

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	goruntime "runtime"
	"sync"
	"sync/atomic"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Menu labels in English (text.go has every language).
const (
	LabelOpen = "Open window"
	LabelQuit = "Quit"
)

// Options configure Start.
type Options struct {
	Icon   []byte        // PNG, any size; scaled to 64 px
	Status func() string // the status line; called on Refresh
	// Language is "en" or "ja" for the menu (Language resolves the
	// setting); called at start and on Refresh. Nil: English.
	Language func() string
	OnOpen   func() // "Open window" and a click on the icon
	OnQuit   func() // "Quit"
	Logf     func(format string, args ...any)
}

// Tray is the running icon, or the record that there is none.
type Tray struct {
	o       Options
	started atomic.Bool
	status  atomic.Pointer[systray.MenuItem]
	open    atomic.Pointer[systray.MenuItem]
	quit    atomic.Pointer[systray.MenuItem]
	end     func()
	once    sync.Once
}

// started is process-wide: systray keeps global state and runs once.
var startedOnce atomic.Bool

// Start puts the icon up where the desktop can show one and returns at
// once. On Linux it needs a D-Bus session bus; without a
// StatusNotifierWatcher it still registers the item, so an icon appears
// if a watcher turns up later (systray re-registers on NameOwnerChanged).
func Start(o Options) *Tray {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Status == nil {
		o.Status = func() string { return "MCP Router" }
	}
	if o.Language == nil {
		o.Language = func() string { return "en" }
	}
	t := &Tray{o: o}
	if why := noSessionBus(); why != "" {
		o.Logf("no tray icon: %s; closing the window quits the app", why)
		return t
	}
	if !startedOnce.CompareAndSwap(false, true) {
		o.Logf("no tray icon: one is already up in this process")
		return t
	}
	ready := make(chan struct{})
	start, end := systray.RunWithExternalLoop(func() {
		defer close(ready)
		systray.SetIcon(Icon(o.Icon))
		systray.SetTitle("MCP Router")
		systray.SetTooltip("MCP Router")
		status := systray.AddMenuItem(o.Status(), "")
		status.Disable()
		t.status.Store(status)
		systray.AddSeparator()
		text := Texts(o.Language())
		open := systray.AddMenuItem(text.Open, text.OpenTip)
		systray.AddSeparator()
		quit := systray.AddMenuItem(text.Quit, text.QuitTip)
		t.open.Store(open)
		t.quit.Store(quit)
		if o.OnOpen != nil {
			systray.SetOnTapped(o.OnOpen)
		}
		go func() {
			for {
				select {
				case <-open.ClickedCh:
					if o.OnOpen != nil {
						o.OnOpen()
					}
				case <-quit.ClickedCh:
					if o.OnQuit != nil {
						o.OnQuit()
					}
					return
				}
			}
		}()
	}, nil)
	t.end = end
	start()
	<-ready
	t.started.Store(true)
	if why := noWatcher(); why != "" {
		o.Logf("tray icon registered, but %s: it shows once a tray appears; until then closing the window quits the app", why)
	}
	return t
}

// Visible reports whether an icon is on screen now, so that the user can
// reopen a hidden window from it.
func (t *Tray) Visible() bool {
	if t == nil || !t.started.Load() {
		return false
	}
	return noWatcher() == ""
}

// Refresh updates the status line (and the tooltip) and the menu's
// language.
func (t *Tray) Refresh() {
	if t == nil {
		return
	}
	text := Texts(t.o.Language())
	for _, it := range []struct {
		item       *systray.MenuItem
		label, tip string
	}{{t.open.Load(), text.Open, text.OpenTip}, {t.quit.Load(), text.Quit, text.QuitTip}} {
		if it.item != nil {
			it.item.SetTitle(it.label)
			it.item.SetTooltip(it.tip)
		}
	}
	if item := t.status.Load(); item != nil {
		line := t.o.Status()
		item.SetTitle(line)
		systray.SetTooltip("MCP Router: " + line)
	}
}

// Stop removes the icon.
func (t *Tray) Stop() {
	if t == nil {
		return
	}
	t.once.Do(func() {
		if t.end != nil {
			defer func() { _ = recover() }() // systray closes a connection it may not have made
			t.end()
		}
	})
}

func unixLike() bool {
	switch goruntime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
		return true
	}
	return false
}

// noSessionBus says why there can be no icon at all, or "".
func noSessionBus() string {
	if !unixLike() {
		return ""
	}
	if _, err := dbus.SessionBus(); err != nil {
		return "no D-Bus session bus (" + err.Error() + ")"
	}
	return ""
}

// noWatcher says why the icon is not shown right now, or "".
func noWatcher() string {
	if !unixLike() {
		return ""
	}
	conn, err := dbus.SessionBus()
	if err != nil {
		return "no D-Bus session bus"
	}
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has); err != nil {
		return "cannot ask D-Bus for a StatusNotifierWatcher (" + err.Error() + ")"
	}
	if !has {
		return "no StatusNotifierWatcher on the D-Bus session bus (the desktop shows no tray icons)"
	}
	return ""
}

// RouterStatus is the status line for c in lang:
// "Router on http://127.0.0.1:3282/mcp · 2 of 3 servers running", led by
// "1 call waiting for approval · " while calls wait in the window.
func RouterStatus(c *core.Core, lang string) string {
	text := Texts(lang)
	lead := ""
	if n := len(c.Approvals.Pending()); n > 0 {
		lead = text.ApprovalsWaiting(n) + " · "
	}
	running, enabled := 0, 0
	for _, st := range c.Servers.Statuses() {
		if st.Enabled {
			enabled++
		}
		if st.State == upstream.StateRunning {
			running++
		}
	}
	ep := c.Endpoint()
	where := text.EndpointOff
	switch {
	case ep.Running:
		where = text.RouterOn("http://" + ep.Addr + "/mcp")
	case ep.Err != "":
		where = text.EndpointDown(ep.Err)
	}
	return lead + where + " · " + text.ServersSummary(running, enabled)
}

// Icon is data (a PNG) at tray size: 64 px, wrapped in an ICO on Windows,
// which needs one (an ICO may hold a PNG since Vista).
func Icon(data []byte) []byte {
	small := scalePNG(data, 64)
	if goruntime.GOOS == "windows" {
		return icoFromPNG(small, 64)
	}
	return small
}

func scalePNG(data []byte, size int) []byte {
	src, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return data
	}
	b := src.Bounds()
	dst := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			dst.Set(x, y, src.At(b.Min.X+x*b.Dx()/size, b.Min.Y+y*b.Dy()/size))
		}
	}
	var out bytes.Buffer
	if err := png.Encode(&out, dst); err != nil {
		return data
	}
	return out.Bytes()
}

func icoFromPNG(p []byte, size int) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, []uint16{0, 1, 1}) // reserved, type icon, one image
	dim := byte(size)
	if size >= 256 {
		dim = 0
	}
	b.Write([]byte{dim, dim, 0, 0})
	_ = binary.Write(&b, binary.LittleEndian, []uint16{1, 32})
	_ = binary.Write(&b, binary.LittleEndian, []uint32{uint32(len(p)), 6 + 16})
	b.Write(p)
	return b.Bytes()
}
