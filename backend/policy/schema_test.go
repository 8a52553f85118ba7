package policy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// docs/policy.schema.json (what the UI's editor completes and checks
// against) accepts the files the loader accepts and refuses, among the
// files it refuses, those a schema can judge.
func TestSchemaAgreesWithTheLoader(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "policy.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("policy.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("policy.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	validate := func(src string) error {
		var v any
		if err := yaml.Unmarshal([]byte(src), &v); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		b, _ := json.Marshal(v)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return sch.Validate(inst)
	}
	good := []string{seedSource(t), hundredRules(), abilitiesSource,
		"policies:\n  - name: a\n    match: {clients: [ci-*], servers: [fs]}\n    limit: {requests_per_minute: 5, per: server}\n    tools: {hide: [x]}\n"}
	for _, src := range good {
		if _, err := Parse([]byte(src)); err != nil {
			t.Fatalf("loader refuses %q: %v", src, err)
		}
		if err := validate(src); err != nil {
			t.Errorf("schema refuses %q: %v", src, err)
		}
	}
	bad := []string{
		"polices: []\n",
		"policies:\n  - name: a\n    limit: {requests_per_minit: 5}\n",
		"policies:\n  - limit: {requests_per_minute: 5}\n",
		"policies:\n  - name: a\n    match: {tools: [x]}\n",
		"policies:\n  - name: a\n    limit: {requests_per_minute: 0}\n",
		"policies:\n  - name: a\n    limit: {requests_per_minute: 5, per: user}\n",
		"policies:\n  - name: a\n    require: {log_level: verbose}\n",
		"policies:\n  - name: a\n    match: {tools: []}\n    limit: {requests_per_minute: 5}\n",
		"policies:\n  - name: a\n    servers: {}\n",
		"policies:\n  - name: a\n    tools: {hide: ['']}\n",
		"policies:\n  - name: a\n    match: {permissions: [admin]}\n    require: {human_approval: true}\n",
		"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object}\n    colour: red\n",
		"abilities:\n  - name: a\n    permission: admin\n    server: s\n    tool: t\n    input_schema: {type: object}\n",
		"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: string}\n",
		"abilities:\n  - name: a\n    permission: read\n    input_schema: {type: object}\n",
		"abilities:\n  - name: a b\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object}\n",
		"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object, properties: {x: {}}}\n    arguments:\n      p: {from: x, const: 1}\n",
		"abilities:\n  - name: a\n    permission: read\n    server: s\n    tool: t\n    input_schema: {type: object}\n    arguments:\n      p: {}\n",
	}
	for _, src := range bad {
		if _, err := Parse([]byte(src)); err == nil {
			t.Fatalf("loader accepts %q", src)
		}
		if err := validate(src); err == nil {
			t.Errorf("schema accepts %q", src)
		}
	}
}
