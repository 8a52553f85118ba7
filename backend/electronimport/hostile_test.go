package electronimport

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testelectron"
)

// importDB reads, plans and applies the database at path: the whole import
// as the CLI runs it.
func importDB(ctx context.Context, st *store.Store, sec *secrets.ServerValues, path string) error {
	src, err := ReadDatabase(ctx, path)
	if err != nil {
		return err
	}
	plan, err := MakePlan(ctx, st, src, nil)
	if err != nil {
		return err
	}
	return Apply(ctx, st, sec, plan)
}

// A database made to hurt the importer gives an error that says what is
// wrong where, and the router's store is exactly as it was.
func TestHostileDatabaseImportsNothing(t *testing.T) {
	huge := strings.Repeat("x", MaxValueBytes+1)
	cases := []struct {
		name  string
		build func(a *testelectron.DB)
		want  []string
	}{
		{"a value past the cap", func(a *testelectron.DB) {
			a.AddServer(testelectron.Server{ID: "ok", Name: "ok", Command: "npx"})
			a.AddServer(testelectron.Server{ID: "big", Name: "big", Command: "npx", Env: map[string]any{"K": huge}})
		}, []string{"MaxValueBytes", "table servers"}},
		{"a table past its total cap", func(a *testelectron.DB) {
			half := strings.Repeat("y", MaxValueBytes-100)
			a.Exec("BEGIN")
			for i := 0; i <= MaxTableBytes/MaxValueBytes; i++ {
				a.AddServer(testelectron.Server{ID: "id" + itoa(i), Name: "s" + itoa(i), Command: "npx", Env: map[string]any{"K": half}})
			}
			a.Exec("COMMIT")
		}, []string{"MaxTableBytes", "table servers"}},
		{"too many servers", func(a *testelectron.DB) {
			a.Exec("BEGIN")
			for i := 0; i <= MaxServers; i++ {
				a.Exec(`INSERT INTO servers (id, name, command, args, env, auto_start, disabled, created_at, updated_at)
					VALUES (?, ?, 'npx', '[]', '{}', 0, 0, 0, 0)`, "id"+itoa(i), "s"+itoa(i))
			}
			a.Exec("COMMIT")
		}, []string{"MaxServers", "2001 servers"}},
		{"a name that is a blob", func(a *testelectron.DB) {
			a.AddServer(testelectron.Server{ID: "ok", Name: "ok", Command: "npx"})
			a.Exec(`INSERT INTO servers (id, name, command, args, env, auto_start, disabled, created_at, updated_at)
				VALUES ('n', X'DEADBEEF', 'npx', '[]', '{}', 0, 0, 0, 0)`)
		}, []string{"column name: is a blob, not text"}},
		{"args that are not an array of strings", func(a *testelectron.DB) {
			a.AddServer(testelectron.Server{ID: "ok", Name: "ok", Command: "npx"})
			a.Exec(`INSERT INTO servers (id, name, command, args, env, auto_start, disabled, created_at, updated_at)
				VALUES ('b', 'bad args', 'npx', '{"0": "x"}', '{}', 0, 0, 0, 0)`)
		}, []string{`server "bad args"`, "column args: is not a JSON array of strings"}},
		{"env that is not JSON", func(a *testelectron.DB) {
			a.Exec(`INSERT INTO servers (id, name, command, args, env, auto_start, disabled, created_at, updated_at)
				VALUES ('e', 'enc', 'npx', '[]', 'djEwAAAA', 0, 0, 0, 0)`)
		}, []string{`server "enc"`, "column env: is not a JSON object"}},
		{"env with an object value", func(a *testelectron.DB) {
			a.AddServer(testelectron.Server{ID: "o", Name: "obj", Command: "npx", Env: map[string]any{"K": map[string]any{"a": 1}}})
		}, []string{`server "obj"`, `entry "K"`}},
		{"tool toggles that are not booleans", func(a *testelectron.DB) {
			a.Exec(`INSERT INTO servers (id, name, command, args, env, auto_start, disabled, tool_permissions, created_at, updated_at)
				VALUES ('t', 'toggles', 'npx', '[]', '{}', 0, 0, '{"x": "off"}', 0, 0)`)
		}, []string{`server "toggles"`, "column tool_permissions"}},
		{"a server in a project that does not exist", func(a *testelectron.DB) {
			a.AddProject("p1", "Real")
			a.AddServer(testelectron.Server{ID: "ok", Name: "ok", Command: "npx", ProjectID: "p1"})
			a.AddServer(testelectron.Server{ID: "lost", Name: "lost", Command: "npx", ProjectID: "p-gone"})
		}, []string{`server "lost" is in project "p-gone", which the projects table does not have`}},
		{"a disabled flag that is text", func(a *testelectron.DB) {
			a.Exec(`INSERT INTO servers (id, name, command, args, env, auto_start, disabled, created_at, updated_at)
				VALUES ('d', 'flag', 'npx', '[]', '{}', 0, 'yes', 0, 0)`)
		}, []string{`server "flag"`, "column disabled: is text, not an integer"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "mcprouter.db")
			a := testelectron.New(t, path, testelectron.ServersTable, testelectron.ProjectsTable)
			tc.build(a)
			st, sec := routerStore(t)
			was := dump(t, st)
			err := importDB(ctx, st, sec, path)
			if err == nil {
				t.Fatal("the import succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if now := dump(t, st); !mapsEqualSlices(was, now) {
				t.Error("a failed import changed the store")
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestHostileFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte("hello, this is not SQLite at all, but long enough to look like a header......."), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDatabase(ctx, notDB); err == nil || !strings.Contains(err.Error(), notDB) {
		t.Errorf("a text file: %v, want an error naming it", err)
	}

	other := filepath.Join(dir, "other.db")
	testelectron.New(t, other, "CREATE TABLE things (id INTEGER)")
	if _, err := ReadDatabase(ctx, other); err == nil || !strings.Contains(err.Error(), "no servers table") {
		t.Errorf("another app's database: %v", err)
	}

	if _, err := ReadDatabase(ctx, dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}

	// A workspace whose databasePath leaves the app's directory is not
	// followed: the meta database does not get to point the import at
	// any file on the machine.
	meta := filepath.Join(dir, "meta", "mcprouter.db")
	if err := os.MkdirAll(filepath.Dir(meta), 0o700); err != nil {
		t.Fatal(err)
	}
	m := testelectron.New(t, meta, testelectron.WorkspacesTable)
	m.AddWorkspace("local-default", "Local", "local", true, "../../etc/elsewhere.db")
	if _, err := ReadDatabase(ctx, meta); err == nil || !strings.Contains(err.Error(), "leaves the app's data directory") {
		t.Errorf("an escaping workspace path: %v", err)
	}
}

// If the write fails (a name taken between the plan and the write), no
// server, profile or secret value of the import is left behind.
func TestApplyIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	dir, _ := testelectron.UserData(t)
	st, sec := routerStore(t)
	src, err := ReadDatabase(ctx, filepath.Join(dir, "mcprouter.db"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MakePlan(ctx, st, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Someone else adds a server of a planned name meanwhile.
	if _, err := st.Servers().Create(ctx, spec.Server{Name: "streamable", Transport: spec.Stdio, Command: "x", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	was := dump(t, st)
	err = Apply(ctx, st, sec, plan)
	if !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("apply: %v, want the duplicate name", err)
	}
	if now := dump(t, st); !mapsEqualSlices(was, now) {
		t.Error("a failed write left part of the import behind")
	}
	gh := spec.Server{Name: "GitHub-MCP", Transport: spec.Stdio, Command: "npx",
		Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": spec.SecretPlaceholder("GITHUB_PERSONAL_ACCESS_TOKEN")}, SecretEnv: []string{"GITHUB_PERSONAL_ACCESS_TOKEN"}}
	if _, err := sec.Resolve(gh); err == nil {
		t.Error("the failed import's secret value was left in the secret store")
	}
}

// Servers and profiles are one write: a profile name taken after the plan
// fails the import, and none of its servers is left behind either.
func TestApplyWritesServersAndProfilesTogether(t *testing.T) {
	ctx := context.Background()
	dir, _ := testelectron.UserData(t)
	st, sec := routerStore(t)
	src, err := ReadDatabase(ctx, filepath.Join(dir, "mcprouter.db"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MakePlan(ctx, st, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Profiles().Create(ctx, store.Profile{Name: "Notes-Docs", Mode: "all", Servers: []string{"keep"}}); err != nil {
		t.Fatal(err)
	}
	was := dump(t, st)
	if err := Apply(ctx, st, sec, plan); !errors.Is(err, store.ErrDuplicate) || !strings.Contains(err.Error(), "Notes-Docs") {
		t.Fatalf("apply: %v, want the profile's duplicate name", err)
	}
	if now := dump(t, st); !mapsEqualSlices(was, now) {
		t.Error("the servers were written though their profiles were not")
	}
}

// Names of no ASCII letter (a Japanese user's) are named after their id;
// a server whose arguments take a sensitive value is skipped with what to
// do, rather than storing the secret in its arguments.
func TestNamesAndSensitiveArguments(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mcprouter.db")
	a := testelectron.New(t, path, testelectron.ServersTable, testelectron.ProjectsTable)
	a.AddProject("9f8e7d6c-1111-2222-3333-444455556666", "仕事")
	a.AddServer(testelectron.Server{ID: "1a2b3c4d-aaaa-bbbb-cccc-ddddeeeeffff", Name: "ファイル", Command: "npx",
		Args: []string{"-y", "fs"}, ProjectID: "9f8e7d6c-1111-2222-3333-444455556666"})
	a.AddServer(testelectron.Server{ID: "k", Name: "brave", Command: "npx", Args: []string{"brave", "--key", "${BRAVE_API_KEY}"},
		Env:         map[string]any{"BRAVE_API_KEY": "bk-secret"},
		InputParams: map[string]map[string]any{"BRAVE_API_KEY": {"sensitive": true}}})
	st, sec := routerStore(t)
	src, err := ReadDatabase(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MakePlan(ctx, st, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Servers) != 1 || plan.Servers[0].Name != "server-1a2b3c4d" || plan.Servers[0].From != "ファイル" {
		t.Errorf("servers %+v", plan.Servers)
	}
	if len(plan.Profiles) != 1 || plan.Profiles[0].Name != "project-9f8e7d6c" || plan.Profiles[0].From != "仕事" {
		t.Errorf("profiles %+v", plan.Profiles)
	}
	if len(plan.Skipped) != 1 || plan.Skipped[0].Name != "brave" || !strings.Contains(plan.Skipped[0].Reason, "sensitive value of BRAVE_API_KEY") {
		t.Errorf("skipped %+v", plan.Skipped)
	}
	if err := Apply(ctx, st, sec, plan); err != nil {
		t.Fatal(err)
	}
	for _, row := range dump(t, st)["servers"] {
		if strings.Contains(row, "bk-secret") {
			t.Errorf("a sensitive value reached the database: %s", row)
		}
	}
}

// A generated column could make each read of a row build a huge value: a
// table with one is refused before any row is read.
func TestGeneratedColumnIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcprouter.db")
	a := testelectron.New(t, path, strings.Replace(testelectron.ServersTable, "dev TEXT,",
		"dev TEXT, bomb BLOB GENERATED ALWAYS AS (zeroblob(900000000)) VIRTUAL,", 1))
	a.AddServer(testelectron.Server{ID: "a", Name: "a", Command: "npx"})
	_, err := ReadDatabase(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), `generated or hidden column "bomb"`) {
		t.Fatalf("read: %v", err)
	}
}
