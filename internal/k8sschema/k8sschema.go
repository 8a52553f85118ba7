// Package k8sschema turns the Kubernetes OpenAPI v2 document (swagger.json,
// published in the k8s.io/kubernetes module) into the strict, standalone
// JSON schemas kubeconform reads, one file per kind, named as kubeconform
// looks them up: <kind>-<group>-<version>.json (<kind>-<version>.json for
// the core group). make test-deploy validates the Helm chart with them:
// GitHub, where kubeconform's own schemas live, is not reachable here.
//
// It does what openapi2jsonschema's --strict --standalone does: each
// object with properties refuses others (a misspelt field is an error),
// IntOrString and Quantity accept a number or a string, as the API server
// does, and every optional value may be null.
package k8sschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MaxSwaggerBytes bounds the document read (v1.37's is 4 MB).
const MaxSwaggerBytes = 64 << 20

const refPrefix = "#/definitions/"

// Definitions whose OpenAPI type is "string" but whose values are numbers
// too in a manifest.
var numberOrString = map[string]string{
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString": "integer",
	"io.k8s.apimachinery.pkg.api.resource.Quantity":   "number",
}

type gvk struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// FileName is where kubeconform's -schema-location
// 'DIR/{{ .ResourceKind }}{{ .KindSuffix }}.json' finds the schema of a
// kind: its suffix is the group's first label and the version.
func FileName(group, version, kind string) string {
	suffix := "-" + strings.ToLower(version)
	if group != "" {
		suffix = "-" + strings.ToLower(strings.Split(group, ".")[0]) + suffix
	}
	return strings.ToLower(kind) + suffix + ".json"
}

// Generate reads swagger and writes one schema per kind into outDir,
// returning how many it wrote.
func Generate(swagger io.Reader, outDir string) (int, error) {
	raw, err := io.ReadAll(io.LimitReader(swagger, MaxSwaggerBytes+1))
	if err != nil {
		return 0, fmt.Errorf("read the OpenAPI document: %w", err)
	}
	if len(raw) > MaxSwaggerBytes {
		return 0, fmt.Errorf("the OpenAPI document is over %d bytes (k8sschema.MaxSwaggerBytes)", MaxSwaggerBytes)
	}
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return 0, fmt.Errorf("parse the OpenAPI document: %w", err)
	}
	if len(doc.Definitions) == 0 {
		return 0, errors.New("the OpenAPI document has no definitions")
	}
	defs := make(map[string]any, len(doc.Definitions))
	for name, d := range doc.Definitions {
		defs[name] = strictDefinition(name, d)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return 0, fmt.Errorf("schema dir: %w", err)
	}
	names := make([]string, 0, len(doc.Definitions))
	for name := range doc.Definitions {
		names = append(names, name)
	}
	sort.Strings(names)
	written := 0
	for _, name := range names {
		kinds, err := kindsOf(doc.Definitions[name])
		if err != nil {
			return written, fmt.Errorf("definition %s: %w", name, err)
		}
		for _, k := range kinds {
			schema, err := standalone(name, k, defs)
			if err != nil {
				return written, err
			}
			b, err := json.Marshal(schema)
			if err != nil {
				return written, fmt.Errorf("definition %s: %w", name, err)
			}
			if err := os.WriteFile(filepath.Join(outDir, FileName(k.Group, k.Version, k.Kind)), b, 0o644); err != nil {
				return written, fmt.Errorf("write the schema of %s: %w", k.Kind, err)
			}
			written++
		}
	}
	return written, nil
}

func kindsOf(d map[string]any) ([]gvk, error) {
	v, ok := d["x-kubernetes-group-version-kind"]
	if !ok {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var kinds []gvk
	if err := json.Unmarshal(b, &kinds); err != nil {
		return nil, fmt.Errorf("x-kubernetes-group-version-kind: %w", err)
	}
	return kinds, nil
}

// standalone is the schema of one kind: its definition, apiVersion and
// kind pinned, with the definitions it reaches beside it.
func standalone(name string, k gvk, defs map[string]any) (map[string]any, error) {
	root, ok := deepCopy(defs[name]).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("definition %s is not an object", name)
	}
	apiVersion := k.Version
	if k.Group != "" {
		apiVersion = k.Group + "/" + k.Version
	}
	props, _ := root["properties"].(map[string]any)
	if props == nil {
		return nil, fmt.Errorf("definition %s (kind %s) has no properties", name, k.Kind)
	}
	props["apiVersion"] = map[string]any{"enum": []any{apiVersion}}
	props["kind"] = map[string]any{"enum": []any{k.Kind}}
	root["required"] = appendMissing(root["required"], "apiVersion", "kind")
	// The document itself is not null.
	root["type"] = "object"
	reached := map[string]any{}
	var walk func(v any) error
	walk = func(v any) error {
		switch t := v.(type) {
		case map[string]any:
			if ref, ok := t["$ref"].(string); ok {
				target, ok := strings.CutPrefix(ref, refPrefix)
				if !ok {
					return fmt.Errorf("definition %s: $ref %q is not local", name, ref)
				}
				if _, seen := reached[target]; !seen {
					d, ok := defs[target]
					if !ok {
						return fmt.Errorf("definition %s: $ref %q names no definition", name, ref)
					}
					reached[target] = d
					if err := walk(d); err != nil {
						return err
					}
				}
			}
			for _, c := range t {
				if err := walk(c); err != nil {
					return err
				}
			}
		case []any:
			for _, c := range t {
				if err := walk(c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	if len(reached) > 0 {
		root["definitions"] = reached
	}
	return root, nil
}

// strictDefinition rewrites one definition as described in the package
// comment.
func strictDefinition(name string, d map[string]any) any {
	if other, ok := numberOrString[name]; ok {
		return map[string]any{"oneOf": []any{
			map[string]any{"type": "string"}, map[string]any{"type": other}, map[string]any{"type": "null"}}}
	}
	return strict(d)
}

func strict(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t)+1)
		for k, c := range t {
			if k == "description" || strings.HasPrefix(k, "x-kubernetes-") && k != "x-kubernetes-group-version-kind" {
				continue
			}
			switch k {
			case "properties":
				props := map[string]any{}
				for p, s := range c.(map[string]any) {
					props[p] = strict(s)
				}
				out[k] = props
			default:
				out[k] = strict(c)
			}
		}
		if _, ok := t["properties"]; ok {
			if _, set := t["additionalProperties"]; !set {
				out["additionalProperties"] = false
			}
		}
		if typ, ok := t["type"].(string); ok {
			out["type"] = []any{typ, "null"}
		}
		return out
	default:
		return v
	}
}

func appendMissing(list any, names ...string) []any {
	var out []any
	if l, ok := list.([]any); ok {
		out = append(out, l...)
	}
	for _, n := range names {
		found := false
		for _, x := range out {
			if x == n {
				found = true
			}
		}
		if !found {
			out = append(out, n)
		}
	}
	return out
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			out[k] = deepCopy(c)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = deepCopy(c)
		}
		return out
	default:
		return v
	}
}
