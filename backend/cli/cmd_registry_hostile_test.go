package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A hostile registry (or a hostile name on the command line) gets a clear
// one-line error, and nothing is installed.
func TestRegistryHostileAnswersAndNames(t *testing.T) {
	var answer atomic.Value
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte(answer.Load().(string)))
	}))
	defer srv.Close()
	dir := t.TempDir()
	mustRun(t, dir, "settings", "set", "registryURL", srv.URL)
	mustRun(t, dir, "settings", "set", "registryMaxKB", "16")

	for _, c := range []struct {
		answer string
		args   []string
		code   int
		want   string
	}{
		{`{"servers":[{"server":{"name":"io.github.a/../../etc","version":"1"}}]}`, []string{"registry", "search", "etc"}, ExitError, "not a registry name"},
		{`{"server":{"name":"io.github.a/b","version":"1.0.0","packages":[{"registryType":"npm","identifier":"--call=touch /tmp/pwned","transport":{"type":"stdio"}}]}}`,
			[]string{"registry", "install", "io.github.a/b"}, ExitError, `"--call=touch /tmp/pwned" is not an npm package name`},
		{`{"server":{"name":"io.github.a/b","version":"1.0.0","description":"` + strings.Repeat("x", 20<<10) + `"}}`,
			[]string{"registry", "show", "io.github.a/b"}, ExitError, "larger than 16 KB (the registryMaxKB setting"},
		{`{"server":`, []string{"registry", "show", "io.github.a/b"}, ExitError, "not the v0 API's JSON"},
	} {
		answer.Store(c.answer)
		r := run(t, dir, "", c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Fatalf("%v: exit %d, stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
	n := asked.Load()
	for _, name := range []string{"io.github.a/$(id)", "../../etc/passwd", "io.github.a/b;rm"} {
		r := run(t, dir, "", "registry", "install", name)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "is not a registry server name") {
			t.Fatalf("install %q: exit %d: %s", name, r.code, r.stderr)
		}
	}
	if asked.Load() != n {
		t.Fatal("a bad name was sent to the registry")
	}
	if rows := list(t, dir); len(rows) != 0 {
		t.Fatalf("installed %v", rows)
	}
}
