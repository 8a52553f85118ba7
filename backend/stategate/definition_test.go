package stategate

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testbombs"
)

func readExample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/exploration-process.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseExample(t *testing.T) {
	p, err := Parse(readExample(t), CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "exploration-process" || p.Version != "1.0.0" || p.Initial().Name != "observe" || p.Language != "ja" {
		t.Fatalf("parsed %+v", p)
	}
	if len(p.States) != 6 || len(p.Events) != 6 || len(p.Guards) != 3 || len(p.Transitions) != 7 {
		t.Fatalf("counts: %d states %d events %d guards %d transitions", len(p.States), len(p.Events), len(p.Guards), len(p.Transitions))
	}
	ev, _ := p.Event("submit_experiment_plan")
	// The schema keeps the author's key order.
	if got := string(ev.PayloadSchema); got != `{"type":"object","required":["plan"],"properties":{"plan":{"type":"string"}}}` {
		t.Errorf("payload schema = %s", got)
	}
	if got := p.artifactType("evidence/observation-001.md"); got != "observation" {
		t.Errorf("artifact type = %q", got)
	}
	if got := p.artifactType("notes/x.md"); got != "" {
		t.Errorf("artifact type of an unmatched path = %q", got)
	}
	if p.Hash == "" || string(p.Source) != string(readExample(t)) {
		t.Error("source and hash not kept")
	}
}

const minimal = `id: p
version: 1
states:
  - name: a
    initial: true
  - name: b
    final: true
events:
  - name: go
transitions:
  - from: a
    event: go
    to: b
`

func TestParseVersionAsNumber(t *testing.T) {
	p, err := Parse([]byte(minimal), CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != "1" || p.Name != "p" || p.Language != "en" {
		t.Fatalf("got version %q name %q language %q", p.Version, p.Name, p.Language)
	}
}

// Every problem comes with the line and column of what is wrong.
func TestParseErrorsHaveLineAndColumn(t *testing.T) {
	cases := []struct {
		name      string
		src       string
		line, col int
		contains  string
	}{
		{"syntax", "id: p\nstates: [a\n", 2, 9, ""},
		{"unknown key", minimal + "colour: blue\n", 14, 1, "colour"},
		{"wrong type", strings.Replace(minimal, "initial: true", "initial: [x]", 1), 5, 14, ""},
		{"missing id", strings.Replace(minimal, "id: p\n", "", 1), 0, 0, "id is required"},
		{"bad id", strings.Replace(minimal, "id: p", "id: 'no spaces'", 1), 1, 5, "must be 1-64"},
		{"no initial", strings.Replace(minimal, "    initial: true\n", "", 1), 4, 3, "no state is marked initial"},
		{"two initial", strings.Replace(minimal, "    final: true", "    initial: true", 1), 7, 14, "one initial state"},
		{"unknown state", strings.Replace(minimal, "    to: b", "    to: c", 1), 13, 9, `unknown state "c"`},
		{"unknown from", strings.Replace(minimal, "  - from: a", "  - from: z", 1), 11, 11, `unknown state "z"`},
		{"unknown event", strings.Replace(minimal, "    event: go", "    event: stop", 1), 12, 12, `unknown event "stop"`},
		{"unused event", strings.Replace(minimal, "  - name: go\n", "  - name: go\n  - name: stop\n", 1), 10, 11, `event "stop" is used by no transition`},
		{"unknown guard", strings.Replace(minimal, "    to: b\n", "    to: b\n    guard: nope\n", 1), 14, 12, `unknown guard "nope"`},
		{"guard syntax", minimal + "guards:\n  - name: g\n    expression: events.go >=\n", 16, 29, "guard g: Syntax error"},
		{"guard type", minimal + "guards:\n  - name: g\n    expression: events.go + 1\n", 16, 17, "must be a bool expression"},
		{"guard unknown variable", minimal + "guards:\n  - name: g\n    expression: nothing == 1\n", 16, 17, "undeclared reference"},
		{"guard message", minimal + "guards:\n  - name: g\n    expression: 'true'\n    message: 'count {{ events.go + }}'\n", 17, 36, "guard g message: Syntax error"},
		{"bad schema", strings.Replace(minimal, "  - name: go\n", "  - name: go\n    payload_schema: {type: 12}\n", 1), 10, 21, "not a valid JSON Schema: at /type: "},
		{"bad pattern", minimal + "artifacts:\n  - type: t\n    patterns: ['../x']\n", 16, 16, "inside the workspace"},
		{"required artifact unknown", strings.Replace(minimal, "    initial: true\n", "    initial: true\n    required_artifacts: [plan]\n", 1), 6, 26, `unknown artifact type "plan"`},
		{"two documents", minimal + "---\nid: q\n", 1, 1, "exactly one YAML document"},
		{"final has exit", strings.Replace(minimal, "  - from: a", "  - from: b", 1), 11, 11, "final"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), CompileOptions{})
			var de *DefinitionError
			if !errors.As(err, &de) || !errors.Is(err, ErrDefinition) {
				t.Fatalf("Parse = %v, want a *DefinitionError", err)
			}
			found := false
			for _, p := range de.Problems {
				if (tc.contains == "" || strings.Contains(p.Message, tc.contains)) && (tc.line == 0 || (p.Line == tc.line && p.Column == tc.col)) {
					found = true
				}
			}
			if !found {
				t.Fatalf("want a problem at %d:%d containing %q; got %+v", tc.line, tc.col, tc.contains, de.Problems)
			}
			if strings.Contains(de.Error(), "\n") {
				t.Errorf("error has more than one line: %q", de.Error())
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add(readExample(f))
	f.Add([]byte("id: [\n"))
	// The bombs of issue 24 and the shapes that cost go-yaml's parser most.
	for _, s := range []string{
		testbombs.Process(),
		"id: a\nversion: *x\nx: &x " + testbombs.FlowYAML(50) + "\n",
		"id: a\nstates: " + testbombs.FlowYAML(50_000) + "\n",
		"id: a\nstates:\n" + testbombs.BlockYAML(50_000),
		testbombs.KeysYAML(6000),
		"id: " + testbombs.Scalar(MaxDefinitionBytes) + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var p *Process
		var err error
		start := time.Now()
		alloc := testbombs.Allocated(func() { p, err = Parse(src, CompileOptions{}) })
		if took := time.Since(start); took > 20*time.Second || alloc > 1<<30 {
			t.Fatalf("%d bytes took %s and %d MB (%v)", len(src), took, alloc>>20, err)
		}
		if err == nil {
			if p.Initial() == nil || p.ID == "" {
				t.Fatalf("accepted a process without id or initial state: %q", src)
			}
			return
		}
		if !errors.Is(err, ErrDefinition) {
			t.Fatalf("error is not a definition error: %v", err)
		}
	})
}
