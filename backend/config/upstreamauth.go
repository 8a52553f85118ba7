package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// UpstreamAuthEnv is the environment variable `mcp-router connect` and
// `mcp-router stdio` read a client's upstream credentials from: one
// SERVER=VALUE a line (docs/auth.md).
const UpstreamAuthEnv = "MCPR_UPSTREAM_AUTH"

// UpstreamAuthAll, as SERVER, gives every server with passUpstreamAuth the
// value (the X-Upstream-Authorization header); a named server's own value
// wins over it.
const UpstreamAuthAll = "*"

// Bounds of a client's upstream credentials: how many servers it names
// (besides UpstreamAuthAll), and each value's length. They match the
// router's (upstream.MaxClientAuthorizationServers,
// upstream.MaxClientAuthorization).
const (
	MaxUpstreamAuthServers = 32
	MaxUpstreamAuthValue   = 8 << 10
)

// Header names the router reads a client's upstream credentials from (the
// same as backend/upstream's, which imports this package).
const (
	headerUpstreamAuth    = "X-Upstream-Authorization"
	headerUpstreamAuthFor = "X-Upstream-Authorization-For"
)

// ParseUpstreamAuth reads entries SERVER=VALUE (--upstream-auth, or the
// lines of $MCPR_UPSTREAM_AUTH) into values by server; SERVER is a server's
// name or UpstreamAuthAll. No value is ever repeated in an error: an entry
// without "=", a name that cannot be a server's, a server given twice, an
// empty value, one over MaxUpstreamAuthValue bytes or with control
// characters, more than MaxUpstreamAuthServers servers.
func ParseUpstreamAuth(entries []string) (map[string]string, error) {
	out := map[string]string{}
	for i, e := range entries {
		name, v, ok := strings.Cut(e, "=")
		name, v = strings.TrimSpace(name), strings.TrimSpace(v)
		if !ok {
			return nil, fmt.Errorf("upstream auth entry %d: want SERVER=VALUE (SERVER a server's name, or * for all)", i+1)
		}
		if name != UpstreamAuthAll && !spec.ValidName(name) {
			return nil, fmt.Errorf("upstream auth entry %d: %q is not a server name (or *)", i+1, name)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("upstream auth: server %q is given twice", name)
		}
		switch {
		case v == "":
			return nil, fmt.Errorf("upstream auth for %q: the value is empty", name)
		case len(v) > MaxUpstreamAuthValue:
			return nil, fmt.Errorf("upstream auth for %q: the value is longer than 8 KiB", name)
		case strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }):
			return nil, fmt.Errorf("upstream auth for %q: the value holds control characters", name)
		}
		out[name] = v
	}
	n := len(out)
	if _, ok := out[UpstreamAuthAll]; ok {
		n--
	}
	if n > MaxUpstreamAuthServers {
		return nil, fmt.Errorf("upstream auth names %d servers, at most %d", n, MaxUpstreamAuthServers)
	}
	return out, nil
}

// SplitUpstreamAuthEnv is the entries of $MCPR_UPSTREAM_AUTH: its lines,
// blank ones left out.
func SplitUpstreamAuthEnv(v string) []string {
	var out []string
	for l := range strings.Lines(v) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// FormatUpstreamAuthEnv writes m (ParseUpstreamAuth's) as the value of
// $MCPR_UPSTREAM_AUTH, servers in name order.
func FormatUpstreamAuthEnv(m map[string]string) string {
	var lines []string
	for _, k := range sortedKeys(m) {
		lines = append(lines, k+"="+m[k])
	}
	return strings.Join(lines, "\n")
}

// UpstreamAuthHeader is the request header that sends m
// (ParseUpstreamAuth's) to the router: X-Upstream-Authorization for
// UpstreamAuthAll, X-Upstream-Authorization-For (a JSON object) for the
// named servers. Empty for an empty m.
func UpstreamAuthHeader(m map[string]string) (http.Header, error) {
	h := http.Header{}
	per := map[string]string{}
	for k, v := range m {
		if k == UpstreamAuthAll {
			h.Set(headerUpstreamAuth, v)
		} else {
			per[k] = v
		}
	}
	if len(per) > 0 {
		b, err := json.Marshal(per)
		if err != nil {
			return nil, err
		}
		if len(b) > 64<<10 {
			return nil, errors.New("upstream auth: the values of all servers together are longer than 64 KiB")
		}
		h.Set(headerUpstreamAuthFor, string(b))
	}
	return h, nil
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
