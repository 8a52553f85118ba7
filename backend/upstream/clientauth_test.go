package upstream

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/config"
)

func TestParseClientAuthorizationFor(t *testing.T) {
	m, err := ParseClientAuthorizationFor([]string{`{"github":" Bearer g ","jira-2":"Basic j=="}`})
	if err != nil || len(m) != 2 || m["github"] != "Bearer g" || m["jira-2"] != "Basic j==" {
		t.Errorf("got %v, %v", m, err)
	}
	if m, err := ParseClientAuthorizationFor(nil); m != nil || err != nil {
		t.Errorf("none: %v, %v", m, err)
	}
	many := map[string]string{}
	for i := range MaxClientAuthorizationServers + 1 {
		many["s"+strconv.Itoa(i)] = "v"
	}
	tooMany, _ := json.Marshal(many)
	for _, tc := range []struct {
		name string
		vals []string
		want string
	}{
		{"twice", []string{`{"a":"secret-v"}`, `{"b":"secret-v"}`}, "given more than once"},
		{"not JSON", []string{"a Bearer secret-v"}, "must be a JSON object"},
		{"null", []string{"null"}, "must be a JSON object"},
		{"not strings", []string{`{"a":1}`}, "must be a JSON object"},
		{"bad name", []string{`{"a b":"secret-v"}`}, "is not a server name"},
		{"empty", []string{`{"a":" "}`}, `the value for "a" is empty`},
		{"control", []string{`{"a":"secret-v\u0001x"}`}, "control characters"},
		{"long value", []string{`{"a":"` + strings.Repeat("s", MaxClientAuthorization+1) + `"}`}, "longer than 8 KiB"},
		{"long header", []string{`{"a":"` + strings.Repeat("s", MaxClientAuthorizationFor) + `"}`}, "longer than 64 KiB"},
		{"too many", []string{string(tooMany)}, "at most 32"},
	} {
		_, err := ParseClientAuthorizationFor(tc.vals)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secret-v") {
			t.Errorf("%s: %v, want %q and no value", tc.name, err, tc.want)
		}
	}
}

// A server's own value wins over the value for all; a server named by
// neither gets nothing, as a context without any.
func TestClientAuthorizationPerServer(t *testing.T) {
	ctx := WithClientAuthorizations(context.Background(), ClientAuthorization{All: "Bearer all", PerServer: map[string]string{"a": "Bearer a"}})
	for server, want := range map[string]string{"a": "Bearer a", "b": "Bearer all", "A": "Bearer all"} {
		if v, ok := clientAuthorization(ctx, server); !ok || v != want {
			t.Errorf("%s: %q %v, want %q", server, v, ok, want)
		}
	}
	only := WithClientAuthorizations(context.Background(), ClientAuthorization{PerServer: map[string]string{"a": "Bearer a"}})
	if v, ok := clientAuthorization(only, "b"); ok {
		t.Errorf("b got %q", v)
	}
	if h := clientAuthHeaders("b")(only); h != nil {
		t.Errorf("headers for b: %v", h)
	}
	if h := clientAuthHeaders("a")(only); h["Authorization"] != "Bearer a" {
		t.Errorf("headers for a: %v", h)
	}
	if _, ok := clientAuthorization(context.Background(), "a"); ok {
		t.Error("a context without any")
	}
}

// The CLI's bounds (backend/config, which cannot import this package) are
// the router's.
func TestClientAuthorizationBoundsMatchTheCLI(t *testing.T) {
	if config.MaxUpstreamAuthServers != MaxClientAuthorizationServers || config.MaxUpstreamAuthValue != MaxClientAuthorization {
		t.Error("config's upstream auth bounds differ from the router's")
	}
}
