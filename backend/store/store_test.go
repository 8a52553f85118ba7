package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

func openTest(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "mcp-router.db")
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func appliedMigrations(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT id FROM migrations ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestOpenCreatesDirAndSchema(t *testing.T) {
	s, path := openTest(t)
	fi, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("data dir mode = %o, want 700", perm)
	}
	sqlDB, _ := s.DB().DB()
	if got, want := appliedMigrations(t, sqlDB), MigrationIDs(); !reflect.DeepEqual(got, want) {
		t.Errorf("applied migrations = %v, want %v", got, want)
	}
	for _, table := range []string{"servers", "settings", "hooks", "tokens", "request_logs"} {
		if !s.DB().Migrator().HasTable(table) {
			t.Errorf("table %s missing", table)
		}
	}
}

func TestPragmas(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sqlDB, _ := s.DB().DB()
	// Hold several connections at once so the check covers pooled ones, not
	// just the first.
	var conns []*sql.Conn
	for i := 0; i < 3; i++ {
		c, err := sqlDB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		var mode string
		var busy, fk int
		if err := c.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if mode != "wal" || busy != 5000 || fk != 1 {
			t.Errorf("conn %d: journal_mode=%s busy_timeout=%d foreign_keys=%d, want wal 5000 1", i, mode, busy, fk)
		}
		c.Close()
	}
}

func TestOpenPathWithSpecialCharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "we?ird #dir %20")
	path := filepath.Join(dir, "x.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at %s: %v", path, err)
	}
}

// TestOpenV1Fixture guards upgrades: a database written by the first release
// must open, keep its rows, and end up with every migration applied.
func TestOpenV1Fixture(t *testing.T) {
	dump, err := os.ReadFile("testdata/v1.sql")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v1.db")
	raw, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(string(dump)); err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	raw.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open(v1 database): %v", err)
	}
	defer s.Close()
	ctx := context.Background()

	sqlDB, _ := s.DB().DB()
	if got, want := appliedMigrations(t, sqlDB), MigrationIDs(); !reflect.DeepEqual(got, want) {
		t.Errorf("applied migrations = %v, want %v", got, want)
	}

	servers, err := s.Servers().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sv := range servers {
		names = append(names, sv.Name)
	}
	if want := []string{"filesystem", "legacy", "remote"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("servers = %v, want %v", names, want)
	}
	fs := servers[0]
	if fs.Transport != spec.Stdio || fs.Command != "npx" || len(fs.Args) != 3 || fs.Env["DEBUG"] != "1" || !fs.Enabled || fs.CreatedAt.IsZero() {
		t.Errorf("filesystem = %+v", fs)
	}
	remote := servers[2]
	if remote.Enabled || remote.PrefixMode != spec.PrefixNever || remote.Headers["Authorization"] != "Bearer x" ||
		!reflect.DeepEqual(remote.DisabledTools, []string{"delete_all"}) || remote.TimeoutSeconds != 30 {
		t.Errorf("remote = %+v", remote)
	}
	// Migration 0006_server_timeout_follows_setting: the 60 s every server got by default now follows the
	// timeout setting (0); a timeout of its own (remote's 30) stays.
	if fs.TimeoutSeconds != 0 || servers[1].TimeoutSeconds != 0 {
		t.Errorf("timeouts after migration: filesystem %d, legacy %d; want 0 (the setting)", fs.TimeoutSeconds, servers[1].TimeoutSeconds)
	}
	for _, sv := range servers {
		if err := sv.Validate(); err != nil {
			t.Errorf("stored server no longer valid: %v", err)
		}
	}

	settings, err := s.Settings().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"port": "3282", "auth": "on"}; !reflect.DeepEqual(settings, want) {
		t.Errorf("settings = %v, want %v", settings, want)
	}

	hooks, err := s.Hooks().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 2 || hooks[0].Name != "audit" || hooks[1].Name != "redact" || !hooks[1].FailClosed || hooks[1].HookType != HookPost {
		t.Errorf("hooks = %+v", hooks)
	}

	tok, err := s.Tokens().Lookup(ctx, HashToken("mcpr_secret1"))
	if err != nil {
		t.Fatal(err)
	}
	if tok.Name != "laptop" || !reflect.DeepEqual(tok.Servers, []string{"filesystem"}) || tok.RevokedAt != nil {
		t.Errorf("token laptop = %+v", tok)
	}
	ci, err := s.Tokens().Get(ctx, "ci")
	if err != nil {
		t.Fatal(err)
	}
	if ci.RevokedAt == nil || ci.RevokedAt.Year() != 2026 || len(ci.Servers) != 0 {
		t.Errorf("token ci = %+v", ci)
	}
	// Migration 0004_token_roles: tokens from before roles are client tokens.
	if tok.Role != RoleClient || ci.Role != RoleClient {
		t.Errorf("roles after upgrade: laptop %q, ci %q; want client", tok.Role, ci.Role)
	}
	// Migration 0900_token_custom_roles: old tokens carry no roles of their
	// own, and an upgraded row takes some.
	if tok.Roles != nil || ci.Roles != nil {
		t.Errorf("custom roles after upgrade: laptop %v, ci %v; want none", tok.Roles, ci.Roles)
	}
	if err := s.Tokens().SetRoles(ctx, "laptop", []string{"reviewer"}); err != nil {
		t.Fatalf("roles on an upgraded row: %v", err)
	}
	if got, err := s.Tokens().Get(ctx, "laptop"); err != nil || !reflect.DeepEqual(got.Roles, []string{"reviewer"}) {
		t.Errorf("laptop's roles = %v, %v", got.Roles, err)
	}

	logs, err := s.Logs().List(ctx, LogFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 3 || logs[0].Status != StatusBlocked || logs[2].Target != "read_file" || logs[2].DurationMs != 12.5 {
		t.Errorf("logs = %+v", logs)
	}
	// Migration 0700 added backend_tool: old rows have none, and a new row
	// on the upgraded table keeps its own.
	for _, l := range logs {
		if l.BackendTool != "" {
			t.Errorf("log %d came out of the upgrade with backend tool %q", l.ID, l.BackendTool)
		}
	}
	if err := s.Logs().Insert(ctx, []RequestLog{{Client: "c", Server: "filesystem", Method: "tools/call", Target: "read_it", BackendTool: "read_file", Status: StatusOK}}); err != nil {
		t.Fatalf("insert on the upgraded request_logs: %v", err)
	}
	if got, err := s.Logs().List(ctx, LogFilter{Limit: 1}); err != nil || len(got) != 1 || got[0].BackendTool != "read_file" || got[0].Target != "read_it" {
		t.Errorf("new row on the upgraded table = %+v, %v", got, err)
	}

	// Migration 0002 added the gate column: old rows have no gate, and a
	// gate stored on an upgraded row reads back whole.
	for _, sv := range servers {
		if !sv.Gate.IsZero() {
			t.Errorf("%s came out of the upgrade with a gate: %+v", sv.Name, sv.Gate)
		}
	}
	gated := fs.Server
	gated.Gate = spec.Gate{Enabled: true, Message: "load the skill", InitTool: "run",
		InitArgs: []byte(`{"mode":"init"}`), InitArgFiles: map[string]string{"code": "/etc/hostname"}, HideTools: true}
	if _, err := s.Servers().Update(ctx, gated); err != nil {
		t.Fatalf("store a gate on an upgraded row: %v", err)
	}
	if back, err := s.Servers().Get(ctx, "filesystem"); err != nil || !reflect.DeepEqual(back.Gate, gated.Gate) {
		t.Errorf("gate read back = %+v (%v), want %+v", back.Gate, err, gated.Gate)
	}

	// New rows continue after the old IDs and the schema still enforces
	// uniqueness.
	if _, err := s.Servers().Create(ctx, spec.Server{Name: "legacy", Command: "x"}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("duplicate on v1 database: err = %v, want ErrDuplicate", err)
	}
	added, err := s.Servers().Create(ctx, spec.Server{Name: "new", Command: "x"})
	if err != nil || added.ID != 4 {
		t.Errorf("create on v1 database: id=%d err=%v", added.ID, err)
	}
}

func TestOpenRefusesNewerDatabase(t *testing.T) {
	s, path := openTest(t)
	ctx := context.Background()
	if _, err := s.Servers().Create(ctx, spec.Server{Name: "keep", Command: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := s.DB().Exec("INSERT INTO migrations (id) VALUES ('9999_from_the_future')").Error; err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	_, err = Open(path)
	if !errors.Is(err, ErrNewerDatabase) {
		t.Fatalf("Open = %v, want ErrNewerDatabase", err)
	}
	for _, want := range []string{"database was written by a newer version", "9999_from_the_future"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	raw, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow("SELECT count(*) FROM servers WHERE name = 'keep'").Scan(&n); err != nil || n != 1 {
		t.Errorf("servers row after refused open: n=%d err=%v", n, err)
	}
	if got := appliedMigrations(t, raw); !reflect.DeepEqual(got, append(MigrationIDs(), "9999_from_the_future")) {
		t.Errorf("migrations after refused open = %v", got)
	}
	after, _ := os.ReadFile(path)
	if len(after) != len(before) {
		t.Errorf("file size changed from %d to %d", len(before), len(after))
	}
}

func TestOpenTwiceMigratesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(path)
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sqlDB, _ := s.DB().DB()
	if got := appliedMigrations(t, sqlDB); !reflect.DeepEqual(got, MigrationIDs()) {
		t.Errorf("migrations = %v", got)
	}
}

// TestConcurrentStores stands in for the CLI and the app writing the same
// file at once: every write must succeed by waiting, none may get SQLITE_BUSY.
func TestConcurrentStores(t *testing.T) {
	a, path := openTest(t)
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	const perWriter = 50
	var wg sync.WaitGroup
	errc := make(chan error, 4*perWriter)
	for w, st := range []*Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				name := fmt.Sprintf("w%d-%d", w, i)
				if _, err := st.Servers().Create(ctx, spec.Server{Name: name, Command: "x"}); err != nil {
					errc <- err
				}
				if err := st.Settings().Set(ctx, "last", name); err != nil {
					errc <- err
				}
				if _, err := st.Servers().List(ctx); err != nil {
					errc <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	list, err := a.Servers().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 4*perWriter {
		t.Errorf("servers = %d, want %d", len(list), 4*perWriter)
	}
}

func TestRevisionSeesOtherStoreWrites(t *testing.T) {
	app, path := openTest(t)
	ctx := context.Background()
	cli, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	r0, err := app.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := app.Revision(ctx); r != r0 {
		t.Fatalf("revision changed without a write: %d -> %d", r0, r)
	}
	// A read elsewhere is not a change.
	if _, err := cli.Servers().List(ctx); err != nil {
		t.Fatal(err)
	}
	if r, _ := app.Revision(ctx); r != r0 {
		t.Fatalf("revision changed after a read: %d -> %d", r0, r)
	}
	if _, err := cli.Servers().Create(ctx, spec.Server{Name: "from-cli", Command: "x"}); err != nil {
		t.Fatal(err)
	}
	r1, err := app.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r1 == r0 {
		t.Fatalf("revision %d unchanged after another store's write", r1)
	}
	// The app's own writes go through other pool connections, so they count too.
	if err := app.Settings().Set(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if r2, _ := app.Revision(ctx); r2 == r1 {
		t.Fatalf("revision %d unchanged after own write", r2)
	}
}

// TestOpenV3FixtureKeepsTokensAsClientTokens guards migration 0004_token_roles on a
// real file written by the release before token roles (testdata/v3.sql,
// made by that release's CLI): every token is still there, byte for byte,
// and is now a client token; a revoked one stays revoked; a row an older
// build still running inserts afterwards (without the column) is a client
// token too.
func TestOpenV3FixtureKeepsTokensAsClientTokens(t *testing.T) {
	dump, err := os.ReadFile("testdata/v3.sql")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v3.db")
	raw, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(string(dump)); err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	type row struct{ name, hash, prefix, servers, created, revoked string }
	readRows := func(db *sql.DB) []row {
		t.Helper()
		rs, err := db.Query("SELECT name, hash, prefix, COALESCE(servers, ''), created_at, COALESCE(revoked_at, '') FROM tokens ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var out []row
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.name, &r.hash, &r.prefix, &r.servers, &r.created, &r.revoked); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	before := readRows(raw)
	raw.Close()
	if len(before) != 4 {
		t.Fatalf("fixture has %d tokens, want 4", len(before))
	}

	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open(v3 database): %v", err)
	}
	defer s.Close()
	ctx := context.Background()
	sqlDB, _ := s.DB().DB()
	if got, want := appliedMigrations(t, sqlDB), MigrationIDs(); !reflect.DeepEqual(got, want) {
		t.Errorf("applied migrations = %v, want %v", got, want)
	}
	if after := readRows(sqlDB); !reflect.DeepEqual(after, before) {
		t.Errorf("token rows changed by the upgrade:\nbefore %v\nafter  %v", before, after)
	}

	// The secrets that release printed still find their tokens, now as
	// client tokens.
	secrets := map[string]string{
		"laptop":      "mcpr_jZjRI4xhq_kx-mAwy4HU4YFN91dghbUOBX-xfEvXkJM",
		"ci":          "mcpr_XVTQPPpdeyiYBmuCSvmiHcq3PjUwBNmgRSviYOKb9es",
		"claude-code": "mcpr_aEGQaPxb1OO4unpHZLYGX9o-Zwm6j5mgWZLLH4m_RW4",
		"gone":        "mcpr_-jaduiZR7hWxDgHfSM8JANiNYs7H1ffweLKpsjs5q1k",
	}
	for name, secret := range secrets {
		tok, err := s.Tokens().Lookup(ctx, HashToken(secret))
		if err != nil || tok.Name != name {
			t.Errorf("secret of %s finds %+v, %v", name, tok, err)
			continue
		}
		if tok.Role != RoleClient {
			t.Errorf("%s: role %q after the upgrade, want client", name, tok.Role)
		}
		if (name == "gone") != (tok.RevokedAt != nil) {
			t.Errorf("%s: revoked at %v", name, tok.RevokedAt)
		}
	}
	if ci, _ := s.Tokens().Get(ctx, "ci"); !reflect.DeepEqual(ci.Servers, []string{"fs"}) {
		t.Errorf("ci servers = %v", ci.Servers)
	}

	// An older build that opened the file before the upgrade inserts
	// without the column: the default makes that a client token.
	if _, err := sqlDB.Exec("INSERT INTO tokens (name, hash, prefix, created_at) VALUES ('old-build', ?, 'mcpr_x', CURRENT_TIMESTAMP)",
		HashToken("from an old build")); err != nil {
		t.Fatal(err)
	}
	if tok, err := s.Tokens().Get(ctx, "old-build"); err != nil || tok.Role != RoleClient {
		t.Errorf("row without a role = %+v, %v", tok, err)
	}
	// And a new admin token sits beside them.
	if _, err := s.Tokens().Create(ctx, Token{Name: "admin", Hash: HashToken("new admin"), Role: RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	list, _ := s.Tokens().List(ctx)
	roles := map[string]Role{}
	for _, tk := range list {
		roles[tk.Name] = tk.Role
	}
	want := map[string]Role{"admin": RoleAdmin, "ci": RoleClient, "claude-code": RoleClient, "gone": RoleClient, "laptop": RoleClient, "old-build": RoleClient}
	if !reflect.DeepEqual(roles, want) {
		t.Errorf("roles = %v, want %v", roles, want)
	}
}
