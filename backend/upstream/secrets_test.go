package upstream

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func toolText(t *testing.T, s *Service, server, tool string) string {
	t.Helper()
	raw, err := s.Request(context.Background(), server, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}})
	if err != nil {
		t.Fatalf("%s via %s: %v", tool, server, err)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("%s result %s: %v", tool, raw, err)
	}
	return res.Content[0].Text
}

// A secret env value reaches the real process (server-everything's get-env
// prints its environment) and a secret header the HTTP upstream, while the
// definition the service holds has only placeholders and neither the log
// nor the console carries the values. A secret that is not stored keeps
// its server errored, without retries, with a message that says how to set
// it; setting it (the revision moves) starts the server.
func TestSecretValuesReachTheUpstreamOnly(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	values := secrets.NewServerValues(t.TempDir(), nil)
	const envValue, headerValue = "s3cret-env-4417", "s3cret-header-9021"
	save := func(cur *spec.Server, in spec.Server) spec.Server {
		t.Helper()
		out, err := values.Save(cur, in, func(spec.Server) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	mark := marker(t)
	ev := everythingStdio(t, "ev", mark)
	ev.Env["API_KEY"], ev.SecretEnv = envValue, []string{"API_KEY"}
	ev = save(nil, ev)
	httpUp := httptest.NewServer(testmcp.HTTPHandler())
	t.Cleanup(httpUp.Close)
	remote := save(nil, spec.Server{Name: "remote", URL: httpUp.URL + "/mcp", Headers: map[string]string{testmcp.HeaderKnob: headerValue},
		SecretHeaders: []string{testmcp.HeaderKnob}, Enabled: true})
	missing := save(nil, spec.Server{Name: "missing", Command: testpeers.Everything(t), Args: []string{"stdio"},
		Env: map[string]string{"MCPR_TEST_MARKER": mark, "GITHUB_TOKEN": "will be removed"}, SecretEnv: []string{"GITHUB_TOKEN"}, Enabled: true})
	if err := values.Forget(missing); err != nil {
		t.Fatal(err)
	}

	logs := &testpeers.SyncBuffer{}
	log := logrus.New()
	log.SetOutput(logs)
	log.SetLevel(logrus.DebugLevel)
	o := fastOptions()
	o.Logger, o.Secrets = log, values
	s := New(o)
	t.Cleanup(s.Close)
	if err := s.Sync([]spec.Server{ev, remote, missing}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "ev", StateRunning, 30*time.Second)
	waitState(t, s, "remote", StateRunning, 30*time.Second)
	if got := toolText(t, s, "ev", "get-env"); !strings.Contains(got, `"API_KEY": "`+envValue+`"`) {
		t.Errorf("the process's environment has no API_KEY=%s: %.300s", envValue, got)
	}
	var shown testmcp.Shown
	if err := json.Unmarshal([]byte(toolText(t, s, "remote", "show")), &shown); err != nil || shown.Header != headerValue {
		t.Errorf("the HTTP upstream got %s %q (%v)", testmcp.HeaderKnob, shown.Header, err)
	}
	for _, name := range []string{"ev", "remote"} {
		def, _ := s.Definition(name)
		b, _ := json.Marshal(def)
		if strings.Contains(string(b), envValue) || strings.Contains(string(b), headerValue) {
			t.Errorf("the service's definition of %s holds a value: %s", name, b)
		}
	}

	st := waitState(t, s, "missing", StateErrored, 10*time.Second)
	want := "secret env GITHUB_TOKEN of server missing is not in the secrets file"
	if !strings.Contains(st.Error, want) || !strings.Contains(st.Error, "mcp-router servers update missing --secret-env GITHUB_TOKEN=…") {
		t.Errorf("missing secret: %q, want %q", st.Error, want)
	}
	if !st.NextRetryAt.IsZero() {
		t.Error("a server missing a secret is retried")
	}
	time.Sleep(300 * time.Millisecond) // several backoffs: still the one attempt
	if st, _ := s.Status("missing"); st.State != StateErrored || st.Restarts != 0 {
		t.Errorf("after a while: %+v", st)
	}
	set := missing
	set.Env = map[string]string{"MCPR_TEST_MARKER": mark, "GITHUB_TOKEN": "gh-value-5150"}
	set = save(&missing, set)
	if set.SecretRevision == missing.SecretRevision {
		t.Fatal("setting a value did not move the revision")
	}
	if err := s.Sync([]spec.Server{ev, remote, set}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "missing", StateRunning, 30*time.Second)
	if got := toolText(t, s, "missing", "get-env"); !strings.Contains(got, "gh-value-5150") {
		t.Errorf("the value set later did not reach the process: %.300s", got)
	}

	var console []string
	for _, name := range []string{"ev", "remote", "missing"} {
		lines, _ := s.Console(name)
		console = append(console, lines...)
	}
	for _, v := range []string{envValue, headerValue, "gh-value-5150"} {
		if strings.Contains(logs.String(), v) || strings.Contains(strings.Join(console, "\n"), v) {
			t.Errorf("%s is in the log or the console", v)
		}
	}
	s.Close()
	testpeers.WaitNoProcesses(t, mark, 5*time.Second)
}

// Without a secret store a server with secret entries does not start, and
// says so.
func TestSecretEntriesWithoutAStore(t *testing.T) {
	s := newTestService(t)
	def := spec.Server{Name: "nostore", Command: "true", Env: map[string]string{"K": "${secret:K}"}, SecretEnv: []string{"K"}, Enabled: true}
	def.Normalize()
	if err := s.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, s, "nostore", StateErrored, 10*time.Second)
	if !strings.Contains(st.Error, "reads no secret store") {
		t.Errorf("error %q", st.Error)
	}
}
