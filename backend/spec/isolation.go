package spec

import (
	"fmt"
	"strings"
)

// Isolation says whether a server's clients share one upstream instance
// (process or HTTP session) or each gets its own (docs/perclient.md).
type Isolation string

const (
	// Shared: one instance serves every client (the default).
	Shared Isolation = "shared"
	// PerClient: one instance per client identity, started on the client's
	// first use and stopped after an idle time or with its session.
	PerClient Isolation = "per-client"
)

// IsPerClient reports whether the server runs one instance per client.
func (s Server) IsPerClient() bool { return s.Isolation == PerClient }

// The client templates a per-client server's args, env and headers may use;
// each instance expands them with its own client's values (ExpandClient).
const (
	TemplateClientRoot  = "${client.root}"  // the path of the client's first root
	TemplateClientRoots = "${client.roots}" // every root's path (an arg of its own: one arg per root)
	TemplateClientName  = "${client.name}"  // the name the client gives in clientInfo
	TemplateTokenName   = "${token.name}"   // the name of the token the client uses
)

var clientTemplates = []string{TemplateClientRoot, TemplateClientRoots, TemplateClientName, TemplateTokenName}

// UsesClientTemplates reports whether any arg, env or header value names a
// client template.
func (s Server) UsesClientTemplates() bool {
	return s.usesTemplate(clientTemplates...)
}

// UsesRootTemplates reports whether a value names the client's roots, so
// that an instance must be started again when they change.
func (s Server) UsesRootTemplates() bool {
	return s.usesTemplate(TemplateClientRoot, TemplateClientRoots)
}

func (s Server) usesTemplate(names ...string) bool {
	has := func(v string) bool {
		for _, n := range names {
			if strings.Contains(v, n) {
				return true
			}
		}
		return false
	}
	for _, a := range s.Args {
		if has(a) {
			return true
		}
	}
	for _, v := range s.Env {
		if has(v) {
			return true
		}
	}
	for _, v := range s.Headers {
		if has(v) {
			return true
		}
	}
	return has(s.Command) || has(s.URL) || has(s.Cwd)
}

// validateIsolation checks the isolation value and that client templates
// appear only where they can be expanded.
func (s Server) validateIsolation() error {
	switch s.Isolation {
	case "", Shared, PerClient:
	default:
		return fmt.Errorf("isolation %q must be shared or per-client", s.Isolation)
	}
	if s.Isolation == PerClient && s.Transport == Builtin {
		return fmt.Errorf("a built-in server runs inside the router and cannot be per-client")
	}
	for _, v := range []string{s.Command, s.URL, s.Cwd} {
		for _, n := range clientTemplates {
			if strings.Contains(v, n) {
				return fmt.Errorf("%s may appear in args, env and headers only, not in the command, URL or working directory", n)
			}
		}
	}
	if s.Isolation != PerClient && s.UsesClientTemplates() {
		return fmt.Errorf("client templates (%s) need isolation per-client: a shared instance has no one client to take them from", strings.Join(clientTemplates, ", "))
	}
	return nil
}
