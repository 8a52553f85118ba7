package appapi

import (
	"encoding/base64"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Connect page's "Add to client": the plan shows the diff, the write
// happens only for the diff the user saw, twice leaves one entry and a
// backup; no placeholder and no admin token ever goes into a file; the
// import reads the new clients' files with their own meanings.
func TestAddToClientAndInstallLink(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	f := newFixture(t)
	tok, err := f.api.CreateToken("gemini", nil)
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte("{\n  \"mcpServers\": {\n    \"legacy\": {\"url\": \"http://127.0.0.1:9/sse-less\"}\n  }\n}\n"), 0o600)

	if _, err := f.api.PlanAddToClient("", "gemini", "http", ""); err == nil || !strings.Contains(err.Error(), "create or paste a client token") {
		t.Errorf("no token with auth on: %v", err)
	}
	admin, _, err := f.c.Auth.CreateAdmin(bg(), "ui")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.api.PlanAddToClient("", "gemini", "http", admin); err == nil || !strings.Contains(err.Error(), "admin token") {
		t.Errorf("admin token: %v", err)
	}
	if _, err := f.api.PlanAddToClient("nope", "gemini", "http", tok.Token); err == nil || !strings.Contains(err.Error(), `no profile "nope"`) {
		t.Errorf("unknown profile: %v", err)
	}

	for i := 0; i < 2; i++ {
		plan, err := f.api.PlanAddToClient("", "gemini", "http", tok.Token)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Path != settings || !plan.Exists || plan.Replaces != (i == 1) || plan.Unchanged != (i == 1) {
			t.Errorf("run %d: plan %+v", i+1, plan)
		}
		if i == 0 {
			if !strings.Contains(plan.Diff, `+    "mcp-router": {`) {
				t.Errorf("diff:\n%s", plan.Diff)
			}
			// The file changes after the diff was shown: refused.
			if _, err := f.api.AddToClient("", "gemini", "http", tok.Token, plan.Diff+" "); err == nil || !strings.Contains(err.Error(), "changed since the diff was shown") {
				t.Errorf("stale diff: %v", err)
			}
		}
		res, err := f.api.AddToClient("", "gemini", "http", tok.Token, plan.Diff)
		if err != nil {
			t.Fatal(err)
		}
		if res.Path != settings || !strings.HasPrefix(res.Backup, settings+".bak-") {
			t.Errorf("run %d: %+v", i+1, res)
		}
	}
	data, _ := os.ReadFile(settings)
	if strings.Count(string(data), `"mcp-router"`) != 1 || !strings.Contains(string(data), tok.Token) || !strings.Contains(string(data), `"legacy"`) {
		t.Errorf("written:\n%s", data)
	}

	// The import lists it as Gemini CLI's and reads its bare url as SSE.
	list, err := f.api.ListClientConfigs()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range list {
		if c.Client == "gemini" && c.Path == settings {
			found = c.Servers == 2 && c.Error == ""
		}
	}
	if !found {
		t.Errorf("ListClientConfigs: %+v", list)
	}
	rep, err := f.api.ImportClientConfig(settings)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) == 0 {
		t.Fatalf("import: %+v", rep)
	}
	s, err := f.c.Store.Servers().Get(bg(), "legacy")
	if err != nil || s.Transport != "sse" {
		t.Errorf("legacy imported as %+v %v, want SSE (Gemini CLI's url)", s.Transport, err)
	}

	link, err := f.api.InstallLink("", "cursor", "http", tok.Token)
	if err != nil {
		t.Fatal(err)
	}
	q, err := url.ParseQuery(strings.TrimPrefix(link, "cursor://anysphere.cursor-deeplink/mcp/install?"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := base64.StdEncoding.DecodeString(q.Get("config"))
	if q.Get("name") != "mcp-router" || !strings.Contains(string(cfg), tok.Token) {
		t.Errorf("link %s: %s", link, cfg)
	}
	if _, err := f.api.InstallLink("", "zed", "http", tok.Token); err == nil {
		t.Error("a zed link")
	}
}
