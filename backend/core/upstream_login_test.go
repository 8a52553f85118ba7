package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// waitState waits until the server reaches one of the states.
func waitState(t *testing.T, c *Core, name string, want ...upstream.State) upstream.Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := c.Servers.Status(name)
		if err == nil {
			for _, w := range want {
				if st.State == w {
					return st
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: state %s (%s), want %v", name, st.State, st.Error, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// consent follows an authorization URL as the user's browser would: the
// mock authorization server consents at once and redirects to the router's
// loopback listener; extra goes into the authorization request. It returns
// the redirect's Location, not yet followed.
func consent(t *testing.T, authURL string, extra url.Values) *url.URL {
	t.Helper()
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for k, v := range extra {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound || loc.Query().Get("code") == "" {
		t.Fatalf("authorize: HTTP %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return loc
}

func getBody(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func callEcho(t *testing.T, c *client.Client, msg string) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "a__one__echo", Arguments: map[string]any{"message": msg}}})
}

// Router B has router A, a resource server of a real authorization server,
// as its HTTP upstream: B shows needs_login, logs in headlessly (dynamic
// registration, PKCE, a loopback redirect), calls through, refreshes the
// token before it expires, and asks for a login again once the refresh
// token is revoked.
func TestRouterLogsInToAnUpstreamRouter(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	iss := testpeers.StartOAuthIssuer(t, "--register")
	a := oauthRouter(t, iss.URL)
	wctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	a.core.WaitStarted(wctx)
	cancel()
	dirB := t.TempDir()
	logger, logs := logtest.NewNullLogger()
	def := spec.Server{Name: "a", Transport: spec.HTTP, URL: a.url, Enabled: true}
	b := serveWith(t, dirB, []spec.Server{def}, true, Options{Logger: logger})
	ctx := context.Background()

	// A 401 with resource metadata: needs_login, not an error retried.
	st := waitState(t, b.core, "a", upstream.StateNeedsLogin)
	if !strings.Contains(st.Error, "HTTP 401") || !strings.Contains(st.Error, "servers login") ||
		!strings.Contains(st.Error, "/.well-known/oauth-protected-resource/mcp") || st.Restarts != 0 || !st.NextRetryAt.IsZero() {
		t.Fatalf("needs_login status %+v", st)
	}
	if _, err := b.core.Servers.Connect(ctx, "a"); !errors.Is(err, upstream.ErrNotRunning) || !strings.Contains(err.Error(), "needs_login") {
		t.Fatalf("Connect on needs_login: %v", err)
	}

	f, err := b.core.Logins.Begin(ctx, def, oauthclient.LoginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Registration != oauthclient.RegisteredDynamically || !strings.HasPrefix(f.RedirectURI, "http://127.0.0.1:") {
		t.Fatalf("flow %+v", f)
	}
	au, _ := url.Parse(f.URL)
	q := au.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") != a.url ||
		q.Get("scope") != "mcp:*" || !strings.HasPrefix(q.Get("client_id"), "dcr-") || q.Get("state") == "" {
		t.Fatalf("authorization URL %s", f.URL)
	}
	// Access tokens of this grant live 3 s: B refreshes them before then.
	loc := consent(t, f.URL, url.Values{"test_exp_in": {"3"}})

	// A redirect with another state is refused, and the login waits on.
	forged := *loc
	fq := forged.Query()
	fq.Set("state", "forged")
	forged.RawQuery = fq.Encode()
	if code, body := getBody(t, forged.String()); code != http.StatusBadRequest || !strings.Contains(body, "state") {
		t.Fatalf("forged state: HTTP %d %s", code, body)
	}
	select {
	case <-f.Done():
		t.Fatalf("the login ended on a forged redirect: %v", f.Err())
	default:
	}
	if code, body := getBody(t, loc.String()); code != http.StatusOK || !strings.Contains(body, "Logged in") {
		t.Fatalf("callback: HTTP %d %s", code, body)
	}
	if err := f.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// A second use of the redirect finds the login over (410 while the
	// listener closes, then nothing listens).
	if resp, err := http.Get(loc.String()); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusGone {
			t.Fatalf("second callback: HTTP %d", resp.StatusCode)
		}
	}

	if st := waitState(t, b.core, "a", upstream.StateRunning); st.Tools == 0 {
		t.Fatalf("B sees no tools of A: %+v", st)
	}
	b.core.Gateway.Rebuild() // now, not after the debounce
	cl, err := mcpClient(t, b.url, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := callEcho(t, cl, "through B")
	if err != nil {
		t.Logf("tools of B: %v", listTools(t, cl))
	}
	if err != nil || res.IsError || !strings.Contains(mcp.GetTextFromContent(res.Content[0]), "through B") {
		t.Fatalf("call through B: %+v %v", res, err)
	}

	// The tokens are in a 0600 file, nowhere else.
	file := filepath.Join(dirB, oauthclient.FileName)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("login file: %v %v", fi, err)
	}
	access, refresh := testpeers.LoginTokens(t, filepath.Join(dirB, oauthclient.FileName), "a")
	if access == "" || refresh == "" {
		t.Fatal("no tokens stored")
	}
	secretsNowhere := func(values ...string) {
		t.Helper()
		for _, e := range logs.AllEntries() {
			line, _ := e.String()
			for _, v := range values {
				if strings.Contains(line, v) {
					t.Fatalf("a token is in the log: %s", line)
				}
			}
		}
		status, _ := json.Marshal(b.core.Servers.Statuses())
		for _, name := range []string{"mcp-router.db", "mcp-router.db-wal"} {
			data, _ := os.ReadFile(filepath.Join(dirB, name))
			for _, v := range values {
				if bytes.Contains(data, []byte(v)) || bytes.Contains(status, []byte(v)) {
					t.Fatalf("a token is in %s or the statuses", name)
				}
			}
		}
	}
	secretsNowhere(access, refresh)

	// Past the token's expiry (less B's margin), the call still goes
	// through, on a refreshed token.
	time.Sleep(3 * time.Second)
	res, err = callEcho(t, cl, "after expiry")
	if err != nil || res.IsError {
		t.Fatalf("call after expiry: %+v %v", res, err)
	}
	if g := iss.Grants(t); g.Grants["refresh_token"] < 1 {
		t.Fatalf("no refresh grant: %+v", g)
	}
	access2, refresh2 := testpeers.LoginTokens(t, filepath.Join(dirB, oauthclient.FileName), "a")
	if access2 == access || refresh2 == refresh {
		t.Fatal("the refreshed tokens were not stored")
	}
	secretsNowhere(access2, refresh2)

	// The refresh token revoked: at the next expiry B cannot refresh, and
	// the server goes back to needs_login.
	iss.Revoke(t, refresh2)
	time.Sleep(3 * time.Second)
	if res, err := callEcho(t, cl, "after revocation"); err == nil && !res.IsError {
		st, _ := b.core.Servers.Status("a")
		a3, r3 := testpeers.LoginTokens(t, filepath.Join(dirB, oauthclient.FileName), "a")
		t.Fatalf("a call went through after the refresh token was revoked: %+v %+v; stored changed: %v %v", iss.Grants(t), st, a3 != access2, r3 != refresh2)
	}
	st = waitState(t, b.core, "a", upstream.StateNeedsLogin)
	if !strings.Contains(st.Error, "refused the refresh") {
		t.Fatalf("status after revocation: %+v", st)
	}

	// Logout removes the tokens; a second logout says there is none.
	if err := b.core.Logins.Logout("a"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(file); bytes.Contains(data, []byte(refresh2)) || bytes.Contains(data, []byte(`"a"`)) {
		t.Fatalf("the login is still in the file: %s", data)
	}
	if err := b.core.Logins.Logout("a"); !errors.Is(err, oauthclient.ErrNoLogin) {
		t.Fatalf("second logout: %v", err)
	}
	waitState(t, b.core, "a", upstream.StateNeedsLogin)
}

// A login made by another process on the data dir (the CLI while the app
// runs) reaches the running router through the store: the server
// reconnects with it, and a logout there sends it back to needs_login.
func TestLoginByAnotherProcessReachesTheRunningRouter(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	iss := testpeers.StartOAuthIssuer(t, "--register")
	a := oauthRouter(t, iss.URL)
	dirB := t.TempDir()
	def := spec.Server{Name: "a", Transport: spec.HTTP, URL: a.url, Enabled: true}
	b := serve(t, dirB, []spec.Server{def}, true)
	waitState(t, b.core, "a", upstream.StateNeedsLogin)

	// The other process: its own store handle and login manager on dirB,
	// as `mcp-router servers login` has.
	cli, err := Open(dirB, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	f, err := cli.Logins.Begin(ctx, def, oauthclient.LoginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if code, body := getBody(t, consent(t, f.URL, nil).String()); code != http.StatusOK {
		t.Fatalf("callback: HTTP %d %s", code, body)
	}
	if err := f.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	waitState(t, b.core, "a", upstream.StateRunning)

	if err := cli.Logins.Logout("a"); err != nil {
		t.Fatal(err)
	}
	waitState(t, b.core, "a", upstream.StateNeedsLogin)
}

// The router's Client ID Metadata Document: served only under an https
// publicURL, whose URL it names as the client id.
func TestClientIDMetadataDocument(t *testing.T) {
	ep := serve(t, t.TempDir(), nil, false)
	ctx := context.Background()
	doc := "http://" + ep.addr + oauthclient.ClientMetadataPath
	if code, _ := getBody(t, doc); code != http.StatusNotFound {
		t.Fatalf("without publicURL: HTTP %d", code)
	}
	if err := ep.core.Settings.Set(ctx, "publicURL", "https://router.example"); err != nil {
		t.Fatal(err)
	}
	code, body := getBody(t, doc)
	var md struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		GrantTypes   []string `json:"grant_types"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &md) != nil || md.ClientID != "https://router.example"+oauthclient.ClientMetadataPath ||
		len(md.RedirectURIs) != 1 || md.RedirectURIs[0] != "http://127.0.0.1/callback" || md.AuthMethod != "none" ||
		strings.Join(md.GrantTypes, " ") != "authorization_code refresh_token" {
		t.Fatalf("HTTP %d %s", code, body)
	}
	if err := ep.core.Settings.Set(ctx, "publicURL", "http://router.example"); err != nil {
		t.Fatal(err)
	}
	if code, _ := getBody(t, doc); code != http.StatusNotFound {
		t.Fatalf("with an http publicURL: HTTP %d", code)
	}
}
