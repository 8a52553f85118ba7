package store

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

func TestServerCRUD(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Servers()

		created, err := r.Create(ctx, spec.Server{Name: "  fs ", Command: "npx", Args: []string{"-y", "pkg"}, Env: map[string]string{"A": "1"}, Enabled: true})
		if err != nil {
			t.Fatal(err)
		}
		if created.ID == 0 || created.Name != "fs" || created.Transport != spec.Stdio || created.PrefixMode != spec.PrefixAlways ||
			created.TimeoutSeconds != 0 || created.CreatedAt.IsZero() {
			t.Errorf("created = %+v (want normalized, with ID and timestamps)", created)
		}
		if _, err := r.Create(ctx, spec.Server{Name: "alpha", URL: "https://a.example/mcp"}); err != nil {
			t.Fatal(err)
		}

		got, err := r.Get(ctx, "fs")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Server, created.Server) || got.ID != created.ID {
			t.Errorf("Get = %+v, want %+v", got.Server, created.Server)
		}

		list, err := r.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Name != "alpha" || list[1].Name != "fs" || list[0].Transport != spec.HTTP {
			t.Errorf("List = %+v, want alpha then fs", list)
		}

		// Update writes zero values too: disabling and dropping args must stick.
		upd, err := r.Update(ctx, spec.Server{Name: "fs", Command: "uvx", PrefixMode: spec.PrefixNever, DisabledTools: []string{"rm"}})
		if err != nil {
			t.Fatal(err)
		}
		got, _ = r.Get(ctx, "fs")
		if got.Command != "uvx" || got.Enabled || got.Args != nil || got.Env != nil || got.PrefixMode != spec.PrefixNever ||
			!reflect.DeepEqual(got.DisabledTools, []string{"rm"}) || got.ID != created.ID || !got.CreatedAt.Equal(created.CreatedAt) || upd.ID != created.ID {
			t.Errorf("after Update: %+v", got)
		}

		if err := r.SetEnabled(ctx, "fs", true); err != nil {
			t.Fatal(err)
		}
		if got, _ := r.Get(ctx, "fs"); !got.Enabled || got.Command != "uvx" {
			t.Errorf("after SetEnabled: %+v", got)
		}

		if err := r.Delete(ctx, "fs"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Get(ctx, "fs"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after Delete: %v, want ErrNotFound", err)
		}
	})
}

func TestServerNotFound(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Servers()
		tests := []struct {
			name string
			op   func() error
		}{
			{"get", func() error { _, err := r.Get(ctx, "nope"); return err }},
			{"update", func() error { _, err := r.Update(ctx, spec.Server{Name: "nope", Command: "x"}); return err }},
			{"delete", func() error { return r.Delete(ctx, "nope") }},
			{"set enabled", func() error { return r.SetEnabled(ctx, "nope", true) }},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.op()
				if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
					t.Errorf("err = %v, want ErrNotFound naming nope", err)
				}
			})
		}
		if list, _ := r.List(ctx); len(list) != 0 {
			t.Errorf("update of a missing server created %+v", list)
		}
	})
}

func TestServerDuplicateKeepsOriginal(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Servers()
		orig, err := r.Create(ctx, spec.Server{Name: "fs", Command: "first", Enabled: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Create(ctx, spec.Server{Name: "fs", URL: "https://other.example/mcp"})
		if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), `"fs"`) {
			t.Fatalf("err = %v, want ErrDuplicate naming fs", err)
		}
		got, err := r.Get(ctx, "fs")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Server, orig.Server) {
			t.Errorf("original changed: %+v", got.Server)
		}
	})
}

func TestServerInvalidWritesNothing(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Servers()
		if _, err := r.Create(ctx, spec.Server{Name: "keep", Command: "x"}); err != nil {
			t.Fatal(err)
		}
		bad := []struct {
			name string
			def  spec.Server
		}{
			{"no command or url", spec.Server{Name: "a"}},
			{"bad name", spec.Server{Name: "has space", Command: "x"}},
			{"both command and url", spec.Server{Name: "b", Transport: spec.Stdio, Command: "x", URL: "http://h"}},
			{"bad url", spec.Server{Name: "c", URL: "ftp://h"}},
			{"bad prefix", spec.Server{Name: "d", Command: "x", PrefixMode: "sometimes"}},
		}
		for _, tt := range bad {
			t.Run(tt.name, func(t *testing.T) {
				if _, err := r.Create(ctx, tt.def); !errors.Is(err, spec.ErrInvalid) {
					t.Errorf("Create: %v, want spec.ErrInvalid", err)
				}
				upd := tt.def
				upd.Name = "keep"
				if tt.name == "bad name" {
					upd.Name = "k eep"
				}
				if _, err := r.Update(ctx, upd); !errors.Is(err, spec.ErrInvalid) {
					t.Errorf("Update: %v, want spec.ErrInvalid", err)
				}
			})
		}
		list, _ := r.List(ctx)
		if len(list) != 1 || list[0].Command != "x" || list[0].URL != "" {
			t.Errorf("servers after invalid writes = %+v", list)
		}
	})
}

func TestServerCreateMany(t *testing.T) {
	ok1 := spec.Server{Name: "one", Command: "x"}
	ok2 := spec.Server{Name: "two", URL: "https://two.example/mcp"}
	tests := []struct {
		name    string
		defs    []spec.Server
		wantErr error
		want    []string
	}{
		{"all good", []spec.Server{ok1, ok2}, nil, []string{"existing", "one", "two"}},
		{"empty", nil, nil, []string{"existing"}},
		{"one invalid", []spec.Server{ok1, {Name: "bad"}, ok2}, spec.ErrInvalid, []string{"existing"}},
		{"clashes with stored", []spec.Server{ok1, {Name: "existing", Command: "y"}}, ErrDuplicate, []string{"existing"}},
		{"clashes within batch", []spec.Server{ok1, ok2, {Name: " one", Command: "y"}}, ErrDuplicate, []string{"existing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTest(t)
			ctx := context.Background()
			if _, err := s.Servers().Create(ctx, spec.Server{Name: "existing", Command: "orig"}); err != nil {
				t.Fatal(err)
			}
			err := s.Servers().CreateMany(ctx, tt.defs)
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			list, _ := s.Servers().List(ctx)
			var names []string
			for _, sv := range list {
				names = append(names, sv.Name)
				if sv.Name == "existing" && sv.Command != "orig" {
					t.Errorf("existing overwritten: %+v", sv)
				}
			}
			if !reflect.DeepEqual(names, tt.want) {
				t.Errorf("servers = %v, want %v", names, tt.want)
			}
		})
	}
}

func TestServerCreateManyReportsEveryInvalidEntry(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		err := s.Servers().CreateMany(context.Background(), []spec.Server{{Name: "a"}, {Name: "b", URL: "nope"}})
		if err == nil || !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), `"b"`) {
			t.Errorf("err = %v, want both a and b named", err)
		}
	})
}
