package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Permissions of abilities (and of match.permissions).
const (
	PermissionRead  = "read"
	PermissionWrite = "write"
)

// AbilitySpec is one entry of abilities: a virtual tool the router
// publishes under its own name, whose calls are validated against
// input_schema, mapped to arguments and sent to an upstream tool
// (docs/policy.md, "Abilities").
type AbilitySpec struct {
	Name        string               `yaml:"name" json:"name"`
	Description string               `yaml:"description,omitempty" json:"description,omitempty"`
	InputSchema map[string]any       `yaml:"input_schema" json:"input_schema"`
	Permission  string               `yaml:"permission" json:"permission"`
	Server      string               `yaml:"server" json:"server"`
	Tool        string               `yaml:"tool" json:"tool"`
	Arguments   map[string]ArgSource `yaml:"arguments,omitempty" json:"arguments,omitempty"`
}

// ArgSource is where one backend argument comes from: the caller's input
// field from (or default when the caller left it out), or the value const.
type ArgSource struct {
	From    string `yaml:"from,omitempty" json:"from,omitempty"`
	Const   any    `yaml:"const,omitempty" json:"const,omitempty"`
	Default any    `yaml:"default,omitempty" json:"default,omitempty"`
}

// Ability is an AbilitySpec checked: its schema compiled.
type Ability struct {
	AbilitySpec
	Schema json.RawMessage // input_schema as JSON, published as the tool's inputSchema
	sch    *jsonschema.Schema
	keys   []string // the backend arguments, sorted
}

// InputError is a call whose arguments do not fit an ability's input_schema.
type InputError struct {
	Ability string
	Detail  string // the validator's account of every failure
}

func (e *InputError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %s", e.Ability, e.Detail)
}

// Abilities are the abilities of the policy, in file order (nil policy: none).
func (p *Policy) Abilities() []*Ability {
	if p == nil {
		return nil
	}
	return p.abilities
}

var abilityName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func compileAbilities(c *checker, specs []AbilitySpec) []*Ability {
	var out []*Ability
	names := map[string]int{}
	for i, s := range specs {
		at := fmt.Sprintf("$.abilities[%d]", i)
		ok := true
		fail := func(path, format string, args ...any) {
			ok = false
			c.fail(path, format, args...)
		}
		switch {
		case s.Name == "":
			fail(at, "ability %d has no name: it is the tool's name in tools/list", i+1)
		case !abilityName.MatchString(s.Name):
			fail(at+".name", "ability name %q: use 1 to 128 letters, digits, _ . or -", s.Name)
		default:
			if j, dup := names[s.Name]; dup {
				fail(at+".name", "the name %q is already used by ability %d", s.Name, j+1)
			}
			names[s.Name] = i + 1
		}
		if s.Permission != PermissionRead && s.Permission != PermissionWrite {
			if s.Permission == "" {
				fail(at, "ability %q has no permission: give permission: read or write", s.Name)
			} else {
				fail(at+".permission", "permission is %q; it is read or write", s.Permission)
			}
		}
		if s.Server == "" || s.Tool == "" {
			fail(at, "ability %q needs server: and tool: (the upstream tool it calls)", s.Name)
		}
		a := &Ability{AbilitySpec: s}
		if s.InputSchema == nil {
			fail(at, "ability %q has no input_schema (a JSON Schema of type object)", s.Name)
		} else if t, _ := s.InputSchema["type"].(string); t != "object" {
			fail(at+".input_schema", "input_schema must have type: object (MCP tool inputs are objects)")
		} else {
			raw, err := json.Marshal(s.InputSchema)
			if err != nil {
				fail(at+".input_schema", "input_schema is not JSON: %v", err)
			} else if sch, err := compileSchema(raw); err != nil {
				fail(at+".input_schema", "input_schema is not a valid JSON Schema: %v", oneLine(err))
			} else {
				a.Schema, a.sch = raw, sch
			}
		}
		for _, k := range sortedArgKeys(s.Arguments) {
			src, ap := s.Arguments[k], fmt.Sprintf("%s.arguments.%s", at, k)
			switch {
			case src.From == "" && src.Const == nil:
				fail(ap, "argument %q: give from: <input field> or const: <value>", k)
			case src.From != "" && src.Const != nil:
				fail(ap, "argument %q: from: and const: together; give one", k)
			case src.Const != nil && src.Default != nil:
				fail(ap, "argument %q: default: goes with from:, not const:", k)
			}
			if src.From != "" && a.sch != nil {
				if props, _ := s.InputSchema["properties"].(map[string]any); props == nil || props[src.From] == nil {
					fail(ap+".from", "argument %q takes input field %q, which input_schema.properties does not declare", k, src.From)
				}
			}
			a.keys = append(a.keys, k)
		}
		if ok {
			out = append(out, a)
		}
	}
	return out
}

func compileSchema(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("urn:mcp-router:ability", doc); err != nil {
		return nil, err
	}
	return c.Compile("urn:mcp-router:ability")
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

func sortedArgKeys(m map[string]ArgSource) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Prepare validates a call's arguments (nil: none, an empty object)
// against the input schema and returns the backend tool's arguments.
// The error is an *InputError.
func (a *Ability) Prepare(args json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, &InputError{Ability: a.Name, Detail: "the arguments are not JSON: " + err.Error()}
	}
	if err := a.sch.Validate(inst); err != nil {
		return nil, &InputError{Ability: a.Name, Detail: oneLine(err)}
	}
	// The schema says object; decode keeping numbers as they were sent.
	var in map[string]json.RawMessage
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, &InputError{Ability: a.Name, Detail: "the arguments are not an object"}
	}
	out := make(map[string]any, len(a.keys))
	for _, k := range a.keys {
		src := a.Arguments[k]
		switch {
		case src.Const != nil:
			out[k] = src.Const
		default:
			if v, ok := in[src.From]; ok {
				out[k] = v
			} else if src.Default != nil {
				out[k] = src.Default
			}
		}
	}
	return json.Marshal(out)
}
