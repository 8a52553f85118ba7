package appapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
)

// toolText calls a server's tool through the upstream service (not the
// gateway) and returns its text.
func toolText(t *testing.T, f *fixture, server, tool string) string {
	t.Helper()
	raw, err := f.c.Servers.Request(context.Background(), server, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}})
	if err != nil {
		t.Fatalf("%s of %s: %v", tool, server, err)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("%s of %s: %s", tool, server, raw)
	}
	return res.Content[0].Text
}

// The server form's secret entries over the UI API: AddServer keeps the
// value out of every answer and event (GetServer shows the placeholder);
// UpdateServer with the placeholder keeps it, a rename moves it; an import
// of an export adds the server needing its value (NeedsSecrets, errored
// with a message saying how to set it) and SetServerSecret starts it;
// RemoveServer removes the value.
func TestSecretValuesThroughTheUIAPI(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	// Closed after the router (cleanups run last first): the router's
	// connection to it would hold its Close.
	httpUp := httptest.NewServer(testmcp.HTTPHandler())
	t.Cleanup(httpUp.Close)
	h := newHTTPFixture(t, nil)
	const envValue, headerValue = "ui-s3cret-env-6612", "ui-s3cret-header-3390"
	var bodies []string
	call := func(method, args string) reply {
		t.Helper()
		r := h.call(t, method, h.token, args)
		bodies = append(bodies, r.body)
		if r.code != 200 {
			t.Fatalf("%s %s: %d %s", method, args, r.code, r.body)
		}
		return r
	}

	ev := everything(t, "ev")
	ev.Env["API_KEY"], ev.SecretEnv = envValue, []string{"API_KEY"}
	call("AddServer", mustJSON(t, []any{ev}))
	call("AddServer", mustJSON(t, []any{spec.Server{Name: "remote", Transport: spec.HTTP, URL: httpUp.URL + "/mcp", Enabled: true,
		Headers: map[string]string{testmcp.HeaderKnob: headerValue}, SecretHeaders: []string{testmcp.HeaderKnob}}}))
	h.waitState(t, "ev", "running")
	h.waitState(t, "remote", "running")
	if got := toolText(t, h.fixture, "ev", "get-env"); !strings.Contains(got, envValue) {
		t.Fatalf("the process has no API_KEY: %.200s", got)
	}
	if got := toolText(t, h.fixture, "remote", "digest"); !strings.HasSuffix(got, "header:"+testmcp.Digest(headerValue)) {
		t.Fatalf("the HTTP upstream got another header: %s", got)
	}

	var cfg spec.Server
	if err := json.Unmarshal([]byte(call("GetServer", `["ev"]`).body), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Env["API_KEY"] != "${secret:API_KEY}" || len(cfg.SecretEnv) != 1 {
		t.Fatalf("GetServer: %+v", cfg)
	}
	// Saved back as the form sends it, renamed: the value follows.
	cfg.Name = "ev2"
	call("UpdateServer", mustJSON(t, []any{"ev", cfg}))
	h.waitState(t, "ev2", "running")
	if got := toolText(t, h.fixture, "ev2", "get-env"); !strings.Contains(got, envValue) {
		t.Fatalf("after the rename the process has no API_KEY: %.200s", got)
	}
	call("ListServers", `[]`)

	// An export's placeholder, pasted: added, waiting for its value.
	data, _, err := config.ExportClientConfig([]spec.Server{cfg})
	if err != nil {
		t.Fatal(err)
	}
	pasted := strings.Replace(string(data), `"ev2"`, `"pasted"`, 1)
	var rep config.ImportReport
	if err := json.Unmarshal([]byte(call("AddServersFromJSON", mustJSON(t, []any{pasted})).body), &rep); err != nil {
		t.Fatal(err)
	}
	want := spec.SecretRef{Server: "pasted", Kind: spec.KindEnv, Name: "API_KEY"}
	if len(rep.Added) != 1 || len(rep.NeedsSecrets) != 1 || rep.NeedsSecrets[0] != want {
		t.Fatalf("import report %+v", rep)
	}
	h.waitState(t, "pasted", "errored")
	st, _ := h.c.Servers.Status("pasted")
	if !strings.Contains(st.Error, "secret env API_KEY of server pasted is not in the secrets file") {
		t.Errorf("errored with %q", st.Error)
	}
	for _, bad := range []string{`["pasted", "file", "API_KEY", "x"]`, `["pasted", "env", "API_KEY", ""]`, `["nope", "env", "API_KEY", "x"]`} {
		if r := h.call(t, "SetServerSecret", h.token, bad); r.code == 200 {
			t.Errorf("SetServerSecret %s: %s", bad, r.body)
		}
	}
	call("SetServerSecret", `["pasted", "env", "API_KEY", "pasted-value-1"]`)
	h.waitState(t, "pasted", "running")
	if got := toolText(t, h.fixture, "pasted", "get-env"); !strings.Contains(got, "pasted-value-1") {
		t.Fatalf("SetServerSecret's value did not reach the process: %.200s", got)
	}

	call("RemoveServer", `["ev2"]`)
	kept, _ := os.ReadFile(filepath.Join(h.c.DataDir, secrets.ServerFileName))
	if strings.Contains(string(kept), envValue) || !strings.Contains(string(kept), "pasted-value-1") {
		t.Errorf("after RemoveServer the secrets file holds %s", kept)
	}

	h.rec.mu.Lock()
	events := fmt.Sprint(h.rec.events)
	h.rec.mu.Unlock()
	for _, v := range []string{envValue, headerValue, "pasted-value-1"} {
		if strings.Contains(strings.Join(bodies, "\n"), v) || strings.Contains(events, v) {
			t.Errorf("%s reached the UI", v)
		}
	}
}
