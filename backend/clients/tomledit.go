package clients

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mcp-router/mcp-router/backend/config"
)

// tableHeader matches a TOML table header line, [a.b] (group 1 the key), or
// an array-of-tables header [[a.b]].
var tableHeader = regexp.MustCompile(`^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$`)

// setCodexEntry returns Codex's config.toml with the router's table
// replaced: every [mcp_servers.NAME] table (and its subtables) removed as
// text, the snippet's table appended. Everything else stays byte for byte.
// The result is decoded and checked: the router's entry is the snippet's
// and every other value is as before; a file where the text edit cannot do
// that (the entry written as an inline table or dotted keys) is refused.
func setCodexEntry(data []byte, name, table string) ([]byte, error) {
	if err := checkTOMLDepth(data); err != nil {
		return nil, err
	}
	var before map[string]any
	if _, err := toml.Decode(string(data), &before); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	var kept strings.Builder
	skipping := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if m := tableHeader.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
			skipping = m[1] == "[" && isRouterTable(m[2], name)
		}
		if !skipping {
			kept.WriteString(line)
		}
	}
	out := strings.TrimRight(kept.String(), "\r\n\t ")
	if out != "" {
		out += "\n\n"
	}
	out += table
	var after, want map[string]any
	if _, err := toml.Decode(out, &after); err != nil {
		return nil, fmt.Errorf("the router's entry is not a [mcp_servers.%s] table here; edit it by hand (%v)", name, err)
	}
	if _, err := toml.Decode(table, &want); err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(serverAt(after, name), serverAt(want, name)) || !reflect.DeepEqual(without(after, name), without(before, name)) {
		return nil, errors.New("the router's entry is not only [mcp_servers." + name + "] tables here (an inline table or dotted keys?); edit it by hand")
	}
	return []byte(out), nil
}

// isRouterTable reports whether a header's key is mcp_servers.NAME or one
// of its subtables; parts may be quoted.
func isRouterTable(key, name string) bool {
	parts := strings.Split(key, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return len(parts) >= 2 && parts[0] == "mcp_servers" && parts[1] == name
}

func serverAt(doc map[string]any, name string) any {
	servers, _ := doc["mcp_servers"].(map[string]any)
	return servers[name]
}

// without is doc without the router's entry (and without an mcp_servers
// left empty by its removal).
func without(doc map[string]any, name string) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		out[k] = v
	}
	if servers, ok := doc["mcp_servers"].(map[string]any); ok {
		rest := make(map[string]any, len(servers))
		for k, v := range servers {
			if k != name {
				rest[k] = v
			}
		}
		if len(rest) == 0 {
			delete(out, "mcp_servers")
		} else {
			out["mcp_servers"] = rest
		}
	}
	return out
}

// codexEntries decodes Codex's mcp_servers tables by name.
func codexEntries(data []byte) (map[string][]json.RawMessage, error) {
	if err := checkTOMLDepth(data); err != nil {
		return nil, err
	}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, err
	}
	out := map[string][]json.RawMessage{}
	servers, _ := doc["mcp_servers"].(map[string]any)
	for k, v := range servers {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[k] = append(out[k], b)
	}
	return out, nil
}

// checkTOMLDepth refuses TOML nested deeper than the client-config cap
// before BurntSushi/toml's recursive parser sees it (a million nested
// arrays overflow the goroutine's stack: a fatal error no recover catches).
// Brackets and braces are counted outside strings and comments.
func checkTOMLDepth(data []byte) error {
	limit := config.ClientConfigLimits().MaxDepth
	depth, line := 0, 1
	s := string(data)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			line++
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			i--
		case strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], `'''`):
			delim := s[i : i+3]
			end := strings.Index(s[i+3:], delim)
			if end < 0 {
				return nil // unterminated: the parser reports it
			}
			line += strings.Count(s[i:i+3+end], "\n")
			i += 3 + end + 2
		case c == '"' || c == '\'':
			for i++; i < len(s) && s[i] != c && s[i] != '\n'; i++ {
				if c == '"' && s[i] == '\\' {
					i++
				}
			}
		case c == '[' || c == '{':
			if depth++; depth > limit {
				return fmt.Errorf("line %d: nested more than %d levels deep, the depth cap of a client config (a fixed cap, docs/limits.md)", line, limit)
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}
