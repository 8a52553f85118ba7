package appapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/registry"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The Catalog page's calls: search, show (targets with their fields, an
// mcpb package not installable), install of a remote whose secret header
// goes to the secret store and not the database, then OutdatedServers.
// The real registry service cannot hold a loopback remote (its import
// refuses one), so this registry is a handler answering the v0 API's
// shapes; the real service is exercised by the CLI's test.
func TestRegistryThroughTheUIAPI(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	up := httptest.NewServer(testmcp.HTTPHandler())
	t.Cleanup(up.Close)
	entry := func(version string) string {
		return `{"server":{"name":"io.github.test/remote","version":"` + version + `","description":"a remote",
		"packages":[{"registryType":"mcpb","identifier":"https://example.com/x.mcpb","fileSha256":"` + strings.Repeat("a", 64) + `","transport":{"type":"stdio"}}],
		"remotes":[{"type":"streamable-http","url":"` + up.URL + `/{path}","variables":{"path":{"default":"mcp"}},
		"headers":[{"name":"X-Api-Key","isRequired":true,"isSecret":true,"description":"the key"}]}]},
		"_meta":{"io.modelcontextprotocol.registry/official":{"status":"active","isLatest":` + map[bool]string{true: "true", false: "false"}[version == "2.0.0"] + `}}}`
	}
	// Every entry this stand-in serves is held to the registry's own schema.
	for _, v := range []string{"1.0.0", "2.0.0"} {
		var e struct{ Server json.RawMessage }
		if err := json.Unmarshal([]byte(entry(v)), &e); err != nil {
			t.Fatal(err)
		}
		testpeers.CheckServerJSON(t, e.Server)
	}
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.EscapedPath() {
		case "/v0/servers":
			_, _ = w.Write([]byte(`{"servers":[` + entry("2.0.0") + `],"metadata":{"count":1}}`))
		case "/v0/servers/io.github.test%2Fremote/versions/1.0.0":
			_, _ = w.Write([]byte(entry("1.0.0")))
		case "/v0/servers/io.github.test%2Fremote/versions/latest":
			_, _ = w.Write([]byte(entry("2.0.0")))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(reg.Close)
	f := newFixture(t)
	if err := f.c.Settings.Set(t.Context(), settings.KeyRegistryURL, reg.URL); err != nil {
		t.Fatal(err)
	}

	page, err := f.api.RegistrySearch("remote", "", 10)
	if err != nil || len(page.Servers) != 1 || page.Servers[0].Server.Version != "2.0.0" {
		t.Fatalf("search %+v, %v", page, err)
	}
	view, err := f.api.RegistryShow("io.github.test/remote", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Targets) != 2 || view.Targets[0].Installable || !strings.HasPrefix(view.Targets[0].Reason, "mcpb packages are not run by the router") ||
		!view.Targets[1].Installable || view.DefaultName != "remote" {
		t.Fatalf("targets %+v", view)
	}
	if fs := view.Targets[1].Fields; len(fs) != 2 || fs[0].Key != "path" || fs[1].Key != "X-Api-Key" || !fs[1].Secret || !fs[1].Required {
		t.Fatalf("fields %+v", view.Targets[1].Fields)
	}

	remote := registry.Target{Kind: "remote", Index: 1}
	if _, err := f.api.RegistryInstall("io.github.test/remote", "1.0.0", remote, "", registry.Answers{}); !errors.Is(err, registry.ErrMissing) {
		t.Fatalf("install without the key: %v", err)
	}
	const key = "ui-registry-key-7731"
	v, err := f.api.RegistryInstall("io.github.test/remote", "1.0.0", remote, "", registry.Answers{Headers: map[string]string{"X-Api-Key": key}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "remote" || v.Target != up.URL+"/mcp" {
		t.Fatalf("installed %+v", v)
	}
	f.waitState(t, "remote", "running")
	def, err := f.api.GetServer("remote")
	if err != nil || def.Source != (spec.Source{Registry: reg.URL, Name: "io.github.test/remote", Version: "1.0.0"}) ||
		def.Headers["X-Api-Key"] != spec.SecretPlaceholder("X-Api-Key") {
		t.Fatalf("stored %+v, %v", def, err)
	}
	files, _ := filepath.Glob(filepath.Join(f.c.DataDir, "*.db*"))
	if len(files) == 0 {
		t.Fatal("no database file")
	}
	for _, p := range files {
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
			t.Fatalf("the secret is in %s", p)
		}
	}

	checks, err := f.api.OutdatedServers()
	if err != nil || len(checks) != 1 || !checks[0].Outdated || checks[0].Latest != "2.0.0" || checks[0].Server != "remote" {
		t.Fatalf("outdated %+v, %v", checks, err)
	}
}
