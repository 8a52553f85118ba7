package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolveDataDir(t *testing.T) {
	home := t.TempDir()
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	cfg, err := os.UserConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, flag, env, want string
	}{
		{"default", "", "", filepath.Join(cfg, "mcp-router")},
		{"env", "", "/srv/router", "/srv/router"},
		{"flag wins over env", "/opt/flag", "/srv/router", "/opt/flag"},
		{"relative flag made absolute", "rel/dir", "", filepath.Join(cwd, "rel/dir")},
		{"relative env made absolute", "", "./envdir", filepath.Join(cwd, "envdir")},
		{"blank flag falls through", "   ", "/srv/router", "/srv/router"},
		{"tilde expanded", "~/router", "", filepath.Join(home, "router")},
		{"tilde in env", "", "~", home},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(DataDirEnv, tt.env)
			got, err := ResolveDataDir(tt.flag)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ResolveDataDir(%q) with %s=%q = %q, want %q", tt.flag, DataDirEnv, tt.env, got, tt.want)
			}
			if !filepath.IsAbs(got) {
				t.Errorf("%q is not absolute", got)
			}
		})
	}
}

func TestResolveDataDirNoHome(t *testing.T) {
	t.Setenv(DataDirEnv, "")
	t.Setenv("HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("AppData", "")
	if _, err := ResolveDataDir(""); err == nil {
		t.Error("want an error when no config dir can be found")
	}
	if got, err := ResolveDataDir("/x"); err != nil || got != "/x" {
		t.Errorf("flag should still work without HOME: %q %v", got, err)
	}
}

func TestDBPath(t *testing.T) {
	if got, want := DBPath("/data"), filepath.Join("/data", "mcp-router.db"); got != want {
		t.Errorf("DBPath = %q, want %q", got, want)
	}
}
