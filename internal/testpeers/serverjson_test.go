package testpeers

import (
	"fmt"
	"strings"
	"testing"
)

type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// The schema check can fail: entries outside server.schema.json are named.
func TestCheckServerJSONRefusesBrokenEntries(t *testing.T) {
	for raw, bad := range map[string]bool{
		`{"name":"io.github.a/b","description":"d","version":"1.0.0"}`:                                                                      false,
		`{"name":"io.github.a/b","description":"d","version":"1.0.0","remotes":[{"type":"streamable-http","url":"https://x.example/mcp"}]}`: false,
		`{"name":"no-slash","description":"d","version":"1.0.0"}`:                                                                           true,
		`{"name":"io.github.a/b","description":"d"}`:                                                                                        true,
		`{"name":"io.github.a/b","description":"d","version":"1.0.0","packages":[{"identifier":"x","transport":{"type":"stdio"}}]}`:         true,
	} {
		rec := &recordingTB{TB: t}
		CheckServerJSON(rec, []byte(raw))
		if got := len(rec.errors) > 0; got != bad {
			t.Errorf("%s: refused %v, want %v (%s)", raw, got, bad, strings.Join(rec.errors, "; "))
		}
	}
}
