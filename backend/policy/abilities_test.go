package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const abilitiesSource = `abilities:
  - name: read_note
    description: Read a note by its title
    permission: read
    server: notes
    tool: show
    input_schema:
      type: object
      properties:
        title: {type: string, minLength: 1}
        format: {type: string, enum: [md, txt]}
      required: [title]
    arguments:
      path: {from: title}
      format: {from: format, default: md}
      mode: {const: ro}
  - name: delete_note
    permission: write
    server: notes
    tool: delete
    input_schema: {type: object, properties: {title: {type: string}}}
    arguments:
      path: {from: title}
policies:
  - name: writes need a person
    match: {permissions: [write]}
    require: {human_approval: true}
`

func TestAbilitiesLoadAndMap(t *testing.T) {
	p, err := Parse([]byte(abilitiesSource))
	if err != nil {
		t.Fatal(err)
	}
	abs := p.Abilities()
	if len(abs) != 2 || abs[0].Name != "read_note" || abs[1].Permission != PermissionWrite {
		t.Fatalf("abilities: %+v", abs)
	}
	var sch map[string]any
	if err := json.Unmarshal(abs[0].Schema, &sch); err != nil || sch["type"] != "object" {
		t.Fatalf("schema %s: %v", abs[0].Schema, err)
	}
	out, err := abs[0].Prepare(json.RawMessage(`{"title":"a b","ignored":1}`))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	_ = json.Unmarshal(out, &got)
	if got["path"] != "a b" || got["format"] != "md" || got["mode"] != "ro" || len(got) != 3 {
		t.Errorf("mapped (const, from, default): %s", out)
	}
	out, _ = abs[0].Prepare(json.RawMessage(`{"title":"x","format":"txt"}`))
	_ = json.Unmarshal(out, &got)
	if got["format"] != "txt" {
		t.Errorf("a given field beats the default: %s", out)
	}
	for _, bad := range []string{`{}`, `{"title":""}`, `{"title":"x","format":"pdf"}`, `[1]`, `not json`, ``} {
		_, err := abs[0].Prepare(json.RawMessage(bad))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Ability != "read_note" || ie.Detail == "" {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := abs[0].Prepare(json.RawMessage(`{"title":"x","format":"pdf"}`)); !strings.Contains(err.Error(), "format") {
		t.Errorf("the error names the bad field: %v", err)
	}
}

func TestAbilitiesPermissionMatch(t *testing.T) {
	p, err := Parse([]byte(abilitiesSource))
	if err != nil {
		t.Fatal(err)
	}
	r := p.rules[0]
	if !r.applies(&input{permission: PermissionWrite}, true) || r.applies(&input{permission: PermissionRead}, true) ||
		r.applies(&input{}, true) || r.applies(&input{permission: PermissionWrite}, false) {
		t.Error("match.permissions applies to write ability calls only")
	}
}

func TestBadAbilitiesAtLineAndColumn(t *testing.T) {
	cases := []struct{ src, want string }{
		{"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object}\n    colour: red\n", "7:5"},
		{"abilities:\n  - name: a\n    permission: admin\n    server: s\n    tool: t\n    input_schema: {type: object}\n", "3:17"},
		{"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object, properties: {x: {type: strin}}}\n", "6:"},
		{"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: string}\n", "6:"},
		{"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object}\n    arguments:\n      p: {from: nope}\n", "8:17"},
		{"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object, properties: {x: {}}}\n    arguments:\n      p: {from: x, const: 1}\n", "8:"},
		{"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object}\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object}\n", "7:"},
		{"abilities:\n  - name: a b\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object}\n", "2:"},
		{"abilities:\n  - name: a\n    permission: read\n    input_schema: {type: object}\n", "2:"},
		{"policies:\n  - name: a\n    match: {permissions: [admin]}\n    require: {human_approval: true}\n", "3:"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.src))
		var fe *FileError
		if !errors.As(err, &fe) {
			t.Errorf("%q loads: %v", c.src, err)
			continue
		}
		if !strings.HasPrefix(fe.Problems[0].String(), c.want) {
			t.Errorf("%q: %v, want at %s", c.src, err, c.want)
		}
	}
}
