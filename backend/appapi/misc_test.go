package appapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func TestQueryLogsPagesAndFilters(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// Recent: the request log prunes rows older than the retention (30 days).
	base := time.Now().UTC().Add(-5 * time.Hour).Truncate(time.Minute)
	var rows []store.RequestLog
	for i := 0; i < 250; i++ {
		status := store.StatusOK
		if i%10 == 0 {
			status = store.StatusError
		}
		rows = append(rows, store.RequestLog{Time: base.Add(time.Duration(i) * time.Minute), Client: []string{"ui", "laptop"}[i%2],
			Server: "s", Method: "tools/call", Target: "echo", Status: status, Request: `{"i":` + itoa(i) + `}`})
		if i == 249 {
			rows[i].Target, rows[i].BackendTool = "say", "echo" // an ability of s's echo
		}
	}
	if err := f.c.Store.Logs().Insert(ctx, rows); err != nil {
		t.Fatal(err)
	}
	// The fixture's own in-process UI session logs its initialize (client
	// "ui", server "", now) whenever the batched log writer gets to it:
	// every query below is kept to the server the rows name.
	// Page through everything: 100 + 100 + 50, newest first, no overlap.
	var seen []uint
	q := LogQuery{Server: "s"}
	for pages := 0; ; pages++ {
		p, err := f.api.QueryLogs(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Rows {
			seen = append(seen, r.ID)
		}
		if p.NextBeforeID == 0 {
			if pages != 2 || len(p.Rows) != 50 {
				t.Errorf("last page %d has %d rows", pages, len(p.Rows))
			}
			break
		}
		q.BeforeID = p.NextBeforeID
	}
	if len(seen) != 250 {
		t.Fatalf("paged through %d rows", len(seen))
	}
	// The backend tool of an ability call, in the row and the detail.
	if p, err := f.api.QueryLogs(LogQuery{Server: "s", Limit: 2}); err != nil || p.Rows[0].Target != "say" || p.Rows[0].BackendTool != "echo" || p.Rows[1].BackendTool != "" {
		t.Errorf("rows %+v, %v", p.Rows, err)
	} else if d, err := f.api.GetLog(p.Rows[0].ID); err != nil || d.BackendTool != "echo" || d.Target != "say" {
		t.Errorf("detail %+v, %v", d, err)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] >= seen[i-1] {
			t.Fatalf("not newest first at %d", i)
		}
	}
	// An exact multiple of the page size has no empty last page.
	p, _ := f.api.QueryLogs(LogQuery{Limit: 125, Client: "ui", Server: "s"})
	if len(p.Rows) != 125 || p.NextBeforeID != 0 {
		t.Errorf("125 ui rows in a 125 page: %d rows, next %d", len(p.Rows), p.NextBeforeID)
	}
	cases := []struct {
		name string
		q    LogQuery
		n    int
	}{
		{"status", LogQuery{Server: "s", Status: "error", Limit: 500}, 25},
		{"client and status", LogQuery{Server: "s", Client: "ui", Status: "error", Limit: 500}, 25},
		{"since", LogQuery{Server: "s", Since: base.Add(200 * time.Minute).Format(time.RFC3339), Limit: 500}, 50},
		{"until", LogQuery{Server: "s", Until: base.Add(10 * time.Minute).Format(time.RFC3339), Limit: 500}, 10},
		{"server none", LogQuery{Server: "other"}, 0},
	}
	for _, tc := range cases {
		p, err := f.api.QueryLogs(tc.q)
		if err != nil || len(p.Rows) != tc.n {
			t.Errorf("%s: %d rows, %v; want %d", tc.name, len(p.Rows), err, tc.n)
		}
	}
	for _, tc := range []struct {
		q    LogQuery
		want string
	}{
		{LogQuery{Status: "fine"}, "want ok, error or blocked"},
		{LogQuery{Limit: 501}, "want 1 to 500"},
		{LogQuery{Limit: -1}, "want 1 to 500"},
		{LogQuery{Since: "yesterday"}, "RFC 3339"},
		{LogQuery{Until: "2026-01-02"}, "RFC 3339"},
	} {
		_, err := f.api.QueryLogs(tc.q)
		wantErr(t, mustJSON(t, tc.q), err, tc.want)
	}
	if _, err := f.api.GetLog(99999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetLog unknown: %v", err)
	}
	if p, _ := f.api.QueryLogs(LogQuery{Server: "other"}); p.Rows == nil {
		t.Error("an empty page's rows are null, not []")
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	f := newFixture(t)
	got, err := f.api.GetSettings()
	want := AppSettings{Port: 3282, AuthEnabled: true, Separator: "__", RetentionDays: 30, TimeoutSeconds: 60,
		StartAtLogin: false, CloseToTray: true, Theme: "system", Language: "system",
		HookTimeoutSeconds: 5, HookMemoryMB: 64, ApprovalTimeoutSeconds: 60,
		SessionsPerCredential: 100, SessionsTotal: 1000, SessionIdleTimeoutSeconds: 600, ToolChanges: "notify"}
	if err != nil || got != want {
		t.Fatalf("defaults = %+v, %v", got, err)
	}
	stored := func() map[string]string {
		m, err := f.c.Store.Settings().All(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	bad := []struct {
		field string
		edit  func(*AppSettings)
	}{
		{"port", func(s *AppSettings) { s.Port = 0 }},
		{"port", func(s *AppSettings) { s.Port = 70000 }},
		{"separator", func(s *AppSettings) { s.Separator = "/" }},
		{"retentionDays", func(s *AppSettings) { s.RetentionDays = 0 }},
		{"timeoutSeconds", func(s *AppSettings) { s.TimeoutSeconds = 3601 }},
		{"theme", func(s *AppSettings) { s.Theme = "blue" }},
		{"theme", func(s *AppSettings) { s.Theme = "" }},
		{"language", func(s *AppSettings) { s.Language = "fr" }},
		{"hookTimeoutSeconds", func(s *AppSettings) { s.HookTimeoutSeconds = 0 }},
		{"hookTimeoutSeconds", func(s *AppSettings) { s.HookTimeoutSeconds = 301 }},
		{"hookMemoryMB", func(s *AppSettings) { s.HookMemoryMB = 8 }},
		{"hookMemoryMB", func(s *AppSettings) { s.HookMemoryMB = 5000 }},
		{"approvalTimeoutSeconds", func(s *AppSettings) { s.ApprovalTimeoutSeconds = 0 }},
		{"approvalTimeoutSeconds", func(s *AppSettings) { s.ApprovalTimeoutSeconds = 3601 }},
		{"sessionsPerCredential", func(s *AppSettings) { s.SessionsPerCredential = 0 }},
		{"sessionsPerCredential", func(s *AppSettings) { s.SessionsPerCredential = 100001 }},
		{"sessionsTotal", func(s *AppSettings) { s.SessionsTotal = 0 }},
		{"sessionsTotal", func(s *AppSettings) { s.SessionsTotal = 100001 }},
		{"sessionIdleTimeoutSeconds", func(s *AppSettings) { s.SessionIdleTimeoutSeconds = 59 }},
		{"sessionIdleTimeoutSeconds", func(s *AppSettings) { s.SessionIdleTimeoutSeconds = 86401 }},
		{"toolChanges", func(s *AppSettings) { s.ToolChanges = "ignore" }},
	}
	for _, tc := range bad {
		s := want
		s.Theme, s.StartAtLogin = "dark", true // good changes next to the bad one
		tc.edit(&s)
		before := stored()
		_, err := f.api.SaveSettings(s)
		wantErr(t, tc.field, err, tc.field+":")
		if after := stored(); !reflect.DeepEqual(before, after) {
			t.Errorf("a refused SaveSettings (%s) wrote %v", tc.field, after)
		}
	}
	if len(f.autostart) != 0 || len(f.rec.of(EventSettingsChanged)) != 0 {
		t.Errorf("refused saves touched autostart %v or sent events", f.autostart)
	}

	s := want
	s.Theme, s.Language, s.StartAtLogin, s.CloseToTray, s.Port, s.Separator = "dark", "ja", true, false, 8080, "-"
	s.HookTimeoutSeconds, s.HookMemoryMB, s.ApprovalTimeoutSeconds = 2, 128, 120
	s.SessionsPerCredential, s.SessionsTotal, s.SessionIdleTimeoutSeconds = 3, 50, 90
	s.ToolChanges = "hold"
	saved, err := f.api.SaveSettings(s)
	if err != nil || saved != s {
		t.Fatalf("SaveSettings = %+v, %v", saved, err)
	}
	if again, _ := f.api.GetSettings(); again != s {
		t.Errorf("GetSettings after save = %+v", again)
	}
	if got := f.c.Settings.ToolChanges(context.Background()); got != "hold" {
		t.Errorf("toolChanges after save = %q (what the catalog reads)", got)
	}
	if got := f.c.Settings.ApprovalTimeout(context.Background()); got != 120*time.Second {
		t.Errorf("approval timeout after save = %v, want 2m0s (what the approval broker reads)", got)
	}
	// What the endpoint's session registry reads (core passes them on).
	if n, total, idle := f.c.Settings.SessionsPerCredential(context.Background()), f.c.Settings.SessionsTotal(context.Background()),
		f.c.Settings.SessionIdleTimeout(context.Background()); n != 3 || total != 50 || idle != 90*time.Second {
		t.Errorf("session settings after save = %d, %d, %v", n, total, idle)
	}
	if ev := f.rec.of(EventSettingsChanged); len(ev) != 1 || ev[0].(AppSettings) != s {
		t.Errorf("settings:changed = %v", ev)
	}
	if !reflect.DeepEqual(f.autostart, []bool{true}) {
		t.Errorf("autostart calls = %v", f.autostart)
	}
	// Saving the same startAtLogin again does not touch the login item.
	if _, err := f.api.SaveSettings(s); err != nil || len(f.autostart) != 1 {
		t.Errorf("second save: %v, autostart calls %v", err, f.autostart)
	}
	// The login item cannot be written: nothing is saved.
	f.autostartErr = errors.New("read-only home")
	s2 := s
	s2.StartAtLogin, s2.Theme = false, "light"
	_, err = f.api.SaveSettings(s2)
	wantErr(t, "autostart failure", err, "startAtLogin: read-only home")
	if cur, _ := f.api.GetSettings(); cur != s {
		t.Errorf("after a failed autostart: %+v", cur)
	}
	f.autostartErr = nil
	// A caller that predates toolChanges (sends none) leaves it as stored.
	older := s
	older.ToolChanges = ""
	if saved, err := f.api.SaveSettings(older); err != nil || saved.ToolChanges != "hold" {
		t.Errorf("SaveSettings without toolChanges = %+v, %v", saved, err)
	}
}

func TestTokensSnippetsAndEndpoint(t *testing.T) {
	f := newFixture(t, everything(t, "everything"))
	ct, err := f.api.CreateToken("laptop", nil)
	if err != nil || !strings.HasPrefix(ct.Token, "mcpr_") || ct.View.Name != "laptop" || ct.View.Servers == nil || ct.View.Role != "client" {
		t.Fatalf("CreateToken = %+v, %v", ct, err)
	}
	if _, err := f.api.CreateToken("scoped", []string{"everything"}); err != nil {
		t.Fatal(err)
	}
	// The page makes client tokens only; an admin token comes from the CLI.
	adminSecret, _, err := f.c.Auth.CreateAdmin(context.Background(), "me")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		servers []string
		want    string
	}{
		{"laptop", nil, "already exists"},
		{"bad name!", nil, "name"},
		{"x", []string{"nope"}, "not found"},
	} {
		_, err := f.api.CreateToken(tc.name, tc.servers)
		wantErr(t, "CreateToken "+tc.name, err, tc.want)
	}
	list, err := f.api.ListTokens()
	if err != nil || len(list) != 3 || list[0].Name != "laptop" || list[2].Servers[0] != "everything" {
		t.Fatalf("ListTokens = %+v, %v", list, err)
	}
	if roles := []string{list[0].Role, list[1].Role, list[2].Role}; !slices.Equal(roles, []string{"client", "admin", "client"}) {
		t.Errorf("roles of laptop, me, scoped = %v", roles)
	}
	if b, _ := json.Marshal(list[1]); !strings.Contains(string(b), `"role":"admin"`) {
		t.Errorf("TokenView JSON = %s", b)
	}
	if err := f.api.RevokeToken("laptop"); err != nil {
		t.Fatal(err)
	}
	if list, _ := f.api.ListTokens(); list[0].RevokedAt == nil {
		t.Error("revoked token has no revokedAt")
	}
	wantErr(t, "revoke unknown", f.api.RevokeToken("nope"), "not found")

	// Scope edits, then deletion (the revoked laptop's name is free again).
	v, err := f.api.UpdateTokenServers("scoped", nil)
	if err != nil || v.Name != "scoped" || v.Servers == nil || len(v.Servers) != 0 {
		t.Errorf("UpdateTokenServers(all) = %+v, %v", v, err)
	}
	if v, err := f.api.UpdateTokenServers("scoped", []string{"everything"}); err != nil || len(v.Servers) != 1 {
		t.Errorf("UpdateTokenServers(everything) = %+v, %v", v, err)
	}
	_, err = f.api.UpdateTokenServers("scoped", []string{"nope"})
	wantErr(t, "scope with an unknown server", err, "not found")
	_, err = f.api.UpdateTokenServers("laptop", nil)
	wantErr(t, "scope of a revoked token", err, "already revoked")
	_, err = f.api.UpdateTokenServers("nope", nil)
	wantErr(t, "scope of an unknown token", err, "not found")
	if err := f.api.DeleteToken("laptop"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "delete unknown", f.api.DeleteToken("laptop"), "not found")
	if _, err := f.api.CreateToken("laptop", nil); err != nil {
		t.Errorf("the deleted token's name: %v", err)
	}
	byName := map[string]TokenView{}
	list, _ = f.api.ListTokens()
	for _, v := range list {
		byName[v.Name] = v
	}
	if len(list) != 3 || list[0].Name != "laptop" || list[0].RevokedAt != nil || len(byName["scoped"].Servers) != 1 ||
		byName["scoped"].Servers[0] != "everything" || byName["me"].Role != "admin" {
		t.Errorf("ListTokens after delete and create = %+v", list)
	}
	// An admin token reaches every server: it cannot be narrowed.
	_, err = f.api.UpdateTokenServers("me", []string{"everything"})
	wantErr(t, "scope of an admin token", err, "admin token")

	sn, err := f.api.Snippet("cursor", "http", "", nil)
	if err != nil || !strings.Contains(sn, TokenPlaceholder) || !strings.Contains(sn, "http://127.0.0.1:3282/mcp") {
		t.Errorf("placeholder snippet = %q, %v", sn, err)
	}
	sn, err = f.api.Snippet("claude-desktop", "stdio", ct.Token, nil)
	if err != nil || !strings.Contains(sn, "/opt/mcp-router/mcp-router") || !strings.Contains(sn, ct.Token) {
		t.Errorf("stdio snippet = %q, %v", sn, err)
	}
	// An admin token never goes into a client's config.
	_, err = f.api.Snippet("claude-code", "http", adminSecret, nil)
	wantErr(t, "Snippet with an admin token", err, `token "me" is an admin token; a client's snippet needs a client token`)
	for _, tc := range []struct{ client, mode, want string }{
		{"emacs", "http", "unknown client"},
		{"cursor", "carrier-pigeon", "unknown mode"},
		{"claude-desktop", "http", "stdio"},
	} {
		_, err := f.api.Snippet(tc.client, tc.mode, "", nil)
		wantErr(t, "Snippet "+tc.client+" "+tc.mode, err, tc.want)
	}

	st, _ := f.api.EndpointStatus()
	if st.Running || !st.AuthEnabled || st.URL != "http://127.0.0.1:3282/mcp" {
		t.Errorf("EndpointStatus before Serve = %+v", st)
	}
}

func TestClientConfigsFoundAndImported(t *testing.T) {
	home, cfg := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", cfg)
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	write(cursor, `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs"]}, "web": {"url": "http://127.0.0.1:1/mcp"}}}`)
	vscode := filepath.Join(cfg, "Code", "User", "mcp.json")
	write(vscode, `{"servers": {"bad": {"type": "stdio"}}}`)
	f := newFixture(t, everything(t, "fs"))

	found, err := f.api.ListClientConfigs()
	if err != nil {
		t.Fatal(err)
	}
	byClient := map[string]ClientConfigFile{}
	for _, c := range found {
		byClient[c.Client] = c
	}
	if len(found) != 2 || byClient["cursor"].Path != cursor || byClient["cursor"].Servers != 2 || byClient["cursor"].Error != "" {
		t.Errorf("ListClientConfigs = %+v", found)
	}
	if v := byClient["vscode"]; v.Path != vscode || v.Error == "" {
		t.Errorf("broken vscode config = %+v", v)
	}

	rep, err := f.api.ImportClientConfig(cursor)
	if err != nil || !reflect.DeepEqual(rep.Added, []string{"web"}) || len(rep.Skipped) != 1 || rep.Skipped[0].Name != "fs" {
		t.Errorf("ImportClientConfig = %+v, %v", rep, err)
	}
	if _, err := f.api.GetServer("web"); err != nil {
		t.Errorf("imported server not stored: %v", err)
	}
	_, err = f.api.ImportClientConfig(vscode)
	wantErr(t, "broken file", err, vscode)
	_, err = f.api.ImportClientConfig(filepath.Join(home, "missing.json"))
	wantErr(t, "missing file", err, "no such file")
	_, err = f.api.ImportClientConfig("")
	wantErr(t, "empty path", err, "path is empty")

	rep, err = f.api.AddServersFromJSON(`{
  // pasted from a README
  "mcpServers": {"pasted": {"command": "uvx", "args": ["thing"],},},
}`)
	if err != nil || !reflect.DeepEqual(rep.Added, []string{"pasted"}) || rep.Skipped == nil {
		t.Errorf("AddServersFromJSON = %+v, %v", rep, err)
	}
	for _, tc := range []struct{ text, want string }{
		{"", "paste a JSON config"},
		{"{nope", "line 1, column 2"},
		{`{"mcpServers": {"x": {}}}`, "x"},
	} {
		_, err := f.api.AddServersFromJSON(tc.text)
		wantErr(t, "AddServersFromJSON "+tc.text, err, tc.want)
	}
	servers, _ := f.api.ListServers()
	if len(servers) != 3 {
		t.Errorf("servers after imports = %+v", servers)
	}
}

// TestChangesByAnotherProcessReachThePages: the CLI writes the database
// while the app runs; the pages hear of a changed setting once (and of no
// setting when an unrelated change lands), and of a server it added.
func TestChangesByAnotherProcessReachThePages(t *testing.T) {
	dir := t.TempDir()
	c, err := core.Open(dir, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	api := New(c, Options{BatchInterval: 20 * time.Millisecond})
	defer Close(api)
	rec := &recorder{}
	defer Attach(api, rec)()
	if err := c.Run(context.Background(), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	other, err := store.Open(config.DBPath(dir)) // as the CLI does
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := settings.New(other).Set(context.Background(), settings.KeyTheme, "dark"); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 5*time.Second, "settings:changed", func() bool { return len(rec.of(EventSettingsChanged)) > 0 })
	if got := rec.of(EventSettingsChanged); len(got) != 1 || got[0].(AppSettings).Theme != "dark" {
		t.Fatalf("settings:changed = %v", got)
	}
	// An unrelated write (a token) changes the database but no setting.
	if _, _, err := auth.New(other).Create(context.Background(), "cli", nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // several polls
	if got := rec.of(EventSettingsChanged); len(got) != 1 {
		t.Errorf("an unrelated change sent settings:changed: %v", got)
	}
	// A disabled server added by the CLI: the supervisor has nothing to
	// report, the pages still hear of it.
	if _, err := other.Servers().Create(context.Background(), spec.Server{Name: "later", URL: "http://127.0.0.1:1/mcp"}); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 5*time.Second, "servers:changed for the new server", func() bool {
		return slices.Contains(rec.states("later"), "stopped")
	})
}

func TestLogFileAndOpenLogFolder(t *testing.T) {
	c, err := core.Open(t.TempDir(), core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var opened []string
	open := func(p string) error { opened = append(opened, p); return nil }
	none := New(c, Options{OpenPath: open})
	defer Close(none)
	if info, err := none.LogFile(); err != nil || info != (LogFileInfo{}) {
		t.Errorf("LogFile without one = %+v, %v", info, err)
	}
	wantErr(t, "OpenLogFolder without a log", none.OpenLogFolder(), "writes no log file")

	api := New(c, Options{OpenPath: open, LogFile: "/data/logs/mcp-router.log"})
	defer Close(api)
	if info, err := api.LogFile(); err != nil || info.Path != "/data/logs/mcp-router.log" || info.Folder != "/data/logs" {
		t.Errorf("LogFile = %+v, %v", info, err)
	}
	if err := api.OpenLogFolder(); err != nil || len(opened) != 1 || opened[0] != "/data/logs" {
		t.Errorf("OpenLogFolder: %v, opened %v", err, opened)
	}
}

// A token's own roles through the UI API: listed (an empty list for none),
// replaced whole, cleared, and refused when reserved, malformed, or on a
// revoked token.
func TestUpdateTokenRoles(t *testing.T) {
	f := newFixture(t)
	if _, err := f.api.CreateToken("bot", nil); err != nil {
		t.Fatal(err)
	}
	list, err := f.api.ListTokens()
	if err != nil || len(list) != 1 || list[0].Roles == nil || len(list[0].Roles) != 0 {
		t.Fatalf("ListTokens = %+v, %v", list, err)
	}
	if b, _ := json.Marshal(list[0]); !strings.Contains(string(b), `"roles":[]`) {
		t.Errorf("TokenView JSON without roles = %s", b)
	}
	v, err := f.api.UpdateTokenRoles("bot", []string{"reviewer", " maintainer ", "reviewer"})
	if err != nil || !slices.Equal(v.Roles, []string{"reviewer", "maintainer"}) || v.Role != "client" {
		t.Fatalf("UpdateTokenRoles = %+v, %v", v, err)
	}
	if list, _ := f.api.ListTokens(); !slices.Equal(list[0].Roles, []string{"reviewer", "maintainer"}) {
		t.Errorf("listed roles = %v", list[0].Roles)
	}
	for _, tc := range []struct {
		roles []string
		want  string
	}{
		{[]string{"admin"}, `role "admin" is reserved`},
		{[]string{"Client"}, `role "Client" is reserved`},
		{[]string{"token:bot"}, `bad role "token:bot"`},
	} {
		_, err := f.api.UpdateTokenRoles("bot", tc.roles)
		wantErr(t, fmt.Sprint("roles ", tc.roles), err, tc.want)
	}
	if list, _ := f.api.ListTokens(); !slices.Equal(list[0].Roles, []string{"reviewer", "maintainer"}) {
		t.Errorf("a refused update changed the roles to %v", list[0].Roles)
	}
	if v, err := f.api.UpdateTokenRoles("bot", nil); err != nil || v.Roles == nil || len(v.Roles) != 0 {
		t.Errorf("cleared: %+v, %v", v, err)
	}
	_, err = f.api.UpdateTokenRoles("nope", []string{"x"})
	wantErr(t, "roles of an unknown token", err, "not found")
	if err := f.api.RevokeToken("bot"); err != nil {
		t.Fatal(err)
	}
	_, err = f.api.UpdateTokenRoles("bot", []string{"x"})
	wantErr(t, "roles of a revoked token", err, "already revoked")
}
