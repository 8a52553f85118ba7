package config

import (
	"fmt"

	"github.com/goccy/go-yaml"
)

// Each client's own shape for the router's entry. The formats, from the
// clients' documentation (docs/clients.md cites each):
//
//   - Claude Code, Claude Desktop, Cursor, LM Studio ("follows Cursor's
//     mcp.json notation"), Windsurf, Gemini CLI, Cline: {"mcpServers": {NAME:
//     …}}; VS Code: {"servers": {NAME: …}}; Zed: {"context_servers": {NAME:
//     …}}; opencode: {"mcp": {NAME: …}}.
//   - The URL is "url" for most, "httpUrl" for Gemini CLI (its "url" means
//     the legacy SSE transport), "serverUrl" for Windsurf.
//   - The streamable HTTP transport is named by "type": "http" (Claude Code,
//     VS Code), "streamableHttp" (Cline: a bare "url" means SSE there),
//     "remote" (opencode); the others infer it from the URL key.
//   - opencode's local server is one "command" array and its environment is
//     "environment"; the others use "command", "args" and "env".
//   - Continue reads YAML: a list of {name, type, url, requestOptions:
//     {headers}} or {name, command, args, env} under "mcpServers".

// jsonEntry is one server in a JSON client config; field order is the
// order in the output.
type jsonEntry struct {
	Type        string            `json:"type,omitempty"`
	URL         string            `json:"url,omitempty"`
	HTTPURL     string            `json:"httpUrl,omitempty"`
	ServerURL   string            `json:"serverUrl,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	Command     any               `json:"command,omitempty"` // a string, or opencode's []string
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Environment map[string]string `json:"environment,omitempty"`
	Enabled     *bool             `json:"enabled,omitempty"`
}

// JSONTopKey is the key of the object that maps server names to entries in
// client's JSON config; "" for a client whose config is not JSON.
func JSONTopKey(client string) string {
	switch client {
	case ClientVSCode:
		return keyServers
	case ClientZed:
		return keyContextServers
	case ClientOpencode:
		return keyOpencodeMCP
	case ClientCodex, ClientContinue:
		return ""
	}
	return keyMCPServers
}

// clientJSONEntry is the router's entry in client's own shape.
func clientJSONEntry(client string, p preparedSnippet) jsonEntry {
	o := p.o
	if p.mode == ModeHTTP {
		e := jsonEntry{URL: o.URL, Headers: nonEmpty(p.headers)}
		switch client {
		case ClientClaudeCode, ClientVSCode, ClientCursor:
			e.Type = "http"
		case ClientCline:
			e.Type = "streamableHttp"
		case ClientOpencode:
			e.Type = "remote"
			e.Enabled = ptr(true)
		case ClientGemini:
			e.URL, e.HTTPURL = "", o.URL
		case ClientWindsurf:
			e.URL, e.ServerURL = "", o.URL
		}
		return e
	}
	args := connectArgs(o.URL)
	if client == ClientOpencode {
		return jsonEntry{Type: "local", Command: append([]string{o.BinaryPath}, args...),
			Environment: nonEmpty(p.env), Enabled: ptr(true)}
	}
	e := jsonEntry{Command: o.BinaryPath, Args: args, Env: nonEmpty(p.env)}
	if client == ClientVSCode || client == ClientCline {
		e.Type = "stdio"
	}
	return e
}

// continueEntry is one item of Continue's mcpServers list.
type continueEntry struct {
	Name           string            `yaml:"name" json:"name"`
	Type           string            `yaml:"type" json:"type"`
	URL            string            `yaml:"url,omitempty" json:"url,omitempty"`
	RequestOptions *continueRequest  `yaml:"requestOptions,omitempty" json:"requestOptions,omitempty"`
	Command        string            `yaml:"command,omitempty" json:"command,omitempty"`
	Args           []string          `yaml:"args,omitempty" json:"args,omitempty"`
	Env            map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
}

type continueRequest struct {
	Headers map[string]string `yaml:"headers" json:"headers"`
}

// continueBlock is a Continue block file (.continue/mcpServers/NAME.yaml),
// which is also the shape of the mcpServers part of config.yaml.
type continueBlock struct {
	Name       string          `yaml:"name"`
	Version    string          `yaml:"version"`
	Schema     string          `yaml:"schema"`
	MCPServers []continueEntry `yaml:"mcpServers"`
}

func continueEntryFor(p preparedSnippet) continueEntry {
	if p.mode == ModeHTTP {
		e := continueEntry{Name: p.o.Name, Type: "streamable-http", URL: p.o.URL}
		if len(p.headers) > 0 {
			e.RequestOptions = &continueRequest{Headers: p.headers}
		}
		return e
	}
	return continueEntry{Name: p.o.Name, Type: "stdio", Command: p.o.BinaryPath, Args: connectArgs(p.o.URL), Env: nonEmpty(p.env)}
}

// continueSnippet writes a whole block file: Continue loads every YAML file
// in .continue/mcpServers (the workspace's, or ~/.continue's for all).
func continueSnippet(p preparedSnippet) (string, error) {
	out, err := yaml.MarshalWithOptions(continueBlock{Name: p.o.Name, Version: "0.0.1", Schema: "v1",
		MCPServers: []continueEntry{continueEntryFor(p)}}, yaml.IndentSequence(true))
	if err != nil {
		return "", fmt.Errorf("writing Continue's YAML: %w", err)
	}
	return string(out), nil
}

// SnippetEntry is the router's entry alone, for writing into an existing
// config (clients.Add) or an install link: Name is its key, Value its JSON
// value (a jsonEntry) or, for Continue, its list item.
type SnippetEntry struct {
	Name  string
	Value any
}

// Entry returns the router's entry for client in mode, checked as Snippet
// checks it. Codex's Value is its TOML table as text (the snippet).
func Entry(client, mode string, o SnippetOptions) (SnippetEntry, error) {
	p, err := prepareSnippet(client, mode, o)
	if err != nil {
		return SnippetEntry{}, err
	}
	switch client {
	case ClientCodex:
		return SnippetEntry{Name: p.o.Name, Value: codexSnippet(p.mode, p.o, p.env, p.headers)}, nil
	case ClientContinue:
		return SnippetEntry{Name: p.o.Name, Value: continueEntryFor(p)}, nil
	}
	return SnippetEntry{Name: p.o.Name, Value: clientJSONEntry(client, p)}, nil
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

func ptr[T any](v T) *T { return &v }
