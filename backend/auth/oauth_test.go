package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestMetadataURLs(t *testing.T) {
	cases := map[string][]string{
		"https://auth.example": {"https://auth.example/.well-known/oauth-authorization-server", "https://auth.example/.well-known/openid-configuration"},
		"https://auth.example/tenant/": {"https://auth.example/.well-known/oauth-authorization-server/tenant",
			"https://auth.example/.well-known/openid-configuration/tenant", "https://auth.example/tenant/.well-known/openid-configuration"},
	}
	for iss, want := range cases {
		if got := metadataURLs(iss); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v", iss, got)
		}
	}
}

// An issuer whose metadata names another issuer is not trusted (RFC 8414
// §3.3), and a failed discovery is not retried on every token.
func TestIssuerMetadataMustNameTheIssuer(t *testing.T) {
	var hits atomic.Int32
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(w, `{"issuer":"https://evil.example","jwks_uri":"%s/jwks"}`, srv.URL)
	})
	s, _, _ := newService(t)
	s.SetOAuth(func(context.Context) OAuthConfig {
		return OAuthConfig{Issuers: []string{srv.URL}, Audience: "http://127.0.0.1:3282/mcp"}
	})
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
		"iss": srv.URL, "sub": "x", "aud": "http://127.0.0.1:3282/mcp", "scope": "mcp:*",
		"exp": time.Now().Add(time.Hour).Unix(),
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, err := s.Verify(context.Background(), tok)
		if err == nil || !strings.Contains(err.Error(), `names issuer "https://evil.example"`) {
			t.Fatalf("Verify: %v", err)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("metadata fetched %d times for 3 tokens; want 1 (retry after %s)", n, discoveryRetry)
	}
	// Not an auth failure the client caused: the endpoint says it could not check.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	s.Middleware(nil, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("handler ran") })).ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "could not check the token") {
		t.Errorf("middleware: %d %s", rec.Code, rec.Body.String())
	}
}

// A JWT-shaped bearer with no issuers configured is an unknown token, and
// an HMAC-signed JWT claiming a configured issuer is refused.
func TestJWTWithoutIssuersOrWithHMAC(t *testing.T) {
	s, _, _ := newService(t)
	hs, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://a.example", "sub": "x"}).SignedString([]byte("k"))
	if _, err := s.Verify(context.Background(), hs); err != ErrInvalidToken {
		t.Errorf("no issuers: %v", err)
	}
	s.SetOAuth(func(context.Context) OAuthConfig { return OAuthConfig{Issuers: []string{"https://b.example"}} })
	if _, err := s.Verify(context.Background(), hs); err == nil || !strings.Contains(err.Error(), "is not accepted") {
		t.Errorf("unknown issuer: %v", err)
	}
}
