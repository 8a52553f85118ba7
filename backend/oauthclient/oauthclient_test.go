package oauthclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// resource is an MCP server protected by issuer: every request to /mcp is
// answered 401 naming its protected-resource metadata (RFC 9728).
func resource(t *testing.T, issuer string) spec.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp",
				"authorization_servers": []string{issuer}, "scopes_supported": []string{"mcp:*"}})
		case "/mcp":
			w.Header().Set("WWW-Authenticate", `Bearer realm="x", resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "login first", http.StatusUnauthorized)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return spec.Server{Name: "remote", Transport: spec.HTTP, URL: srv.URL + "/mcp", Enabled: true}
}

func manager(t *testing.T, o oauthclient.Options) *oauthclient.Manager {
	t.Helper()
	t.Setenv(secrets.EnvStore, secrets.InFile)
	if o.DataDir == "" {
		o.DataDir = t.TempDir()
	}
	return oauthclient.New(o)
}

// redirect follows the authorization URL as a browser would and returns
// the authorization server's redirect to the loopback listener.
func redirect(t *testing.T, authURL string) string {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: HTTP %d", resp.StatusCode)
	}
	return resp.Header.Get("Location")
}

func get(t *testing.T, u string) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestLoginRefusesServersThatCannotLogIn(t *testing.T) {
	m := manager(t, oauthclient.Options{})
	ctx := context.Background()
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	defer open.Close()
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer forbidden.Close()
	basic := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer basic.Close()
	for _, tc := range []struct {
		name string
		s    spec.Server
		is   error
		want string
	}{
		{"stdio", spec.Server{Name: "files", Transport: spec.Stdio, Command: "x"}, oauthclient.ErrNotLoginable, `server "files" is a stdio server: only HTTP and SSE servers log in`},
		{"builtin", spec.Server{Name: "state_gate", Transport: spec.Builtin}, oauthclient.ErrNotLoginable, "only HTTP and SSE servers log in"},
		{"no OAuth", spec.Server{Name: "open", Transport: spec.HTTP, URL: open.URL}, oauthclient.ErrNoOAuth, `server "open" answered HTTP 200 without credentials: the server does not ask for an OAuth login`},
		{"403", spec.Server{Name: "closed", Transport: spec.HTTP, URL: forbidden.URL}, oauthclient.ErrNoOAuth, "HTTP 403"},
		{"401 without metadata", spec.Server{Name: "basic", Transport: spec.HTTP, URL: basic.URL + "/mcp"}, oauthclient.ErrNoOAuth,
			`server "basic" answered 401 without OAuth protected-resource metadata (` + basic.URL + `/.well-known/oauth-protected-resource: HTTP 401), so the server does not ask for an OAuth login: set the credential it expects in its headers instead`},
		{"unreachable", spec.Server{Name: "gone", Transport: spec.HTTP, URL: "http://127.0.0.1:1/mcp"}, nil, `reach "gone"`},
	} {
		f, err := m.Begin(ctx, tc.s, oauthclient.LoginOptions{})
		if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v %v", tc.name, f, err)
		}
		if m.HasLogin(tc.s.Name) {
			t.Errorf("%s: a login was stored", tc.name)
		}
	}
}

// An authorization server without registration: the user's client id, or a
// clear error saying to give one.
func TestLoginWithTheUsersClientID(t *testing.T) {
	iss := testpeers.StartOAuthIssuer(t)
	s := resource(t, iss.URL)
	m := manager(t, oauthclient.Options{})
	ctx := context.Background()
	if _, err := m.Begin(ctx, s, oauthclient.LoginOptions{}); !errors.Is(err, oauthclient.ErrNeedsClientID) || !strings.Contains(err.Error(), "--client-id") {
		t.Fatalf("no registration, no client id: %v", err)
	}
	f, err := m.Begin(ctx, s, oauthclient.LoginOptions{ClientID: "my-client"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Registration != oauthclient.RegisteredByUser {
		t.Fatalf("registration %q", f.Registration)
	}
	if code := get(t, redirect(t, f.URL)); code != http.StatusOK {
		t.Fatalf("callback: HTTP %d", code)
	}
	if err := f.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if g := iss.Grants(t); len(g.AuthorizeClients) != 1 || g.AuthorizeClients[0] != "my-client" || g.Grants["authorization_code"] != 1 {
		t.Fatalf("grants %+v", g)
	}
	v, err := m.Authorization(ctx, s.Name, s.URL)
	if err != nil || !strings.HasPrefix(v, "Bearer ey") {
		t.Fatalf("authorization %q %v", v, err)
	}
	// A login holds for the URL it was made at only.
	if v, err := m.Authorization(ctx, s.Name, "http://elsewhere.example/mcp"); v != "" || err != nil {
		t.Fatalf("another URL got %q %v", v, err)
	}
	// Another process reads it from the file.
	other := oauthclient.New(oauthclient.Options{DataDir: filepath.Dir(m.File())})
	if v2, err := other.Authorization(ctx, s.Name, s.URL); err != nil || v2 != v {
		t.Fatalf("another process: %v", err)
	}
}

// Where the authorization server supports Client ID Metadata Documents and
// the router has one (an https publicURL), its URL is the client id;
// without the router's document, dynamic registration.
func TestLoginByClientIDMetadataDocument(t *testing.T) {
	iss := testpeers.StartOAuthIssuer(t, "--cimd", "--register")
	s := resource(t, iss.URL)
	ctx := context.Background()
	const doc = "https://router.example/oauth/client-metadata.json"
	m := manager(t, oauthclient.Options{ClientMetadataURL: func() string { return doc }})
	f, err := m.Begin(ctx, s, oauthclient.LoginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Cancel()
	u, _ := url.Parse(f.URL)
	if f.Registration != oauthclient.RegisteredByMetadataDocument || u.Query().Get("client_id") != doc {
		t.Fatalf("%s: %s", f.Registration, f.URL)
	}
	m2 := manager(t, oauthclient.Options{ClientMetadataURL: func() string { return "" }})
	f2, err := m2.Begin(ctx, s, oauthclient.LoginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Cancel()
	u2, _ := url.Parse(f2.URL)
	if f2.Registration != oauthclient.RegisteredDynamically || !strings.HasPrefix(u2.Query().Get("client_id"), "dcr-") {
		t.Fatalf("%s: %s", f2.Registration, f2.URL)
	}
	if got := oauthclient.ClientMetadataURL("http://router.example"); got != "" {
		t.Errorf("an http publicURL gave a document URL %q", got)
	}
	if got := oauthclient.ClientMetadataURL("https://router.example/"); got != doc {
		t.Errorf("document URL %q", got)
	}
}

// The browser comes back with an error, or not at all: the login fails
// with a clear message and stores nothing.
func TestLoginThatFails(t *testing.T) {
	iss := testpeers.StartOAuthIssuer(t)
	s := resource(t, iss.URL)
	m := manager(t, oauthclient.Options{})
	ctx := context.Background()
	f, err := m.Begin(ctx, s, oauthclient.LoginOptions{ClientID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(f.URL)
	state := u.Query().Get("state")
	if code := get(t, f.RedirectURI+"?state=wrong&error=access_denied"); code != http.StatusBadRequest {
		t.Fatalf("wrong state: HTTP %d", code)
	}
	if code := get(t, f.RedirectURI+"?state="+url.QueryEscape(state)+"&error=access_denied&error_description=the+user+said+no"); code != http.StatusOK {
		t.Fatalf("error redirect: HTTP %d", code)
	}
	if err := f.Wait(ctx); err == nil || !strings.Contains(err.Error(), "access_denied the user said no") {
		t.Fatalf("wait: %v", err)
	}
	if m.HasLogin(s.Name) {
		t.Fatal("a failed login was stored")
	}

	f, err = m.Begin(ctx, s, oauthclient.LoginOptions{ClientID: "c", Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(ctx); err == nil || !strings.Contains(err.Error(), "no answer from the browser within 50ms") {
		t.Fatalf("timeout: %v", err)
	}
	if err := m.Logout(s.Name); !errors.Is(err, oauthclient.ErrNoLogin) {
		t.Fatalf("logout without a login: %v", err)
	}
}
