package config

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// LinkClients are the clients that install a server from a link.
var LinkClients = []string{ClientCursor, ClientVSCode, ClientLMStudio}

// InstallLink returns the link that makes client add the router's entry
// (after asking its user), in the forms the clients document:
//
//   - Cursor: cursor://anysphere.cursor-deeplink/mcp/install?name=NAME&config=BASE64
//     (cursor.com/docs/mcp/install-links), the config being the entry's
//     JSON as in mcp.json;
//   - VS Code: vscode:mcp/install?JSON with JSON = the entry plus its
//     "name", URI-component encoded (as VS Code's own generators do);
//   - LM Studio: lmstudio://add_mcp?name=NAME&config=BASE64
//     (lmstudio.ai/docs/app/mcp/deeplink).
func InstallLink(client, mode string, o SnippetOptions) (string, error) {
	if !slices.Contains(LinkClients, client) {
		return "", fmt.Errorf("%s has no install link; links exist for %s", client, strings.Join(LinkClients, ", "))
	}
	e, err := Entry(client, mode, o)
	if err != nil {
		return "", err
	}
	entry, err := json.Marshal(e.Value)
	if err != nil {
		return "", err
	}
	switch client {
	case ClientCursor, ClientLMStudio:
		q := url.Values{"name": {e.Name}, "config": {base64.StdEncoding.EncodeToString(entry)}}
		if client == ClientCursor {
			return "cursor://anysphere.cursor-deeplink/mcp/install?" + q.Encode(), nil
		}
		return "lmstudio://add_mcp?" + q.Encode(), nil
	case ClientVSCode:
		var m map[string]any
		if err := json.Unmarshal(entry, &m); err != nil {
			return "", err
		}
		m["name"] = e.Name
		b, err := json.Marshal(m)
		if err != nil {
			return "", err
		}
		return "vscode:mcp/install?" + uriComponent(string(b)), nil
	}
	return "", fmt.Errorf("%s has no install link; links exist for %s", client, strings.Join(LinkClients, ", "))
}

// uriComponent is JavaScript's encodeURIComponent: every byte but
// A-Z a-z 0-9 - _ . ! ~ * ' ( ) percent-encoded.
func uriComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
