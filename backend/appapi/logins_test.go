package appapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The Servers page's "Log in": the admin starts it and gets the URL to
// open; a client token can neither start one nor learn anything; no token
// ever reaches an answer or an event.
func TestLoginServerIsAdminOnlyAndShowsNoToken(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	iss := testpeers.StartOAuthIssuer(t, "--register")
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{iss.URL}})
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
		http.Error(w, "login first", http.StatusUnauthorized)
	}))
	defer srv.Close()
	h := newHTTPFixture(t, nil)
	if _, err := h.api.AddServer(spec.Server{Name: "remote", Transport: spec.HTTP, URL: srv.URL + "/mcp", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, "remote", "needs_login")
	client, err := h.api.CreateToken("claude-code", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"LoginServer", "LogoutServer"} {
		args := `["remote", ""]`
		if m == "LogoutServer" {
			args = `["remote"]`
		}
		if r := h.call(t, m, client.Token, args); r.code != http.StatusForbidden || strings.Contains(r.body, "authorize") {
			t.Fatalf("%s with a client token: %d %s", m, r.code, r.body)
		}
	}
	if g := iss.Grants(t); len(g.AuthorizeClients) != 0 {
		t.Fatalf("a client token reached the authorization server: %+v", g)
	}

	r := h.call(t, "LoginServer", h.token, `["remote", ""]`)
	var start LoginStart
	if r.code != 200 || json.Unmarshal([]byte(r.body), &start) != nil || !strings.HasPrefix(start.URL, iss.URL+"/authorize?") || start.Registration != "dynamic" {
		t.Fatalf("LoginServer: %d %s", r.code, r.body)
	}
	// The browser: the authorization server consents and redirects to the
	// router's loopback listener, which answers the page.
	resp, err := http.Get(start.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the browser ended on HTTP %d", resp.StatusCode)
	}
	testpeers.Eventually(t, 10*time.Second, "the login stored", func() bool { return h.c.Logins.HasLogin("remote") })
	data, err := os.ReadFile(filepath.Join(h.c.DataDir, oauthclient.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]string
	var rec struct {
		Token struct {
			AccessToken string `json:"access_token"`
		} `json:"token"`
	}
	if json.Unmarshal(data, &file) != nil || json.Unmarshal([]byte(file["remote"]), &rec) != nil || rec.Token.AccessToken == "" {
		t.Fatalf("stored login: %s", data)
	}
	list := h.call(t, "ListServers", h.token, `[]`)
	var rows []ServerView
	if err := json.Unmarshal([]byte(list.body), &rows); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.LoggedIn != (row.Name == "remote") {
			t.Errorf("ListServers: %s loggedIn=%v", row.Name, row.LoggedIn)
		}
	}
	h.rec.mu.Lock()
	events := fmt.Sprint(h.rec.events)
	h.rec.mu.Unlock()
	if strings.Contains(list.body, rec.Token.AccessToken) || strings.Contains(events, rec.Token.AccessToken) {
		t.Fatal("the access token reached the UI")
	}

	for _, c := range []struct{ method, args, want string }{
		{"LoginServer", `["nope", ""]`, `server "nope": not found`},
		{"LoginServer", `["everything", ""]`, `everything: server "everything" is a stdio server: only HTTP and SSE servers log in`},
		{"LogoutServer", `["everything"]`, `no login stored for "everything"`},
		{"LogoutServer", `["nope"]`, `server "nope": not found`},
	} {
		if r := h.call(t, c.method, h.token, c.args); r.code == 200 || !strings.Contains(errorOf(t, r), c.want) {
			t.Errorf("%s %s: %d %s, want %q", c.method, c.args, r.code, r.body, c.want)
		}
	}
	if r := h.call(t, "LogoutServer", h.token, `["remote"]`); r.code != 200 {
		t.Fatalf("logout: %d %s", r.code, r.body)
	}
	if h.c.Logins.HasLogin("remote") {
		t.Fatal("still logged in after LogoutServer")
	}
}

// Removing a server removes its login: its tokens neither outlive it nor
// serve a new server given the same name.
func TestRemoveServerRemovesItsLogin(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	h := newHTTPFixture(t, nil)
	if _, err := h.api.AddServer(spec.Server{Name: "remote", Transport: spec.HTTP, URL: "http://127.0.0.1:9/mcp", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	// Stored as a login made earlier would be (same store, same record shape).
	st := secrets.New(h.c.DataDir, oauthclient.FileName, "upstream-login:", "login")
	if err := st.Set("remote", `{"url":"http://127.0.0.1:9/mcp","clientId":"c","token":{"access_token":"kept-after-removal","token_type":"Bearer"}}`); err != nil {
		t.Fatal(err)
	}
	h.c.Logins.Forget("remote")
	if !h.c.Logins.HasLogin("remote") {
		t.Fatal("the stored login is not seen; the removal below would prove nothing")
	}
	// A rename leaves no login under the old name either.
	if r := h.call(t, "UpdateServer", h.token, `["remote", {"name": "renamed", "transport": "http", "url": "http://127.0.0.1:9/mcp", "enabled": true}]`); r.code != 200 {
		t.Fatalf("UpdateServer (rename): %d %s", r.code, r.body)
	}
	if _, err := st.Get("remote"); err == nil {
		t.Fatal("the old name's login is still stored after a rename")
	}
	if err := st.Set("renamed", `{"url":"http://127.0.0.1:9/mcp","clientId":"c","token":{"access_token":"kept-after-removal","token_type":"Bearer"}}`); err != nil {
		t.Fatal(err)
	}
	h.c.Logins.Forget("renamed")
	if r := h.call(t, "RemoveServer", h.token, `["renamed"]`); r.code != 200 {
		t.Fatalf("RemoveServer: %d %s", r.code, r.body)
	}
	if _, err := st.Get("renamed"); err == nil {
		t.Fatal("the login is still stored after the server was removed")
	}
	if _, err := st.Get("remote"); err == nil {
		t.Fatal("the login is still stored after the server was removed")
	}
	data, _ := os.ReadFile(filepath.Join(h.c.DataDir, oauthclient.FileName))
	if strings.Contains(string(data), "kept-after-removal") {
		t.Fatalf("the token is still in the file: %s", data)
	}
}
