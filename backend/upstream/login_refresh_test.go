package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// resourceServer is an MCP server (mcp-go's, legacy SSE or streamable
// HTTP) that is an OAuth resource server of a real authorization server:
// every request needs a bearer JWT the issuer signed (checked against its
// JWKS) that has not expired and that the resource server has not been
// told to refuse (an access token revoked early).
type resourceServer struct {
	srv  *httptest.Server
	url  string // the MCP URL: …/sse or …/mcp
	path string

	mu      sync.Mutex
	refused map[string]bool // access tokens refused from now on
	auths   []string        // the Authorization of every request, in order
	s401    map[string]int  // 401s answered, by Authorization
}

func startResourceServer(t *testing.T, iss *testpeers.OAuthIssuer, sse bool) *resourceServer {
	t.Helper()
	kf, err := keyfunc.NewDefaultCtx(t.Context(), []string{iss.URL + "/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	m := server.NewMCPServer("resource", "1.0.0", server.WithToolCapabilities(false))
	m.AddTool(mcp.NewTool("echo", mcp.WithString("message")), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo:" + r.GetString("message", "")), nil
	})
	rs := &resourceServer{refused: map[string]bool{}, s401: map[string]int{}}
	var h http.Handler
	if sse {
		rs.path = "/sse"
		h = server.NewSSEServer(m, server.WithSSEEndpoint("/sse"), server.WithMessageEndpoint("/message"))
	} else {
		rs.path = "/mcp"
		h = server.NewStreamableHTTPServer(m)
	}
	rs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": rs.url, "authorization_servers": []string{iss.URL}})
			return
		}
		auth := r.Header.Get("Authorization")
		rs.mu.Lock()
		rs.auths = append(rs.auths, auth)
		refused := rs.refused[strings.TrimPrefix(auth, "Bearer ")]
		rs.mu.Unlock()
		_, err := jwt.Parse(strings.TrimPrefix(auth, "Bearer "), kf.Keyfunc, jwt.WithIssuer(iss.URL), jwt.WithExpirationRequired())
		if !strings.HasPrefix(auth, "Bearer ") || err != nil || refused {
			rs.mu.Lock()
			rs.s401[auth]++
			rs.mu.Unlock()
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource`+rs.path+`"`)
			http.Error(w, "a valid token, please", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	rs.url = rs.srv.URL + rs.path
	t.Cleanup(func() {
		rs.srv.CloseClientConnections()
		rs.srv.Close()
	})
	return rs
}

func (rs *resourceServer) refuse(token string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.refused[token] = true
}

// sent counts the requests that carried auth, and the 401s it got.
func (rs *resourceServer) sent(auth string) (requests, refused int) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, a := range rs.auths {
		if a == auth {
			requests++
		}
	}
	return requests, rs.s401[auth]
}

func waitFor(t *testing.T, s *upstream.Service, name string, want upstream.State) upstream.Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := s.Status(name)
		if err == nil && st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: state %s (%s), want %s", name, st.State, st.Error, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitConnection waits until the server runs on a connection after after.
func waitConnection(t *testing.T, s *upstream.Service, name string, after int) upstream.Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := s.Status(name)
		if err == nil && st.State == upstream.StateRunning && st.Connection > after {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: state %s (%s) on connection %d, want running after %d", name, st.State, st.Error, st.Connection, after)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// login runs the authorization code flow headlessly: the mock
// authorization server consents at once and redirects to the loopback
// listener.
func login(t *testing.T, m *oauthclient.Manager, def spec.Server) {
	t.Helper()
	ctx := t.Context()
	f, err := m.Begin(ctx, def, oauthclient.LoginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if u, err := url.Parse(loc); err != nil || u.Query().Get("code") == "" {
		t.Fatalf("authorize: HTTP %d, Location %q", resp.StatusCode, loc)
	}
	resp, err = http.Get(loc)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := f.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// An upstream on one of mcp-go's transports (legacy SSE; streamable HTTP
// through a proxy) that stops taking the login's access token while its
// refresh token is still good: the router refreshes it (a refresh_token
// grant at the real authorization server) and sends the request, or opens
// the connection, once more, and the server never shows needs_login. A
// client's own value (passUpstreamAuth) answered 401 is not refreshed nor
// sent again. Once the refresh token is revoked, a refused token sends the
// server to needs_login.
func TestRefusedLoginTokenIsRefreshedOnMCPGoTransports(t *testing.T) {
	for _, tc := range []struct {
		name string
		sse  bool
	}{{"sse", true}, {"http-through-proxy", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(secrets.EnvStore, secrets.InFile)
			iss := testpeers.StartOAuthIssuer(t, "--register")
			rs := startResourceServer(t, iss, tc.sse)
			def := spec.Server{Name: "remote", Transport: spec.HTTP, URL: rs.url, PassUpstreamAuth: true, Enabled: true}
			if tc.sse {
				def.Transport = spec.SSE
			} else {
				// newHTTPTransport then takes mcp-go's transport, as for a
				// URL that goes through a proxy.
				restore := upstream.SetProxyForTest(func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy.invalid:3128") })
				t.Cleanup(restore)
			}
			dir := t.TempDir()
			logins := oauthclient.New(oauthclient.Options{DataDir: dir})
			s := upstream.New(upstream.Options{
				BackoffBase: 50 * time.Millisecond, BackoffMax: 500 * time.Millisecond,
				PingInterval: time.Hour, StartTimeout: 30 * time.Second, Authorizer: logins,
			})
			t.Cleanup(s.Close)
			var mu sync.Mutex
			var states []string
			s.Subscribe(func(e upstream.Event) {
				if e.Kind == upstream.EventState && e.Server == "remote" {
					mu.Lock()
					states = append(states, string(e.Status.State)+": "+e.Status.Error)
					mu.Unlock()
				}
			})
			neverNeedsLogin := func() {
				t.Helper()
				mu.Lock()
				defer mu.Unlock()
				for _, st := range states {
					if strings.HasPrefix(st, string(upstream.StateNeedsLogin)) {
						t.Fatalf("the server showed %s (states %q)", st, states)
					}
				}
			}
			if err := s.Sync([]spec.Server{def}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, s, "remote", upstream.StateNeedsLogin)
			login(t, logins, def)
			mu.Lock()
			states = nil
			mu.Unlock()
			if err := s.Restart("remote"); err != nil {
				t.Fatal(err)
			}
			st := waitFor(t, s, "remote", upstream.StateRunning)
			ctx := t.Context()
			echo := func(ctx context.Context, msg string) error {
				b, err := s.Request(ctx, "remote", "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": msg}})
				if err == nil && !strings.Contains(string(b), "echo:"+msg) {
					t.Fatalf("answer %s", b)
				}
				return err
			}
			if err := echo(ctx, "first"); err != nil {
				t.Fatal(err)
			}
			refreshes := func() int { return iss.Grants(t).Grants["refresh_token"] }
			if n := refreshes(); n != 0 {
				t.Fatalf("%d refreshes before any refusal", n)
			}

			// (1) The resource server stops taking the access token (revoked
			// early; it has an hour to live, so no early refresh): the call
			// is refused once, the token refreshed, the call sent again on
			// the same connection.
			a1, r1 := testpeers.LoginTokens(t, filepath.Join(dir, oauthclient.FileName), "remote")
			rs.refuse(a1)
			if err := echo(ctx, "after a refused token"); err != nil {
				t.Fatalf("call after the token was refused: %v", err)
			}
			if n := refreshes(); n != 1 {
				t.Fatalf("%d refresh_token grants, want 1", n)
			}
			if _, refused := rs.sent("Bearer " + a1); refused != 1 {
				t.Fatalf("the refused token was sent into %d 401s, want 1", refused)
			}
			a2, r2 := testpeers.LoginTokens(t, filepath.Join(dir, oauthclient.FileName), "remote")
			if a2 == a1 || r2 == r1 {
				t.Fatal("the refreshed login was not stored")
			}
			if now, _ := s.Status("remote"); now.Connection != st.Connection || now.State != upstream.StateRunning {
				t.Fatalf("the refresh reconnected: %+v (was connection %d)", now, st.Connection)
			}
			neverNeedsLogin()

			// The same on connecting: the stream's GET (SSE) or the
			// handshake (HTTP) refused, refreshed, connected.
			rs.refuse(a2)
			before, _ := s.Status("remote")
			if err := s.Restart("remote"); err != nil {
				t.Fatal(err)
			}
			waitConnection(t, s, "remote", before.Connection)
			if err := echo(ctx, "after a reconnection"); err != nil {
				t.Fatal(err)
			}
			if n := refreshes(); n != 2 {
				t.Fatalf("%d refresh_token grants, want 2", n)
			}
			neverNeedsLogin()

			// (3) A client's own value that the server refuses is neither
			// refreshed nor sent again.
			const clientValue = "Bearer a-client-value"
			before, _ = s.Status("remote")
			if err := echo(upstream.WithClientAuthorization(ctx, clientValue), "client"); err == nil ||
				errors.Is(err, upstream.ErrNeedsLogin) || !strings.Contains(err.Error(), "HTTP 401 from "+rs.url+": the server refused the X-Upstream-Authorization the client gave") {
				t.Fatalf("call with a refused client value: %v", err)
			}
			if requests, refused := rs.sent(clientValue); requests != 1 || refused != 1 {
				t.Fatalf("the client's value went %d times (%d refused), want once", requests, refused)
			}
			if n := refreshes(); n != 2 {
				t.Fatalf("a client's refused value made %d refresh grants, want 2", n)
			}
			// The connection, made with the login, serves on.
			if err := echo(ctx, "still logged in"); err != nil {
				t.Fatal(err)
			}
			if now, _ := s.Status("remote"); now.Connection != before.Connection || now.State != upstream.StateRunning {
				t.Fatalf("a client's refused value dropped the connection: %+v (was connection %d)", now, before.Connection)
			}
			neverNeedsLogin()

			// (2) The refresh token revoked: the next refused token ends the
			// login, and the server waits in needs_login.
			a3, r3 := testpeers.LoginTokens(t, filepath.Join(dir, oauthclient.FileName), "remote")
			iss.Revoke(t, r3)
			rs.refuse(a3)
			if err := echo(ctx, "after revocation"); !errors.Is(err, upstream.ErrNeedsLogin) {
				t.Fatalf("call after the refresh token was revoked: %v", err)
			}
			st = waitFor(t, s, "remote", upstream.StateNeedsLogin)
			if !strings.Contains(st.Error, "refused the refresh") {
				t.Fatalf("status %+v", st)
			}
			// Exactly one refused refresh: no loop.
			if n := refreshes(); n != 3 {
				t.Fatalf("%d refresh_token grants, want 3", n)
			}
		})
	}
}
