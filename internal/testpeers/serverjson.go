package testpeers

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// server.schema.json of the MCP Registry (modelcontextprotocol/registry
// v1.8.9, docs/reference/server-json/draft), kept in backend/registry/testdata:
// the contract every server.json a test's registry serves is held to.
var serverSchema struct {
	once sync.Once
	sch  *jsonschema.Schema
	err  error
}

// CheckServerJSON fails the test when raw (one server.json) breaks the
// registry's schema. A test's stand-in registry calls it on every entry it
// serves, so it cannot drift from the published contract.
func CheckServerJSON(t testing.TB, raw []byte) {
	t.Helper()
	serverSchema.once.Do(func() {
		var data []byte
		data, serverSchema.err = os.ReadFile(filepath.Join(RepoRoot(t), "backend", "registry", "testdata", "server.schema.json"))
		if serverSchema.err != nil {
			return
		}
		var doc any
		if doc, serverSchema.err = jsonschema.UnmarshalJSON(bytes.NewReader(data)); serverSchema.err != nil {
			return
		}
		c := jsonschema.NewCompiler()
		if serverSchema.err = c.AddResource("server.schema.json", doc); serverSchema.err != nil {
			return
		}
		serverSchema.sch, serverSchema.err = c.Compile("server.schema.json")
	})
	if serverSchema.err != nil {
		t.Fatalf("server.schema.json: %v", serverSchema.err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("server.json is not JSON: %v", err)
	}
	if err := serverSchema.sch.Validate(inst); err != nil {
		t.Errorf("server.json breaks the registry's schema: %v\n%s", err, raw)
	}
}
