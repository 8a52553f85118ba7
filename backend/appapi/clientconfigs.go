package appapi

import (
	"os"
	"path/filepath"

	"github.com/mcp-router/mcp-router/backend/config"
)

// ClientConfigFile is a client's MCP config found on this machine.
type ClientConfigFile struct {
	Client  string `json:"client"` // claude-desktop, claude-code, cursor, vscode
	Path    string `json:"path"`
	Servers int    `json:"servers"`         // how many servers it defines
	Error   string `json:"error,omitempty"` // why it cannot be imported as it is
}

// clientConfigPaths lists where the clients keep their user-wide MCP
// config on this OS. Codex's config.toml is left out: the import reads
// JSON only.
func clientConfigPaths() []ClientConfigFile {
	var out []ClientConfigFile
	if dir, err := os.UserConfigDir(); err == nil {
		// ~/Library/Application Support on macOS, %APPDATA% on Windows,
		// $XDG_CONFIG_HOME or ~/.config elsewhere.
		out = append(out,
			ClientConfigFile{Client: config.ClientClaudeDesktop, Path: filepath.Join(dir, "Claude", "claude_desktop_config.json")},
			ClientConfigFile{Client: config.ClientVSCode, Path: filepath.Join(dir, "Code", "User", "mcp.json")})
	}
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out,
			ClientConfigFile{Client: config.ClientClaudeCode, Path: filepath.Join(home, ".claude.json")},
			ClientConfigFile{Client: config.ClientCursor, Path: filepath.Join(home, ".cursor", "mcp.json")})
	}
	return out
}

// ListClientConfigs returns the known client config files that exist here.
func (a *API) ListClientConfigs() ([]ClientConfigFile, error) {
	out := []ClientConfigFile{}
	for _, f := range clientConfigPaths() {
		if st, err := os.Stat(f.Path); err != nil || st.IsDir() {
			continue
		}
		servers, err := config.ReadClientConfig(f.Path)
		if err != nil {
			f.Error = err.Error()
		}
		f.Servers = len(servers)
		out = append(out, f)
	}
	return out, nil
}
