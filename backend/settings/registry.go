package settings

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// The MCP Registry the Catalog browses (docs/registry.md) and its cap
// (docs/limits.md, "MCP Registry").
const (
	KeyRegistryURL   = "registryURL"   // base URL of the MCP Registry (v0 API)
	KeyRegistryMaxKB = "registryMaxKB" // bytes of one registry answer, in kilobytes
)

// Defaults of the registry settings.
const (
	DefaultRegistryURL   = "https://registry.modelcontextprotocol.io"
	DefaultRegistryMaxKB = 4096
)

func init() {
	defs = append(defs,
		Def{Key: KeyRegistryURL, Default: DefaultRegistryURL, Allowed: "an http or https URL (the registry's base, without /v0)",
			Help: "the MCP Registry that `registry search|show|install` and the Catalog page use (self-hosted registries and subregistries too)", check: checkRegistryURL},
		Def{Key: KeyRegistryMaxKB, Default: strconv.Itoa(DefaultRegistryMaxKB), Allowed: "a whole number of kilobytes from 16 to 65536",
			Help: "bytes of one answer of the MCP Registry the router reads before refusing it", check: intRange(16, 65536)},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

func checkRegistryURL(s string) (string, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "/")
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%w %q: want an http or https URL with a host, no query, fragment or user info", ErrInvalidValue, s)
	}
	return s, nil
}

// RegistryURL is the MCP Registry's base URL, without a trailing slash.
func (s *Settings) RegistryURL(ctx context.Context) string { return s.valid(ctx, KeyRegistryURL) }

// RegistryMaxBytes caps one answer of the registry.
func (s *Settings) RegistryMaxBytes(ctx context.Context) int64 {
	return int64(s.validInt(ctx, KeyRegistryMaxKB)) << 10
}
