package store

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTokens(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Tokens()

		if got := HashToken("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
			t.Fatalf("HashToken = %s", got)
		}
		a, err := r.Create(ctx, Token{Name: "laptop", Hash: HashToken("s1"), Prefix: "mcpr_ab", Servers: []string{"fs", "git"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Create(ctx, Token{Name: "all", Hash: HashToken("s2"), Prefix: "mcpr_cd"}); err != nil {
			t.Fatal(err)
		}

		dups := []struct {
			name string
			tok  Token
		}{
			{"same name", Token{Name: "laptop", Hash: HashToken("s3")}},
			{"same hash", Token{Name: "other", Hash: HashToken("s1")}},
		}
		for _, d := range dups {
			if _, err := r.Create(ctx, d.tok); !errors.Is(err, ErrDuplicate) {
				t.Errorf("%s: %v, want ErrDuplicate", d.name, err)
			}
		}
		if _, err := r.Create(ctx, Token{Name: "x", Hash: "short"}); !errors.Is(err, ErrInvalid) {
			t.Errorf("bad hash: %v", err)
		}

		// Roles: empty is a client token; an admin token is never scoped; an
		// unknown role is refused. Nothing refused is stored.
		if a.Role != RoleClient {
			t.Errorf("default role = %q, want client", a.Role)
		}
		admin, err := r.Create(ctx, Token{Name: "root", Hash: HashToken("s4"), Role: RoleAdmin})
		if err != nil || admin.Role != RoleAdmin {
			t.Fatalf("create admin = %+v, %v", admin, err)
		}
		if got, _ := r.Get(ctx, "root"); got.Role != RoleAdmin {
			t.Errorf("admin read back as %q", got.Role)
		}
		for _, bad := range []struct {
			tok  Token
			want string
		}{
			{Token{Name: "scoped-admin", Hash: HashToken("s5"), Role: RoleAdmin, Servers: []string{"fs"}}, "cannot be limited"},
			{Token{Name: "owner", Hash: HashToken("s6"), Role: "owner"}, `role "owner": want client or admin`},
			{Token{Name: "upper", Hash: HashToken("s7"), Role: "Admin"}, `role "Admin"`},
		} {
			if _, err := r.Create(ctx, bad.tok); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("create %s: %v, want ErrInvalid with %q", bad.tok.Name, err, bad.want)
			}
			if _, err := r.Get(ctx, bad.tok.Name); !errors.Is(err, ErrNotFound) {
				t.Errorf("refused token %s was stored: %v", bad.tok.Name, err)
			}
		}
		if err := r.Delete(ctx, "root"); err != nil {
			t.Fatal(err)
		}

		got, err := r.Lookup(ctx, HashToken("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != a.ID || !reflect.DeepEqual(got.Servers, []string{"fs", "git"}) {
			t.Errorf("Lookup = %+v", got)
		}
		if _, err := r.Lookup(ctx, HashToken("nope")); !errors.Is(err, ErrNotFound) {
			t.Errorf("Lookup unknown: %v", err)
		}
		all, _ := r.Get(ctx, "all")
		if len(all.Servers) != 0 {
			t.Errorf("token without servers = %v", all.Servers)
		}

		used := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("X", 3600))
		if err := r.Touch(ctx, "laptop", used); err != nil {
			t.Fatal(err)
		}
		first := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
		if err := r.Revoke(ctx, "laptop", first); err != nil {
			t.Fatal(err)
		}
		if err := r.Revoke(ctx, "laptop", first.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		got, _ = r.Get(ctx, "laptop")
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) || got.RevokedAt == nil || !got.RevokedAt.Equal(first) {
			t.Errorf("after Touch/Revoke: used=%v revoked=%v", got.LastUsedAt, got.RevokedAt)
		}
		if err := r.Revoke(ctx, "ghost", first); !errors.Is(err, ErrNotFound) {
			t.Errorf("Revoke missing: %v", err)
		}

		list, _ := r.List(ctx)
		if len(list) != 2 || list[0].Name != "all" || list[1].Name != "laptop" {
			t.Errorf("List = %+v", list)
		}
		if err := r.Delete(ctx, "laptop"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Get(ctx, "laptop"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
	})
}

// A token's own roles (migration 0900): stored with the token, replaced
// whole, cleared to none, and revision-visible like every token change.
func TestTokenRoles(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Tokens()
		if _, err := r.Create(ctx, Token{Name: "rev", Hash: HashToken("s1"), Prefix: "mcpr_ab", Roles: []string{"reviewer"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Create(ctx, Token{Name: "plain", Hash: HashToken("s2"), Prefix: "mcpr_cd"}); err != nil {
			t.Fatal(err)
		}
		if got, err := r.Lookup(ctx, HashToken("s1")); err != nil || !reflect.DeepEqual(got.Roles, []string{"reviewer"}) {
			t.Fatalf("rev = %+v, %v", got, err)
		}
		if got, err := r.Get(ctx, "plain"); err != nil || got.Roles != nil {
			t.Fatalf("plain = %+v, %v", got, err)
		}
		before, err := s.Revision(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.SetRoles(ctx, "plain", []string{"maintainer", "reviewer"}); err != nil {
			t.Fatal(err)
		}
		if after, _ := s.Revision(ctx); after == before {
			t.Error("a change of roles did not move the configuration revision")
		}
		if got, _ := r.Get(ctx, "plain"); !reflect.DeepEqual(got.Roles, []string{"maintainer", "reviewer"}) {
			t.Errorf("after SetRoles: %+v", got.Roles)
		}
		if err := r.SetRoles(ctx, "rev", nil); err != nil {
			t.Fatal(err)
		}
		if got, _ := r.Get(ctx, "rev"); got.Roles != nil {
			t.Errorf("cleared roles read back as %#v", got.Roles)
		}
		if err := r.SetRoles(ctx, "nobody", []string{"x"}); !errors.Is(err, ErrNotFound) {
			t.Errorf("SetRoles of an unknown token: %v", err)
		}
	})
}
