package spec

import (
	"fmt"
	"regexp"
	"strings"
)

// Source records where a server definition came from when it was installed
// from an MCP Registry (docs/registry.md): the registry's base URL, the
// server's name there and the version installed. `servers outdated` asks
// that registry for the latest version. The zero Source: added by hand.
type Source struct {
	Registry string `json:"registry,omitempty"`
	Name     string `json:"name,omitempty"`
	Version  string `json:"version,omitempty"`
}

// IsZero reports whether s records no source.
func (s Source) IsZero() bool { return s == Source{} }

// RegistryNameRe is the registry's server name pattern (server.schema.json,
// "name": reverse-DNS namespace, one '/', a name), which also keeps a name
// free of "..", spaces and shell metacharacters.
var RegistryNameRe = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

// MaxRegistryNameLen and MaxRegistryVersionLen are the schema's caps.
const (
	MaxRegistryNameLen    = 200
	MaxRegistryVersionLen = 255
)

// ValidRegistryName reports whether name can be a registry server name:
// the schema's pattern and length, and no "." or ".." path segment.
func ValidRegistryName(name string) bool {
	if len(name) < 3 || len(name) > MaxRegistryNameLen || !RegistryNameRe.MatchString(name) {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// ValidRegistryVersion reports whether v can be a version (a specific one,
// not a range: no spaces, no control characters, no '/').
func ValidRegistryVersion(v string) bool {
	if v == "" || len(v) > MaxRegistryVersionLen {
		return false
	}
	for _, r := range v {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`/\^~<>=*|&;$'"`+"`", r) {
			return false
		}
	}
	return true
}

func (s Source) validate() error {
	if s.IsZero() {
		return nil
	}
	if err := ValidateURL(s.Registry); err != nil {
		return fmt.Errorf("source registry: %v", err)
	}
	if !ValidRegistryName(s.Name) {
		return fmt.Errorf("source name %q is not a registry server name (namespace/name)", s.Name)
	}
	if !ValidRegistryVersion(s.Version) {
		return fmt.Errorf("source version %q is not a version", s.Version)
	}
	return nil
}
