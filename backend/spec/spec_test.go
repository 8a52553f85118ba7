package spec

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeInfersTransportAndDefaults(t *testing.T) {
	cases := []struct {
		in   Server
		want Transport
	}{
		{Server{Name: "a", Command: "npx"}, Stdio},
		{Server{Name: "a", URL: "http://h/mcp"}, HTTP},
		{Server{Name: "a", URL: "http://h/sse", Transport: SSE}, SSE},
	}
	for _, tc := range cases {
		tc.in.Normalize()
		if tc.in.Transport != tc.want || tc.in.PrefixMode != PrefixAlways || tc.in.TimeoutSeconds != DefaultTimeoutSeconds {
			t.Errorf("normalized %+v", tc.in)
		}
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		s    Server
		want string // "" means valid
	}{
		{"stdio", Server{Name: "fs", Command: "npx"}, ""},
		{"http", Server{Name: "r", URL: "https://example.com/mcp"}, ""},
		{"empty name", Server{Command: "x"}, "server name"},
		{"name with space", Server{Name: "a b", Command: "x"}, "server name"},
		{"name with dot", Server{Name: "a.b", Command: "x"}, "server name"},
		{"name too long", Server{Name: strings.Repeat("a", 49), Command: "x"}, "server name"},
		{"nothing to run", Server{Name: "a"}, "needs a command"},
		{"stdio with url", Server{Name: "a", Transport: Stdio, Command: "x", URL: "http://h"}, "not a URL"},
		{"http with command", Server{Name: "a", Transport: HTTP, Command: "x", URL: "http://h"}, "not a command"},
		{"bad scheme", Server{Name: "a", URL: "ftp://h/x"}, "scheme"},
		{"no host", Server{Name: "a", URL: "http:///x"}, "no host"},
		{"unknown transport", Server{Name: "a", Transport: "ws", URL: "http://h"}, "unknown transport"},
		{"bad prefix", Server{Name: "a", Command: "x", PrefixMode: "some"}, "prefix mode"},
		{"negative timeout", Server{Name: "a", Command: "x", TimeoutSeconds: -1}, "timeout"},
		{"bad env name", Server{Name: "a", Command: "x", Env: map[string]string{"A=B": "1"}}, "environment variable"},
		{"bad header name", Server{Name: "a", URL: "http://h", Headers: map[string]string{"X Y": "1"}}, "header name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.Normalize()
			err := s.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want one mentioning %q wrapping ErrInvalid", err, tc.want)
			}
		})
	}
}

func TestTargetAndEnvList(t *testing.T) {
	s := Server{Name: "a", Command: "npx", Args: []string{"-y", "my pkg"}, Env: map[string]string{"B": "2", "A": "1"}}
	s.Normalize()
	if got := s.Target(); got != `npx -y "my pkg"` {
		t.Errorf("Target = %s", got)
	}
	if got := strings.Join(s.EnvList(), ","); got != "A=1,B=2" {
		t.Errorf("EnvList = %s", got)
	}
	if !s.ToolEnabled("x") {
		t.Error("tool should be enabled by default")
	}
	s.DisabledTools = []string{"x"}
	if s.ToolEnabled("x") {
		t.Error("disabled tool reported enabled")
	}
}
