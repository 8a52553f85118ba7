package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Secret entries (0800_server_secrets): their names and revision
// round-trip through the servers table, their values are written as the
// placeholder, and every write path refuses a definition that still
// carries a secret's value.
func TestServerSecretColumns(t *testing.T) {
	s, path := openTest(t)
	ctx := context.Background()
	def := spec.Server{Name: "gh", Command: "srv", Env: map[string]string{"API_KEY": "", "DEBUG": "1"}, SecretEnv: []string{"API_KEY"},
		SecretRevision: 3, Enabled: true}
	if _, err := s.Servers().Create(ctx, def); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.Servers().Get(ctx, "gh")
	if err != nil {
		t.Fatal(err)
	}
	if got.Env["API_KEY"] != "${secret:API_KEY}" || got.Env["DEBUG"] != "1" || len(got.SecretEnv) != 1 || got.SecretRevision != 3 {
		t.Fatalf("stored %+v", got.Server)
	}
	if err := s2.Servers().Free(ctx, "gh"); !errors.Is(err, ErrDuplicate) {
		t.Errorf("Free of a taken name: %v", err)
	}
	if err := s2.Servers().Free(ctx, "nobody"); err != nil {
		t.Errorf("Free of a free name: %v", err)
	}
	// Written back as read (a tool toggled, the prefix changed): fine.
	if _, err := s2.Servers().Update(ctx, got.Server); err != nil {
		t.Fatal(err)
	}

	leak := spec.Server{Name: "leak", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"},
		SecretHeaders: []string{"Authorization"}, Enabled: true}
	writes := map[string]func() error{
		"create":      func() error { _, err := s2.Servers().Create(ctx, leak); return err },
		"create many": func() error { return s2.Servers().CreateMany(ctx, []spec.Server{leak}) },
		"update": func() error {
			d := got.Server
			d.Env = map[string]string{"API_KEY": "s3cret"}
			_, err := s2.Servers().Update(ctx, d)
			return err
		},
		"replace": func() error {
			d := got.Server
			d.Name, d.Env = "gh2", map[string]string{"API_KEY": "s3cret"}
			_, err := s2.Servers().Replace(ctx, "gh", d)
			return err
		},
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, spec.ErrInvalid) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s with a secret's value: %v", name, err)
		}
	}
	var n int64
	s2.DB().Raw(`SELECT count(*) FROM servers WHERE env LIKE '%s3cret%' OR headers LIKE '%s3cret%'`).Scan(&n)
	if n != 0 {
		t.Fatal("a secret value reached the servers table")
	}
}
