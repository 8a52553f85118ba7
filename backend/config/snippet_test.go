package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	testToken = "mcpr_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
	testBin   = "/opt/MCP Router/mcp-router"
)

// entry is the parsed shape of one server in a JSON snippet.
type entry struct {
	Type    *string           `json:"type"`
	URL     *string           `json:"url"`
	Headers map[string]string `json:"headers"`
	Command *string           `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	raw     map[string]any
}

func parseJSONSnippet(t *testing.T, text, top string) entry {
	t.Helper()
	if !strings.HasPrefix(text, "{\n  \"") || !strings.HasSuffix(text, "}\n") {
		t.Errorf("not 2-space indented JSON:\n%s", text)
	}
	var doc map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("snippet is not JSON: %v\n%s", err, text)
	}
	if len(doc) != 1 || len(doc[top]) != 1 {
		t.Fatalf("want exactly {%q: {\"mcp-router\": …}}, got:\n%s", top, text)
	}
	raw, ok := doc[top]["mcp-router"]
	if !ok {
		t.Fatalf("no mcp-router entry:\n%s", text)
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &e.raw); err != nil {
		t.Fatal(err)
	}
	return e
}

func str(p *string) string {
	if p == nil {
		return "<absent>"
	}
	return *p
}

func TestJSONSnippets(t *testing.T) {
	jsonClients := []struct {
		client, top string
		stdioType   string // "type" of a stdio entry, "" if absent
	}{
		{ClientClaudeCode, "mcpServers", ""},
		{ClientCursor, "mcpServers", ""},
		{ClientVSCode, "servers", "stdio"},
		{ClientClaudeDesktop, "mcpServers", ""},
	}
	urls := []struct{ url, wantURL string }{
		{"", DefaultEndpointURL},
		{DefaultEndpointURL, DefaultEndpointURL},
		{"http://127.0.0.1:4000/mcp?a=1&b=<2>", "http://127.0.0.1:4000/mcp?a=1&b=<2>"},
	}
	for _, c := range jsonClients {
		for _, tok := range []string{testToken, ""} {
			for _, u := range urls {
				name := fmt.Sprintf("%s/token=%v/url=%s", c.client, tok != "", u.url)
				o := SnippetOptions{URL: u.url, Token: tok, BinaryPath: testBin}
				t.Run("http/"+name, func(t *testing.T) {
					text, err := Snippet(c.client, ModeHTTP, o)
					if c.client == ClientClaudeDesktop {
						if err == nil || err.Error() != "Claude Desktop connects to local servers over stdio; use --mode stdio" {
							t.Fatalf("claude-desktop http: %v", err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					e := parseJSONSnippet(t, text, c.top)
					if str(e.Type) != "http" || str(e.URL) != u.wantURL || e.Command != nil || e.Args != nil || e.Env != nil {
						t.Errorf("entry %v", e.raw)
					}
					if tok == "" {
						if _, has := e.raw["headers"]; has {
							t.Errorf("headers without a token: %v", e.raw)
						}
					} else if !reflect.DeepEqual(e.Headers, map[string]string{"Authorization": "Bearer " + tok}) {
						t.Errorf("headers %v", e.Headers)
					}
					if len(e.raw) != map[bool]int{true: 2, false: 3}[tok == ""] {
						t.Errorf("unexpected keys: %v", e.raw)
					}
				})
				t.Run("stdio/"+name, func(t *testing.T) {
					text, err := Snippet(c.client, ModeStdio, o)
					if err != nil {
						t.Fatal(err)
					}
					e := parseJSONSnippet(t, text, c.top)
					wantArgs := []string{"connect"}
					if u.wantURL != DefaultEndpointURL {
						wantArgs = []string{"connect", "--url", u.wantURL}
					}
					if str(e.Command) != testBin || !reflect.DeepEqual(e.Args, wantArgs) || e.URL != nil || e.Headers != nil {
						t.Errorf("entry %v", e.raw)
					}
					if c.stdioType == "" && e.Type != nil || c.stdioType != "" && str(e.Type) != c.stdioType {
						t.Errorf("type %s, want %q", str(e.Type), c.stdioType)
					}
					if tok == "" {
						if _, has := e.raw["env"]; has {
							t.Errorf("env without a token: %v", e.raw)
						}
					} else if !reflect.DeepEqual(e.Env, map[string]string{"MCPR_TOKEN": tok}) {
						t.Errorf("env %v", e.Env)
					}
				})
			}
		}
	}
}

// The exact texts of DESIGN.md's contracts.
func TestSnippetExactText(t *testing.T) {
	got, err := Snippet(ClientClaudeCode, "", SnippetOptions{Token: "T"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "mcpServers": {
    "mcp-router": {
      "type": "http",
      "url": "http://127.0.0.1:3282/mcp",
      "headers": {
        "Authorization": "Bearer T"
      }
    }
  }
}
`
	if got != want {
		t.Errorf("claude-code http:\n%s\nwant:\n%s", got, want)
	}
	got, err = Snippet(ClientCursor, ModeStdio, SnippetOptions{Token: "T", BinaryPath: "/usr/bin/mcp-router"})
	if err != nil {
		t.Fatal(err)
	}
	want = `{
  "mcpServers": {
    "mcp-router": {
      "command": "/usr/bin/mcp-router",
      "args": [
        "connect"
      ],
      "env": {
        "MCPR_TOKEN": "T"
      }
    }
  }
}
`
	if got != want {
		t.Errorf("cursor stdio:\n%s\nwant:\n%s", got, want)
	}
}

func TestCodexSnippets(t *testing.T) {
	cases := []struct {
		name, mode string
		o          SnippetOptions
		want       string
	}{
		{"http with token", ModeHTTP, SnippetOptions{Token: testToken},
			"[mcp_servers.mcp-router]\nurl = \"http://127.0.0.1:3282/mcp\"\nhttp_headers = { \"Authorization\" = \"Bearer " + testToken + "\" }\n"},
		{"http without token", "", SnippetOptions{URL: "http://[::1]:9000/mcp"},
			"[mcp_servers.mcp-router]\nurl = \"http://[::1]:9000/mcp\"\n"},
		{"stdio with token", ModeStdio, SnippetOptions{Token: testToken, BinaryPath: testBin},
			"[mcp_servers.mcp-router]\ncommand = \"/opt/MCP Router/mcp-router\"\nargs = [\"connect\"]\nenv = { \"MCPR_TOKEN\" = \"" + testToken + "\" }\n"},
		{"stdio, other URL, no token", ModeStdio, SnippetOptions{URL: "http://127.0.0.1:4000/mcp", BinaryPath: `C:\Program Files\MCP Router\mcp-router.exe`},
			"[mcp_servers.mcp-router]\ncommand = \"C:\\\\Program Files\\\\MCP Router\\\\mcp-router.exe\"\nargs = [\"connect\", \"--url\", \"http://127.0.0.1:4000/mcp\"]\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Snippet(ClientCodex, tc.mode, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			table, kv := parseTOML(t, got)
			if table != "mcp_servers.mcp-router" {
				t.Errorf("table %q", table)
			}
			want := map[string]string{}
			if tc.mode == ModeStdio {
				want["command"] = tc.o.BinaryPath
				for i, a := range connectArgs(orDefault(tc.o.URL)) {
					want["args."+strconv.Itoa(i)] = a
				}
				if tc.o.Token != "" {
					want["env.MCPR_TOKEN"] = tc.o.Token
				}
			} else {
				want["url"] = orDefault(tc.o.URL)
				if tc.o.Token != "" {
					want["http_headers.Authorization"] = "Bearer " + tc.o.Token
				}
			}
			if !reflect.DeepEqual(kv, want) {
				t.Errorf("parsed %v, want %v", kv, want)
			}
		})
	}
}

// Odd characters in paths survive the trip through TOML.
func TestTOMLStringRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", `C:\dir\"quoted"\x`, "tab\there\nnew\rline\b\f", "ctl\x01\x1f\x7f", "ünïcødé ✓ 日本", "'single'", "#hash = [x]"} {
		q := tomlString(s)
		got, rest, err := parseTOMLString(q)
		if err != nil || rest != "" || got != s {
			t.Errorf("tomlString(%q) = %s, parsed back as %q (rest %q, %v)", s, q, got, rest, err)
		}
		if strings.ContainsAny(q[1:len(q)-1], "\n\r\x00") {
			t.Errorf("tomlString(%q) has a raw control character: %q", s, q)
		}
	}
	text, err := Snippet(ClientCodex, ModeStdio, SnippetOptions{BinaryPath: "/we\"ird\\path\n/mcp-router", Token: "a\"b"})
	if err != nil {
		t.Fatal(err)
	}
	_, kv := parseTOML(t, text)
	if kv["command"] != "/we\"ird\\path\n/mcp-router" || kv["env.MCPR_TOKEN"] != "a\"b" || kv["args.0"] != "connect" {
		t.Errorf("round trip: %v", kv)
	}
}

func TestSnippetErrors(t *testing.T) {
	cases := []struct {
		client, mode string
		o            SnippetOptions
		want         string
	}{
		{"emacs", ModeHTTP, SnippetOptions{}, `unknown client "emacs": want one of claude-code, claude-desktop, cursor, vscode, codex`},
		{"", ModeHTTP, SnippetOptions{}, `unknown client ""`},
		{"Cursor", ModeHTTP, SnippetOptions{}, `unknown client "Cursor"`},
		{ClientCursor, "sse", SnippetOptions{}, `unknown mode "sse": want http or stdio`},
		{ClientClaudeDesktop, ModeHTTP, SnippetOptions{}, "Claude Desktop connects to local servers over stdio; use --mode stdio"},
		{ClientClaudeDesktop, "", SnippetOptions{}, "use --mode stdio"},
		{ClientCodex, ModeStdio, SnippetOptions{}, "needs the path of the mcp-router binary"},
		{ClientVSCode, ModeStdio, SnippetOptions{BinaryPath: "/bin/\xff"}, "not valid UTF-8"},
		{ClientVSCode, ModeHTTP, SnippetOptions{Token: "a b"}, "white space"},
	}
	for _, tc := range cases {
		_, err := Snippet(tc.client, tc.mode, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Snippet(%q, %q) = %v, want %q", tc.client, tc.mode, err, tc.want)
		}
		// CheckSnippet catches exactly the client/mode errors.
		wantCheck := strings.HasPrefix(tc.want, "unknown") || strings.Contains(tc.want, "--mode stdio")
		if cerr := CheckSnippet(tc.client, tc.mode); (cerr != nil) != wantCheck || cerr != nil && !strings.Contains(cerr.Error(), tc.want) {
			t.Errorf("CheckSnippet(%q, %q) = %v", tc.client, tc.mode, cerr)
		}
	}
}

// parseTOML is a small parser for exactly what codexSnippet may write: one
// [table] header, then key = value lines whose values are basic strings,
// arrays of them, or inline tables of them. Arrays flatten to key.N, inline
// tables to key.subkey.
func parseTOML(t *testing.T, text string) (string, map[string]string) {
	t.Helper()
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("no final newline: %q", text)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "[") || !strings.HasSuffix(lines[0], "]") {
		t.Fatalf("no table header: %q", text)
	}
	kv := map[string]string{}
	for _, line := range lines[1:] {
		key, rest, ok := strings.Cut(line, " = ")
		if !ok || key == "" || strings.ContainsAny(key, " \"") {
			t.Fatalf("bad line %q", line)
		}
		var err error
		switch {
		case strings.HasPrefix(rest, `"`):
			kv[key], rest, err = parseTOMLString(rest)
		case strings.HasPrefix(rest, "["):
			rest = rest[1:]
			for i := 0; !strings.HasPrefix(rest, "]"); i++ {
				var v string
				if v, rest, err = parseTOMLString(rest); err != nil {
					break
				}
				kv[key+"."+strconv.Itoa(i)] = v
				rest = strings.TrimPrefix(rest, ", ")
			}
			rest = strings.TrimPrefix(rest, "]")
		case strings.HasPrefix(rest, "{ "):
			rest = rest[2:]
			for !strings.HasPrefix(rest, "}") && err == nil {
				var k, v string
				if k, rest, err = parseTOMLString(rest); err != nil {
					break
				}
				if !strings.HasPrefix(rest, " = ") {
					t.Fatalf("bad inline table in %q", line)
				}
				if v, rest, err = parseTOMLString(rest[3:]); err != nil {
					break
				}
				kv[key+"."+k] = v
				rest = strings.TrimPrefix(strings.TrimPrefix(rest, ","), " ")
			}
			rest = strings.TrimPrefix(rest, "}")
		default:
			t.Fatalf("unexpected value in %q", line)
		}
		if err != nil || rest != "" {
			t.Fatalf("line %q: %v (left %q)", line, err, rest)
		}
	}
	return lines[0][1 : len(lines[0])-1], kv
}

// parseTOMLString reads one TOML basic string from the start of s, per the
// TOML 1.0 spec, and returns it and what follows.
func parseTOMLString(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, fmt.Errorf("no opening quote")
	}
	var b strings.Builder
	for i := 1; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			return b.String(), s[i+1:], nil
		case r == '\\':
			if i+1 >= len(s) {
				return "", s, fmt.Errorf("dangling backslash")
			}
			esc := map[byte]rune{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', '"': '"', '\\': '\\'}
			if v, ok := esc[s[i+1]]; ok {
				b.WriteRune(v)
				i += 2
				continue
			}
			if s[i+1] == 'u' && i+6 <= len(s) {
				n, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
				if err != nil {
					return "", s, err
				}
				b.WriteRune(rune(n))
				i += 6
				continue
			}
			return "", s, fmt.Errorf("invalid escape \\%c", s[i+1])
		case r < 0x20 && r != '\t' || r == 0x7f:
			return "", s, fmt.Errorf("raw control character %U in a basic string", r)
		case r == utf8.RuneError && size == 1:
			return "", s, fmt.Errorf("invalid UTF-8")
		}
		b.WriteRune(r)
		i += size
	}
	return "", s, fmt.Errorf("no closing quote")
}

func orDefault(url string) string {
	if url == "" {
		return DefaultEndpointURL
	}
	return url
}

// A profile's snippet names its own entry, in every client's format; a
// name that would need quoting is refused.
func TestSnippetEntryName(t *testing.T) {
	for _, client := range []string{ClientClaudeCode, ClientCursor, ClientVSCode, ClientCodex} {
		out, err := Snippet(client, ModeHTTP, SnippetOptions{URL: "http://127.0.0.1:3282/mcp/work", Token: "mcpr_x", Name: "mcp-router-work"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "mcp-router-work") || strings.Contains(strings.ReplaceAll(out, "mcp-router-work", ""), "mcp-router") {
			t.Errorf("%s: %s", client, out)
		}
	}
	if _, err := Snippet(ClientCodex, ModeHTTP, SnippetOptions{Name: "a.b]"}); err == nil {
		t.Errorf("an entry name TOML would need quoted was accepted")
	}
}
