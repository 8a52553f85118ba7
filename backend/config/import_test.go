package config

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(filepath.Join(t.TempDir(), "mcp-router.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func names(t *testing.T, r store.ServerRepo) []string {
	t.Helper()
	list, err := r.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}

func TestImportServersSkipsExisting(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	repo := st.Servers()
	if _, err := repo.Create(ctx, spec.Server{Name: "filesystem", Command: "mine", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseClientConfig([]byte(claudeDesktop))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ImportServers(ctx, repo, parsed, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := ImportReport{
		Added:   []string{"github", "sqlite"},
		Skipped: []Skipped{{Name: "filesystem", Reason: SkipReasonExists}},
	}
	if !reflect.DeepEqual(rep, want) {
		t.Errorf("report = %+v, want %+v", rep, want)
	}
	fs, _ := repo.Get(ctx, "filesystem")
	if fs.Command != "mine" || len(fs.Args) != 0 {
		t.Errorf("existing server overwritten: %+v", fs)
	}
	gh, _ := repo.Get(ctx, "github")
	if gh.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "ghp_xxx" {
		t.Errorf("imported github = %+v", gh)
	}
	if sq, _ := repo.Get(ctx, "sqlite"); sq.Enabled {
		t.Error("disabled entry imported as enabled")
	}

	// Importing the same file again adds nothing and changes nothing.
	rep, err = ImportServers(ctx, repo, parsed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 0 || len(rep.Skipped) != 3 {
		t.Errorf("second import = %+v", rep)
	}
}

func TestImportServersAllOrNothing(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	repo := st.Servers()
	if _, err := repo.Create(ctx, spec.Server{Name: "keep", Command: "x"}); err != nil {
		t.Fatal(err)
	}
	in := []spec.Server{{Name: "a", Command: "x"}, {Name: "b"}, {Name: "keep", Command: "y"}}
	rep, err := ImportServers(ctx, repo, in, nil)
	if !errors.Is(err, spec.ErrInvalid) {
		t.Fatalf("err = %v, want spec.ErrInvalid", err)
	}
	if rep.Added != nil || rep.Skipped != nil {
		t.Errorf("report on failure = %+v, want empty", rep)
	}
	if got := names(t, repo); !reflect.DeepEqual(got, []string{"keep"}) {
		t.Errorf("servers = %v, want only keep", got)
	}
}

func TestImportServersDuplicateInInput(t *testing.T) {
	ctx := context.Background()
	repo := openStore(t).Servers()
	rep, err := ImportServers(ctx, repo, []spec.Server{{Name: "a", Command: "1"}, {Name: " a", Command: "2"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Added, []string{"a"}) || len(rep.Skipped) != 1 || rep.Skipped[0].Reason != SkipReasonDuplicate {
		t.Errorf("report = %+v", rep)
	}
	if a, _ := repo.Get(ctx, "a"); a.Command != "1" {
		t.Errorf("first definition should win, got %+v", a)
	}
}

type failingRepo struct{ listErr, createErr error }

func (f failingRepo) List(context.Context) ([]store.Server, error)    { return nil, f.listErr }
func (f failingRepo) CreateMany(context.Context, []spec.Server) error { return f.createErr }

func TestImportServersPropagatesStoreErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	for _, f := range []failingRepo{{listErr: boom}, {createErr: boom}} {
		rep, err := ImportServers(context.Background(), f, []spec.Server{{Name: "a", Command: "x"}}, nil)
		if !errors.Is(err, boom) || rep.Added != nil {
			t.Errorf("%+v: report %+v, err %v", f, rep, err)
		}
	}
}

// A definition refuse names a reason for is skipped with that reason; the
// others in the same import are added.
func TestImportServersRefused(t *testing.T) {
	ctx := context.Background()
	repo := openStore(t).Servers()
	in := []spec.Server{{Name: "a", Command: "x"}, {Name: "self", URL: "http://127.0.0.1:3282/mcp"}, {Name: "b", URL: "http://example.com/mcp"}}
	refuse := func(s spec.Server) string {
		if s.URL == "http://127.0.0.1:3282/mcp" {
			return "points at this router"
		}
		return ""
	}
	rep, err := ImportServers(ctx, repo, in, refuse)
	if err != nil {
		t.Fatal(err)
	}
	want := ImportReport{Added: []string{"a", "b"}, Skipped: []Skipped{{Name: "self", Reason: "points at this router"}}}
	if !reflect.DeepEqual(rep, want) {
		t.Errorf("report = %+v, want %+v", rep, want)
	}
	if got := names(t, repo); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("stored %v", got)
	}
}
