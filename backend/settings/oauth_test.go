package settings

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestOAuthSettingsValidate(t *testing.T) {
	cases := []struct {
		key, value, want string
		bad              bool
	}{
		{KeyOAuthIssuers, "", "", false},
		{KeyOAuthIssuers, "https://a.example, https://b.example/tenant", "https://a.example https://b.example/tenant", false},
		{KeyOAuthIssuers, "http://127.0.0.1:9000", "http://127.0.0.1:9000", false},
		{KeyOAuthIssuers, "http://localhost:9000", "http://localhost:9000", false},
		{KeyOAuthIssuers, "http://auth.example", "", true},      // plain http off loopback
		{KeyOAuthIssuers, "https://u:p@auth.example", "", true}, // credentials in the URL
		{KeyOAuthIssuers, "auth.example", "", true},
		{KeyOAuthIssuers, "https://a.example?x=1", "", true},
		{KeyPublicURL, "https://router.example/", "https://router.example", false},
		{KeyPublicURL, "https://router.example/mcp", "", true},
		{KeyPublicURL, "ftp://router.example", "", true},
		{KeyOAuthAudience, "https://router.example/mcp", "https://router.example/mcp", false},
		{KeyOAuthAudience, "router.example", "", true},
	}
	for _, c := range cases {
		got, err := Validate(c.key, c.value)
		if c.bad {
			if !errors.Is(err, ErrInvalidValue) {
				t.Errorf("Validate(%s, %q) = %q, %v; want ErrInvalidValue", c.key, c.value, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Validate(%s, %q) = %q, %v; want %q", c.key, c.value, got, err, c.want)
		}
	}
}

func TestOAuthAudienceFallbacks(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	if got := s.OAuthAudience(ctx); got != "http://127.0.0.1:3282/mcp" {
		t.Errorf("default audience = %q", got)
	}
	if err := s.Set(ctx, KeyPublicURL, "https://router.example"); err != nil {
		t.Fatal(err)
	}
	if got := s.OAuthAudience(ctx); got != "https://router.example/mcp" {
		t.Errorf("audience from publicURL = %q", got)
	}
	if err := s.Set(ctx, KeyOAuthAudience, "https://aud.example/mcp"); err != nil {
		t.Fatal(err)
	}
	if got := s.OAuthAudience(ctx); got != "https://aud.example/mcp" {
		t.Errorf("audience setting = %q", got)
	}
	if err := s.Set(ctx, KeyOAuthIssuers, "https://a.example,https://b.example"); err != nil {
		t.Fatal(err)
	}
	if got := s.OAuthIssuers(ctx); !reflect.DeepEqual(got, []string{"https://a.example", "https://b.example"}) {
		t.Errorf("issuers = %v", got)
	}
	// A bad value written behind the router's back reads as the default.
	if err := s.Set(ctx, KeyOAuthIssuers, "http://evil.example"); err == nil {
		t.Fatal("plain-http issuer accepted")
	}
	if got := s.OAuthIssuers(ctx); len(got) != 2 {
		t.Errorf("refused value changed the issuers: %v", got)
	}
}
