// Package autostart turns "start at login" on and off for the desktop app
// with each OS's own mechanism: an XDG autostart entry on Linux and other
// Unixes (~/.config/autostart/mcp-router.desktop), a LaunchAgent on macOS
// (~/Library/LaunchAgents/<id>.plist), a value under the registry's
// HKCU\Software\Microsoft\Windows\CurrentVersion\Run key on Windows. Each is
// a few lines, so no library is needed.
package autostart

import (
	"errors"
	"os"
	"path/filepath"
)

// App is a program to start at login.
type App struct {
	ID   string   // file or value name: "mcp-router"
	Name string   // shown to the user: "MCP Router"
	Exec []string // absolute binary path, then arguments
}

// ErrNoBinary is returned when App.Exec is empty or not absolute.
var ErrNoBinary = errors.New("start at login needs the absolute path of the app")

func (a App) check() error {
	if len(a.Exec) == 0 || !filepath.IsAbs(a.Exec[0]) {
		return ErrNoBinary
	}
	return nil
}

// Enable makes the app start at login (idempotent: rewrites the entry).
func (a App) Enable() error {
	if err := a.check(); err != nil {
		return err
	}
	return a.enable()
}

// Disable stops the app from starting at login; no entry is no error.
func (a App) Disable() error { return a.disable() }

// Enabled reports whether the entry exists.
func (a App) Enabled() bool { return a.enabled() }

// Router is the entry of this binary: the bare command opens the window.
func Router() (App, error) {
	exe, err := os.Executable()
	if err != nil {
		return App{}, err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return App{ID: "mcp-router", Name: "MCP Router", Exec: []string{exe}}, nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
