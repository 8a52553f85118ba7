package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcp-router/mcp-router/internal/testpeers"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
)

// callStdio runs `mcp-router stdio` on dir, calls each tool once (after
// the servers are up) and returns the text of each answer.
func callStdio(t *testing.T, dir string, stderr io.Writer, tools ...string) []string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--data-dir", dir, "stdio"}, Options{Stdin: inR, Stdout: outW, Stderr: stderr})
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
	answers := make(chan map[string]json.RawMessage, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["id"] != nil {
				answers <- m
			}
		}
		close(answers)
	}()
	ask := func(id int, method, params string) map[string]json.RawMessage {
		t.Helper()
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		deadline := time.After(30 * time.Second)
		for {
			select {
			case m, ok := <-answers:
				if !ok {
					t.Fatal("stdio ended")
				}
				if string(m["id"]) == fmt.Sprint(id) {
					return m
				}
			case <-deadline:
				t.Fatalf("no answer to %s", method)
			}
		}
	}
	ask(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var out []string
	for i, tool := range tools {
		var text string
		for try := 0; ; try++ { // the servers may still be starting
			m := ask(10+i*100+try, "tools/call", fmt.Sprintf(`{"name":%q,"arguments":{}}`, tool))
			var res struct {
				Content []struct{ Text string } `json:"content"`
			}
			if json.Unmarshal(m["result"], &res) == nil && len(res.Content) > 0 {
				text = res.Content[0].Text
				break
			}
			if try > 50 {
				t.Fatalf("%s: %s", tool, m["error"])
			}
			time.Sleep(200 * time.Millisecond)
		}
		out = append(out, text)
	}
	return out
}

// A server added with --secret-env API_KEY=…: the value reaches the real
// subprocess and a --secret-header value the HTTP upstream, and neither is
// in the database file (its WAL included, after a checkpoint), the request
// log, `servers show/list --json`, an export or the router's log. The
// export's placeholders make `servers import` ask for the values: named in
// an error without a terminal, asked for on one, or given by flags.
func TestSecretValuesStayInTheKeychain(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	dir := t.TempDir()
	const envValue, headerValue = "s3cret-env-7731", "s3cret-header-2290"
	values := []string{envValue, headerValue}
	httpUp := httptest.NewServer(testmcp.HTTPHandler())
	t.Cleanup(httpUp.Close)
	var logs bytes.Buffer

	r := run(t, dir, "", "servers", "add", "local", "--env", testmcp.EnvServe+"=1", "--secret-env", testmcp.EnvKnob+"="+envValue, "--", os.Args[0])
	logs.WriteString(r.stdout + r.stderr)
	if r.code != 0 || !strings.Contains(r.stdout, "1 secret value(s) kept in the secrets file") {
		t.Fatalf("add local: %+v", r)
	}
	r = run(t, dir, "", "servers", "add", "remote", "--url", httpUp.URL+"/mcp", "--transport", "http",
		"--secret-header", testmcp.HeaderKnob+"="+headerValue, "--header", "X-Api-Key=plain-but-looks-secret")
	logs.WriteString(r.stdout + r.stderr)
	if r.code != 0 || !strings.Contains(r.stderr, "header X-Api-Key looks like a secret") || !strings.Contains(r.stderr, "--secret-header X-Api-Key") {
		t.Fatalf("add remote: %+v", r)
	}

	stderr := &testpeers.SyncBuffer{}
	got := callStdio(t, dir, stderr, "local__digest", "remote__digest")
	logs.WriteString(stderr.String())
	if want := "env:" + testmcp.Digest(envValue); !strings.HasPrefix(got[0], want) {
		t.Errorf("the subprocess got another KNOB: %q, want %q", got[0], want)
	}
	if want := "header:" + testmcp.Digest(headerValue); !strings.HasSuffix(got[1], want) {
		t.Errorf("the HTTP upstream got another X-Knob: %q, want %q", got[1], want)
	}
	if out := mustRun(t, dir, "logs", "--json"); !strings.Contains(out, "local__digest") || !strings.Contains(out, "remote__digest") {
		t.Fatalf("the calls are not in the request log: %s", out)
	}

	show := mustRun(t, dir, "servers", "show", "local", "--json") + mustRun(t, dir, "servers", "list", "--json") +
		mustRun(t, dir, "servers", "show", "local") + mustRun(t, dir, "servers", "show", "remote")
	for _, want := range []string{`"KNOB": "${secret:KNOB}"`, `"secretEnv": [`, `"X-Knob": "${secret:X-Knob}"`, "Secret env:", "KNOB (value in the keychain or the secrets file, not shown)"} {
		if !strings.Contains(show, want) {
			t.Errorf("servers show/list lacks %s:\n%s", want, show)
		}
	}
	export := filepath.Join(t.TempDir(), "servers.json")
	mustRun(t, dir, "servers", "export", "-o", export)
	exported, err := os.ReadFile(export)
	if err != nil || !strings.Contains(string(exported), `"KNOB": "${secret:KNOB}"`) || !strings.Contains(string(exported), `"X-Knob": "${secret:X-Knob}"`) {
		t.Fatalf("export: %s %v", exported, err)
	}

	// The database, after a checkpoint, and its WAL.
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DB().Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error; err != nil {
		t.Fatal(err)
	}
	st.Close()
	var files []byte
	for _, f := range []string{"", "-wal", "-shm"} {
		b, _ := os.ReadFile(config.DBPath(dir) + f)
		files = append(files, b...)
	}
	for _, v := range values {
		for what, text := range map[string]string{"the database": string(files), "servers show/list": show, "the export": string(exported), "the log": logs.String()} {
			if strings.Contains(text, v) {
				t.Errorf("%s holds %s", what, v)
			}
		}
	}
	kept, _ := os.ReadFile(filepath.Join(dir, secrets.ServerFileName))
	if !strings.Contains(string(kept), envValue) || !strings.Contains(string(kept), headerValue) {
		t.Fatalf("the secrets file does not hold the values: %s", kept)
	}

	// Import of the export: no terminal, no flags: refused, naming each.
	other := t.TempDir()
	r = run(t, other, "", "servers", "import", export)
	if r.code == 0 || !strings.Contains(r.stderr, "--secret-env local:KNOB=…") || !strings.Contains(r.stderr, "--secret-header remote:X-Knob=…") ||
		!strings.Contains(r.stderr, "nothing was imported") {
		t.Fatalf("import without values: %+v", r)
	}
	if rows := list(t, other); len(rows) != 0 {
		t.Fatalf("a refused import stored %v", rows)
	}
	// On a terminal: asked for, one by one.
	var asked []string
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--data-dir", other, "servers", "import", export}, Options{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		ReadSecret: func(prompt string) (string, error) {
			asked = append(asked, prompt)
			return "typed-" + fmt.Sprint(len(asked)), nil
		}})
	if code != 0 || len(asked) != 2 || !strings.Contains(asked[0], "secret env KNOB of server local") || !strings.Contains(out.String(), "imported 2 server(s)") {
		t.Fatalf("import on a terminal: %d %v %s %s", code, asked, out.String(), errb.String())
	}
	kept, _ = os.ReadFile(filepath.Join(other, secrets.ServerFileName))
	if !strings.Contains(string(kept), "typed-1") || !strings.Contains(string(kept), "typed-2") {
		t.Fatalf("the typed values are not kept: %s", kept)
	}
	// By flags.
	third := t.TempDir()
	mustRun(t, third, "servers", "import", export, "--secret-env", "local:KNOB=flag-env", "--secret-header", "remote:X-Knob=flag-header")
	kept, _ = os.ReadFile(filepath.Join(third, secrets.ServerFileName))
	if !strings.Contains(string(kept), "flag-env") || !strings.Contains(string(kept), "flag-header") {
		t.Fatalf("the flags' values are not kept: %s", kept)
	}

	// Removing the server removes its value.
	if out := mustRun(t, dir, "servers", "remove", "local"); !strings.Contains(out, "removed its secret values") {
		t.Errorf("remove: %s", out)
	}
	kept, _ = os.ReadFile(filepath.Join(dir, secrets.ServerFileName))
	if strings.Contains(string(kept), envValue) || !strings.Contains(string(kept), headerValue) {
		t.Errorf("after remove: %s", kept)
	}
}

// servers update turns values secret and back, changes them, and refuses
// what would put a secret's value in the database by accident.
func TestServersUpdateSecrets(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "s", "--env", "API_KEY=plain-1", "--env", "DEBUG=1", "--", "srv")
	secretsFile := filepath.Join(dir, secrets.ServerFileName)
	envOf := func() map[string]string {
		t.Helper()
		return list(t, dir)[0].Env
	}
	kept := func() string {
		b, _ := os.ReadFile(secretsFile)
		return string(b)
	}

	// A plain value made secret keeps its value, now in the secrets file.
	mustRun(t, dir, "servers", "update", "s", "--secret-env", "API_KEY")
	if envOf()["API_KEY"] != "${secret:API_KEY}" || !strings.Contains(kept(), "plain-1") {
		t.Fatalf("made secret: %v / %s", envOf(), kept())
	}
	// --env on a secret entry is refused; --secret-env changes it.
	r := run(t, dir, "", "servers", "update", "s", "--env", "API_KEY=oops")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "env API_KEY of s is secret: set its value with --secret-env API_KEY=…") {
		t.Fatalf("--env on a secret: %+v", r)
	}
	mustRun(t, dir, "servers", "update", "s", "--secret-env", "API_KEY=rotated-2")
	if !strings.Contains(kept(), "rotated-2") || strings.Contains(kept(), "plain-1") {
		t.Fatalf("rotated: %s", kept())
	}
	for _, bad := range [][]string{
		{"--secret-env", "API_KEY"}, // secret already
		{"--secret-env", "NOPE"},    // nothing to make secret
		{"--plain-env", "DEBUG"},    // not secret
		{"--secret-env", "DEBUG=x", "--env", "DEBUG=y"},
		{"--secret-header", "X-Key=v"}, // a stdio server
		{"--secret-env", "API_KEY="},   // empty
	} {
		if r := run(t, dir, "", append([]string{"servers", "update", "s"}, bad...)...); r.code == 0 {
			t.Errorf("%v accepted", bad)
		}
	}
	if envOf()["DEBUG"] != "1" || !strings.Contains(kept(), "rotated-2") {
		t.Fatalf("a refused update changed something: %v / %s", envOf(), kept())
	}
	// Back to plain: the value comes back into the definition.
	mustRun(t, dir, "servers", "update", "s", "--plain-env", "API_KEY")
	if envOf()["API_KEY"] != "rotated-2" || strings.Contains(kept(), "rotated-2") {
		t.Fatalf("made plain: %v / %s", envOf(), kept())
	}
	// Secret again with a value, then removed with --unset-env: the value
	// goes too.
	mustRun(t, dir, "servers", "update", "s", "--secret-env", "TOKEN=t-3")
	mustRun(t, dir, "servers", "update", "s", "--unset-env", "TOKEN")
	if _, ok := envOf()["TOKEN"]; ok || strings.Contains(kept(), "t-3") {
		t.Fatalf("unset: %v / %s", envOf(), kept())
	}
	// A taken name is refused and its server's value left alone.
	mustRun(t, dir, "servers", "update", "s", "--secret-env", "API_KEY=mine")
	if r := run(t, dir, "", "servers", "add", "s", "--secret-env", "API_KEY=theirs", "--", "srv"); r.code == 0 || !strings.Contains(r.stderr, `server "s": already exists`) {
		t.Fatalf("add over a taken name: %+v", r)
	}
	if !strings.Contains(kept(), "mine") || strings.Contains(kept(), "theirs") {
		t.Fatalf("a refused add touched the value: %s", kept())
	}
	// add: the same key plain and secret is refused, as is an empty value.
	for _, bad := range [][]string{
		{"servers", "add", "x", "--env", "K=1", "--secret-env", "K=2", "--", "srv"},
		{"servers", "add", "x", "--secret-env", "K=", "--", "srv"},
		{"servers", "add", "x", "--secret-env", "K=1", "--url", "http://127.0.0.1:1/mcp"},
	} {
		if r := run(t, dir, "", bad...); r.code == 0 {
			t.Errorf("%v accepted", bad)
		}
	}
}
