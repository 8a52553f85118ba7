package policy

import (
	"errors"
	"github.com/mcp-router/mcp-router/internal/testbombs"
	"os"
	"strings"
	"testing"
	"time"
)

func TestSeedExampleLoads(t *testing.T) {
	src, err := os.ReadFile("testdata/seed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rules() != 3 {
		t.Fatalf("%d rules", p.Rules())
	}
	guard, limit, servers := p.rules[0], p.rules[1], p.rules[2]
	if !guard.approval || !guard.audit || !guard.tools.Match("delete_repo") || guard.tools.Match("echo") {
		t.Errorf("guard compiled as %+v", guard)
	}
	if limit.burst != 60 || limit.per != PerClientTool {
		t.Errorf("limit: burst %d per %q", limit.burst, limit.per)
	}
	if !servers.deniesServer("everything") || servers.deniesServer("sophia") {
		t.Error("deny: [*] with an allow list does not deny the others")
	}
}

// Every bad file is refused with the line and column of the problem.
func TestBadFiles(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // "line:col: part of the message"
	}{
		{"syntax", "policies:\n  - name: a\n    match: [\n", "3:"},
		{"unknown key", "policies:\n  - name: a\n    limit:\n      requests_per_minit: 5\n", "4:7: unknown field \"requests_per_minit\""},
		{"unknown top key", "polices:\n  - name: a\n", "1:1: unknown field \"polices\""},
		{"bad glob", "policies:\n  - name: a\n    match:\n      tools: [\"ok\", \"[bad\"]\n    limit: {requests_per_minute: 5}\n", "4:21: bad pattern \"[bad\""},
		{"no name", "policies:\n  - limit: {requests_per_minute: 5}\n", "2:5: policy 1 has no name"},
		{"duplicate name", "policies:\n  - name: a\n    tools: {hide: [x]}\n  - name: a\n    tools: {hide: [y]}\n", "4:11: the name \"a\" is already used"},
		{"does nothing", "policies:\n  - name: a\n    match: {tools: [x]}\n", "2:5: policy \"a\" does nothing"},
		{"zero limit", "policies:\n  - name: a\n    limit: {requests_per_minute: 0}\n", "3:34: limit.requests_per_minute must be a positive"},
		{"bad per", "policies:\n  - name: a\n    limit: {requests_per_minute: 5, per: user}\n", "3:42: per is \"user\""},
		{"bad log level", "policies:\n  - name: a\n    require: {log_level: verbose}\n", "3:26: log_level is \"verbose\""},
		{"empty list", "policies:\n  - name: a\n    match: {tools: []}\n    limit: {requests_per_minute: 5}\n", "3:20: an empty list"},
		{"wrong type", "policies:\n  - name: a\n    limit: {requests_per_minute: many}\n", "3:34: cannot unmarshal"},
		{"timeout without approval", "policies:\n  - name: a\n    require: {log_level: audit, approval_timeout_seconds: 5}\n", "3:59: approval_timeout_seconds without human_approval"},
		{"timeout too long", "policies:\n  - name: a\n    require: {human_approval: true, approval_timeout_seconds: 7200}\n", "3:63: approval_timeout_seconds is 7200"},
		{"not a mapping", "- a\n- b\n", "1:1: the policy file is a mapping"},
		{"duplicate key", "policies:\n  - name: a\n    name: b\n    tools: {hide: [x]}\n", "3:5:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(fe.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", fe.Error(), tc.want)
			}
		})
	}
}

func TestEmptyFileIsNoRules(t *testing.T) {
	for _, src := range []string{"", "# nothing yet\n", "policies: []\n"} {
		p, err := Parse([]byte(src))
		if err != nil || p.Rules() != 0 {
			t.Errorf("%q: %v, %v", src, p, err)
		}
	}
}

// Any file, the bombs of issue 24 first: Parse answers within bounded
// time and allocation, a policy or an error.
func FuzzParse(f *testing.F) {
	for _, s := range policySeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p *Policy
		var err error
		start := time.Now()
		alloc := testbombs.Allocated(func() { p, err = Parse(b) })
		if err == nil && p == nil {
			t.Fatal("nil policy without an error")
		}
		if took := time.Since(start); took > 20*time.Second || alloc > 1<<30 {
			t.Fatalf("%d bytes took %s and %d MB (%v)", len(b), took, alloc>>20, err)
		}
	})
}

// A file that makes the YAML library panic is a load error like any other
// (found by FuzzParse; its input is kept in testdata/fuzz).
func TestParserPanicIsAnError(t *testing.T) {
	_, err := Parse([]byte("policies:\n  - match:\n     tools: !00\n00000000000:0000\n"))
	var fe *FileError
	if !errors.As(err, &fe) || !strings.Contains(fe.Error(), "the YAML parser failed") {
		t.Fatalf("err = %v", err)
	}
}
