package auth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/store"
)

func newService(t testing.TB) (*Service, *store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp-router.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s := New(st)
	t.Cleanup(func() { s.Close(); st.Close() })
	return s, st, path
}

func TestCreateVerifyRoundTrip(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	secret, tok, err := s.Create(ctx, "laptop", []string{"fs", "git"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, SecretPrefix) || len(secret) != SecretLen || !wellFormed(secret) {
		t.Errorf("secret %q is not mcpr_ + 43 base64url chars", secret)
	}
	if tok.Prefix != secret[:12] || tok.Hash != store.HashToken(secret) || tok.Name != "laptop" {
		t.Errorf("stored %+v", tok)
	}
	// The secret itself is nowhere in the database.
	var n int64
	if err := st.DB().Raw("SELECT count(*) FROM tokens WHERE hash = ? OR prefix = ? OR name = ?", secret, secret, secret).Scan(&n).Error; err != nil || n != 0 {
		t.Errorf("secret stored in clear (%d rows, %v)", n, err)
	}
	id, err := s.Verify(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if id.TokenName != "laptop" || !reflect.DeepEqual(id.Servers, []string{"fs", "git"}) {
		t.Errorf("identity %+v", id)
	}
	// Cached path gives the same answer.
	if id2, err := s.Verify(ctx, secret); err != nil || !reflect.DeepEqual(id, id2) {
		t.Errorf("second Verify: %+v %v", id2, err)
	}

	other, _, err := s.Create(ctx, "all-servers", nil)
	if err != nil {
		t.Fatal(err)
	}
	if other == secret {
		t.Fatal("two tokens share a secret")
	}
	if id, err := s.Verify(ctx, other); err != nil || id.TokenName != "all-servers" || len(id.Servers) != 0 || !id.Allows("anything") {
		t.Errorf("all-servers identity %+v %v", id, err)
	}
	toks, err := s.List(ctx)
	if err != nil || len(toks) != 2 || toks[0].Name != "all-servers" || toks[1].Name != "laptop" {
		t.Errorf("List = %+v %v", toks, err)
	}
}

func TestCreateRejects(t *testing.T) {
	s, _, _ := newService(t)
	ctx := context.Background()
	if _, _, err := s.Create(ctx, "taken", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Create(ctx, "taken", []string{"x"}); !errors.Is(err, store.ErrDuplicate) {
		t.Errorf("duplicate: %v", err)
	}
	good := []string{"a", "A1", "ci.bot", "my_token-2", strings.Repeat("x", 64)}
	bad := []string{"", "-lead", ".lead", "_lead", "has space", "slash/", "ü", strings.Repeat("x", 65), "new\nline"}
	for _, n := range good {
		if err := ValidName(n); err != nil {
			t.Errorf("ValidName(%q) = %v", n, err)
		}
	}
	for _, n := range bad {
		if _, _, err := s.Create(ctx, n, nil); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Create(%q) = %v, want ErrInvalid", n, err)
		}
	}
	if toks, _ := s.List(ctx); len(toks) != 1 {
		t.Errorf("bad names stored something: %d tokens", len(toks))
	}
}

func TestVerifyFailures(t *testing.T) {
	s, _, _ := newService(t)
	ctx := context.Background()
	secret, _, err := s.Create(ctx, "ci", nil)
	if err != nil {
		t.Fatal(err)
	}
	wrongButWellFormed := secret[:len(secret)-1] + map[bool]string{true: "B", false: "A"}[secret[len(secret)-1] == 'A']
	cases := []struct {
		name, secret string
		kind         error
		msg          string
	}{
		{"missing", "", ErrMissingToken, "missing bearer token"},
		{"garbage", "hello", ErrInvalidToken, "unknown token"},
		{"one char off", wrongButWellFormed, ErrInvalidToken, "unknown token"},
		{"prefix only", secret[:DisplayPrefixLen], ErrInvalidToken, "unknown token"},
		{"with trailing char", secret + "x", ErrInvalidToken, "unknown token"},
		{"the hash", store.HashToken(secret), ErrInvalidToken, "unknown token"},
	}
	for _, tc := range cases {
		for round := 0; round < 2; round++ { // second round hits the caches
			_, err := s.Verify(ctx, tc.secret)
			if !errors.Is(err, tc.kind) || !errors.Is(err, ErrUnauthorized) || err.Error() != tc.msg {
				t.Errorf("%s: %v, want %q wrapping %v", tc.name, err, tc.msg, tc.kind)
			}
		}
	}

	if err := s.Revoke(ctx, "ci"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Verify(ctx, secret)
	if !errors.Is(err, ErrRevokedToken) || !errors.Is(err, ErrUnauthorized) || err.Error() != `token "ci" was revoked` {
		t.Errorf("revoked: %v", err)
	}
	if err := s.Revoke(ctx, "ci"); !errors.Is(err, ErrAlreadyRevoked) || !strings.Contains(err.Error(), "already revoked") {
		t.Errorf("second revoke: %v", err)
	}
	if err := s.Revoke(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoke unknown: %v", err)
	}
}

// A token cached by a running router stops working soon after the CLI, with
// its own connection to the same file, revokes it.
func TestRevokeFromAnotherProcessIsSeen(t *testing.T) {
	s, _, path := newService(t)
	ctx := context.Background()
	secret, _, err := s.Create(ctx, "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(ctx, secret); err != nil {
		t.Fatal(err)
	}
	cli, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	cliAuth := New(cli)
	defer cliAuth.Close()
	if err := cliAuth.Revoke(ctx, "laptop"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		_, err := s.Verify(ctx, secret)
		if errors.Is(err, ErrRevokedToken) {
			t.Logf("revocation seen after %v", time.Since(start))
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(start) > 2*time.Second {
			t.Fatal("revoked token still accepted after 2s")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// A token created by the other process is accepted just as soon, even
	// though the secret was just looked up and found missing.
	fresh := "mcpr_" + strings.Repeat("A", SecretLen-len(SecretPrefix))
	if _, err := s.Verify(ctx, fresh); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("made-up token: %v", err)
	}
	if _, err := cli.Tokens().Create(ctx, store.Token{Name: "fresh", Hash: store.HashToken(fresh), Prefix: fresh[:12]}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	for {
		id, err := s.Verify(ctx, fresh)
		if err == nil && id.TokenName == "fresh" {
			break
		}
		if time.Since(start) > 2*time.Second {
			t.Fatalf("new token still rejected after 2s: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLastUsedIsRecordedInTheBackground(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	secret, _, err := s.Create(ctx, "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	lastUsed := func() *time.Time {
		s.wg.Wait()
		tok, err := st.Tokens().Get(ctx, "laptop")
		if err != nil {
			t.Fatal(err)
		}
		return tok.LastUsedAt
	}
	if lastUsed() != nil {
		t.Fatal("new token has a last-used time")
	}
	if _, err := s.Verify(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); got == nil || !got.Equal(clock) {
		t.Fatalf("last used = %v, want %v", got, clock)
	}
	// Within a minute: no new write.
	clock = clock.Add(30 * time.Second)
	if _, err := s.Verify(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); !got.Equal(clock.Add(-30 * time.Second)) {
		t.Errorf("touched again within a minute: %v", got)
	}
	clock = clock.Add(31 * time.Second)
	if _, err := s.Verify(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); !got.Equal(clock) {
		t.Errorf("last used = %v after a minute, want %v", got, clock)
	}
	// After Close, nothing is started that could outlive the store.
	s.Close()
	clock = clock.Add(time.Hour)
	if _, err := s.Verify(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); got.Equal(clock) {
		t.Error("touched after Close")
	}
}

func TestAllows(t *testing.T) {
	cases := []struct {
		id     Identity
		server string
		want   bool
	}{
		{Anonymous, "fs", true},
		{Identity{TokenName: "t"}, "fs", true},
		{Identity{TokenName: "t", Servers: []string{}}, "", true},
		{Identity{TokenName: "t", Servers: []string{"fs", "git"}}, "git", true},
		{Identity{TokenName: "t", Servers: []string{"fs", "git"}}, "github", false},
		{Identity{TokenName: "t", Servers: []string{"fs"}}, "FS", false},
		{Identity{TokenName: "t", Servers: []string{"fs"}}, "", false},
	}
	for _, tc := range cases {
		if got := tc.id.Allows(tc.server); got != tc.want {
			t.Errorf("%+v.Allows(%q) = %v", tc.id, tc.server, got)
		}
	}
	if !Anonymous.IsAnonymous() || Anonymous.Label() != "anonymous" || (Identity{TokenName: "x"}).Label() != "x" {
		t.Error("Anonymous labels")
	}
}

func TestBearerToken(t *testing.T) {
	cases := map[string]string{
		"Bearer abc":     "abc",
		"bearer abc":     "abc",
		"BEARER abc":     "abc",
		"  Bearer  abc ": "abc",
		"Basic abc":      "",
		"Bearer":         "",
		"Bearer ":        "",
		"abc":            "",
		"":               "",
		"Bearerabc":      "",
	}
	for in, want := range cases {
		got, ok := BearerToken(in)
		if got != want || ok != (want != "") {
			t.Errorf("BearerToken(%q) = %q, %v", in, got, ok)
		}
	}
}

type mwResult struct {
	code   int
	header http.Header
	body   string
	id     Identity
	hasID  bool
}

func serve(t testing.TB, s *Service, enabled func(context.Context) bool, authz []string) mwResult {
	t.Helper()
	var res mwResult
	h := s.Middleware(enabled, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res.id, res.hasID = IdentityFrom(r.Context())
		io.WriteString(w, "ok")
	}))
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
	for _, a := range authz {
		req.Header.Add("Authorization", a)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res.code, res.header, res.body = rec.Code, rec.Header(), rec.Body.String()
	return res
}

func TestMiddleware(t *testing.T) {
	s, _, _ := newService(t)
	ctx := context.Background()
	secret, _, err := s.Create(ctx, "editor", []string{"fs"})
	if err != nil {
		t.Fatal(err)
	}
	revokedSecret, _, err := s.Create(ctx, "old", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Revoke(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	on := func(context.Context) bool { return true }
	off := func(context.Context) bool { return false }

	for _, enabled := range []func(context.Context) bool{on, nil} {
		for _, scheme := range []string{"Bearer ", "bearer ", "BEARER "} {
			r := serve(t, s, enabled, []string{scheme + secret})
			if r.code != 200 || r.body != "ok" || !r.hasID || r.id.TokenName != "editor" || !reflect.DeepEqual(r.id.Servers, []string{"fs"}) || r.id.Role != store.RoleClient {
				t.Errorf("%q: %+v", scheme, r)
			}
		}
	}

	rejects := []struct {
		name  string
		authz []string
		msg   string
	}{
		{"no header", nil, "missing bearer token"},
		{"empty header", []string{""}, "missing bearer token"},
		{"basic auth", []string{"Basic dXNlcjpwYXNz"}, "missing bearer token: the Authorization header must be \"Bearer <token>\""},
		{"bare secret", []string{secret}, "missing bearer token: the Authorization header must be \"Bearer <token>\""},
		{"wrong token", []string{"Bearer mcpr_nope"}, "unknown token"},
		{"revoked", []string{"Bearer " + revokedSecret}, `token "old" was revoked`},
	}
	for _, tc := range rejects {
		r := serve(t, s, on, tc.authz)
		if r.code != http.StatusUnauthorized {
			t.Errorf("%s: status %d", tc.name, r.code)
		}
		if r.hasID || r.body == "ok" {
			t.Errorf("%s: handler ran", tc.name)
		}
		// RFC 6750 §3.1: error="invalid_token" only when a token was sent.
		wantChallenge := `Bearer realm="mcp-router"`
		if strings.HasPrefix(tc.msg, "unknown") || strings.HasPrefix(tc.msg, "token") {
			wantChallenge += `, error="invalid_token", error_description="` + strings.ReplaceAll(tc.msg, `"`, "'") + `"`
		}
		if got := r.header.Get("WWW-Authenticate"); got != wantChallenge {
			t.Errorf("%s: WWW-Authenticate %q, want %q", tc.name, got, wantChallenge)
		}
		if got := r.header.Get("Content-Type"); got != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.name, got)
		}
		var body map[string]string
		if err := json.Unmarshal([]byte(r.body), &body); err != nil {
			t.Fatalf("%s: body %q: %v", tc.name, r.body, err)
		}
		want := map[string]string{"error": tc.msg, "hint": "create a token with: mcp-router tokens create NAME"}
		if !reflect.DeepEqual(body, want) {
			t.Errorf("%s: body %v, want %v", tc.name, body, want)
		}
	}

	// Auth off: anyone is Anonymous, even with a bad or revoked token.
	for _, authz := range [][]string{nil, {"Bearer mcpr_nope"}, {"Bearer " + revokedSecret}} {
		r := serve(t, s, off, authz)
		if r.code != 200 || !r.hasID || !r.id.IsAnonymous() || !r.id.Allows("anything") {
			t.Errorf("auth off, %v: %+v", authz, r)
		}
	}
}

// TestRoles: Create makes client tokens, CreateAdmin admin tokens; Verify
// carries the role; HasAdmin sees only unrevoked admin tokens.
func TestRoles(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	if has, err := s.HasAdmin(ctx); err != nil || has {
		t.Fatalf("HasAdmin on an empty store = %v, %v", has, err)
	}
	client, tok, err := s.Create(ctx, "cursor", nil)
	if err != nil || tok.Role != store.RoleClient {
		t.Fatalf("Create = %+v, %v", tok, err)
	}
	if has, _ := s.HasAdmin(ctx); has {
		t.Error("a client token counts as an admin token")
	}
	admin, tok, err := s.CreateAdmin(ctx, "me")
	if err != nil || tok.Role != store.RoleAdmin || len(tok.Servers) != 0 {
		t.Fatalf("CreateAdmin = %+v, %v", tok, err)
	}
	if _, _, err := s.CreateAdmin(ctx, "cursor"); !errors.Is(err, store.ErrDuplicate) {
		t.Errorf("CreateAdmin on a taken name: %v", err)
	}
	if _, _, err := s.CreateAdmin(ctx, "bad name"); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("CreateAdmin with a bad name: %v", err)
	}
	for _, tc := range []struct {
		secret string
		role   store.Role
		admin  bool
	}{{client, store.RoleClient, false}, {admin, store.RoleAdmin, true}} {
		for range 2 { // the database, then the cache
			id, err := s.Verify(ctx, tc.secret)
			if err != nil || id.Role != tc.role || id.IsAdmin() != tc.admin {
				t.Errorf("Verify = %+v (admin %v), %v; want role %s", id, id.IsAdmin(), err, tc.role)
			}
		}
	}
	if Anonymous.IsAdmin() || (Identity{Role: store.RoleAdmin}).IsAdmin() {
		t.Error("an identity without a token is an admin")
	}
	if has, err := s.HasAdmin(ctx); err != nil || !has {
		t.Errorf("HasAdmin after CreateAdmin = %v, %v", has, err)
	}
	if err := s.Revoke(ctx, "me"); err != nil {
		t.Fatal(err)
	}
	if has, _ := s.HasAdmin(ctx); has {
		t.Error("a revoked admin token still counts")
	}
	// A row whose role is neither (written by hand) is a client.
	if err := st.DB().Exec("UPDATE tokens SET role = 'root' WHERE name = 'cursor'").Error; err != nil {
		t.Fatal(err)
	}
	s.invalidate()
	if id, err := s.Verify(ctx, client); err != nil || id.Role != store.RoleClient || id.IsAdmin() {
		t.Errorf("unknown role verifies as %+v, %v", id, err)
	}
}

func TestRequireAdmin(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	admin, _, err := s.CreateAdmin(ctx, "me")
	if err != nil {
		t.Fatal(err)
	}
	client, _, err := s.Create(ctx, "claude-code", nil)
	if err != nil {
		t.Fatal(err)
	}
	scoped, _, err := s.Create(ctx, "ci", []string{"fs"})
	if err != nil {
		t.Fatal(err)
	}
	revoked, _, err := s.CreateAdmin(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Revoke(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	// An admin row limited to servers cannot be made through the store;
	// written by hand it is still refused.
	handScoped, _, err := s.CreateAdmin(ctx, "hand")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DB().Exec(`UPDATE tokens SET servers = '["fs"]' WHERE name = 'hand'`).Error; err != nil {
		t.Fatal(err)
	}
	s.invalidate()

	do := func(authz string) (int, map[string]string, Identity, bool) {
		var id Identity
		var ran bool
		h := s.RequireAdmin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, ran = IdentityFrom(r.Context())
			io.WriteString(w, "ok")
		}))
		req := httptest.NewRequest(http.MethodPost, "/ui/api/call/AddServersFromJSON", strings.NewReader(`[]`))
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var body map[string]string
		if rec.Body.String() != "ok" {
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", rec.Body.String(), err)
			}
		}
		return rec.Code, body, id, ran
	}
	if code, _, id, ran := do("Bearer " + admin); code != 200 || !ran || id.TokenName != "me" || !id.IsAdmin() {
		t.Errorf("admin token: %d ran=%v %+v", code, ran, id)
	}
	for _, tc := range []struct {
		name, authz string
		code        int
		msg         string
	}{
		{"no token", "", 401, "missing bearer token"},
		{"unknown token", "Bearer mcpr_nope", 401, "unknown token"},
		{"revoked admin", "Bearer " + revoked, 401, `token "old" was revoked`},
		{"client token", "Bearer " + client, 403, `token "claude-code" is a client token: it reaches the MCP endpoint (/mcp, /sse) only; the browser UI and its API need an admin token`},
		{"scoped client token", "Bearer " + scoped, 403, `token "ci" is a client token`},
		{"admin row limited to servers", "Bearer " + handScoped, 403, `token "hand" is limited to fs; an admin token manages every server`},
	} {
		code, body, _, ran := do(tc.authz)
		if ran || code != tc.code {
			t.Errorf("%s: %d, handler ran %v", tc.name, code, ran)
		}
		if !strings.HasPrefix(body["error"], tc.msg) || body["hint"] != AdminHint {
			t.Errorf("%s: body %v, want error %q… and hint %q", tc.name, body, tc.msg, AdminHint)
		}
	}
	if err := NotAdminError(Identity{TokenName: "x", Role: store.RoleClient}); !errors.Is(err, ErrNotAdmin) {
		t.Errorf("NotAdminError does not wrap ErrNotAdmin: %v", err)
	}
}

func TestMiddlewareStoreFailureIsNot401(t *testing.T) {
	s, st, _ := newService(t)
	st.Close()
	r := serve(t, s, nil, []string{"Bearer mcpr_" + strings.Repeat("A", SecretLen-len(SecretPrefix))})
	if r.code != http.StatusInternalServerError || r.hasID {
		t.Errorf("closed store: %+v", r)
	}
}

// Arbitrary Authorization headers never panic and never authenticate.
func FuzzVerify(f *testing.F) {
	s, _, _ := newService(f)
	ctx := context.Background()
	secret, _, err := s.Create(ctx, "real", nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"", "Bearer", "Bearer ", "Bearer mcpr_", "bearer " + secret[:len(secret)-1], "Basic Zm9vOmJhcg==",
		"Bearer " + secret + "\x00", "Bearer " + strings.ToUpper(secret), "Bearer mcpr_" + strings.Repeat("\xff", 43), secret,
		"Bearer " + store.HashToken(secret), "Bearer\t" + secret} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		if id, err := s.Verify(ctx, header); err == nil || id.TokenName != "" {
			if header != secret {
				t.Fatalf("Verify(%q) authenticated as %+v", header, id)
			}
		}
		tok, _ := BearerToken(header)
		if tok == secret {
			return // the one header that should work
		}
		r := serve(t, s, func(context.Context) bool { return true }, []string{header})
		if r.code != http.StatusUnauthorized || r.hasID {
			t.Fatalf("header %q: status %d, identity %v", header, r.code, r.hasID)
		}
	})
}

// BenchmarkVerify shows what the cache saves on the request path.
func BenchmarkVerify(b *testing.B) {
	s, st, _ := newService(b)
	ctx := context.Background()
	secret, _, err := s.Create(ctx, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Verify(ctx, secret); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("store-lookup", func(b *testing.B) {
		hash := store.HashToken(secret)
		for b.Loop() {
			if _, err := st.Tokens().Lookup(ctx, hash); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A scope changed or a token deleted by another process (the CLI) applies
// to the running router's next requests within a second; a deleted name
// can be used again.
func TestSetServersAndDeleteFromAnotherProcess(t *testing.T) {
	s, _, path := newService(t)
	ctx := context.Background()
	secret, _, err := s.Create(ctx, "laptop", []string{"fs"})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := s.Verify(ctx, secret); err != nil || !reflect.DeepEqual(id.Servers, []string{"fs"}) {
		t.Fatalf("before: %+v %v", id, err)
	}
	cli, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	cliAuth := New(cli)
	defer cliAuth.Close()

	tok, err := cliAuth.SetServers(ctx, "laptop", []string{"git", "web"})
	if err != nil || !reflect.DeepEqual(tok.Servers, []string{"git", "web"}) {
		t.Fatalf("SetServers: %+v %v", tok, err)
	}
	waitFor := func(what string, ok func(Identity, error) bool) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		for {
			id, err := s.Verify(ctx, secret)
			if ok(id, err) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still %+v, %v after 2 s", what, id, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("the new scope", func(id Identity, err error) bool {
		return err == nil && id.Allows("git") && id.Allows("web") && !id.Allows("fs")
	})
	if _, err := cliAuth.SetServers(ctx, "laptop", nil); err != nil {
		t.Fatal(err)
	}
	waitFor("every server", func(id Identity, err error) bool { return err == nil && id.Allows("fs") && len(id.Servers) == 0 })

	if err := cliAuth.Delete(ctx, "laptop"); err != nil {
		t.Fatal(err)
	}
	waitFor("the deletion", func(_ Identity, err error) bool { return errors.Is(err, ErrInvalidToken) })
	if _, _, err := s.Create(ctx, "laptop", nil); err != nil {
		t.Errorf("the deleted token's name is still taken: %v", err)
	}

	for name, err := range map[string]error{
		"delete unknown": cliAuth.Delete(ctx, "nope"),
		"scope unknown":  func() error { _, err := cliAuth.SetServers(ctx, "nope", nil); return err }(),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: %v, want not found", name, err)
		}
	}
	if err := s.Revoke(ctx, "laptop"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetServers(ctx, "laptop", []string{"fs"}); !errors.Is(err, ErrAlreadyRevoked) {
		t.Errorf("scope of a revoked token: %v", err)
	}
	// An admin token reaches every server: it cannot be narrowed (only left
	// as it is), and it stays whole.
	admin, _, err := s.CreateAdmin(ctx, "me")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetServers(ctx, "me", []string{"fs"}); !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "admin token") {
		t.Errorf("narrowing an admin token: %v", err)
	}
	if id, err := s.Verify(ctx, admin); err != nil || !id.IsAdmin() || len(id.Servers) != 0 {
		t.Errorf("the admin token after the refused narrowing: %+v %v", id, err)
	}
	if _, err := s.SetServers(ctx, "me", nil); err != nil {
		t.Errorf("all servers for an admin token: %v", err)
	}
}
