package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// DefaultEndpointURL is where the router listens unless settings say
// otherwise.
const DefaultEndpointURL = "http://127.0.0.1:3282/mcp"

// SnippetServerName is the name the router gets in a client's config.
const SnippetServerName = "mcp-router"

// snippetNameRE is what an entry name may be: a TOML bare key, and a JSON
// key no client needs quoted.
var snippetNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// TokenEnv is the environment variable `mcp-router connect` reads its token
// from.
const TokenEnv = "MCPR_TOKEN"

// Clients we write snippets for, and the snippet modes.
const (
	ClientClaudeCode    = "claude-code"
	ClientClaudeDesktop = "claude-desktop"
	ClientCursor        = "cursor"
	ClientVSCode        = "vscode"
	ClientCodex         = "codex"
	ClientGemini        = "gemini"
	ClientWindsurf      = "windsurf"
	ClientCline         = "cline"
	ClientLMStudio      = "lmstudio"
	ClientZed           = "zed"
	ClientOpencode      = "opencode"
	ClientContinue      = "continue"

	ModeHTTP  = "http"
	ModeStdio = "stdio"
)

// SnippetClients lists the clients Snippet knows, SnippetModes its modes.
var (
	SnippetClients = []string{ClientClaudeCode, ClientClaudeDesktop, ClientCursor, ClientVSCode, ClientCodex,
		ClientGemini, ClientWindsurf, ClientCline, ClientLMStudio, ClientZed, ClientOpencode, ClientContinue}
	SnippetModes = []string{ModeHTTP, ModeStdio}
)

// SnippetOptions fill in a snippet.
type SnippetOptions struct {
	URL        string // endpoint URL; "" means DefaultEndpointURL
	Token      string // bearer token; "" when auth is off
	BinaryPath string // absolute path of mcp-router, for stdio snippets
	// UpstreamAuth is the client's own credentials for servers with
	// passUpstreamAuth, by server (UpstreamAuthAll for all), as
	// ParseUpstreamAuth reads them: $MCPR_UPSTREAM_AUTH in a stdio
	// snippet, X-Upstream-Authorization(-For) headers in an http one.
	UpstreamAuth map[string]string
	// Name is the router's entry in the client's config; "" is
	// SnippetServerName. A profile's snippet names its own entry, so that
	// two profiles fit in one config. Letters, digits, '_' and '-' only.
	Name string
}

// CheckSnippet reports whether Snippet can write client in mode, without
// needing the options.
func CheckSnippet(client, mode string) error {
	if mode == "" {
		mode = ModeHTTP
	}
	if !slices.Contains(SnippetClients, client) {
		return fmt.Errorf("unknown client %q: want one of %s", client, strings.Join(SnippetClients, ", "))
	}
	if !slices.Contains(SnippetModes, mode) {
		return fmt.Errorf("unknown mode %q: want http or stdio", mode)
	}
	if client == ClientClaudeDesktop && mode == ModeHTTP {
		// claude_desktop_config.json only launches local commands; remote
		// servers are added in the app (Settings → Connectors) instead.
		return fmt.Errorf("Claude Desktop connects to local servers over stdio; use --mode stdio")
	}
	return nil
}

// Snippet returns the configuration that connects client to the router, in
// the client's own format: JSON (2-space indent) for the JSON clients
// (snippet_clients.go), TOML for Codex, a YAML block file for Continue. mode is "http" (the default)
// or "stdio", which runs `mcp-router connect` as a bridge.
func Snippet(client, mode string, o SnippetOptions) (string, error) {
	p, err := prepareSnippet(client, mode, o)
	if err != nil {
		return "", err
	}
	switch client {
	case ClientCodex:
		return codexSnippet(p.mode, p.o, p.env, p.headers), nil
	case ClientContinue:
		return continueSnippet(p)
	}
	return jsonSnippet(client, p)
}

// preparedSnippet is a snippet's checked options, with what goes into the
// entry: env for stdio, headers for http (nil for the other mode).
type preparedSnippet struct {
	mode         string
	o            SnippetOptions
	env, headers map[string]string
}

func prepareSnippet(client, mode string, o SnippetOptions) (preparedSnippet, error) {
	var p preparedSnippet
	if mode == "" {
		mode = ModeHTTP
	}
	if err := CheckSnippet(client, mode); err != nil {
		return p, err
	}
	if o.URL == "" {
		o.URL = DefaultEndpointURL
	}
	if mode == ModeStdio && o.BinaryPath == "" {
		return p, fmt.Errorf("a stdio snippet needs the path of the mcp-router binary")
	}
	if o.Name == "" {
		o.Name = SnippetServerName
	}
	if !snippetNameRE.MatchString(o.Name) {
		return p, fmt.Errorf("bad entry name %q: use 1-64 letters, digits, '_' or '-'", o.Name)
	}
	for what, s := range map[string]string{"URL": o.URL, "token": o.Token, "binary path": o.BinaryPath} {
		if !utf8.ValidString(s) {
			return p, fmt.Errorf("the %s is not valid UTF-8, which client configs cannot hold", what)
		}
	}
	if strings.ContainsAny(o.Token, " \t\r\n") {
		return p, fmt.Errorf("the token contains white space")
	}
	for k, v := range o.UpstreamAuth {
		if !utf8.ValidString(v) {
			return p, fmt.Errorf("the upstream auth value for %q is not valid UTF-8, which client configs cannot hold", k)
		}
	}
	env, headers := map[string]string{}, map[string]string{}
	if o.Token != "" {
		env[TokenEnv] = o.Token
		headers["Authorization"] = "Bearer " + o.Token
	}
	if len(o.UpstreamAuth) > 0 {
		env[UpstreamAuthEnv] = FormatUpstreamAuthEnv(o.UpstreamAuth)
		h, err := UpstreamAuthHeader(o.UpstreamAuth)
		if err != nil {
			return p, err
		}
		for k := range h {
			headers[k] = h.Get(k)
		}
	}
	if mode == ModeHTTP {
		env = nil
	} else {
		headers = nil
	}
	return preparedSnippet{mode: mode, o: o, env: env, headers: headers}, nil
}

// jsonSnippet writes the entry {top: {name: entry}} in the client's own shape (snippet_clients.go).
func jsonSnippet(client string, p preparedSnippet) (string, error) {
	return encodeJSON(map[string]map[string]jsonEntry{JSONTopKey(client): {p.o.Name: clientJSONEntry(client, p)}})
}

// encodeJSON writes v with a 2-space indent and a final newline, keeping
// & < > in URLs readable.
func encodeJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// connectArgs runs the bridge against url; the default URL is left out so
// the snippet stays short.
func connectArgs(url string) []string {
	if url == DefaultEndpointURL {
		return []string{"connect"}
	}
	return []string{"connect", "--url", url}
}

// codexSnippet writes Codex's ~/.codex/config.toml table by hand: the only
// values are strings, so TOML basic strings (tomlString) are all we need.
func codexSnippet(mode string, o SnippetOptions, env, headers map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", o.Name)
	if mode == ModeHTTP {
		fmt.Fprintf(&b, "url = %s\n", tomlString(o.URL))
		if len(headers) > 0 {
			fmt.Fprintf(&b, "http_headers = %s\n", tomlTable(headers))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "command = %s\n", tomlString(o.BinaryPath))
	args := connectArgs(o.URL)
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	fmt.Fprintf(&b, "args = [%s]\n", strings.Join(quoted, ", "))
	if len(env) > 0 {
		fmt.Fprintf(&b, "env = %s\n", tomlTable(env))
	}
	return b.String()
}

// tomlTable writes m as a TOML inline table, keys in order.
func tomlTable(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, tomlString(k)+" = "+tomlString(m[k]))
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// tomlString quotes s as a TOML basic string. TOML allows only the escapes
// \b \t \n \f \r \" \\ and \uXXXX, so strconv.Quote (which emits \x and \a)
// cannot be used. s must be valid UTF-8.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
