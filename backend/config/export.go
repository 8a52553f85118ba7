package config

import (
	"bytes"
	"encoding/json"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// exportEntry is one server as ExportClientConfig writes it: the fields
// ParseClientConfig reads, so an export imports back as it was.
type exportEntry struct {
	Type                string            `json:"type"`
	Command             string            `json:"command,omitempty"`
	Args                []string          `json:"args,omitempty"`
	Env                 map[string]string `json:"env,omitempty"`
	Cwd                 string            `json:"cwd,omitempty"`
	URL                 string            `json:"url,omitempty"`
	Headers             map[string]string `json:"headers,omitempty"`
	Disabled            bool              `json:"disabled,omitempty"`
	PassUpstreamAuth    bool              `json:"passUpstreamAuth,omitempty"`
	Isolation           string            `json:"isolation,omitempty"`
	Protocol            string            `json:"protocol,omitempty"`
	Start               string            `json:"start,omitempty"`
	SystemInstruction   string            `json:"system_instruction,omitempty"`
	ResponseInstruction string            `json:"response_instruction,omitempty"`
	AutoContextTool     string            `json:"auto_context_tool,omitempty"`
}

// SkipReasonBuiltin is why an export leaves a built-in server out: no
// client config can start it.
const SkipReasonBuiltin = "built into the router: add it with `mcp-router servers add NAME --builtin`"

// ExportClientConfig writes servers as {"mcpServers": {…}}, the format of
// Claude Desktop, Claude Code and Cursor that ParseClientConfig (servers
// import, Paste JSON) reads, with the router's passUpstreamAuth, isolation and protocol and seed
// 003's chat fields. What that format has no place for — the prefix mode,
// the timeout, disabled tools, the activate gate, chat approvals — is not
// written; built-in servers are left out and reported. Plain env and
// header values are written as stored (the output is the user's own
// copy); a secret entry's value never is: it is written as its
// placeholder, ${secret:NAME}, which `servers import` reads back as a
// secret entry whose value it asks for.
func ExportClientConfig(servers []spec.Server) ([]byte, []Skipped, error) {
	out := map[string]exportEntry{}
	var skipped []Skipped
	for _, s := range servers {
		// Definitions come from the store, sealed already; sealing again
		// keeps a resolved one (values in place) from being written out.
		if err := s.Seal(); err != nil {
			return nil, nil, err
		}
		if s.Transport == spec.Builtin {
			skipped = append(skipped, Skipped{Name: s.Name, Reason: SkipReasonBuiltin})
			continue
		}
		out[s.Name] = exportEntry{
			Type: string(s.Transport), Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
			URL: s.URL, Headers: s.Headers, Disabled: !s.Enabled, PassUpstreamAuth: s.PassUpstreamAuth,
			Isolation: string(s.Isolation), Protocol: string(s.Protocol), Start: string(s.Start),
			SystemInstruction: s.Chat.SystemInstruction, ResponseInstruction: s.Chat.ResponseInstruction,
			AutoContextTool: s.Chat.AutoContextTool,
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{keyMCPServers: out}); err != nil {
		return nil, nil, err
	}
	return b.Bytes(), skipped, nil
}
