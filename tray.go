//go:build !nogui

package main

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	goruntime "runtime"
	"sync"
	"sync/atomic"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/appapi"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

//go:embed build/appicon.png
var appIcon []byte

// tray is the status icon: a status line, Open window, Quit. Wails v2 has
// no tray API; fyne.io/systray's RunWithExternalLoop lives beside Wails'
// main loop. On Linux it speaks D-Bus StatusNotifierItem (no second GTK
// loop); without a session bus or a StatusNotifierWatcher (a bare Xvfb)
// there is no icon, which is logged, and the app runs without one.
type tray struct {
	c       *core.Core
	shown   atomic.Bool // an icon is really on screen
	status  *systray.MenuItem
	end     func()
	detach  func()
	stopped sync.Once
	mu      sync.Mutex
}

// startTray puts the icon up (where the desktop can show one) and returns
// at once; it never blocks or fails the app.
func startTray(c *core.Core, api *appapi.API, show, quit func()) *tray {
	t := &tray{c: c}
	if why := trayUnavailable(); why != "" {
		logrus.Infof("no tray icon: %s; closing the window quits the app", why)
		return t
	}
	ready := make(chan struct{})
	start, end := systray.RunWithExternalLoop(func() {
		systray.SetIcon(trayIcon())
		systray.SetTitle("MCP Router")
		systray.SetTooltip("MCP Router")
		t.mu.Lock()
		t.status = systray.AddMenuItem("MCP Router starting…", "")
		t.status.Disable()
		t.mu.Unlock()
		systray.AddSeparator()
		open := systray.AddMenuItem("Open window", "Show the MCP Router window")
		systray.AddSeparator()
		quitItem := systray.AddMenuItem("Quit", "Stop the router and every server, and exit")
		systray.SetOnTapped(show)
		go func() {
			for {
				select {
				case <-open.ClickedCh:
					show()
				case <-quitItem.ClickedCh:
					quit()
					return
				}
			}
		}()
		close(ready)
	}, nil)
	t.end = end
	start()
	<-ready
	t.shown.Store(true)
	t.refresh()
	t.detach = appapi.Attach(api, trayEmitter{t})
	return t
}

// trayUnavailable says why no icon can be shown here, or "".
func trayUnavailable() string {
	if goruntime.GOOS != "linux" && goruntime.GOOS != "freebsd" && goruntime.GOOS != "openbsd" && goruntime.GOOS != "netbsd" {
		return ""
	}
	conn, err := dbus.SessionBus()
	if err != nil {
		return "no D-Bus session bus (" + err.Error() + ")"
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

// visible reports whether the user can reopen the window from the tray.
func (t *tray) visible() bool { return t != nil && t.shown.Load() }

// trayEmitter refreshes the status line on server events.
type trayEmitter struct{ t *tray }

func (e trayEmitter) Emit(event string, _ any) {
	if event == appapi.EventServersChanged || event == appapi.EventServerRemoved {
		e.t.refresh()
	}
}

// statusLine is "Router on http://127.0.0.1:3282/mcp · 2 of 3 servers running".
func statusLine(c *core.Core) string {
	running, total := 0, 0
	for _, st := range c.Servers.Statuses() {
		if st.Enabled {
			total++
		}
		if st.State == upstream.StateRunning {
			running++
		}
	}
	ep := c.Endpoint()
	where := "endpoint not running"
	if ep.Running {
		where = "Router on http://" + ep.Addr + "/mcp"
	} else if ep.Err != "" {
		where = "endpoint down: " + ep.Err
	}
	return fmt.Sprintf("%s · %d of %d servers running", where, running, total)
}

func (t *tray) refresh() {
	t.mu.Lock()
	item := t.status
	t.mu.Unlock()
	if item != nil {
		line := statusLine(t.c)
		item.SetTitle(line)
		systray.SetTooltip("MCP Router: " + line)
	}
}

func (t *tray) stop() {
	t.stopped.Do(func() {
		if t.detach != nil {
			t.detach()
		}
		if t.end != nil {
			t.end()
		}
	})
}

// trayIcon is the app icon at tray size: a 64 px PNG, wrapped in an ICO
// on Windows (which needs one; ICO may hold a PNG since Vista).
func trayIcon() []byte {
	small := scalePNG(appIcon, 64)
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
