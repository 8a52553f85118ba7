package spec

import (
	"errors"
	"strings"
	"testing"
)

func TestLooksSecret(t *testing.T) {
	for _, n := range []string{"API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "CLIENT_SECRET", "DB_PASSWORD", "PASSWORD_FILE", "Authorization",
		"authorization", "X-Api-Key", "X-Auth-Token", "Proxy-Authorization", "OPENAI_APIKEY", "AWS_SECRET_ACCESS_KEY"} {
		if !LooksSecret(n) {
			t.Errorf("%s is not suggested as secret", n)
		}
	}
	for _, n := range []string{"DEBUG", "PATH", "HOME", "MONKEY", "TOKENIZER_MODE", "User-Agent", "X-Request-Id", "KEYBOARD"} {
		if LooksSecret(n) {
			t.Errorf("%s is suggested as secret", n)
		}
	}
}

func TestValidateSecrets(t *testing.T) {
	cases := []struct {
		name string
		s    Server
		want string
	}{
		{"env", Server{Name: "a", Command: "x", Env: map[string]string{"K": "v"}, SecretEnv: []string{"K"}}, ""},
		{"header", Server{Name: "a", URL: "http://h", SecretHeaders: []string{"Authorization"}}, ""},
		{"env on http", Server{Name: "a", URL: "http://h", SecretEnv: []string{"K"}}, "secret env is for stdio"},
		{"header on stdio", Server{Name: "a", Command: "x", SecretHeaders: []string{"X-Key"}}, "secret headers are for http"},
		{"bad env name", Server{Name: "a", Command: "x", SecretEnv: []string{"A=B"}}, "secret environment variable"},
		{"transport header", Server{Name: "a", URL: "http://h", SecretHeaders: []string{"Mcp-Session-Id"}}, "set by the transport"},
		{"builtin", Server{Name: "state_gate", Transport: Builtin, SecretEnv: []string{"K"}}, "built-in"},
		{"secret header value with a line break", Server{Name: "a", URL: "http://h", Headers: map[string]string{"X-Key": "a\r\nb"}, SecretHeaders: []string{"X-Key"}}, "line break"},
	}
	for _, tc := range cases {
		tc.s.Normalize()
		err := tc.s.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Seal writes the placeholder in place of a secret's value only when the
// value is not there: a definition still carrying one is refused, so no
// caller can store a secret value by mistake.
func TestSeal(t *testing.T) {
	s := Server{Name: "a", Command: "x", Env: map[string]string{"K": "", "D": "1"}, SecretEnv: []string{"K", "MISSING"}}
	env := s.Env
	if err := s.Seal(); err != nil {
		t.Fatal(err)
	}
	if s.Env["K"] != "${secret:K}" || s.Env["MISSING"] != "${secret:MISSING}" || s.Env["D"] != "1" {
		t.Fatalf("sealed %v", s.Env)
	}
	if env["K"] != "" {
		t.Fatal("Seal wrote into the caller's map")
	}
	for _, bad := range []Server{
		{Name: "a", Command: "x", Env: map[string]string{"K": "s3cret"}, SecretEnv: []string{"K"}},
		{Name: "a", URL: "http://h", Headers: map[string]string{"Authorization": "Bearer s3cret"}, SecretHeaders: []string{"Authorization"}},
		{Name: "a", Command: "x", Env: map[string]string{"K": "${secret:K}"}},
		{Name: "a", Command: "x", Env: map[string]string{"K": "${secret:OTHER}"}, SecretEnv: []string{"OTHER"}},
	} {
		if err := bad.Seal(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v sealed: %v", bad, err)
		} else if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the refusal shows the value: %v", err)
		}
	}
}
