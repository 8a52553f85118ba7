package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func profilesJSON(t *testing.T, dir string) []profileJSON {
	t.Helper()
	var out []profileJSON
	if err := json.Unmarshal([]byte(mustRun(t, dir, "profiles", "list", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// profiles add, update, show, remove, export and import, and what each
// refuses; tokens bound to a profile. Before profiles the command did not
// exist.
func TestProfilesCommand(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "fs", "--", "echo", "fs")
	mustRun(t, dir, "servers", "add", "git", "--", "echo", "git")

	if out := mustRun(t, dir, "profiles", "list"); !strings.Contains(out, "no profiles") {
		t.Errorf("empty list: %q", out)
	}
	out := mustRun(t, dir, "profiles", "add", "work", "--servers", "fs,git", "--tools", "git/commit,git/log", "--mode", "search", "--description", "day job")
	if !strings.Contains(out, "/mcp/work") {
		t.Errorf("add said %q", out)
	}
	want := profileJSON{Name: "work", Description: "day job", Mode: "search", Servers: []string{"fs", "git"},
		Tools: map[string][]string{"git": {"commit", "log"}}}
	if got := profilesJSON(t, dir); len(got) != 1 || !equalProfile(got[0], want) {
		t.Errorf("list --json: %+v", got)
	}
	if out := mustRun(t, dir, "profiles", "show", "work"); !strings.Contains(out, "git: commit, log") || !strings.Contains(out, "fs: all tools") {
		t.Errorf("show: %q", out)
	}
	// Dropping git drops its selections.
	mustRun(t, dir, "profiles", "update", "work", "--servers", "fs", "--mode", "all")
	if got := profilesJSON(t, dir); got[0].Mode != "all" || !slices.Equal(got[0].Servers, []string{"fs"}) || len(got[0].Tools) != 0 {
		t.Errorf("after update: %+v", got[0])
	}

	for _, bad := range [][]string{
		{"profiles", "add", "default", "--servers", "fs"}, // reserved: plain /mcp
		{"profiles", "add", "a/b", "--servers", "fs"},     // not a path segment
		{"profiles", "add", "x", "--servers", "nope"},     // no such server
		{"profiles", "add", "x", "--servers", "fs", "--mode", "every"},
		{"profiles", "add", "x", "--servers", "fs", "--tools", "git/commit"}, // git not in --servers
		{"profiles", "add", "x"},                                             // no servers
		{"profiles", "add", "work", "--servers", "fs"},                       // taken
		{"profiles", "update", "nope", "--mode", "all"},
		{"profiles", "update", "work"},
		{"profiles", "remove", "nope"},
		{"tokens", "create", "t1", "--profile", "nope"},
		{"tokens", "create", "t1", "--profile", "work", "--admin"},
	} {
		if r := run(t, dir, "", bad...); r.code == 0 || strings.TrimSpace(r.stderr) == "" {
			t.Errorf("%v: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
	if got := profilesJSON(t, dir); len(got) != 1 {
		t.Errorf("a refused command stored something: %+v", got)
	}

	t.Run("tokens bound to a profile", func(t *testing.T) {
		secret := strings.TrimSpace(mustRun(t, dir, "tokens", "create", "laptop", "--profile", "work"))
		id, err := verifyIn(t, dir, secret)
		if err != nil || id.Profile != "work" {
			t.Fatalf("verify: %+v %v", id, err)
		}
		mustRun(t, dir, "tokens", "update", "laptop", "--no-profile")
		if id, _ := verifyIn(t, dir, secret); id.Profile != "" {
			t.Errorf("after --no-profile: %q", id.Profile)
		}
		mustRun(t, dir, "tokens", "update", "laptop", "--profile", "work")
		for _, tok := range tokensJSONWithProfile(t, dir) {
			if tok.Name == "laptop" && tok.Profile != "work" {
				t.Errorf("tokens list --json: %+v", tok)
			}
		}
		mustRun(t, dir, "tokens", "create", "boss", "--admin")
		if r := run(t, dir, "", "tokens", "update", "boss", "--profile", "work"); r.code == 0 {
			t.Errorf("an admin token was bound to a profile")
		}
	})

	t.Run("export and import", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "profiles.json")
		mustRun(t, dir, "profiles", "export", file)
		other := t.TempDir()
		mustRun(t, other, "servers", "add", "fs", "--", "echo", "fs")
		mustRun(t, other, "profiles", "import", file)
		if got := profilesJSON(t, other); len(got) != 1 || got[0].Name != "work" || !slices.Equal(got[0].Servers, []string{"fs"}) {
			t.Errorf("imported: %+v", got)
		}
		if r := run(t, other, "", "profiles", "import", file); r.code == 0 {
			t.Errorf("importing over an existing profile without --replace passed")
		}
		mustRun(t, other, "profiles", "import", file, "--replace")
		// A file naming a server the data dir lacks stores nothing.
		bad := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(bad, []byte(`{"profiles":[{"name":"a","mode":"all","servers":["fs"]},{"name":"b","mode":"all","servers":["git"]}]}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := run(t, other, "", "profiles", "import", bad); r.code == 0 {
			t.Errorf("import of an unknown server passed")
		}
		if r := run(t, other, "", "profiles", "import", "-"); r.code == 0 {
			t.Errorf("import of an empty stdin passed")
		}
	})
	mustRun(t, dir, "profiles", "remove", "work")
	if got := profilesJSON(t, dir); len(got) != 0 {
		t.Errorf("after remove: %+v", got)
	}
}

func equalProfile(a, b profileJSON) bool {
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	return string(aj) == string(bj)
}

func tokensJSONWithProfile(t *testing.T, dir string) []struct {
	Name    string `json:"name"`
	Profile string `json:"profile"`
} {
	t.Helper()
	var rows []struct {
		Name    string `json:"name"`
		Profile string `json:"profile"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "tokens", "list", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// `mcp-router stdio --profile P` serves P's tools only, and refuses a
// profile that does not exist.
func TestStdioProfile(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"one", "two"} {
		if _, err := st.Servers().Create(context.Background(), testmcp.Server(n)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Profiles().Create(context.Background(), store.Profile{Name: "p", Mode: "all", Servers: []string{"two"},
		Tools: map[string][]string{"two": {"show"}}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if r := run(t, dir, "", "stdio", "--profile", "nope"); r.code == 0 || !strings.Contains(r.stderr, "no profile") {
		t.Errorf("stdio --profile nope: %d %q", r.code, r.stderr)
	}

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--data-dir", dir, "stdio", "--profile", "p"}, Options{Stdin: inR, Stdout: outW, Stderr: &testpeers.SyncBuffer{}})
		outW.Close()
	}()
	defer func() {
		cancel()
		inW.Close()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("stdio did not end")
		}
	}()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m struct {
			ID     *int `json:"id"`
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil || *m.ID != 2 {
			continue
		}
		var names []string
		for _, tool := range m.Result.Tools {
			names = append(names, tool.Name)
		}
		if !slices.Equal(names, []string{"two__show"}) {
			t.Errorf("tools/list of stdio --profile p: %v", names)
		}
		return
	}
	t.Fatal("no tools/list answer")
}

// `mcp-router connect --profile P` reaches P's endpoint: a token bound to P
// gets through; to another profile it is refused (403), as over HTTP.
func TestConnectProfile(t *testing.T) {
	t.Setenv("MCPR_URL", "")
	t.Setenv("MCPR_TOKEN", "")
	dir := t.TempDir()
	port := testpeers.FreePort(t)
	mustRun(t, dir, "settings", "set", "port", strconv.Itoa(port))
	mustRun(t, dir, "servers", "add", "fs", "--", "echo", "fs")
	mustRun(t, dir, "profiles", "add", "p", "--servers", "fs")
	mustRun(t, dir, "profiles", "add", "q", "--servers", "fs")
	var created struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "tokens", "create", "bound", "--profile", "p", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	serveDir(t, dir, false)
	t.Setenv("MCPR_TOKEN", created.Token)
	r := run(t, dir, connectScript, "connect", "--profile", "p")
	if r.code != ExitOK {
		t.Fatalf("connect --profile p: exit %d: %s", r.code, r.stderr)
	}
	if got := responses(t, r.stdout); got["1"]["result"] == nil {
		t.Errorf("connect --profile p, stdout:\n%s", r.stdout)
	}
	// The bridge answers each request with the router's refusal.
	r = run(t, dir, connectScript, "connect", "--profile", "q")
	if got := responses(t, r.stdout); !strings.Contains(string(got["1"]["error"]), "403") || !strings.Contains(string(got["1"]["error"]), "/mcp/p only") {
		t.Errorf("connect --profile q with a token bound to p: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, dir, "", "connect", "--profile", "../x"); r.code != ExitUsage {
		t.Errorf("connect --profile ../x: exit %d", r.code)
	}
}

// profiles import reads a file from outside: one nested past the depth cap
// and one past the size cap are refused with the cap named, before any
// decoding, and import nothing.
func TestProfilesImportRefusesBombs(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "fs", "--", "echo", "fs")
	files := t.TempDir()
	deep := filepath.Join(files, "deep.json")
	if err := os.WriteFile(deep, []byte(`{"profiles":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(files, "big.json")
	if err := os.WriteFile(big, []byte(`{"profiles":[],"x":"`+strings.Repeat("a", maxProfilesFile)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{deep, "levels deep, the depth cap of a profiles file"},
		{big, "over 8 MiB, the size cap of a profiles file"},
	} {
		r := run(t, dir, "", "profiles", "import", c.file)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") > 3 {
			t.Errorf("import %s: %d %q", filepath.Base(c.file), r.code, r.stderr)
		}
	}
	if got := profilesJSON(t, dir); len(got) != 0 {
		t.Errorf("refused files imported %+v", got)
	}
}
