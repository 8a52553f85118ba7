package appapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// The Connect page's upstream credentials (issue 26 item 5): entries
// SERVER=VALUE for servers with passUpstreamAuth go into the snippet as
// `mcp-router snippet --upstream-auth` writes them; a server that would
// never be sent its value is refused; no answer and no log line of the
// router ever holds a value, refused or not. Before, Snippet took no
// credentials (3 arguments: a 4th was a 400).
func TestSnippetUpstreamAuth(t *testing.T) {
	logger, logs := logtest.NewNullLogger()
	logger.SetLevel(logrus.TraceLevel)
	f := newFixtureWith(t, core.Options{Logger: logger})
	ctx := context.Background()
	admin, _, err := f.c.Auth.CreateAdmin(ctx, "browser")
	if err != nil {
		t.Fatal(err)
	}
	h := &httpFixture{fixture: f, base: serveUI(t, f, HTTPOptions{Heartbeat: time.Hour}), token: admin}
	for _, s := range []spec.Server{
		{Name: "local", Transport: spec.Stdio, Command: "true"},
		{Name: "github", Transport: spec.HTTP, URL: "http://127.0.0.1:9/mcp", PassUpstreamAuth: true},
		{Name: "jira", Transport: spec.HTTP, URL: "http://127.0.0.1:9/jira", PassUpstreamAuth: true},
		{Name: "plain", Transport: spec.HTTP, URL: "http://127.0.0.1:9/plain"},
	} {
		if _, err := h.c.Store.Servers().Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	// The page offers the servers that take a client's credential.
	views, err := f.api.ListServers()
	if err != nil {
		t.Fatal(err)
	}
	pass := map[string]bool{}
	for _, v := range views {
		pass[v.Name] = v.PassUpstreamAuth
	}
	if len(pass) != 4 || !pass["github"] || !pass["jira"] || pass["plain"] || pass["local"] {
		t.Errorf("passUpstreamAuth in ListServers = %v", pass)
	}
	snippet := func(client, mode string, entries ...string) reply {
		t.Helper()
		args, _ := json.Marshal([]any{client, mode, "", entries})
		return h.call(t, "Snippet", h.token, string(args))
	}
	text := func(r reply) string {
		t.Helper()
		var s string
		if r.code != 200 || json.Unmarshal([]byte(r.body), &s) != nil {
			t.Fatalf("Snippet: %d %s", r.code, r.body)
		}
		return s
	}

	// stdio: one variable, an entry a line, servers in name order.
	var got struct {
		MCPServers map[string]struct {
			Env map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(text(snippet("claude-desktop", "stdio", "jira = Basic dXNlcjpwYXNz", "*=Bearer all-secret-1"))), &got); err != nil {
		t.Fatal(err)
	}
	if env := got.MCPServers["mcp-router"].Env; env["MCPR_UPSTREAM_AUTH"] != "*=Bearer all-secret-1\njira=Basic dXNlcjpwYXNz" || env["MCPR_TOKEN"] == "" {
		t.Errorf("stdio env = %v", env)
	}
	// http: the two headers the router reads.
	var hg struct {
		MCPServers map[string]struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(text(snippet("cursor", "http", "github=Bearer ghp_secret2", "*=Bearer all-secret-1"))), &hg); err != nil {
		t.Fatal(err)
	}
	if hd := hg.MCPServers["mcp-router"].Headers; hd["X-Upstream-Authorization"] != "Bearer all-secret-1" ||
		hd["X-Upstream-Authorization-For"] != `{"github":"Bearer ghp_secret2"}` {
		t.Errorf("http headers = %v", hd)
	}
	// None: the snippet is as before.
	if s := text(snippet("cursor", "http")); strings.Contains(s, "Upstream") {
		t.Errorf("a snippet without credentials has upstream headers: %s", s)
	}

	// The router's own tokens, admin or client, never go upstream.
	clientTok, err := f.api.CreateToken("laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"github=Bearer " + admin, "*=" + clientTok.Token} {
		r := snippet("claude-code", "http", e)
		msg := errorOf(t, r)
		if r.code == 200 || !strings.Contains(msg, "holds this router's own token") || strings.Contains(r.body, "mcpr_") {
			t.Errorf("%s=…: %d %q", e[:strings.Index(e, "=")], r.code, msg)
		}
	}
	if tok, _ := f.c.Store.Tokens().Get(ctx, "laptop"); tok.LastUsedAt != nil {
		t.Errorf("checking a value marked the token used: %v", tok.LastUsedAt)
	}

	many := make([]string, 34)
	for i := range many {
		many[i] = fmt.Sprintf("s%d=v-secret-many", i)
	}
	refused := []struct {
		entries []string
		want    string
	}{
		{[]string{"plain=Bearer plain-secret-3"}, `upstream auth for "plain": the server does not take a client's credential (passUpstreamAuth is off)`},
		{[]string{"local=Bearer stdio-secret-4"}, `upstream auth for "local": the server does not take a client's credential`},
		{[]string{"nope=Bearer nope-secret-5"}, `upstream auth for "nope": `},
		{[]string{"github=Bearer a-secret-6", "github=Bearer b-secret-7"}, `server "github" is given twice`},
		{[]string{"github"}, "want SERVER=VALUE"},
		{[]string{"github= "}, "the value is empty"},
		{[]string{"github=Bearer x-secret-8\u0007"}, "control characters"},
		{[]string{"github=Bearer " + strings.Repeat("y", 8<<10)}, "longer than 8 KiB"},
		{[]string{"bad name=Bearer name-secret-9"}, "is not a server name"},
		{many, "upstream auth: 34 entries, at most 33 (32 servers and *; the router's fixed cap, not a setting)"},
	}
	for _, tc := range refused {
		r := snippet("claude-code", "stdio", tc.entries...)
		if msg := errorOf(t, r); r.code == 200 || !strings.Contains(msg, tc.want) {
			t.Errorf("%q: %d %q, want an error with %q", tc.entries[0], r.code, msg, tc.want)
		}
		for _, e := range tc.entries {
			if _, v, ok := strings.Cut(e, "="); ok && strings.TrimSpace(v) != "" && strings.Contains(r.body, strings.TrimSpace(v)) {
				t.Errorf("the answer to %q repeats the value: %s", e, r.body)
			}
		}
	}
	if r := snippet("claude-code", "bogus", "github=Bearer mode-secret-10"); r.code == 200 || strings.Contains(r.body, "mode-secret-10") {
		t.Errorf("bad mode: %d %s", r.code, r.body)
	}

	for _, e := range logs.AllEntries() {
		line, _ := e.String()
		for _, secret := range []string{"secret", "dXNlcjpwYXNz", "yyyy"} {
			if strings.Contains(line, secret) {
				t.Errorf("the router logged a credential: %s", line)
			}
		}
	}
}
