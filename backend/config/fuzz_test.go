package config

import (
	"testing"
)

func FuzzParseClientConfig(f *testing.F) {
	for _, seed := range []string{
		claudeDesktop, claudeCodeMCPJSON, cursor, vscode,
		`{"mcpServers": {}}`,
		`{"servers": {"a": {"url": "http://h/sse"}}}`,
		`{"mcpServers": {"a": {"type": "sse", "command": "x"}}}`,
		`{"mcpServers": {"a": {"command": "x", "env": {"": "v"}, "headers": {"bad name": "v"}}}}`,
		`{"mcpServers": {"a": 1, "a": {"command": "x"}}}`,
		"{\"mcpServers\": {\"a\": {\"command\": \"x\",}, /* c */ }} // end",
		"{\"mcpServers\": {\"\xff\": {\"command\": \"\\u0000\"}}}",
		`[1, 2,]`,
		`{"mcpServers": {"a": {"command": "x"},,}}`,
		`/* unterminated`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := ParseClientConfig(data)
		if err != nil {
			if servers != nil {
				t.Fatalf("servers returned with error %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for i, s := range servers {
			if err := s.Validate(); err != nil {
				t.Fatalf("returned server fails Validate: %v (%+v)", err, s)
			}
			if seen[s.Name] {
				t.Fatalf("name %q returned twice", s.Name)
			}
			seen[s.Name] = true
			if i > 0 && servers[i-1].Name >= s.Name {
				t.Fatalf("not sorted: %q before %q", servers[i-1].Name, s.Name)
			}
		}
	})
}
