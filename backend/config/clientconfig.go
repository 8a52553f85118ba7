package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-router/mcp-router/backend/filelimit"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// Top-level keys of the client config formats we import.
const (
	keyMCPServers = "mcpServers" // Claude Desktop, Claude Code (.mcp.json), Cursor
	keyServers    = "servers"    // VS Code mcp.json
	// Zed's settings.json and opencode's opencode.json.
	keyContextServers = "context_servers"
	keyOpencodeMCP    = "mcp"
)

// clientEntry is the union of the per-server fields those clients use.
// Unknown fields (VS Code's envFile, gallery, …) are ignored.
type clientEntry struct {
	Type     string            `json:"type"`
	Command  commandLine       `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Cwd      string            `json:"cwd"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
	// Other clients' names for the same (snippet_clients.go): Gemini CLI's
	// httpUrl, Windsurf's serverUrl, opencode's environment and enabled,
	// Continue's requestOptions.headers.
	HTTPURL        string            `json:"httpUrl"`
	ServerURL      string            `json:"serverUrl"`
	Environment    map[string]string `json:"environment"`
	Enabled        *bool             `json:"enabled"`
	RequestOptions struct {
		Headers map[string]string `json:"headers"`
	} `json:"requestOptions"`
	// Seed 003's config format: the transport under this name, and the
	// chat panel's per-server instructions (spec.Chat).
	Transport           string `json:"transport"`
	SystemInstruction   string `json:"system_instruction"`
	ResponseInstruction string `json:"response_instruction"`
	AutoContextTool     string `json:"auto_context_tool"`
	// The router's own: an HTTP/SSE server that takes a client's
	// X-Upstream-Authorization (docs/auth.md); `servers export` writes it.
	PassUpstreamAuth bool `json:"passUpstreamAuth"`
	// The router's own: shared or per-client (docs/perclient.md).
	Isolation string `json:"isolation"`
	// The router's own: the protocol revision of its connection to the
	// server, auto, 2025-11-25 or 2026-07-28 (docs/endpoint.md).
	Protocol string `json:"protocol"`
	// The router's own: auto, eager or lazy (spec.StartMode; absent: auto).
	Start string `json:"start"`
}

// MaxClientConfigBytes bounds a client config file or pasted JSON: Claude
// Code's ~/.claude.json keeps its projects' history beside mcpServers and
// grows to several megabytes.
const MaxClientConfigBytes = 16 << 20

// ClientConfigLimits are the caps of a client config (docs/limits.md):
// its size and its nesting, checked before any parser reads it.
func ClientConfigLimits() filelimit.Limits {
	return filelimit.Limits{What: "client config", MaxBytes: MaxClientConfigBytes}.WithDefaults()
}

// ReadClientConfig reads and parses a client config file; errors start with
// the path so the CLI can print them as they are. A FIFO or a device is
// refused, never waited on, and a file over the size cap is not read.
func ReadClientConfig(path string) ([]spec.Server, error) {
	data, _, err := ClientConfigLimits().ReadFile(path)
	if errors.As(err, new(*filelimit.Error)) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	servers, err := ParseClientConfig(data)
	if err != nil {
		return nil, prefixLines(path+": ", err)
	}
	return servers, nil
}

// ReadClientConfigFor is ReadClientConfig for one client's file
// (ParseClientConfigFor).
func ReadClientConfigFor(client, path string) ([]spec.Server, error) {
	if client == "" {
		return ReadClientConfig(path)
	}
	data, _, err := ClientConfigLimits().ReadFile(path)
	if errors.As(err, new(*filelimit.Error)) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	servers, err := ParseClientConfigFor(client, data)
	if err != nil {
		return nil, prefixLines(path+": ", err)
	}
	return servers, nil
}

// ParseClientConfig reads the server map of a Claude Desktop, Claude Code,
// Cursor or VS Code MCP config (comments and trailing commas allowed, as VS
// Code allows them). It reports every bad entry at once, each as one line
// with its position, so the user can fix the file in one pass; if any entry
// is bad it returns no servers, so an import is all or nothing. The result
// is normalized, valid and sorted by name.
//
// The size and nesting are checked first, within ClientConfigLimits, so
// neither the comment stripper nor the decoder can be made to spend more
// than the file is worth.
func ParseClientConfig(data []byte) ([]spec.Server, error) {
	// Within the parse deadline, like every loader of a file.
	return filelimit.Within(context.Background(), ClientConfigLimits(), func(context.Context) ([]spec.Server, error) {
		return parseClientConfig(data)
	})
}

// ParseClientConfigFor is ParseClientConfig for one client's file: it reads
// that client's section (JSONTopKey) and its meaning of a bare "url"
// (Gemini CLI and Cline take it for the legacy SSE transport). Continue's
// YAML goes to ParseContinueConfig.
func ParseClientConfigFor(client string, data []byte) ([]spec.Server, error) {
	if client == ClientContinue {
		return ParseContinueConfig(data)
	}
	if client == ClientCodex {
		return nil, fmt.Errorf("codex's config is TOML, which the import does not read")
	}
	return filelimit.Within(context.Background(), ClientConfigLimits(), func(context.Context) ([]spec.Server, error) {
		return parseClientConfigFor(client, data)
	})
}

func parseClientConfig(data []byte) ([]spec.Server, error) { return parseClientConfigFor("", data) }

func parseClientConfigFor(client string, data []byte) ([]spec.Server, error) {
	if err := ClientConfigLimits().CheckJSON(data); err != nil {
		var le *filelimit.Error
		if errors.As(err, &le) && le.Line > 0 {
			return nil, fmt.Errorf("line %d, column %d: %w", le.Line, le.Column, errors.New(le.Message))
		}
		return nil, err
	}
	clean := standardJSON(data)
	// Checked as JSON without building a tree of it: the file may be a
	// client's whole settings, of which only one object is read.
	var top json.RawMessage
	if err := json.Unmarshal(clean, &top); err != nil {
		return nil, syntaxError(data, err)
	}
	if firstByte(top) != '{' {
		return nil, fmt.Errorf("expected a JSON object with %q (Claude Desktop, Claude Code, Cursor) or %q (VS Code)", keyMCPServers, keyServers)
	}
	members, err := objectMembers(clean, 0)
	if err != nil {
		return nil, err
	}
	var section *member
	wanted := func(key string) bool { return key == keyMCPServers || key == keyServers || key == keyContextServers }
	if client != "" {
		wanted = func(key string) bool { return key == JSONTopKey(client) }
	}
	for i := range members {
		m := &members[i]
		if !wanted(m.key) {
			continue
		}
		if section != nil {
			if section.key == m.key {
				return nil, fmt.Errorf("%s: %q appears twice", position(data, m.off), m.key)
			}
			return nil, fmt.Errorf("%s: both %q and %q are present; keep only one", position(data, m.off), section.key, m.key)
		}
		section = m
	}
	if section == nil && client == "" {
		// opencode's "mcp" only where nothing else is: Gemini CLI's
		// settings have an "mcp" object of another kind beside mcpServers.
		for i := range members {
			if members[i].key == keyOpencodeMCP {
				section = &members[i]
			}
		}
	}
	if section == nil {
		if client != "" {
			return nil, fmt.Errorf("no %q key at the top level", JSONTopKey(client))
		}
		return nil, fmt.Errorf("no %q (Claude Desktop, Claude Code, Cursor, …) or %q (VS Code) key at the top level", keyMCPServers, keyServers)
	}
	if firstByte(section.raw) != '{' {
		return nil, fmt.Errorf("%s: %q must be an object mapping server names to definitions", position(data, section.off), section.key)
	}
	entries, err := objectMembers(clean, section.off)
	if err != nil {
		return nil, err
	}

	var servers []spec.Server
	var errs []error
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		s, err := parseEntry(client, e)
		if err == nil && seen[s.Name] {
			err = fmt.Errorf("%w: server %q is defined more than once", spec.ErrInvalid, s.Name)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", position(data, e.off), err))
			continue
		}
		seen[s.Name] = true
		servers = append(servers, s)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	return servers, nil
}

// parseEntry turns one named entry into a valid definition. Its errors wrap
// spec.ErrInvalid: they are all the user's input.
func parseEntry(client string, m member) (spec.Server, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: server %q: %s", spec.ErrInvalid, m.key, fmt.Sprintf(format, args...))
	}
	if firstByte(m.raw) != '{' {
		return spec.Server{}, bad("must be an object with a command or a url")
	}
	var e clientEntry
	if err := json.Unmarshal(m.raw, &e); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return spec.Server{}, bad("%q must be %s", te.Field, describe(te.Type))
		}
		return spec.Server{}, bad("%v", err)
	}
	bareURLIsSSE := false
	switch {
	case e.HTTPURL != "" && (e.URL != "" || e.ServerURL != ""), e.URL != "" && e.ServerURL != "":
		return spec.Server{}, bad("give one of url, httpUrl and serverUrl")
	case e.HTTPURL != "":
		// Gemini CLI: httpUrl is streamable HTTP.
		e.URL = e.HTTPURL
		if e.Type == "" {
			e.Type = "http"
		}
	case e.ServerURL != "":
		e.URL = e.ServerURL
	case client == ClientGemini || client == ClientCline:
		bareURLIsSSE = true
	}
	if len(e.Environment) > 0 {
		if len(e.Env) > 0 {
			return spec.Server{}, bad("give env or environment, not both")
		}
		e.Env = e.Environment
	}
	if h := e.RequestOptions.Headers; len(h) > 0 {
		if len(e.Headers) > 0 {
			return spec.Server{}, bad("give headers or requestOptions.headers, not both")
		}
		e.Headers = h
	}
	var command string
	args := e.Args
	if len(e.Command) > 0 {
		command = e.Command[0]
	}
	if len(e.Command) > 1 {
		// opencode's command is the whole command line.
		args = append(slices.Clone(e.Command[1:]), e.Args...)
	}
	s := spec.Server{
		Name:    m.key,
		Command: command,
		Args:    args,
		Env:     e.Env,
		Cwd:     e.Cwd,
		URL:     e.URL,
		Headers: e.Headers,
		Enabled: !e.Disabled && (e.Enabled == nil || *e.Enabled),
		// Validate refuses it on a stdio server, with the entry's position.
		PassUpstreamAuth: e.PassUpstreamAuth,
		// Validate refuses any other value, with the entry's position.
		Isolation: spec.Isolation(e.Isolation),
		// Normalize reads auto; Validate refuses any other value.
		Protocol: spec.Protocol(e.Protocol),
		// Validate refuses any other value.
		Start: spec.StartMode(e.Start),
		Chat: spec.Chat{SystemInstruction: e.SystemInstruction, ResponseInstruction: e.ResponseInstruction,
			AutoContextTool: e.AutoContextTool},
	}
	if e.Transport != "" {
		if e.Type != "" && !strings.EqualFold(e.Type, e.Transport) {
			return spec.Server{}, bad("type %q and transport %q disagree; keep one", e.Type, e.Transport)
		}
		e.Type = e.Transport
	}
	switch strings.ToLower(e.Type) {
	case "":
		if command == "" && e.URL != "" && (bareURLIsSSE || looksLikeSSE(e.URL)) {
			s.Transport = spec.SSE
		} // else Normalize: command → stdio, url → http
	case "stdio", "local":
		s.Transport = spec.Stdio
	case "http", "streamable-http", "streamablehttp", "streamable_http", "remote":
		// opencode's remote tries streamable HTTP first.
		s.Transport = spec.HTTP
	case "sse":
		s.Transport = spec.SSE
	default:
		return spec.Server{}, bad("unknown type %q (want stdio, http, streamable-http, streamableHttp, sse, local or remote)", e.Type)
	}
	if err := markSecrets(&s); err != nil { // secrets.go
		return spec.Server{}, bad("%v", err)
	}
	s.Normalize()
	if err := s.Validate(); err != nil {
		return spec.Server{}, err
	}
	return s, nil
}

// looksLikeSSE follows the convention that legacy SSE endpoints are served
// at .../sse; clients that omit "type" rely on it.
func looksLikeSSE(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/sse")
}

// describe names a Go field type in JSON terms for error messages.
func describe(t reflect.Type) string {
	if t == nil {
		return "of another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "an array of strings"
	case reflect.Map:
		return "an object with string values"
	case reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}

// member is one key of a JSON object, with the offset of its value.
type member struct {
	key string
	raw json.RawMessage
	off int
}

// objectMembers lists the members of the (already validated) JSON object
// starting at data[start:], in file order and keeping duplicate keys, which
// encoding/json would silently merge.
func objectMembers(data []byte, start int) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%s: expected an object", position(data, start))
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(data, err)
		}
		key, _ := tok.(string)
		// The value starts after the key's closing quote, spaces and colon.
		off := start + int(dec.InputOffset())
		for off < len(data) && (isSpace(data[off]) || data[off] == ':') {
			off++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(data, err)
		}
		out = append(out, member{key: key, raw: raw, off: off})
	}
	return out, nil
}

func firstByte(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// syntaxError turns encoding/json's byte offsets into the line and column an
// editor shows.
func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > 0 && !strings.Contains(se.Error(), "end of JSON input") {
			off-- // Offset is just past the offending byte
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return errors.New("the file is empty")
		}
		return fmt.Errorf("%s: %v", position(data, off), err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: %v", position(data, int(te.Offset)), err)
	}
	return err
}

// position renders a byte offset as "line L, column C" (1-based, columns in
// characters).
func position(data []byte, off int) string {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	lineStart := bytes.LastIndexByte(data[:off], '\n') + 1
	col := 1 + utf8.RuneCount(data[lineStart:off])
	return fmt.Sprintf("line %d, column %d", line, col)
}

// prefixLines puts prefix before each line of a (possibly joined) error,
// keeping it matchable with errors.Is.
func prefixLines(prefix string, err error) error {
	if multi, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range multi.Unwrap() {
			out = append(out, fmt.Errorf("%s%w", prefix, e))
		}
		return errors.Join(out...)
	}
	return fmt.Errorf("%s%w", prefix, err)
}

// commandLine is a command: a string, or (opencode) an array of the program
// and its arguments.
type commandLine []string

func (c *commandLine) UnmarshalJSON(b []byte) error {
	switch firstByte(b) {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s != "" {
			*c = commandLine{s}
		}
		return nil
	case '[':
		var a []string
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		if len(a) > 0 && a[0] == "" {
			return errors.New("the command array starts with an empty program")
		}
		*c = a
		return nil
	case 'n':
		return nil
	}
	return errors.New(`"command" must be a string or an array of strings`)
}
