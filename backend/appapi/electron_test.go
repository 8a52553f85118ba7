package appapi

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/electronimport"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testelectron"
)

// The Servers page's Electron import: the preview writes nothing, the
// import does what the preview showed and the running router serves the
// new servers and profiles, a second import adds nothing. Before these
// methods the page had no way in from the Electron app.
func TestElectronImportMethods(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	f := newFixture(t, spec.Server{Name: "keep", Command: "echo"})
	app, _ := testelectron.UserData(t)
	db := filepath.Join(app, "mcprouter.db")

	if _, err := f.api.PreviewElectronImport("sqlite", db); err == nil {
		t.Error("an unknown kind passed")
	}
	if _, err := f.api.PreviewElectronImport("database", " "); err == nil || !strings.Contains(err.Error(), "path is empty") {
		t.Errorf("an empty path: %v", err)
	}
	preview, err := f.api.PreviewElectronImport("database", db)
	if err != nil {
		t.Fatal(err)
	}
	if len(preview.Servers) != 5 || len(preview.Profiles) != 2 || preview.Tokens != 3 {
		t.Fatalf("preview %+v", preview)
	}
	if list, _ := f.api.ListServers(); len(list) != 1 {
		t.Fatalf("the preview wrote servers: %d", len(list))
	}

	done, err := f.api.ImportElectron("database", db)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(done.Servers, preview.Servers, func(a, b electronimport.PlannedServer) bool { return a.Name == b.Name && a.Target == b.Target }) {
		t.Errorf("imported %+v, previewed %+v", done.Servers, preview.Servers)
	}
	list, err := f.api.ListServers()
	if err != nil || len(list) != 6 {
		t.Fatalf("servers after import: %d (%v)", len(list), err)
	}
	if _, ok := f.api.core.Profiles.Lookup("Web-Dev"); !ok {
		t.Error("the running router does not serve the imported profile Web-Dev")
	}

	again, err := f.api.ImportElectron("database", db)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Servers) != 0 || len(again.Profiles) != 0 || len(again.Skipped) != 11 {
		t.Errorf("second import %+v", again)
	}
}
