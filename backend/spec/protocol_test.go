package spec

import (
	"errors"
	"strings"
	"testing"
)

// The protocol setting: auto (stored ""), 2025-11-25 or 2026-07-28, and
// 2026-07-28 only where the router can speak it.
func TestProtocolSetting(t *testing.T) {
	for _, tc := range []struct {
		s    Server
		want string // "" valid, else part of the error
	}{
		{Server{Name: "a", Command: "x", Protocol: "auto"}, ""},
		{Server{Name: "a", Command: "x", Protocol: Protocol20260728}, ""},
		{Server{Name: "a", Command: "x", Protocol: Protocol20251125}, ""},
		{Server{Name: "a", URL: "https://h/mcp", Protocol: Protocol20260728}, ""},
		{Server{Name: "a", Transport: SSE, URL: "https://h/sse", Protocol: Protocol20251125}, ""},
		{Server{Name: "a", Transport: SSE, URL: "https://h/sse", Protocol: Protocol20260728}, "sse transport has no 2026-07-28"},
		{Server{Name: "state_gate", Transport: Builtin, Protocol: Protocol20251125}, "built-in server takes no protocol"},
		{Server{Name: "a", Command: "x", Protocol: "2024-11-05"}, `protocol "2024-11-05" must be auto, 2025-11-25 or 2026-07-28`},
		{Server{Name: "a", Command: "x", Protocol: "latest"}, "must be auto"},
	} {
		tc.s.Normalize()
		err := tc.s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.s, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid)):
			t.Errorf("%s on %s: got %v, want %q", tc.s.Protocol, tc.s.Transport, err, tc.want)
		}
	}
	s := Server{Name: "a", Command: "x", Protocol: "auto"}
	s.Normalize()
	if s.Protocol != ProtocolAuto || s.Protocol.String() != "auto" {
		t.Fatalf("auto stored as %q", s.Protocol)
	}
	for _, v := range []string{"", "auto", "2025-11-25", "2026-07-28"} {
		if _, err := ParseProtocol(v); err != nil {
			t.Errorf("ParseProtocol(%q): %v", v, err)
		}
	}
	if _, err := ParseProtocol("2026-07-28\n"); err == nil {
		t.Error("ParseProtocol took a value with a newline")
	}
}
