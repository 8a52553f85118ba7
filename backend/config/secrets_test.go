package config

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// A secret entry is exported as its placeholder, never its value (even
// from a definition whose value was filled in), and imports back as a
// secret entry.
func TestExportWritesSecretsAsPlaceholders(t *testing.T) {
	defs := []spec.Server{
		{Name: "keyed", Transport: spec.Stdio, Command: "srv", Env: map[string]string{"API_KEY": "${secret:API_KEY}", "DEBUG": "1"},
			SecretEnv: []string{"API_KEY"}, Enabled: true},
		{Name: "remote", Transport: spec.HTTP, URL: "https://r.example.com/mcp",
			Headers: map[string]string{"Authorization": "${secret:Authorization}", "X-Team": "a"}, SecretHeaders: []string{"Authorization"}, Enabled: true},
	}
	for i := range defs {
		defs[i].Normalize()
	}
	data, _, err := ExportClientConfig(defs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"API_KEY": "${secret:API_KEY}"`, `"Authorization": "${secret:Authorization}"`, `"DEBUG": "1"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("export lacks %s:\n%s", want, data)
		}
	}
	back, err := ParseClientConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, defs) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, defs)
	}

	resolved := defs[0]
	resolved.Env = map[string]string{"API_KEY": "s3cret", "DEBUG": "1"}
	if data, _, err := ExportClientConfig([]spec.Server{resolved}); err == nil || strings.Contains(string(data), "s3cret") {
		t.Errorf("a resolved definition was exported: %v\n%s", err, data)
	}
}

func TestImportRefusesAnotherEntrysPlaceholder(t *testing.T) {
	_, err := ParseClientConfig([]byte(`{"mcpServers": {"x": {"command": "srv", "env": {"A": "${secret:B}"}}}}`))
	if !errors.Is(err, spec.ErrInvalid) || !strings.Contains(err.Error(), "not this entry's placeholder (${secret:A})") {
		t.Fatalf("err %v", err)
	}
}

// An import of secret entries: without their values it adds nothing and
// names each; with them the values go to the secret store and the
// database gets placeholders; allowed to miss them, it adds the servers
// and reports what is needed.
func TestImportSecretEntries(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	ctx := context.Background()
	st := openStore(t)
	repo := st.Servers()
	values := secrets.NewServerValues(t.TempDir(), nil)
	const file = `{"mcpServers": {
		"gh": {"command": "srv", "env": {"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"}},
		"remote": {"type": "http", "url": "https://r.example.com/mcp", "headers": {"Authorization": "${secret:Authorization}"}}}}`
	parsed, err := ParseClientConfig([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ImportServersWith(ctx, repo, parsed, ImportOptions{Secrets: values})
	var nv *secrets.NoValueError
	if !errors.As(err, &nv) || len(nv.Refs) != 2 || len(names(t, repo)) != 0 {
		t.Fatalf("without values: %v, stored %v", err, names(t, repo))
	}

	withValues := append([]spec.Server(nil), parsed...)
	withValues[0].Env = map[string]string{"GITHUB_TOKEN": "ghp_s3cret"}
	rep, err := ImportServersWith(ctx, repo, withValues[:1], ImportOptions{Secrets: values})
	if err != nil || len(rep.Added) != 1 || len(rep.NeedsSecrets) != 0 {
		t.Fatalf("with values: %+v %v", rep, err)
	}
	gh, _ := repo.Get(ctx, "gh")
	if gh.Env["GITHUB_TOKEN"] != "${secret:GITHUB_TOKEN}" {
		t.Fatalf("stored %v", gh.Env)
	}
	if r, err := values.Resolve(gh.Server); err != nil || r.Env["GITHUB_TOKEN"] != "ghp_s3cret" {
		t.Fatalf("resolved %v %v", r.Env, err)
	}

	rep, err = ImportServersWith(ctx, repo, parsed, ImportOptions{Secrets: values, AllowMissingSecrets: true})
	want := []spec.SecretRef{{Server: "remote", Kind: spec.KindHeader, Name: "Authorization"}}
	if err != nil || !reflect.DeepEqual(rep.Added, []string{"remote"}) || !reflect.DeepEqual(rep.NeedsSecrets, want) {
		t.Fatalf("allowed to miss: %+v %v", rep, err)
	}
}
