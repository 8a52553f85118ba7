package electronimport

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testelectron"
)

// routerStore opens this router's store with one server, token and profile
// of its own; its secret values go to a file in the data dir.
func routerStore(t *testing.T) (*store.Store, *secrets.ServerValues) {
	t.Helper()
	t.Setenv(secrets.EnvStore, secrets.InFile)
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "router.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ctx := context.Background()
	if _, err := st.Servers().Create(ctx, spec.Server{Name: "keep", Transport: spec.Stdio, Command: "mine", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	hash := fmt.Sprintf("%x", sha256.Sum256([]byte("t")))
	if _, err := st.Tokens().Create(ctx, store.Token{Name: "laptop", Hash: hash, Prefix: "mcpr_t", Role: store.RoleClient}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Profiles().Create(ctx, store.Profile{Name: "mine", Mode: "all", Servers: []string{"keep"}}); err != nil {
		t.Fatal(err)
	}
	return st, secrets.NewServerValues(dir, nil)
}

// fileState is a file's bytes and modification time.
type fileState struct {
	sum   [32]byte
	mtime time.Time
}

func stateOf(t *testing.T, paths ...string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		st, _ := os.Stat(p)
		out[p] = fileState{sum: sha256.Sum256(data), mtime: st.ModTime()}
	}
	return out
}

// dump is every row of every table of the router's store but the
// configuration revision, as text: what "nothing else changed" compares.
func dump(t *testing.T, st *store.Store) map[string][]string {
	t.Helper()
	var tables []string
	if err := st.DB().Raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").Scan(&tables).Error; err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, tb := range tables {
		if tb == "config_revision" {
			continue
		}
		rows, err := st.DB().Raw(`SELECT * FROM "` + tb + `"`).Rows()
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out[tb] = append(out[tb], fmt.Sprintf("%v", vals))
		}
		rows.Close()
		slices.Sort(out[tb])
	}
	return out
}

func TestImportFromElectronDatabase(t *testing.T) {
	ctx := context.Background()
	dir, _ := testelectron.UserData(t)
	db := filepath.Join(dir, "mcprouter.db")
	before := stateOf(t, db, db+"-wal", db+"-shm")
	if _, ok := before[db+"-wal"]; !ok {
		t.Fatal("fixture: the app's recent writes should sit in mcprouter.db-wal")
	}
	st, sec := routerStore(t)
	was := dump(t, st)

	src, err := ReadDatabase(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MakePlan(ctx, st, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(ctx, st, sec, plan); err != nil {
		t.Fatal(err)
	}

	// The app's files are as they were: bytes and times.
	if after := stateOf(t, db, db+"-wal", db+"-shm"); !mapsEqual(before, after) {
		t.Fatalf("the Electron app's database changed:\nbefore %v\nafter  %v", before, after)
	}

	var added []string
	for _, s := range plan.Servers {
		added = append(added, s.Name+"<-"+s.From)
	}
	wantAdded := []string{"GitHub-MCP<-GitHub MCP", "filesystem<-filesystem", "Remote-SSE<-Remote SSE", "streamable<-streamable", "dev-server<-dev server"}
	if !slices.Equal(added, wantAdded) {
		t.Fatalf("planned servers %v, want %v", added, wantAdded)
	}
	skipped := map[string]string{}
	for _, s := range plan.Skipped {
		skipped[s.Kind+":"+s.Name] = s.Reason
	}
	for key, want := range map[string]string{
		"server:keep":           "a different server named \"keep\" exists here",
		"server:nocmd":          "without a command",
		"server:bundle":         `unsupported server type "dxt"`,
		"project:Empty Project": "none of its servers",
	} {
		if !strings.Contains(skipped[key], want) {
			t.Errorf("skipped[%s] = %q, want it to say %q", key, skipped[key], want)
		}
	}
	if len(plan.Skipped) != 4 {
		t.Errorf("skipped %v, want exactly the 4 above", plan.Skipped)
	}
	if plan.Tokens != 3 || !strings.Contains(plan.TokensNote, "3 access token(s)") || !strings.Contains(plan.TokensNote, "tokens create") {
		t.Errorf("tokens %d, note %q: want 3 not carried, with how to make new ones", plan.Tokens, plan.TokensNote)
	}
	if !containsText(plan.Notes, `workspace "Team B" was not read; import it with --db "`+filepath.Join(dir, "workspaces", "7d1c", "database.db")+`"`) {
		t.Errorf("notes %q: want the other workspace named with its --db path", plan.Notes)
	}
	if !containsText(plan.Notes, "dev-server: the app's dev mode") {
		t.Errorf("notes %q: want dev mode named as not carried", plan.Notes)
	}

	get := func(name string) spec.Server {
		t.Helper()
		r, err := st.Servers().Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return r.Server
	}
	gh := get("GitHub-MCP")
	if gh.Transport != spec.Stdio || gh.Command != "npx" || !slices.Equal(gh.Args, []string{"-y", "@modelcontextprotocol/server-github"}) || !gh.Enabled {
		t.Errorf("GitHub-MCP = %+v", gh)
	}
	if !slices.Equal(gh.DisabledTools, []string{"create_issue", "delete_repo"}) {
		t.Errorf("GitHub-MCP disabled tools %v, want the two toggled off", gh.DisabledTools)
	}
	if !slices.Equal(gh.SecretEnv, []string{"GITHUB_PERSONAL_ACCESS_TOKEN"}) || gh.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] == "ghp_secret1" {
		t.Errorf("GitHub-MCP env %v secret %v: the sensitive value belongs in the secret store, not the database", gh.Env, gh.SecretEnv)
	}
	if resolved, err := sec.Resolve(gh); err != nil || resolved.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "ghp_secret1" {
		t.Errorf("resolved GitHub-MCP env %v (%v), want the app's value from the secret store", resolved.Env, err)
	}
	fs := get("filesystem")
	if fs.Enabled || !slices.Equal(fs.Args, []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/u/work"}) {
		t.Errorf("filesystem = %+v: want disabled, {ROOT_DIR} filled with the parameter's default as the app ran it", fs)
	}
	sse := get("Remote-SSE")
	if sse.Transport != spec.SSE || sse.URL != "https://mcp.example.com/sse" || !slices.Equal(sse.SecretHeaders, []string{"Authorization"}) {
		t.Errorf("Remote-SSE = %+v", sse)
	}
	if resolved, err := sec.Resolve(sse); err != nil || resolved.Headers["Authorization"] != "Bearer tok-123" {
		t.Errorf("Remote-SSE headers %v (%v), want the bearer token as Authorization", resolved.Headers, err)
	}
	if h := get("streamable"); h.Transport != spec.HTTP || h.URL != "https://api.example.com/mcp" {
		t.Errorf("streamable = %+v", h)
	}

	profiles, err := st.Profiles().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.Profile{}
	for _, p := range profiles {
		got[p.Name] = p
	}
	if p := got["Web-Dev"]; p.Mode != "all" || !slices.Equal(p.Servers, []string{"GitHub-MCP", "Remote-SSE"}) {
		t.Errorf("profile Web-Dev = %+v, want the project's two servers, mode all", p)
	}
	if p := got["Notes-Docs"]; !slices.Equal(p.Servers, []string{"filesystem"}) {
		t.Errorf("profile Notes-Docs = %+v", p)
	}
	if len(got) != 3 {
		t.Errorf("profiles %v, want mine + the two projects with servers", profiles)
	}

	// Nothing else changed: every row that was there is there, as it was;
	// only servers and profiles gained rows.
	now := dump(t, st)
	for tb, rows := range was {
		for _, r := range rows {
			if !slices.Contains(now[tb], r) {
				t.Errorf("table %s lost or changed row %s", tb, r)
			}
		}
	}
	for tb, rows := range now {
		grew := len(rows) - len(was[tb])
		switch tb {
		case "servers":
			if grew != 5 {
				t.Errorf("servers grew by %d, want 5", grew)
			}
		case "profiles":
			if grew != 2 {
				t.Errorf("profiles grew by %d, want 2", grew)
			}
		default:
			if grew != 0 {
				t.Errorf("table %s grew by %d rows: the import writes servers and profiles only", tb, grew)
			}
		}
	}

	// A second import adds nothing and says why.
	src, err = ReadDatabase(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	again, err := MakePlan(ctx, st, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Empty() || len(again.Servers) != 0 || len(again.Profiles) != 0 {
		t.Fatalf("second plan adds %v and %v, want nothing", again.Servers, again.Profiles)
	}
	reasons := map[string]int{}
	for _, s := range again.Skipped {
		reasons[s.Reason]++
	}
	if reasons[ReasonAlreadyImported] != 5 || reasons[ReasonProfileExists] != 2 {
		t.Errorf("second plan skipped %v: want 5 servers already imported and 2 profiles existing", again.Skipped)
	}
	if err := Apply(ctx, st, sec, again); err != nil {
		t.Fatal(err)
	}
	if after := dump(t, st); !mapsEqualSlices(now, after) {
		t.Error("a second import changed the store")
	}
}

// A new install (after workspaces) keeps the workspace's data in
// workspaces/local-default/database.db; mcprouter.db lists workspaces only.
func TestImportFollowsTheActiveWorkspace(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), AppName)
	if err := os.MkdirAll(filepath.Join(dir, "workspaces", "local-default"), 0o700); err != nil {
		t.Fatal(err)
	}
	meta := testelectron.New(t, filepath.Join(dir, "mcprouter.db"), testelectron.WorkspacesTable, testelectron.TokensTable)
	meta.AddWorkspace("local-default", "Local", "local", false, "workspaces/local-default/database.db")
	meta.AddWorkspace("r1", "Cloud", "remote", false, "workspaces/r1/database.db")
	meta.AddWorkspace("w2", "Side", "local", true, "workspaces/w2/database.db")
	if err := os.MkdirAll(filepath.Join(dir, "workspaces", "w2"), 0o700); err != nil {
		t.Fatal(err)
	}
	side := testelectron.New(t, filepath.Join(dir, "workspaces", "w2", "database.db"), testelectron.ServersTable, testelectron.ProjectsTable)
	side.AddServer(testelectron.Server{ID: "a", Name: "side-one", Command: "uvx", Args: []string{"mcp-server-time"}})

	src, err := ReadDatabase(ctx, filepath.Join(dir, "mcprouter.db"))
	if err != nil {
		t.Fatal(err)
	}
	if src.Workspace != "Side" || len(src.Servers) != 1 || src.Servers[0].Name != "side-one" {
		t.Fatalf("read workspace %q servers %+v, want the active local workspace Side", src.Workspace, src.Servers)
	}
	st, _ := routerStore(t)
	plan, err := MakePlan(ctx, st, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !containsText(plan.Notes, `workspace "Cloud" is a remote (team) workspace: not imported`) ||
		!containsText(plan.Notes, `workspace "Local" was not read`) {
		t.Errorf("notes %q", plan.Notes)
	}
}

func mapsEqual(a, b map[string]fileState) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.sum != w.sum || !v.mtime.Equal(w.mtime) {
			return false
		}
	}
	return true
}

func mapsEqualSlices(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func containsText(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
