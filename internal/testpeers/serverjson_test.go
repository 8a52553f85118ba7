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

func TestTailKeepsTheLastLines(t *testing.T) {
	tl := &Tail{N: 3}
	for _, l := range []string{"a", "b", "c", "d", "e"} {
		tl.Add(l)
	}
	if got := tl.String(); got != "c\nd\ne" {
		t.Fatalf("Tail = %q, want the last three lines", got)
	}
	var zero Tail
	for i := 0; i < 40; i++ {
		zero.Add("x")
	}
	if n := strings.Count(zero.String(), "x"); n != 30 {
		t.Fatalf("zero Tail kept %d lines, want 30", n)
	}
}
