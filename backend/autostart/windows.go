//go:build windows

package autostart

import (
	"errors"
	"strings"

	"golang.org/x/sys/windows/registry"
)

const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// Path names the registry value that starts the app.
func (a App) Path() (string, error) { return `HKCU\` + runKey + `\` + a.Name, nil }

func (a App) enable() error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	args := make([]string, len(a.Exec))
	for i, s := range a.Exec {
		args[i] = `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
	}
	return k.SetStringValue(a.Name, strings.Join(args, " "))
}

func (a App) disable() error {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer k.Close()
	if err := k.DeleteValue(a.Name); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return err
	}
	return nil
}

func (a App) enabled() bool {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		return false
	}
	defer k.Close()
	_, _, err = k.GetStringValue(a.Name)
	return err == nil
}
