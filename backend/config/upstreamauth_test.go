package config

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseUpstreamAuth(t *testing.T) {
	got, err := ParseUpstreamAuth([]string{"github=Bearer ghp_x=", " * = Basic dXNlcjpwYXNz== ", "jira=Bearer a=b"})
	want := map[string]string{"github": "Bearer ghp_x=", "*": "Basic dXNlcjpwYXNz==", "jira": "Bearer a=b"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	many := []string{"*=x"}
	for i := range MaxUpstreamAuthServers {
		many = append(many, "s"+strconv.Itoa(i)+"=v")
	}
	if _, err := ParseUpstreamAuth(many); err != nil {
		t.Errorf("%d servers and *: %v", MaxUpstreamAuthServers, err)
	}
	for _, tc := range []struct {
		name    string
		entries []string
		want    string
	}{
		{"no =", []string{"Bearer secret-value"}, "want SERVER=VALUE"},
		{"bad name", []string{"Bearer secret-value=x"}, "is not a server name"},
		{"twice", []string{"a=Bearer secret-value", "a=Bearer secret-value2"}, `server "a" is given twice`},
		{"empty", []string{"a= "}, "the value is empty"},
		{"too long", []string{"a=" + strings.Repeat("s", MaxUpstreamAuthValue+1)}, "longer than 8 KiB"},
		{"control", []string{"a=Bearer secret-value\x01"}, "control characters"},
		{"too many", append(many, "one-more=v"), "at most 32"},
	} {
		_, err := ParseUpstreamAuth(tc.entries)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "secret-value") && tc.name != "bad name" {
			t.Errorf("%s: the error repeats the value: %v", tc.name, err)
		}
	}
}

func TestUpstreamAuthEnvRoundTrip(t *testing.T) {
	m := map[string]string{"b": "Bearer 2", "*": "Bearer all", "a": "Basic x=="}
	env := FormatUpstreamAuthEnv(m)
	if env != "*=Bearer all\na=Basic x==\nb=Bearer 2" {
		t.Errorf("env %q", env)
	}
	got, err := ParseUpstreamAuth(SplitUpstreamAuthEnv("\n" + strings.ReplaceAll(env, "\n", "\r\n\n") + "\n"))
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Errorf("back: %v, %v", got, err)
	}
}

func TestUpstreamAuthHeader(t *testing.T) {
	h, err := UpstreamAuthHeader(map[string]string{"*": "Bearer all", "a": "Bearer \"a\"", "b": "Basic b"})
	if err != nil {
		t.Fatal(err)
	}
	if h.Get("X-Upstream-Authorization") != "Bearer all" || len(h) != 2 {
		t.Errorf("header %v", h)
	}
	var per map[string]string
	if err := json.Unmarshal([]byte(h.Get("X-Upstream-Authorization-For")), &per); err != nil ||
		!reflect.DeepEqual(per, map[string]string{"a": "Bearer \"a\"", "b": "Basic b"}) {
		t.Errorf("-For %q: %v", h.Get("X-Upstream-Authorization-For"), err)
	}
	if h, _ := UpstreamAuthHeader(nil); len(h) != 0 {
		t.Errorf("nothing: %v", h)
	}
	if h, _ := UpstreamAuthHeader(map[string]string{"*": "v"}); len(h) != 1 {
		t.Errorf("only *: %v", h)
	}
}

// A snippet with --upstream-auth carries it: $MCPR_UPSTREAM_AUTH in a stdio
// snippet, the headers in an http one, for the JSON clients and Codex.
func TestSnippetsWithUpstreamAuth(t *testing.T) {
	ua := map[string]string{"github": "Bearer ghp_1", "*": "Bearer all"}
	o := SnippetOptions{Token: testToken, BinaryPath: testBin, UpstreamAuth: ua}
	text, err := Snippet(ClientClaudeDesktop, ModeStdio, o)
	if err != nil {
		t.Fatal(err)
	}
	e := parseJSONSnippet(t, text, "mcpServers")
	if !reflect.DeepEqual(e.Env, map[string]string{TokenEnv: testToken, UpstreamAuthEnv: "*=Bearer all\ngithub=Bearer ghp_1"}) || e.Headers != nil {
		t.Errorf("stdio: %s", text)
	}
	text, err = Snippet(ClientCursor, ModeHTTP, o)
	if err != nil {
		t.Fatal(err)
	}
	e = parseJSONSnippet(t, text, "mcpServers")
	if !reflect.DeepEqual(e.Headers, map[string]string{"Authorization": "Bearer " + testToken,
		"X-Upstream-Authorization": "Bearer all", "X-Upstream-Authorization-For": `{"github":"Bearer ghp_1"}`}) || e.Env != nil {
		t.Errorf("http: %s", text)
	}
	text, err = Snippet(ClientCodex, ModeStdio, o)
	if err != nil {
		t.Fatal(err)
	}
	_, kv := parseTOML(t, text)
	if kv["env."+UpstreamAuthEnv] != "*=Bearer all\ngithub=Bearer ghp_1" || kv["env."+TokenEnv] != testToken {
		t.Errorf("codex stdio: %s → %v", text, kv)
	}
	text, err = Snippet(ClientCodex, ModeHTTP, SnippetOptions{UpstreamAuth: map[string]string{"github": "Bearer ghp_1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, kv := parseTOML(t, text); kv["http_headers.X-Upstream-Authorization-For"] != `{"github":"Bearer ghp_1"}` || len(kv) != 2 {
		t.Errorf("codex http: %s → %v", text, kv)
	}
}
