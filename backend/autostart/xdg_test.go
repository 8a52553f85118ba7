//go:build !darwin && !windows

package autostart

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestXDGEntry(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	cases := []struct {
		name string
		exec []string
		line string // the Exec line written
	}{
		{"plain path", []string{"/opt/mcp-router/mcp-router"}, "Exec=/opt/mcp-router/mcp-router"},
		{"space and quote", []string{`/home/a b/my "router"`, "--data-dir", "/tmp/100%"},
			`Exec="/home/a b/my \"router\"" --data-dir /tmp/100%%`},
		{"dollar", []string{"/opt/$HOME/x"}, `Exec="/opt/\$HOME/x"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := App{ID: "mcp-router", Name: "MCP Router", Exec: tc.exec}
			if a.Enabled() {
				t.Fatal("enabled before Enable")
			}
			if err := a.Enable(); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(cfg, "autostart", "mcp-router.desktop")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got := string(data)
			for _, want := range []string{"[Desktop Entry]\n", "Type=Application\n", "Name=MCP Router\n", tc.line + "\n"} {
				if !strings.Contains(got, want) {
					t.Errorf("entry lacks %q:\n%s", want, got)
				}
			}
			if !a.Enabled() {
				t.Error("not enabled after Enable")
			}
			if err := a.Enable(); err != nil { // again: rewrites, no error
				t.Fatal(err)
			}
			if err := a.Disable(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("entry still there after Disable: %v", err)
			}
			if err := a.Disable(); err != nil {
				t.Errorf("second Disable: %v", err)
			}
		})
	}
	if err := (App{ID: "x", Exec: []string{"relative/bin"}}).Enable(); !errors.Is(err, ErrNoBinary) {
		t.Errorf("relative binary: %v", err)
	}
	if err := (App{ID: "x"}).Enable(); !errors.Is(err, ErrNoBinary) {
		t.Errorf("no binary: %v", err)
	}
}
