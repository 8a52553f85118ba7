package config

import (
	"github.com/mcp-router/mcp-router/internal/testbombs"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
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
	for _, b := range configBombs {
		f.Add([]byte(b.src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var servers []spec.Server
		var err error
		start := time.Now()
		alloc := testbombs.Allocated(func() { servers, err = ParseClientConfig(data) })
		if took := time.Since(start); took > 20*time.Second || alloc > 1<<30 {
			t.Fatalf("%d bytes took %s and %d MB", len(data), took, alloc>>20)
		}
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
