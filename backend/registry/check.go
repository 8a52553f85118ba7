package registry

import (
	"fmt"
	"strings"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Caps of one entry the router accepts (docs/limits.md, "MCP Registry").
const (
	MaxPackages  = 32 // packages of one server
	MaxRemotes   = 32 // remotes of one server
	MaxInputs    = 64 // arguments, environment variables or headers of one package or remote
	MaxVariables = 32 // variables of one input or remote
)

// checkEntry refuses an entry outside the schema in the ways that matter to
// the router: a name or version a path or a command line could be steered
// by, or more parts than the caps.
func checkEntry(s Server) error {
	if !spec.ValidRegistryName(s.Name) {
		return fmt.Errorf("server name %q is not a registry name (namespace/name of letters, digits, '.', '-', '_')", clip(s.Name))
	}
	if !spec.ValidRegistryVersion(s.Version) {
		return fmt.Errorf("server %s: version %q is not a version", s.Name, clip(s.Version))
	}
	if len(s.Packages) > MaxPackages {
		return fmt.Errorf("server %s: %d packages, more than the cap of %d", s.Name, len(s.Packages), MaxPackages)
	}
	if len(s.Remotes) > MaxRemotes {
		return fmt.Errorf("server %s: %d remotes, more than the cap of %d", s.Name, len(s.Remotes), MaxRemotes)
	}
	for i, p := range s.Packages {
		n := len(p.RuntimeArguments) + len(p.PackageArguments) + len(p.EnvironmentVariables) + len(p.Transport.Headers)
		if n > MaxInputs {
			return fmt.Errorf("server %s: package %d has %d inputs, more than the cap of %d", s.Name, i+1, n, MaxInputs)
		}
	}
	for i, r := range s.Remotes {
		if n := len(r.Headers); n > MaxInputs {
			return fmt.Errorf("server %s: remote %d has %d headers, more than the cap of %d", s.Name, i+1, n, MaxInputs)
		}
		if len(r.Variables) > MaxVariables {
			return fmt.Errorf("server %s: remote %d has %d variables, more than the cap of %d", s.Name, i+1, len(r.Variables), MaxVariables)
		}
	}
	return nil
}

// Printable is s with control characters (a terminal's escape sequences)
// replaced, for showing text a registry gave.
func Printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' && r != '\n' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}
