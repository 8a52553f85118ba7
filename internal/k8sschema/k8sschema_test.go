package k8sschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A small OpenAPI document in the shape of Kubernetes' own: a kind that
// reaches a container through $refs, an IntOrString and a Quantity.
const swagger = `{"definitions": {
 "io.k8s.api.apps.v1.Widget": {
  "type": "object",
  "x-kubernetes-group-version-kind": [{"group": "apps", "kind": "Widget", "version": "v1"}],
  "properties": {
   "apiVersion": {"type": "string"}, "kind": {"type": "string"},
   "metadata": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
   "spec": {"$ref": "#/definitions/io.k8s.api.apps.v1.WidgetSpec"}
  }
 },
 "io.k8s.api.apps.v1.WidgetSpec": {
  "type": "object", "required": ["containers"],
  "properties": {"containers": {"type": "array", "items": {"$ref": "#/definitions/io.k8s.api.core.v1.Container"}}}
 },
 "io.k8s.api.core.v1.Container": {
  "type": "object", "required": ["name"],
  "properties": {
   "name": {"type": "string", "description": "dropped"},
   "port": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
   "memory": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"},
   "env": {"type": "object", "additionalProperties": {"type": "string"}}
  }
 },
 "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
  "type": "object", "properties": {"name": {"type": "string"}, "labels": {"type": "object", "additionalProperties": {"type": "string"}}}
 },
 "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"type": "string", "format": "int-or-string"},
 "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"},
 "io.k8s.api.core.v1.Unreached": {"type": "object", "properties": {"x": {"type": "string"}}},
 "io.k8s.api.core.v1.Thing": {
  "type": "object",
  "x-kubernetes-group-version-kind": [{"group": "", "kind": "Thing", "version": "v1"}],
  "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}}
 }
}}`

func compile(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, doc string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("test document %s: %v", doc, err)
	}
	return s.Validate(v)
}

func TestGenerateStrictStandaloneSchemas(t *testing.T) {
	dir := t.TempDir()
	n, err := Generate(strings.NewReader(swagger), dir)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d schemas, want 2 (Widget, Thing)", n)
	}
	// The names kubeconform's '{{ .ResourceKind }}{{ .KindSuffix }}.json' asks for.
	for _, f := range []string{"widget-apps-v1.json", "thing-v1.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "widget-apps-v1.json"))
	if strings.Contains(string(raw), "Unreached") || strings.Contains(string(raw), "dropped") {
		t.Errorf("the schema carries an unreached definition or a description: %s", raw)
	}
	widget := compile(t, filepath.Join(dir, "widget-apps-v1.json"))

	good := []string{
		`{"apiVersion": "apps/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {"a": "b"}},
		  "spec": {"containers": [{"name": "c", "port": 3282, "memory": 1, "env": {"K": "v"}}]}}`,
		`{"apiVersion": "apps/v1", "kind": "Widget", "spec": {"containers": [{"name": "c", "port": "http", "memory": "256Mi"}]}}`,
		`{"apiVersion": "apps/v1", "kind": "Widget", "metadata": {"labels": null}, "spec": {"containers": []}}`,
	}
	for _, doc := range good {
		if err := validate(t, widget, doc); err != nil {
			t.Errorf("a valid document refused: %s\n%v", doc, err)
		}
	}
	bad := map[string]string{
		"a misspelt field deep down":       `{"apiVersion": "apps/v1", "kind": "Widget", "spec": {"containers": [{"name": "c", "imagePullPolcy": "x"}]}}`,
		"a misspelt top-level field":       `{"apiVersion": "apps/v1", "kind": "Widget", "spce": {}}`,
		"a required field missing":         `{"apiVersion": "apps/v1", "kind": "Widget", "spec": {"containers": [{"port": 1}]}}`,
		"a wrong type":                     `{"apiVersion": "apps/v1", "kind": "Widget", "spec": {"containers": [{"name": 7}]}}`,
		"a port neither number nor string": `{"apiVersion": "apps/v1", "kind": "Widget", "spec": {"containers": [{"name": "c", "port": [1]}]}}`,
		"another kind":                     `{"apiVersion": "apps/v1", "kind": "Gadget"}`,
		"another group":                    `{"apiVersion": "v1", "kind": "Widget"}`,
		"no kind":                          `{"apiVersion": "apps/v1"}`,
		"a map of the wrong values":        `{"apiVersion": "apps/v1", "kind": "Widget", "metadata": {"labels": {"a": 1}}}`,
		"null for the document":            `null`,
	}
	for what, doc := range bad {
		if err := validate(t, widget, doc); err == nil {
			t.Errorf("%s: accepted %s", what, doc)
		}
	}
}

func TestGenerateRefusesBrokenDocuments(t *testing.T) {
	for what, doc := range map[string]string{
		"not JSON":        `{`,
		"no definitions":  `{"definitions": {}}`,
		"a dangling $ref": `{"definitions": {"K": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "", "kind": "K", "version": "v1"}], "properties": {"s": {"$ref": "#/definitions/Missing"}}}}}`,
		"a remote $ref":   `{"definitions": {"K": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "", "kind": "K", "version": "v1"}], "properties": {"s": {"$ref": "http://example.com/x"}}}}}`,
	} {
		if _, err := Generate(strings.NewReader(doc), t.TempDir()); err == nil {
			t.Errorf("%s: no error", what)
		}
	}
}
