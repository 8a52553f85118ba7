package spec

import (
	"errors"
	"strings"
	"testing"
)

func perClient(s Server) Server {
	s.Name, s.Isolation = "fs", PerClient
	s.Normalize()
	return s
}

// Client values reach only the places the definition names, in one pass,
// and a client cannot smuggle in what its owner did not intend: a value
// that looks like a template or a secret placeholder stays literal, a
// root is an absolute cleaned path (never an option), and a header
// cannot be split.
func TestExpandClient(t *testing.T) {
	tests := []struct {
		name    string
		def     Server
		v       ClientValues
		wantErr string
		check   func(t *testing.T, got Server)
	}{
		{name: "roots as args", def: perClient(Server{Command: "srv", Args: []string{"${client.roots}", "--first=${client.root}"}}),
			v: ClientValues{Roots: []string{"file:///a/b", "file:///c%20d"}},
			check: func(t *testing.T, got Server) {
				if strings.Join(got.Args, "|") != "/a/b|/c d|--first=/a/b" {
					t.Errorf("args %q", got.Args)
				}
			}},
		{name: "one pass", def: perClient(Server{Command: "srv", Args: []string{"${client.name}"}, Env: map[string]string{"T": "${token.name}"}}),
			v: ClientValues{Name: "${token.name}", Token: "${secret:KEY}"},
			check: func(t *testing.T, got Server) {
				if got.Args[0] != "${token.name}" || got.Env["T"] != "${secret:KEY}" {
					t.Errorf("args %q env %q", got.Args, got.Env)
				}
			}},
		{name: "secret entries untouched", def: perClient(Server{Command: "srv", Env: map[string]string{"KEY": "${secret:KEY}", "N": "${client.name}"}, SecretEnv: []string{"KEY"}}),
			v: ClientValues{Name: "x"},
			check: func(t *testing.T, got Server) {
				if got.Env["KEY"] != "${secret:KEY}" || got.Env["N"] != "x" {
					t.Errorf("env %q", got.Env)
				}
			}},
		{name: "dot-dot cleaned", def: perClient(Server{Command: "srv", Args: []string{"${client.root}"}}),
			v: ClientValues{Roots: []string{"file:///a/../../etc"}},
			check: func(t *testing.T, got Server) {
				if got.Args[0] != "/etc" {
					t.Errorf("args %q", got.Args)
				}
			}},
		{name: "relative root", def: perClient(Server{Command: "srv", Args: []string{"${client.root}"}}),
			v: ClientValues{Roots: []string{"file:-rf"}}, wantErr: "not an absolute path"},
		{name: "not a file root", def: perClient(Server{Command: "srv", Args: []string{"${client.root}"}}),
			v: ClientValues{Roots: []string{"https://example.com/x"}}, wantErr: "not a file:// URI"},
		{name: "remote host", def: perClient(Server{Command: "srv", Args: []string{"${client.root}"}}),
			v: ClientValues{Roots: []string{"file://evil/share"}}, wantErr: "names host"},
		{name: "no roots", def: perClient(Server{Command: "srv", Args: []string{"${client.root}"}}),
			v: ClientValues{}, wantErr: "gave none"},
		{name: "too many roots", def: perClient(Server{Command: "srv", Args: []string{"${client.roots}"}}),
			v: ClientValues{Roots: make([]string, MaxTemplateRoots+1)}, wantErr: "MaxTemplateRoots"},
		{name: "no token", def: perClient(Server{URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X-Who": "${token.name}"}}),
			v: ClientValues{Name: "n"}, wantErr: "${token.name} is missing"},
		{name: "header split", def: perClient(Server{URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X-Who": "${client.name}"}}),
			v: ClientValues{Name: "a\r\nX-Admin: 1"}, wantErr: "control character"},
		{name: "long name", def: perClient(Server{Command: "srv", Args: []string{"${client.name}"}}),
			v: ClientValues{Name: strings.Repeat("n", MaxTemplateNameBytes+1)}, wantErr: "MaxTemplateNameBytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.def.Validate(); err != nil {
				t.Fatalf("definition: %v", err)
			}
			got, err := ExpandClient(tc.def, tc.v)
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrTemplateValue) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
		})
	}
}

// Templates need a per-client server, and only go where they can be
// expanded per instance.
func TestValidateIsolation(t *testing.T) {
	bad := map[string]Server{
		"template on a shared server": {Name: "a", Command: "srv", Args: []string{"${client.root}"}},
		"template in the command":     {Name: "a", Command: "${client.name}", Isolation: PerClient},
		"template in the URL":         {Name: "a", URL: "http://h/${client.name}", Isolation: PerClient},
		"unknown isolation":           {Name: "a", Command: "srv", Isolation: "per-user"},
		"built-in per client":         {Name: "state_gate", Transport: Builtin, Isolation: PerClient},
	}
	for what, s := range bad {
		s.Normalize()
		if err := s.Validate(); err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", what, err)
		}
	}
	ok := Server{Name: "a", Command: "srv", Args: []string{"${client.root}"}, Isolation: PerClient}
	ok.Normalize()
	if err := ok.Validate(); err != nil {
		t.Error(err)
	}
}
