package spec

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Secret env and header entries. A definition names them in SecretEnv and
// SecretHeaders; wherever the definition is written down (the database,
// `servers show`, the UI API, an export) such an entry's value is its
// placeholder, SecretPlaceholder(name), and the value itself is kept in the
// OS keychain, else the 0600 secrets file (backend/secrets). It is read only
// to start or connect the server.

// SecretKind says which map a secret entry is in.
type SecretKind string

const (
	KindEnv    SecretKind = "env"    // an environment variable of a stdio server
	KindHeader SecretKind = "header" // an HTTP header of an HTTP/SSE server
)

// SecretRef names one secret entry of one server.
type SecretRef struct {
	Server string     `json:"server"`
	Kind   SecretKind `json:"kind"`
	Name   string     `json:"name"`
}

func (r SecretRef) String() string {
	return fmt.Sprintf("secret %s %s of server %s", r.Kind, r.Name, r.Server)
}

const (
	placeholderOpen  = "${secret:"
	placeholderClose = "}"
)

// SecretPlaceholder is what stands for the value of the secret entry name:
// "${secret:NAME}". An import reads it back as "this entry is secret, and
// its value is needed".
func SecretPlaceholder(name string) string { return placeholderOpen + name + placeholderClose }

// IsSecretPlaceholder reports whether v is the placeholder of entry name.
func IsSecretPlaceholder(name, v string) bool { return v == SecretPlaceholder(name) }

// LooksLikePlaceholder reports whether v has a placeholder's shape, for
// whichever name.
func LooksLikePlaceholder(v string) bool {
	return strings.HasPrefix(v, placeholderOpen) && strings.HasSuffix(v, placeholderClose)
}

// secretNameRe matches the names suggested as secret: *_KEY, *_TOKEN,
// *_SECRET, *PASSWORD*, Authorization (and the like, any case). The UI's
// form pre-toggles the same names (frontend ServerDialog, looksSecret).
var secretNameRe = regexp.MustCompile(`(?i)(^|[_-])(KEY|TOKEN|SECRET)$|PASSWORD|PASSWD|^AUTHORIZATION$|^PROXY-AUTHORIZATION$|API[_-]?KEY|ACCESS[_-]?KEY|PRIVATE[_-]?KEY|CREDENTIALS?$`)

// LooksSecret reports whether an env or header name is one suggested as
// secret: the CLI hints at --secret-env for it and the UI's form turns the
// secret toggle on for it (the user can turn it off).
func LooksSecret(name string) bool { return secretNameRe.MatchString(name) }

// IsSecretEnv reports whether env entry k is secret.
func (s Server) IsSecretEnv(k string) bool { return slices.Contains(s.SecretEnv, k) }

// IsSecretHeader reports whether header k is secret.
func (s Server) IsSecretHeader(k string) bool { return slices.Contains(s.SecretHeaders, k) }

// SecretRefs lists the server's secret entries, env first, each sorted.
func (s Server) SecretRefs() []SecretRef {
	out := make([]SecretRef, 0, len(s.SecretEnv)+len(s.SecretHeaders))
	for _, k := range s.SecretEnv {
		out = append(out, SecretRef{Server: s.Name, Kind: KindEnv, Name: k})
	}
	for _, k := range s.SecretHeaders {
		out = append(out, SecretRef{Server: s.Name, Kind: KindHeader, Name: k})
	}
	return out
}

// Entries returns the map a kind of secret entry lives in.
func (s *Server) Entries(kind SecretKind) map[string]string {
	if kind == KindHeader {
		return s.Headers
	}
	return s.Env
}

// SetEntry sets one entry of the kind's map, making the map if needed.
func (s *Server) SetEntry(kind SecretKind, name, value string) {
	m := &s.Env
	if kind == KindHeader {
		m = &s.Headers
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[name] = value
}

// normalizeSecrets sorts the secret lists and drops repeats and empty
// lists, so equal definitions compare equal.
func (s *Server) normalizeSecrets() {
	tidy := func(names []string) []string {
		if len(names) == 0 {
			return nil
		}
		out := slices.Clone(names)
		sort.Strings(out)
		return slices.Compact(out)
	}
	s.SecretEnv, s.SecretHeaders = tidy(s.SecretEnv), tidy(s.SecretHeaders)
}

// validateSecrets checks the secret lists against the transport and the
// entry names' own rules.
func (s Server) validateSecrets() error {
	if len(s.SecretEnv) > 0 && s.Transport != Stdio {
		return fmt.Errorf("secret env is for stdio servers; an %s server takes secret headers", s.Transport)
	}
	if len(s.SecretHeaders) > 0 && s.Transport != HTTP && s.Transport != SSE {
		return fmt.Errorf("secret headers are for http and sse servers; a stdio server takes secret env")
	}
	for _, k := range s.SecretEnv {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("bad secret environment variable name %q", k)
		}
	}
	for _, k := range s.SecretHeaders {
		if err := CheckHeader(k, ""); err != nil {
			return fmt.Errorf("secret %v", err)
		}
	}
	return nil
}

// Seal is the definition as it may be written down: each secret entry holds
// its placeholder. It refuses a definition whose secret entry still holds
// a value (that value must go to the keychain first: backend/secrets
// ServerValues) and a plain entry holding a placeholder (a secret that was
// made plain without its value). The store seals every definition it
// writes, so no secret value reaches the database.
func (s *Server) Seal() error {
	// The maps may be the caller's: write into copies.
	s.Env, s.Headers = maps.Clone(s.Env), maps.Clone(s.Headers)
	for _, kind := range []SecretKind{KindEnv, KindHeader} {
		names := s.SecretEnv
		if kind == KindHeader {
			names = s.SecretHeaders
		}
		for _, k := range names {
			if v := s.Entries(kind)[k]; v != "" && !IsSecretPlaceholder(k, v) {
				return fmt.Errorf("%w: server %q: the value of secret %s %s must be kept in the keychain, not in the definition", ErrInvalid, s.Name, kind, k)
			}
			s.SetEntry(kind, k, SecretPlaceholder(k))
		}
		for k, v := range s.Entries(kind) {
			if LooksLikePlaceholder(v) && !slices.Contains(names, k) {
				return fmt.Errorf("%w: server %q: %s %s holds a secret's placeholder %s but is not secret: give its value", ErrInvalid, s.Name, kind, k, v)
			}
		}
	}
	return nil
}
