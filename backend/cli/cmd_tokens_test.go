package cli

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/store"
)

type listedToken struct {
	Name       string   `json:"name"`
	Prefix     string   `json:"prefix"`
	Servers    []string `json:"servers"`
	Role       string   `json:"role"`
	Roles      []string `json:"roles"`
	CreatedAt  string   `json:"createdAt"`
	LastUsedAt *string  `json:"lastUsedAt"`
	RevokedAt  *string  `json:"revokedAt"`
	Revoked    bool     `json:"revoked"`
}

func tokensJSON(t *testing.T, dir string) []listedToken {
	t.Helper()
	out := mustRun(t, dir, "tokens", "list", "--json")
	var rows []listedToken
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return rows
}

// verifyIn checks a secret against the data dir's database, as the running
// router would.
func verifyIn(t *testing.T, dir, secret string) (auth.Identity, error) {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, "mcp-router.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := auth.New(st)
	defer svc.Close()
	return svc.Verify(context.Background(), secret)
}

func TestTokensCreateListRevoke(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "fs", "--", "echo", "fs")
	mustRun(t, dir, "servers", "add", "git", "--", "echo", "git")

	if out := mustRun(t, dir, "tokens", "list"); !strings.Contains(out, "No tokens yet") {
		t.Errorf("empty list said %q", out)
	}

	// Plain create: the secret alone on stdout, the note on stderr.
	r := run(t, dir, "", "tokens", "create", "laptop")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	secret := strings.TrimSpace(r.stdout)
	if !strings.HasPrefix(secret, "mcpr_") || strings.Contains(secret, "\n") || len(secret) != auth.SecretLen {
		t.Errorf("stdout %q is not one token", r.stdout)
	}
	if !strings.Contains(r.stderr, "cannot be shown again") || !strings.Contains(r.stderr, "all servers") {
		t.Errorf("stderr %q lacks the note", r.stderr)
	}
	if id, err := verifyIn(t, dir, secret); err != nil || id.TokenName != "laptop" || len(id.Servers) != 0 {
		t.Errorf("created token does not verify: %+v %v", id, err)
	}

	// --json with --servers: the "token" key is a contract.
	out := mustRun(t, dir, "tokens", "create", "ci", "--servers", " git, fs,git,", "--json")
	var created map[string]any
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ciSecret, _ := created["token"].(string)
	if created["name"] != "ci" || !strings.HasPrefix(ciSecret, "mcpr_") || !reflect.DeepEqual(created["servers"], []any{"git", "fs"}) {
		t.Errorf("create --json = %v", created)
	}
	if id, err := verifyIn(t, dir, ciSecret); err != nil || !reflect.DeepEqual(id.Servers, []string{"git", "fs"}) {
		t.Errorf("ci identity %+v %v", id, err)
	}
	out = mustRun(t, dir, "tokens", "create", "all", "--json")
	if err := json.Unmarshal([]byte(out), &created); err != nil || !reflect.DeepEqual(created["servers"], []any{}) {
		t.Errorf("servers of an all-servers token: %s", out)
	}

	rows := tokensJSON(t, dir)
	if len(rows) != 3 || rows[0].Name != "all" || rows[1].Name != "ci" || rows[2].Name != "laptop" {
		t.Fatalf("list --json = %+v", rows)
	}
	if rows[2].Prefix != secret[:12] || rows[2].Revoked || rows[2].CreatedAt == "" || !reflect.DeepEqual(rows[1].Servers, []string{"git", "fs"}) {
		t.Errorf("rows %+v", rows)
	}
	for _, row := range rows {
		if row.Role != "client" {
			t.Errorf("%s: role %q, want client (the default)", row.Name, row.Role)
		}
	}
	rawList := mustRun(t, dir, "tokens", "list", "--json")
	table := mustRun(t, dir, "tokens", "list")
	for _, s := range []string{secret, ciSecret, secret[12:20], ciSecret[12:20], store.HashToken(secret), "hash"} {
		if strings.Contains(rawList, s) || strings.Contains(table, s) {
			t.Errorf("token list shows %q", s)
		}
	}
	for _, s := range []string{"NAME", "ROLE", "client", "PREFIX", "laptop", secret[:12], "git,fs", "all", "never", "REVOKED"} {
		if !strings.Contains(table, s) {
			t.Errorf("table lacks %q:\n%s", s, table)
		}
	}

	if out := mustRun(t, dir, "tokens", "revoke", "laptop"); out != "revoked laptop\n" {
		t.Errorf("revoke said %q", out)
	}
	if _, err := verifyIn(t, dir, secret); !errors.Is(err, auth.ErrRevokedToken) {
		t.Errorf("revoked token verifies: %v", err)
	}
	rows = tokensJSON(t, dir)
	if !rows[2].Revoked || rows[2].RevokedAt == nil || rows[1].Revoked {
		t.Errorf("after revoke: %+v", rows)
	}
}

func TestTokensBadInput(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "fs", "--", "echo", "fs")
	mustRun(t, dir, "tokens", "create", "existing")
	mustRun(t, dir, "tokens", "create", "gone")
	mustRun(t, dir, "tokens", "revoke", "gone")
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"duplicate name", []string{"tokens", "create", "existing"}, `a token named "existing" already exists`, ExitError},
		{"bad name", []string{"tokens", "create", "bad name"}, `bad token name "bad name"`, ExitError},
		{"leading dash", []string{"tokens", "create", "--", "-x"}, `bad token name "-x"`, ExitError},
		{"too long", []string{"tokens", "create", strings.Repeat("a", 65)}, "bad token name", ExitError},
		{"unknown server", []string{"tokens", "create", "new", "--servers", "fs,nope"}, `--servers: no server named "nope"`, ExitError},
		{"admin with servers", []string{"tokens", "create", "new", "--admin", "--servers", "fs"}, "--admin and --servers cannot be combined: an admin token manages every server", ExitUsage},
		{"admin duplicate name", []string{"tokens", "create", "existing", "--admin"}, `a token named "existing" already exists`, ExitError},
		{"admin bad name", []string{"tokens", "create", "bad name", "--admin"}, `bad token name "bad name"`, ExitError},
		{"admin takes no value", []string{"tokens", "create", "new", "--admin=maybe"}, "invalid argument", ExitUsage},
		{"unknown servers", []string{"tokens", "create", "new", "--servers", "a,b"}, `no servers named "a", "b"`, ExitError},
		{"empty servers", []string{"tokens", "create", "new", "--servers", " , "}, "--servers needs at least one server", ExitUsage},
		{"no name", []string{"tokens", "create"}, "usage: mcp-router tokens create NAME", ExitUsage},
		{"two names", []string{"tokens", "create", "a", "b"}, "usage: mcp-router tokens create NAME", ExitUsage},
		{"revoke unknown", []string{"tokens", "revoke", "nope"}, `no token named "nope" (see ` + "`mcp-router tokens list`)", ExitError},
		{"revoke twice", []string{"tokens", "revoke", "gone"}, `token "gone": already revoked`, ExitError},
		{"revoke no name", []string{"tokens", "revoke"}, "usage: mcp-router tokens revoke NAME", ExitUsage},
		{"list arg", []string{"tokens", "list", "x"}, "", ExitUsage},
		{"delete unknown", []string{"tokens", "delete", "nope"}, `no token named "nope"`, ExitError},
		{"delete no name", []string{"tokens", "delete"}, "usage: mcp-router tokens delete NAME", ExitUsage},
		{"update unknown", []string{"tokens", "update", "nope", "--all-servers"}, `no token named "nope"`, ExitError},
		{"update nothing", []string{"tokens", "update", "existing"}, "nothing to change: give --servers a,b, --all-servers, --role R, --no-roles, --profile P or --no-profile", ExitUsage},
		{"update both", []string{"tokens", "update", "existing", "--servers", "fs", "--all-servers"}, "give --servers a,b or --all-servers, not both", ExitUsage},
		{"role admin", []string{"tokens", "create", "new", "--role", "admin"}, `--role: role "admin" is reserved: it is the role of admin tokens (tokens create NAME --admin)`, ExitUsage},
		{"role client", []string{"tokens", "create", "new", "--role", "reviewer,Client"}, `--role: role "Client" is reserved: every client token carries it already`, ExitUsage},
		{"role with a colon", []string{"tokens", "create", "new", "--role", "token:lead-agent"}, `--role: bad role "token:lead-agent": use 1-64 letters, digits`, ExitUsage},
		{"role star", []string{"tokens", "create", "new", "--role", "*"}, `--role: bad role "*"`, ExitUsage},
		{"role empty", []string{"tokens", "create", "new", "--role", ""}, "--role needs at least one role", ExitUsage},
		{"role empty in a list", []string{"tokens", "create", "new", "--role", "a,,b"}, `--role: bad role ""`, ExitUsage},
		{"update role empty", []string{"tokens", "update", "existing", "--role", " "}, "--role", ExitUsage},
		{"update role admin", []string{"tokens", "update", "existing", "--role", "reviewer", "--role", "ADMIN"}, `--role: role "ADMIN" is reserved`, ExitUsage},
		{"update role and no roles", []string{"tokens", "update", "existing", "--role", "x", "--no-roles"}, "give --role or --no-roles, not both", ExitUsage},
		{"update role of revoked", []string{"tokens", "update", "gone", "--role", "x"}, `token "gone": already revoked`, ExitError},
		{"update role of unknown", []string{"tokens", "update", "nope", "--no-roles"}, `no token named "nope"`, ExitError},
		{"update unknown server", []string{"tokens", "update", "existing", "--servers", "fs,nope"}, `--servers: no server named "nope"`, ExitError},
		{"update empty servers", []string{"tokens", "update", "existing", "--servers", ","}, "--servers needs at least one server", ExitUsage},
		{"update revoked", []string{"tokens", "update", "gone", "--servers", "fs"}, `token "gone": already revoked`, ExitError},
		{"unknown flag", []string{"tokens", "list", "--yaml"}, "unknown flag", ExitUsage},
	}
	before := tokensJSON(t, dir)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertOneLineError(t, run(t, dir, "", tc.args...), tc.code, tc.want)
			if after := tokensJSON(t, dir); !reflect.DeepEqual(after, before) {
				t.Errorf("tokens changed:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// TestTokensCreateAdminAndListRoles: --admin makes an admin token (the
// browser UI's), the default stays a client token, and the list shows
// which is which, in the table and in --json.
func TestTokensCreateAdminAndListRoles(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "tokens", "create", "claude-code")

	r := run(t, dir, "", "tokens", "create", "me", "--admin")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	admin := strings.TrimSpace(r.stdout)
	if !strings.HasPrefix(admin, "mcpr_") || len(admin) != auth.SecretLen {
		t.Errorf("stdout %q is not one token", r.stdout)
	}
	if !strings.Contains(r.stderr, `Created admin token "me"`) || !strings.Contains(r.stderr, "never put it in an AI client's config") ||
		!strings.Contains(r.stderr, "cannot be shown again") {
		t.Errorf("stderr %q", r.stderr)
	}
	if id, err := verifyIn(t, dir, admin); err != nil || id.TokenName != "me" || !id.IsAdmin() || id.Role != store.RoleAdmin || len(id.Servers) != 0 {
		t.Errorf("admin token verifies as %+v, %v", id, err)
	}

	var created map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, dir, "tokens", "create", "ops", "--admin", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	if created["role"] != "admin" || created["name"] != "ops" || !reflect.DeepEqual(created["servers"], []any{}) {
		t.Errorf("create --admin --json = %v", created)
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "tokens", "create", "cursor", "--json")), &created); err != nil || created["role"] != "client" {
		t.Errorf("create --json without --admin = %v, %v", created, err)
	}

	roles := map[string]string{}
	for _, row := range tokensJSON(t, dir) {
		roles[row.Name] = row.Role
	}
	if want := map[string]string{"claude-code": "client", "cursor": "client", "me": "admin", "ops": "admin"}; !reflect.DeepEqual(roles, want) {
		t.Errorf("list --json roles = %v, want %v", roles, want)
	}
	table := mustRun(t, dir, "tokens", "list")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "NAME") || strings.Fields(lines[0])[1] != "ROLE" {
		t.Fatalf("table:\n%s", table)
	}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if roles[f[0]] != f[1] {
			t.Errorf("table row %q: role %q, want %q", line, f[1], roles[f[0]])
		}
	}
}

// tokens update changes a token's scope as the router sees it; tokens
// delete removes it, revoked or not, and frees the name.
func TestTokensUpdateAndDelete(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "fs", "--", "echo", "fs")
	mustRun(t, dir, "servers", "add", "git", "--", "echo", "git")
	secret := strings.TrimSpace(mustRun(t, dir, "tokens", "create", "ci", "--servers", "fs"))
	if out := mustRun(t, dir, "tokens", "update", "ci", "--servers", "git, fs"); out != "token ci may now use servers git, fs\n" {
		t.Errorf("update said %q", out)
	}
	id, err := verifyIn(t, dir, secret)
	if err != nil || !reflect.DeepEqual(id.Servers, []string{"git", "fs"}) {
		t.Fatalf("after --servers: %+v %v", id, err)
	}
	if out := mustRun(t, dir, "tokens", "update", "ci", "--all-servers"); out != "token ci may now use all servers\n" {
		t.Errorf("update said %q", out)
	}
	if rows := tokensJSON(t, dir); len(rows) != 1 || len(rows[0].Servers) != 0 {
		t.Errorf("after --all-servers: %+v", rows)
	}
	mustRun(t, dir, "tokens", "revoke", "ci")
	if out := mustRun(t, dir, "tokens", "delete", "ci"); out != "deleted ci\n" {
		t.Errorf("delete said %q", out)
	}
	if rows := tokensJSON(t, dir); len(rows) != 0 {
		t.Errorf("after delete: %+v", rows)
	}
	if _, err := verifyIn(t, dir, secret); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("deleted token verifies: %v", err)
	}
	// The name is free again; an active token can be deleted too.
	again := strings.TrimSpace(mustRun(t, dir, "tokens", "create", "ci"))
	if _, err := verifyIn(t, dir, again); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "tokens", "delete", "ci")
	if _, err := verifyIn(t, dir, again); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("deleted active token verifies: %v", err)
	}
}

// --role gives a token roles of its own (repeated or a,b), shown by
// tokens list (table and --json) and create --json, carried by the
// identity the router finds; tokens update --role replaces them and
// --no-roles clears them. They never make a token an admin.
func TestTokensRoles(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "", "tokens", "create", "review-bot", "--role", "reviewer", "--role", "qa,reviewer")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	secret := strings.TrimSpace(r.stdout)
	if !strings.Contains(r.stderr, `Created client token "review-bot" for all servers (the MCP endpoint only), with roles reviewer, qa.`) {
		t.Errorf("stderr %q", r.stderr)
	}
	id, err := verifyIn(t, dir, secret)
	if err != nil || !reflect.DeepEqual(id.Roles, []string{"reviewer", "qa"}) || id.Role != store.RoleClient || id.IsAdmin() {
		t.Fatalf("identity %+v, %v", id, err)
	}
	var created map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, dir, "tokens", "create", "lead", "--admin", "--role", "maintainer", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	if created["role"] != "admin" || !reflect.DeepEqual(created["roles"], []any{"maintainer"}) {
		t.Errorf("create --admin --role --json = %v", created)
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "tokens", "create", "plain", "--json")), &created); err != nil || !reflect.DeepEqual(created["roles"], []any{}) {
		t.Errorf("create --json without --role = %v, %v", created, err)
	}

	roles := map[string][]string{}
	for _, row := range tokensJSON(t, dir) {
		roles[row.Name] = row.Roles
	}
	if want := map[string][]string{"lead": {"maintainer"}, "plain": {}, "review-bot": {"reviewer", "qa"}}; !reflect.DeepEqual(roles, want) {
		t.Errorf("list --json roles = %v, want %v", roles, want)
	}
	table := mustRun(t, dir, "tokens", "list")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 4 || strings.Join(strings.Fields(lines[0])[:3], " ") != "NAME ROLE ROLES" {
		t.Fatalf("table:\n%s", table)
	}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		want := strings.Join(roles[f[0]], ",")
		if want == "" {
			want = "-"
		}
		if f[2] != want {
			t.Errorf("table row %q: roles %q, want %q", line, f[2], want)
		}
	}

	if out := mustRun(t, dir, "tokens", "update", "review-bot", "--role", "maintainer"); out != "token review-bot now has roles maintainer\n" {
		t.Errorf("update --role said %q", out)
	}
	if id, _ := verifyIn(t, dir, secret); !reflect.DeepEqual(id.Roles, []string{"maintainer"}) {
		t.Errorf("after update --role: %v", id.Roles)
	}
	out := mustRun(t, dir, "tokens", "update", "review-bot", "--all-servers", "--no-roles")
	if out != "token review-bot may now use all servers\ntoken review-bot now has no roles of its own\n" {
		t.Errorf("update --all-servers --no-roles said %q", out)
	}
	if id, _ := verifyIn(t, dir, secret); len(id.Roles) != 0 {
		t.Errorf("after --no-roles: %v", id.Roles)
	}
}
