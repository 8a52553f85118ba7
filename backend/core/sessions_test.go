package core

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/gateway"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// sessionRequest sends one request as token to the endpoint, naming
// session sid unless it is "". A GET's event stream is not read: its
// status is what counts.
func sessionRequest(t *testing.T, method, url, token, sid, body string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		return resp.StatusCode, resp.Header, ""
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// The attack of issue 24: token B, knowing A's Mcp-Session-Id, opened A's
// GET stream and DELETEd A's session. Now every request of B's naming it
// gets 404, as for an unknown session, and A's session works on.
func TestSessionBelongsToTheTokenThatOpenedIt(t *testing.T) {
	e := serve(t, t.TempDir(), nil, false)
	ctx := context.Background()
	tokenA, _, err := e.core.Auth.Create(ctx, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	tokenB, _, err := e.core.Auth.Create(ctx, "bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, hdr, body := sessionRequest(t, http.MethodPost, e.url, tokenA, "", string(initializeBody))
	sid := hdr.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("alice's initialize: %s", body)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, m := range []struct{ method, body string }{{http.MethodPost, list}, {http.MethodGet, ""}, {http.MethodDelete, ""}} {
		status, _, got := sessionRequest(t, m.method, e.url, tokenB, sid, m.body)
		wantStatus, _, want := sessionRequest(t, m.method, e.url, tokenB, "mcp-session-00000000-0000-0000-0000-000000000000", m.body)
		if status != http.StatusNotFound || status != wantStatus || got != want {
			t.Errorf("bob's %s in alice's session: HTTP %d %q; an unknown session's: HTTP %d %q", m.method, status, got, wantStatus, want)
		}
	}
	if status, _, got := sessionRequest(t, http.MethodPost, e.url, tokenA, sid, list); status != http.StatusOK || !strings.Contains(got, `"tools"`) {
		t.Errorf("alice's list after bob's attempts: HTTP %d %s", status, got)
	}
	if status, _, _ := sessionRequest(t, http.MethodGet, e.url, tokenA, sid, ""); status != http.StatusOK {
		t.Errorf("alice's GET stream: HTTP %d", status)
	}
	if status, _, got := sessionRequest(t, http.MethodDelete, e.url, tokenA, sid, ""); status != http.StatusOK {
		t.Errorf("alice's DELETE: HTTP %d %s", status, got)
	}
}

// The session settings reach the running router: with sessionsPerCredential
// at 2, a token's third session is refused with the error naming the
// setting, and another token's is not.
func TestSessionCapFollowsTheSetting(t *testing.T) {
	e := serve(t, t.TempDir(), nil, false)
	ctx := context.Background()
	if err := e.core.Settings.Set(ctx, settings.KeySessionsPerCredential, "2"); err != nil {
		t.Fatal(err)
	}
	tokenA, _, _ := e.core.Auth.Create(ctx, "alice", nil)
	tokenB, _, _ := e.core.Auth.Create(ctx, "bob", nil)
	for range 2 {
		if _, hdr, body := sessionRequest(t, http.MethodPost, e.url, tokenA, "", string(initializeBody)); hdr.Get("Mcp-Session-Id") == "" {
			t.Fatalf("alice's initialize: %s", body)
		}
	}
	status, hdr, body := sessionRequest(t, http.MethodPost, e.url, tokenA, "", string(initializeBody))
	var answer struct {
		Error struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &answer); err != nil || status != http.StatusOK || hdr.Get("Mcp-Session-Id") != "" {
		t.Fatalf("alice's third initialize: HTTP %d %s", status, body)
	}
	if answer.Error.Code != pipeline.CodeSessionLimit || answer.Error.Data["setting"] != settings.KeySessionsPerCredential ||
		!strings.Contains(answer.Error.Message, `credential "alice" already holds 2`) {
		t.Errorf("refusal %+v", answer.Error)
	}
	if _, hdr, body := sessionRequest(t, http.MethodPost, e.url, tokenB, "", string(initializeBody)); hdr.Get("Mcp-Session-Id") == "" {
		t.Errorf("bob's initialize: %s", body)
	}
}

// The gateway names the settings in its refusals and keeps its own
// defaults: both must be the settings' own.
func TestSessionSettingsAreTheGatewaysNames(t *testing.T) {
	if settings.KeySessionsPerCredential != gateway.SettingSessionsPerCredential ||
		settings.KeySessionsTotal != gateway.SettingSessionsTotal ||
		settings.KeySessionIdleTimeout != gateway.SettingSessionIdleTimeout {
		t.Error("the gateway names other settings than backend/settings defines")
	}
	if settings.DefaultSessionsPerCredential != gateway.DefaultSessionsPerCredential ||
		settings.DefaultSessionsTotal != gateway.DefaultSessionsTotal ||
		time.Duration(settings.DefaultSessionIdleTimeout)*time.Second != gateway.DefaultSessionIdleTTL {
		t.Error("the gateway's session defaults differ from the settings'")
	}
	if settings.KeyTasksPerCredential != gateway.SettingTasksPerCredential ||
		settings.KeyTasksTotal != gateway.SettingTasksTotal || settings.KeyTaskMaxAgeSeconds != gateway.SettingTaskMaxAge {
		t.Error("the gateway names other task settings than backend/settings defines")
	}
	if settings.DefaultTasksPerCredential != gateway.DefaultTasksPerCredential ||
		settings.DefaultTasksTotal != gateway.DefaultTasksTotal ||
		time.Duration(settings.DefaultTaskMaxAgeSeconds)*time.Second != gateway.DefaultTaskMaxAge {
		t.Error("the gateway's task defaults differ from the settings'")
	}
}

// Each kind of credential owns its sessions apart from every other: a
// token's name, a JWT's issuer and subject, the anonymous identity — and
// every token name auth.ValidName lets through (a token named "anonymous"
// is not the anonymous identity).
func TestCredentialsAreDistinct(t *testing.T) {
	ids := map[string]context.Context{
		"no identity (stdio)":   context.Background(),
		"anonymous":             auth.WithIdentity(context.Background(), auth.Anonymous),
		"token anonymous":       auth.WithIdentity(context.Background(), auth.Identity{TokenName: "anonymous"}),
		"token alice":           auth.WithIdentity(context.Background(), auth.Identity{TokenName: "alice"}),
		"JWT alice of issuer 1": auth.WithIdentity(context.Background(), auth.Identity{TokenName: "alice", Subject: "alice", Issuer: "https://one"}),
		"JWT alice of issuer 2": auth.WithIdentity(context.Background(), auth.Identity{TokenName: "alice", Subject: "alice", Issuer: "https://two"}),
		"JWT bob of issuer 1":   auth.WithIdentity(context.Background(), auth.Identity{TokenName: "bob", Subject: "bob", Issuer: "https://one"}),
		"token local":           auth.WithIdentity(context.Background(), auth.Identity{TokenName: "local"}),
		"token jwt":             auth.WithIdentity(context.Background(), auth.Identity{TokenName: "jwt"}),
	}
	seen := map[string]string{}
	for name, ctx := range ids {
		if id, _ := auth.IdentityFrom(ctx); id.TokenName != "" && id.Subject == "" {
			if err := auth.ValidName(id.TokenName); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		key := credentialOf(ctx)
		if other, ok := seen[key]; ok {
			t.Errorf("%s and %s are one credential (%q)", name, other, key)
		}
		seen[key] = name
	}
	// A refreshed access token (same issuer and subject) keeps its sessions.
	a := credentialOf(auth.WithIdentity(context.Background(), auth.Identity{Subject: "alice", Issuer: "https://one", Scopes: []string{"mcp"}}))
	b := credentialOf(auth.WithIdentity(context.Background(), auth.Identity{Subject: "alice", Issuer: "https://one", Scopes: []string{"mcp:srv"}}))
	if a != b {
		t.Error("two access tokens of one subject are different credentials")
	}
}

// The per-client errors name settings that exist, and the upstream
// defaults are the settings' own.
func TestPerClientSettingsAreTheUpstreamsNames(t *testing.T) {
	if settings.KeyPerClientMaxInstances != upstream.SettingPerClientMaxInstances ||
		settings.KeyPerClientIdleSeconds != upstream.SettingPerClientIdle {
		t.Error("package upstream names other settings than backend/settings defines")
	}
	if settings.DefaultPerClientMaxInstances != upstream.DefaultPerClientMaxInstances ||
		time.Duration(settings.DefaultPerClientIdleSeconds)*time.Second != upstream.DefaultPerClientIdle {
		t.Error("the per-client defaults differ from the settings'")
	}
}

// The upstream message cap's error names a setting that exists, with the
// same default.
func TestUpstreamMessageCapIsTheSetting(t *testing.T) {
	if settings.KeyUpstreamMaxMessageMB != upstream.SettingMaxMessage {
		t.Error("package upstream names another setting than backend/settings defines")
	}
	if settings.DefaultUpstreamMaxMessageMB<<20 != upstream.DefaultMaxMessage {
		t.Error("the upstream message cap's default differs from the setting's")
	}
}
