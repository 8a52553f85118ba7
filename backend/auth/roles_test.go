package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/store"
)

func TestCheckRoles(t *testing.T) {
	many := make([]string, MaxRoles+1)
	for i := range many {
		many[i] = fmt.Sprintf("r%d", i)
	}
	for _, tc := range []struct {
		name string
		in   []string
		want []string
		err  string // "" for none
	}{
		{"none", nil, nil, ""},
		{"trimmed, repeats dropped, order kept", []string{" reviewer", "maintainer", "reviewer "}, []string{"reviewer", "maintainer"}, ""},
		{"letters, digits, _ . -", []string{"Team.lead-2_x"}, []string{"Team.lead-2_x"}, ""},
		{"admin is reserved", []string{"reviewer", "admin"}, nil, `role "admin" is reserved: it is the role of admin tokens`},
		{"in any case", []string{"Admin"}, nil, `role "Admin" is reserved`},
		{"client is reserved", []string{"CLIENT"}, nil, `role "CLIENT" is reserved: every client token carries it already`},
		{"state_gate's token: form", []string{"token:lead-agent"}, nil, `bad role "token:lead-agent"`},
		{"state_gate's subject: form", []string{"subject:alice"}, nil, `bad role "subject:alice"`},
		{"state_gate's anyone", []string{"*"}, nil, `bad role "*"`},
		{"empty", []string{""}, nil, `bad role ""`},
		{"a space inside", []string{"code reviewer"}, nil, `bad role "code reviewer"`},
		{"65 characters", []string{strings.Repeat("r", 65)}, nil, "bad role"},
		{"64 characters", []string{strings.Repeat("r", 64)}, []string{strings.Repeat("r", 64)}, ""},
		{"over MaxRoles", many, nil, fmt.Sprintf("%d roles: a token carries at most %d (auth.MaxRoles)", MaxRoles+1, MaxRoles)},
		{"MaxRoles", many[:MaxRoles], many[:MaxRoles], ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckRoles(tc.in)
			if tc.err == "" {
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Errorf("CheckRoles(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, store.ErrInvalid) {
				t.Errorf("CheckRoles(%q) = %q, %v; want an ErrInvalid with %q", tc.in, got, err, tc.err)
			}
		})
	}
}

// A token's own roles reach its identity, change with SetRoles (the cache
// follows), and never make it an admin: the middleware still refuses a
// client token with roles on the admin surface. A role written into the
// database by hand that CheckRoles refuses never reaches the identity.
func TestTokenRolesReachTheIdentityOnly(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	secret, tok, err := s.CreateToken(ctx, NewToken{Name: "rev", Roles: []string{"reviewer", "reviewer", "qa"}})
	if err != nil || tok.Role != store.RoleClient || !reflect.DeepEqual(tok.Roles, []string{"reviewer", "qa"}) {
		t.Fatalf("CreateToken = %+v, %v", tok, err)
	}
	for range 2 { // the database, then the cache
		id, err := s.Verify(ctx, secret)
		if err != nil || !reflect.DeepEqual(id.Roles, []string{"reviewer", "qa"}) || id.Role != store.RoleClient || id.IsAdmin() {
			t.Fatalf("Verify = %+v, %v", id, err)
		}
	}
	if _, _, err := s.CreateToken(ctx, NewToken{Name: "sneaky", Roles: []string{"admin"}}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a client token with role admin: %v", err)
	}
	if _, err := s.Get(ctx, "sneaky"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused token was stored: %v", err)
	}

	if _, err := s.SetRoles(ctx, "rev", []string{"maintainer"}); err != nil {
		t.Fatal(err)
	}
	if id, _ := s.Verify(ctx, secret); !reflect.DeepEqual(id.Roles, []string{"maintainer"}) {
		t.Errorf("after SetRoles the identity has %v", id.Roles)
	}
	if _, err := s.SetRoles(ctx, "rev", []string{"client"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("SetRoles client: %v", err)
	}
	if _, err := s.SetRoles(ctx, "nobody", []string{"x"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetRoles of an unknown token: %v", err)
	}

	// The admin surface: a client token with roles is refused as any client token.
	ran := false
	h := s.RequireAdmin(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true }))
	req := httptest.NewRequest(http.MethodPost, "/ui/api/call/AddServersFromJSON", strings.NewReader(`[]`))
	req.Header.Set("Authorization", "Bearer "+secret)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || ran || !strings.Contains(rec.Body.String(), `token \"rev\" is a client token`) {
		t.Errorf("a client token with roles on the admin surface: HTTP %d %s (handler ran: %v)", rec.Code, rec.Body, ran)
	}

	// Written by hand: admin, a state_gate form, and one good role.
	if err := st.DB().Exec(`UPDATE tokens SET roles = '["admin","token:me","*","ok"]' WHERE name = 'rev'`).Error; err != nil {
		t.Fatal(err)
	}
	s.invalidate()
	if id, err := s.Verify(ctx, secret); err != nil || !reflect.DeepEqual(id.Roles, []string{"ok"}) || id.IsAdmin() {
		t.Errorf("hand-edited roles verify as %+v, %v", id, err)
	}

	if err := s.Revoke(ctx, "rev"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetRoles(ctx, "rev", []string{"x"}); !errors.Is(err, ErrAlreadyRevoked) {
		t.Errorf("SetRoles of a revoked token: %v", err)
	}
}

// A JWT's roles claim: an array of strings, of which the names a token
// could carry; admin and client never (a JWT caller is a client), and a
// claim of another shape is no roles rather than a refused token.
func TestJWTRoles(t *testing.T) {
	for _, tc := range []struct {
		claim string
		want  []string
	}{
		{``, nil},
		{`null`, nil},
		{`["reviewer","qa"]`, []string{"reviewer", "qa"}},
		{`["reviewer","admin","Client","token:x","*",""]`, []string{"reviewer"}},
		{`"reviewer"`, nil},
		{`{"reviewer":true}`, nil},
		{`["reviewer",7]`, nil},
	} {
		if got := jwtRoles([]byte(tc.claim)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("roles claim %s: %q, want %q", tc.claim, got, tc.want)
		}
	}
}
