//go:build darwin

package autostart

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
)

// Path is the LaunchAgent: ~/Library/LaunchAgents/<id>.plist.
func (a App) Path() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Library", "LaunchAgents", "com."+a.ID+".plist"), nil
}

func (a App) enable() error {
	p, err := a.Path()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString("<plist version=\"1.0\">\n<dict>\n  <key>Label</key>\n  <string>")
	_ = xml.EscapeText(&b, []byte("com."+a.ID))
	b.WriteString("</string>\n  <key>ProgramArguments</key>\n  <array>\n")
	for _, s := range a.Exec {
		b.WriteString("    <string>")
		_ = xml.EscapeText(&b, []byte(s))
		b.WriteString("</string>\n")
	}
	b.WriteString("  </array>\n  <key>RunAtLoad</key>\n  <true/>\n</dict>\n</plist>\n")
	return writeFile(p, b.Bytes())
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
