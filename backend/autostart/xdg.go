//go:build !darwin && !windows

package autostart

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Path is the XDG autostart entry: $XDG_CONFIG_HOME/autostart/<id>.desktop
// (~/.config when XDG_CONFIG_HOME is unset).
func (a App) Path() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "autostart", a.ID+".desktop"), nil
}

func (a App) enable() error {
	p, err := a.Path()
	if err != nil {
		return err
	}
	args := make([]string, len(a.Exec))
	for i, s := range a.Exec {
		args[i] = quoteExec(s)
	}
	entry := fmt.Sprintf("[Desktop Entry]\nType=Application\nName=%s\nExec=%s\nTerminal=false\nX-GNOME-Autostart-enabled=true\n",
		a.Name, strings.Join(args, " "))
	return writeFile(p, []byte(entry))
}

// quoteExec quotes one argument of a desktop entry's Exec key as the
// Desktop Entry Specification asks: reserved characters inside double
// quotes, with ", `, $ and \ escaped, and % doubled.
func quoteExec(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\><~|&;$*?#()`") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", `$`, `\$`)
	return `"` + r.Replace(s) + `"`
}

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
