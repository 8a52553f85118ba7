//go:build !windows

package autostart

import "os"

// On macOS and the XDG desktops the login item is one file (a LaunchAgent
// plist, an autostart .desktop entry): it is on while the file exists.

func (a App) disable() error {
	p, err := a.Path()
	if err != nil {
		return err
	}
	return removeFile(p)
}

func (a App) enabled() bool {
	p, err := a.Path()
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}
