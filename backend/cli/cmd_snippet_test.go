package cli

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/store"
)

type snippetEntry struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

func parseSnippet(t *testing.T, out, top string) snippetEntry {
	t.Helper()
	var doc map[string]map[string]snippetEntry
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not JSON (%v):\n%s", err, out)
	}
	e, ok := doc[top]["mcp-router"]
	if !ok || len(doc) != 1 {
		t.Fatalf("no %s.mcp-router in:\n%s", top, out)
	}
	return e
}

func bearer(e snippetEntry) string { return strings.TrimPrefix(e.Headers["Authorization"], "Bearer ") }

func TestSnippetCreatesATokenPerClient(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "", "snippet", "--client", "claude-code")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	e := parseSnippet(t, r.stdout, "mcpServers")
	tok := bearer(e)
	if e.Type != "http" || e.URL != "http://127.0.0.1:3282/mcp" || !strings.HasPrefix(tok, "mcpr_") {
		t.Errorf("snippet %+v", e)
	}
	if !strings.Contains(r.stderr, `Created client token "claude-code"`) {
		t.Errorf("stderr %q does not name the new token", r.stderr)
	}
	if strings.Contains(r.stderr, tok) {
		t.Error("the secret went to stderr too")
	}
	// What goes into an AI client's config is a client token: it cannot
	// open the browser UI.
	if id, err := verifyIn(t, dir, tok); err != nil || id.TokenName != "claude-code" || id.Role != store.RoleClient || id.IsAdmin() {
		t.Errorf("snippet token: %+v %v", id, err)
	}

	// Again: the name is taken, so claude-code-2, then -3.
	for _, want := range []string{"claude-code-2", "claude-code-3"} {
		r := run(t, dir, "", "snippet", "--client", "claude-code")
		if r.code != 0 || !strings.Contains(r.stderr, `Created client token "`+want+`"`) {
			t.Errorf("second snippet: %d %s", r.code, r.stderr)
		}
		if id, err := verifyIn(t, dir, bearer(parseSnippet(t, r.stdout, "mcpServers"))); err != nil || id.TokenName != want {
			t.Errorf("token %+v %v, want %s", id, err, want)
		}
	}
	var names []string
	for _, row := range tokensJSON(t, dir) {
		names = append(names, row.Name)
	}
	if !reflect.DeepEqual(names, []string{"claude-code", "claude-code-2", "claude-code-3"}) {
		t.Errorf("tokens list = %v", names)
	}
}

func TestSnippetWithToken(t *testing.T) {
	dir := t.TempDir()
	secret := strings.TrimSpace(mustRun(t, dir, "tokens", "create", "mine"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)

	r := run(t, dir, "", "snippet", "--client", "vscode", "--token", secret)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if e := parseSnippet(t, r.stdout, "servers"); e.Type != "http" || bearer(e) != secret {
		t.Errorf("vscode http %+v", e)
	}
	if strings.Contains(r.stderr, "Created client token") {
		t.Errorf("--token still created one: %s", r.stderr)
	}

	r = run(t, dir, "", "snippet", "--client", "claude-desktop", "--mode", "stdio", "--token", secret)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	e := parseSnippet(t, r.stdout, "mcpServers")
	if e.Command != exe || !filepath.IsAbs(e.Command) || !reflect.DeepEqual(e.Args, []string{"connect"}) || e.Env["MCPR_TOKEN"] != secret || e.Type != "" {
		t.Errorf("claude-desktop stdio %+v (executable %s)", e, exe)
	}

	r = run(t, dir, "", "snippet", "--client", "codex", "--mode", "stdio", "--token", secret, "--url", "http://127.0.0.1:9999/mcp")
	want := "[mcp_servers.mcp-router]\ncommand = \"" + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(exe) + "\"\n" +
		"args = [\"connect\", \"--url\", \"http://127.0.0.1:9999/mcp\"]\nenv = { \"MCPR_TOKEN\" = \"" + secret + "\" }\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("codex stdio (%d, %s):\n%s\nwant:\n%s", r.code, r.stderr, r.stdout, want)
	}
	if names := tokensJSON(t, dir); len(names) != 1 {
		t.Errorf("--token created tokens: %+v", names)
	}
}

func TestSnippetFollowsSettings(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "settings", "set", "port", "4100")
	mustRun(t, dir, "settings", "set", "listen", "0.0.0.0")
	mustRun(t, dir, "settings", "set", "auth", "off")

	r := run(t, dir, "", "snippet", "--client", "cursor")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	e := parseSnippet(t, r.stdout, "mcpServers")
	if e.URL != "http://127.0.0.1:4100/mcp" || e.Headers != nil || strings.Contains(r.stdout, "headers") {
		t.Errorf("auth-off snippet %+v", e)
	}
	if !strings.Contains(r.stderr, "Auth is off") {
		t.Errorf("stderr %q", r.stderr)
	}
	r = run(t, dir, "", "snippet", "--client", "cursor", "--mode", "stdio")
	if e := parseSnippet(t, r.stdout, "mcpServers"); !reflect.DeepEqual(e.Args, []string{"connect", "--url", "http://127.0.0.1:4100/mcp"}) || e.Env != nil {
		t.Errorf("stdio with non-default URL %+v", e)
	}
	if rows := tokensJSON(t, dir); len(rows) != 0 {
		t.Errorf("auth off created tokens: %+v", rows)
	}

	r = run(t, dir, "", "snippet", "--client", "cursor", "--new-token")
	if e := parseSnippet(t, r.stdout, "mcpServers"); r.code != 0 || !strings.HasPrefix(bearer(e), "mcpr_") {
		t.Errorf("--new-token with auth off: %+v %s", e, r.stderr)
	}
	if rows := tokensJSON(t, dir); len(rows) != 1 || rows[0].Name != "cursor" {
		t.Errorf("tokens %+v", rows)
	}
}

func TestSnippetBadInput(t *testing.T) {
	dir := t.TempDir()
	secret := strings.TrimSpace(mustRun(t, dir, "tokens", "create", "old"))
	mustRun(t, dir, "tokens", "revoke", "old")
	admin := strings.TrimSpace(mustRun(t, dir, "tokens", "create", "me", "--admin"))
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"no client", []string{"snippet"}, "snippet needs --client: one of claude-code, claude-desktop, cursor, vscode, codex", ExitUsage},
		{"unknown client", []string{"snippet", "--client", "emacs"}, `unknown client "emacs"`, ExitUsage},
		{"unknown mode", []string{"snippet", "--client", "cursor", "--mode", "sse"}, `unknown mode "sse": want http or stdio`, ExitUsage},
		{"claude desktop http", []string{"snippet", "--client", "claude-desktop"}, "Claude Desktop connects to local servers over stdio; use --mode stdio", ExitUsage},
		{"wrong token", []string{"snippet", "--client", "cursor", "--token", "mcpr_wrong"}, "--token: unknown token", ExitError},
		{"revoked token", []string{"snippet", "--client", "cursor", "--token", secret}, `--token: token "old" was revoked`, ExitError},
		{"empty token", []string{"snippet", "--client", "cursor", "--token", ""}, "--token needs a token", ExitUsage},
		{"token and new-token", []string{"snippet", "--client", "cursor", "--token", secret, "--new-token"}, "not both", ExitUsage},
		{"bad url", []string{"snippet", "--client", "cursor", "--url", "ftp://x/mcp"}, `--url "ftp://x/mcp": want an http:// or https:// URL`, ExitUsage},
		{"url without host", []string{"snippet", "--client", "cursor", "--url", "http:///mcp"}, "want an http:// or https:// URL", ExitUsage},
		{"positional arg", []string{"snippet", "cursor"}, "", ExitUsage},
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
	// An admin token never goes into a client's config. (Checking it
	// records its use, so only the names are compared.)
	assertOneLineError(t, run(t, dir, "", "snippet", "--client", "claude-code", "--token", admin), ExitError,
		`--token: "me" is an admin token; an AI client's config needs a client token (leave --token out to make one)`)
	var names []string
	for _, row := range tokensJSON(t, dir) {
		names = append(names, row.Name+":"+row.Role)
	}
	if !reflect.DeepEqual(names, []string{"me:admin", "old:client"}) {
		t.Errorf("tokens after the refused admin token: %v", names)
	}
}

// snippet --profile P points at P's endpoint under its own entry name, and
// the token it creates is bound to P (so the client reaches P only, even at
// plain /mcp); an unknown or malformed profile is refused and creates nothing.
func TestSnippetProfile(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "fs", "--", "echo", "fs")
	mustRun(t, dir, "profiles", "add", "work", "--servers", "fs")
	r := run(t, dir, "", "snippet", "--client", "claude-code", "--profile", "work")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	var doc map[string]map[string]snippetEntry
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("stdout: %v\n%s", err, r.stdout)
	}
	e, ok := doc["mcpServers"]["mcp-router-work"]
	if !ok || e.URL != "http://127.0.0.1:3282/mcp/work" {
		t.Fatalf("snippet:\n%s", r.stdout)
	}
	if id, err := verifyIn(t, dir, bearer(e)); err != nil || id.Profile != "work" || id.IsAdmin() {
		t.Fatalf("the snippet's token: %+v %v", id, err)
	}
	if !strings.Contains(r.stderr, `Bound token "claude-code" to profile "work"`) {
		t.Errorf("stderr %q", r.stderr)
	}

	for _, c := range []struct{ profile, want string }{
		{"nope", `no profile "nope"`},
		{"../x", "--profile"},
	} {
		r := run(t, dir, "", "snippet", "--client", "cursor", "--profile", c.profile)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("--profile %q: %d %q %q", c.profile, r.code, r.stdout, r.stderr)
		}
	}
	if n := len(tokensJSON(t, dir)); n != 1 {
		t.Errorf("refused snippets left %d tokens, want 1", n)
	}
}

// snippet --link prints the client's install link holding a new client
// token, and refuses a client without links before creating anything.
func TestSnippetLink(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "", "snippet", "--client", "lmstudio", "--link")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	link := strings.TrimSpace(r.stdout)
	const prefix = "lmstudio://add_mcp?"
	if !strings.HasPrefix(link, prefix) {
		t.Fatalf("stdout %q", r.stdout)
	}
	q, err := url.ParseQuery(strings.TrimPrefix(link, prefix))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(q.Get("config"))
	if err != nil {
		t.Fatal(err)
	}
	var e snippetEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	if q.Get("name") != "mcp-router" || e.URL != "http://127.0.0.1:3282/mcp" {
		t.Errorf("link %s holds %+v", link, e)
	}
	if id, err := verifyIn(t, dir, bearer(e)); err != nil || id.TokenName != "lmstudio" || id.IsAdmin() {
		t.Errorf("link token: %+v %v", id, err)
	}

	r = run(t, dir, "", "snippet", "--client", "zed", "--link")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "zed has no install link; links exist for cursor, vscode, lmstudio") {
		t.Errorf("zed --link: %d %s", r.code, r.stderr)
	}
	r = run(t, dir, "", "tokens", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "lmstudio") || strings.Contains(r.stdout, "zed") {
		t.Errorf("a token was created for a refused link:\n%s", r.stdout)
	}
}
