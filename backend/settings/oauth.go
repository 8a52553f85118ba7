package settings

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"strings"
)

// The settings of the router as an OAuth 2.1 resource server (docs/auth.md).
const (
	// KeyOAuthIssuers lists the authorization servers whose JWT access
	// tokens the endpoint accepts besides mcpr_ tokens: issuer URLs
	// separated by spaces or commas; empty: none.
	KeyOAuthIssuers = "oauthIssuers"
	// KeyOAuthAudience is the audience (RFC 8707 resource) a JWT must be
	// issued for; empty: PublicURL + "/mcp".
	KeyOAuthAudience = "oauthAudience"
	// KeyPublicURL is the base URL clients reach the router at (behind a
	// proxy or tunnel), without a path: https://router.example.com; empty:
	// the endpoint's own address.
	KeyPublicURL = "publicURL"
)

func init() {
	defs = append(defs,
		Def{Key: KeyOAuthIssuers, Default: "", Allowed: "issuer URLs (https://…, or http:// on a loopback host) separated by spaces or commas, or empty",
			Help: "authorization servers whose JWT access tokens the endpoint accepts", check: checkIssuers},
		Def{Key: KeyOAuthAudience, Default: "", Allowed: "an absolute http(s) URL, or empty for <publicURL>/mcp",
			Help: "audience a JWT access token must carry (the router's resource URL)", check: checkURLOrEmpty(true)},
		Def{Key: KeyPublicURL, Default: "", Allowed: "an http(s) URL with no path, query or fragment, or empty for the endpoint's own address",
			Help: "base URL clients reach the router at (behind a proxy or tunnel)", check: checkURLOrEmpty(false)},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

func checkURLOrEmpty(pathOK bool) func(string) (string, error) {
	return func(s string) (string, error) {
		if s == "" {
			return "", nil
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(s, " \t\r\n") {
			return "", errors.New("not an http(s) URL")
		}
		if !pathOK && strings.Trim(u.Path, "/") != "" {
			return "", errors.New("has a path")
		}
		return strings.TrimRight(s, "/"), nil
	}
}

func checkIssuers(s string) (string, error) {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		u, err := url.Parse(f)
		if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return "", errors.New("not a URL")
		}
		switch {
		case u.Scheme == "https":
		case u.Scheme == "http" && isLoopbackHost(u.Hostname()):
		default:
			return "", errors.New("issuer must be https")
		}
		out = append(out, f)
	}
	return strings.Join(out, " "), nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	return h == "127.0.0.1" || h == "::1" || strings.HasPrefix(h, "127.")
}

// OAuthIssuers are the issuers whose JWT access tokens are accepted.
func (s *Settings) OAuthIssuers(ctx context.Context) []string {
	return strings.Fields(s.valid(ctx, KeyOAuthIssuers))
}

// PublicURL is the publicURL setting, "" when unset.
func (s *Settings) PublicURL(ctx context.Context) string { return s.valid(ctx, KeyPublicURL) }

// OAuthAudience is the audience a JWT must carry: the oauthAudience
// setting, else PublicURL + "/mcp", else EndpointURL.
func (s *Settings) OAuthAudience(ctx context.Context) string {
	if a := s.valid(ctx, KeyOAuthAudience); a != "" {
		return a
	}
	if p := s.PublicURL(ctx); p != "" {
		return p + "/mcp"
	}
	return s.EndpointURL(ctx)
}
