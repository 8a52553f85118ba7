package spec

import "fmt"

// Protocol is the MCP revision the router's own connection to a server
// uses (docs/endpoint.md, "Protocol revisions"); "" is auto.
type Protocol string

const (
	// ProtocolAuto: HTTP servers whose server/discover names 2026-07-28
	// are used on it, every other server on the 2025-11-25 handshake.
	ProtocolAuto Protocol = ""
	// Protocol20251125 pins the 2025-11-25 handshake (no server/discover
	// probe), e.g. for an HTTP server whose mid-call questions fail on
	// 2026-07-28.
	Protocol20251125 Protocol = "2025-11-25"
	// Protocol20260728 requires 2026-07-28: the connect asks
	// server/discover first and fails when the server does not name it.
	// For stdio this is the only way onto that revision (auto never probes
	// a pipe).
	Protocol20260728 Protocol = "2026-07-28"
)

// ProtocolChoices are the values the protocol setting takes, as a user
// writes them ("auto" is stored as "").
var ProtocolChoices = []string{"auto", string(Protocol20251125), string(Protocol20260728)}

// ParseProtocol reads a protocol setting as a user writes it: auto (or
// empty), 2025-11-25 or 2026-07-28.
func ParseProtocol(v string) (Protocol, error) {
	switch v {
	case "", "auto":
		return ProtocolAuto, nil
	case string(Protocol20251125), string(Protocol20260728):
		return Protocol(v), nil
	}
	return "", fmt.Errorf("%w: protocol %q must be auto, 2025-11-25 or 2026-07-28", ErrInvalid, v)
}

// String is the setting as shown: "auto" for "".
func (p Protocol) String() string {
	if p == ProtocolAuto {
		return "auto"
	}
	return string(p)
}

// validateProtocol: a known value, and 2026-07-28 only where the router
// can speak it (stdio, and HTTP on its own transport); builtins run in the
// router and take none.
func (s Server) validateProtocol() error {
	switch s.Protocol {
	case ProtocolAuto:
		return nil
	case Protocol20251125, Protocol20260728:
	default:
		return fmt.Errorf("protocol %q must be auto, 2025-11-25 or 2026-07-28", string(s.Protocol))
	}
	switch {
	case s.Transport == Builtin:
		return fmt.Errorf("a built-in server takes no protocol setting")
	case s.Protocol == Protocol20260728 && s.Transport == SSE:
		return fmt.Errorf("protocol 2026-07-28 is for stdio and http servers (the sse transport has no 2026-07-28)")
	}
	return nil
}
