// Package clients writes the router's entry into an AI client's own config
// file ("Add to client"): it finds the file (per OS), plans the change and
// shows it as a diff, then writes it atomically after a timestamped
// backup. It replaces the router's entry by its key, never adds a second,
// keeps every other key and (in JSON with comments) the formatting and
// comments, and refuses a file it cannot parse.
package clients

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mcp-router/mcp-router/backend/config"
)

// Writable are the clients Add can write: all that have snippets.
var Writable = []string{config.ClientClaudeCode, config.ClientClaudeDesktop, config.ClientCursor, config.ClientVSCode, config.ClientCodex,
	config.ClientGemini, config.ClientWindsurf, config.ClientCline, config.ClientLMStudio, config.ClientZed,
	config.ClientOpencode, config.ClientContinue}

// Env is where the paths are found: the user's home and config dirs and the
// OS. Tests give their own.
type Env struct {
	Home      string // os.UserHomeDir
	ConfigDir string // os.UserConfigDir: ~/.config, ~/Library/Application Support, %APPDATA%
	GOOS      string
	XDGConfig string // $XDG_CONFIG_HOME, "" if unset
}

// HostEnv is this machine's Env.
func HostEnv() (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, fmt.Errorf("cannot find the home directory: %w", err)
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return Env{}, fmt.Errorf("cannot find the config directory: %w", err)
	}
	return Env{Home: home, ConfigDir: cfg, GOOS: runtime.GOOS, XDGConfig: os.Getenv("XDG_CONFIG_HOME")}, nil
}

// xdgConfig is $XDG_CONFIG_HOME or ~/.config, which Zed (on Linux and
// macOS) and opencode (everywhere) use rather than the OS's config dir.
func (e Env) xdgConfig() string {
	if e.XDGConfig != "" {
		return e.XDGConfig
	}
	return filepath.Join(e.Home, ".config")
}

// Path is the user-wide config file of client on e's OS (docs/clients.md
// lists them). entryName names Continue's block file.
func (e Env) Path(client, entryName string) (string, error) {
	if !slices.Contains(Writable, client) {
		return "", fmt.Errorf("unknown client %q: want one of %s", client, strings.Join(Writable, ", "))
	}
	switch client {
	case config.ClientClaudeDesktop:
		return filepath.Join(e.ConfigDir, "Claude", "claude_desktop_config.json"), nil
	case config.ClientClaudeCode:
		return filepath.Join(e.Home, ".claude.json"), nil
	case config.ClientCodex:
		return filepath.Join(e.Home, ".codex", "config.toml"), nil
	case config.ClientCursor:
		return filepath.Join(e.Home, ".cursor", "mcp.json"), nil
	case config.ClientVSCode:
		return filepath.Join(e.ConfigDir, "Code", "User", "mcp.json"), nil
	case config.ClientGemini:
		return filepath.Join(e.Home, ".gemini", "settings.json"), nil
	case config.ClientWindsurf:
		return filepath.Join(e.Home, ".codeium", "windsurf", "mcp_config.json"), nil
	case config.ClientCline:
		// The VS Code extension's global storage (saoudrizwan.claude-dev).
		return filepath.Join(e.ConfigDir, "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"), nil
	case config.ClientLMStudio:
		return filepath.Join(e.Home, ".lmstudio", "mcp.json"), nil
	case config.ClientZed:
		if e.GOOS == "windows" {
			return filepath.Join(e.ConfigDir, "Zed", "settings.json"), nil
		}
		return filepath.Join(e.xdgConfig(), "zed", "settings.json"), nil
	case config.ClientOpencode:
		return filepath.Join(e.xdgConfig(), "opencode", "opencode.json"), nil
	case config.ClientContinue:
		// A block file of its own: Continue loads every YAML file in
		// ~/.continue/mcpServers.
		return filepath.Join(e.Home, ".continue", "mcpServers", entryName+".yaml"), nil
	}
	return "", fmt.Errorf("no path for %s", client)
}

// ContinueConfig is Continue's own config.yaml, which lists servers too
// (read by the import; Add writes a block file beside it instead).
func (e Env) ContinueConfig() string { return filepath.Join(e.Home, ".continue", "config.yaml") }
