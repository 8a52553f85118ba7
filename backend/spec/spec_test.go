package spec

import (
	"errors"
	"os"
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
		if tc.in.Transport != tc.want || tc.in.PrefixMode != PrefixAlways || tc.in.TimeoutSeconds != 0 {
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
		{"gate", Server{Name: "a", Command: "x", Gate: Gate{Enabled: true, Message: "m", InitTool: "t",
			InitArgs: []byte(`{"a":1}`), InitArgFiles: map[string]string{"code": "/abs/f.js"}}}, ""},
		{"gate args not an object", Server{Name: "a", Command: "x", Gate: Gate{InitTool: "t", InitArgs: []byte(`[1]`)}}, "JSON object"},
		{"gate args not JSON", Server{Name: "a", Command: "x", Gate: Gate{InitTool: "t", InitArgs: []byte(`{a`)}}, "JSON object"},
		{"gate args without tool", Server{Name: "a", Command: "x", Gate: Gate{InitArgs: []byte(`{}`)}}, "need an init tool"},
		{"gate file relative", Server{Name: "a", Command: "x", Gate: Gate{InitTool: "t", InitArgFiles: map[string]string{"k": "f.js"}}}, "absolute"},
		{"gate file no key", Server{Name: "a", Command: "x", Gate: Gate{InitTool: "t", InitArgFiles: map[string]string{"": "/f.js"}}}, "no argument name"},
		{"gate arg twice", Server{Name: "a", Command: "x", Gate: Gate{InitTool: "t", InitArgs: []byte(`{"k":1}`), InitArgFiles: map[string]string{"k": "/f.js"}}}, "both"},
		{"bad scheme", Server{Name: "a", URL: "ftp://h/x"}, "scheme"},
		{"no host", Server{Name: "a", URL: "http:///x"}, "no host"},
		{"unknown transport", Server{Name: "a", Transport: "ws", URL: "http://h"}, "unknown transport"},
		{"bad prefix", Server{Name: "a", Command: "x", PrefixMode: "some"}, "prefix mode"},
		{"negative timeout", Server{Name: "a", Command: "x", TimeoutSeconds: -1}, "timeout"},
		{"bad env name", Server{Name: "a", Command: "x", Env: map[string]string{"A=B": "1"}}, "environment variable"},
		{"bad header name", Server{Name: "a", URL: "http://h", Headers: map[string]string{"X Y": "1"}}, "header name"},
		{"header value with a line break", Server{Name: "a", URL: "http://h", Headers: map[string]string{"Authorization": "Bearer x\r\nX-Evil: 1"}}, "line break"},
		{"transport's own header", Server{Name: "a", URL: "http://h", Headers: map[string]string{"mcp-session-id": "s"}}, "header Mcp-Session-Id is set by the transport"},
		{"headers", Server{Name: "a", URL: "http://h", Headers: map[string]string{"Authorization": "Bearer x", "User-Agent": "me"}}, ""},
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

func TestGateInitArgumentsReadTheFileEachTime(t *testing.T) {
	path := t.TempDir() + "/init.js"
	g := Gate{InitTool: "run", InitArgs: []byte(`{"mode":"init"}`), InitArgFiles: map[string]string{"code": path}}
	if _, err := g.InitArguments(); err == nil || !strings.Contains(err.Error(), `"code"`) {
		t.Fatalf("missing file: err = %v, want one naming the argument", err)
	}
	for _, content := range []string{"first()", "second()"} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		args, err := g.InitArguments()
		if err != nil || args["code"] != content || args["mode"] != "init" {
			t.Fatalf("args = %v, %v; want code=%q", args, err, content)
		}
	}
}

func TestChatSettings(t *testing.T) {
	base := func(c Chat) Server {
		s := Server{Name: "w", Command: "x", Chat: c}
		s.Normalize()
		return s
	}
	for _, tt := range []struct {
		c    Chat
		want string
	}{
		{Chat{SystemInstruction: "  be brief  ", ResponseInstruction: "cite", AutoContextTool: "search", Approve: ApproveAlways}, ""},
		{Chat{ApproveTools: []string{"delete_file"}}, ""},
		{Chat{Approve: "sometimes"}, `chat approval "sometimes"`},
		{Chat{AutoContextTool: "has space"}, "is not a tool name"},
		{Chat{ApproveTools: []string{""}}, "is not a tool name"},
		{Chat{ResponseInstruction: strings.Repeat("x", MaxInstructionBytes+1)}, "longer than"},
	} {
		s := base(tt.c)
		err := s.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: %v, want %q", tt.c, err, tt.want)
		}
	}
	s := base(Chat{SystemInstruction: "  be brief \n"})
	if s.Chat.SystemInstruction != "be brief" {
		t.Errorf("not trimmed: %q", s.Chat.SystemInstruction)
	}
	c := Chat{ApproveTools: []string{"rm"}}
	if !c.NeedsApproval("rm") || c.NeedsApproval("ls") || !(Chat{Approve: ApproveAlways}).NeedsApproval("ls") || (Chat{}).NeedsApproval("ls") {
		t.Error("NeedsApproval")
	}
	if !(Chat{}).IsZero() || c.IsZero() {
		t.Error("IsZero")
	}
}
