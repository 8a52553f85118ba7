package appapi

import (
	"os"
	"strings"

	"github.com/mcp-router/mcp-router/backend/clients"
	"github.com/mcp-router/mcp-router/backend/config"
)

// ClientConfigFile is a client's MCP config found on this machine.
type ClientConfigFile struct {
	Client  string `json:"client"` // claude-desktop, claude-code, cursor, vscode, gemini, …
	Path    string `json:"path"`
	Servers int    `json:"servers"`         // how many servers it defines
	Error   string `json:"error,omitempty"` // why it cannot be imported as it is
}

// clientConfigPaths lists where the clients keep their user-wide MCP
// config on this OS (clients.Env.Path; Continue's is the router's own
// block file there, so its config.yaml is listed instead). Codex's
// config.toml is left out: the import reads JSON and YAML only.
func clientConfigPaths() []ClientConfigFile {
	host, err := clients.HostEnv()
	if err != nil {
		return nil
	}
	var out []ClientConfigFile
	for _, c := range clients.Writable {
		if c == config.ClientCodex {
			continue // TOML: the import reads JSON and YAML
		}
		p, err := host.Path(c, config.SnippetServerName)
		if c == config.ClientContinue {
			p, err = host.ContinueConfig(), nil
		}
		if err == nil {
			out = append(out, ClientConfigFile{Client: c, Path: p})
		}
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
		servers, err := config.ReadClientConfigFor(f.Client, f.Path)
		if err != nil {
			f.Error = err.Error()
		}
		f.Servers = len(servers)
		out = append(out, f)
	}
	return out, nil
}

// clientOfPath is the client whose known config file path is ("" for
// another file, read in the common format; a YAML file is Continue's).
func clientOfPath(path string) string {
	for _, f := range clientConfigPaths() {
		if f.Path == path {
			return f.Client
		}
	}
	if strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml") {
		return config.ClientContinue
	}
	return ""
}
