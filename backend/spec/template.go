package spec

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode"
)

// Caps on the client values a per-client instance's templates take
// (docs/limits.md, "Per-client servers"). A client chooses them, so each is
// bounded before it reaches a command line, an environment or a header.
const (
	MaxTemplateRoots     = 64   // roots a client may give ${client.roots}
	MaxTemplateRootPath  = 4096 // bytes of one root's path
	MaxTemplateNameBytes = 256  // bytes of ${client.name} and ${token.name}
)

// ErrTemplateValue is wrapped by every error about a client's value for a
// template: missing, too long, or not usable where it would go.
var ErrTemplateValue = errors.New("client template")

// ClientValues are one client's values for the client templates.
type ClientValues struct {
	Name  string   // clientInfo.name
	Token string   // the token's name; "" when the client used none
	Roots []string // the client's roots as file:// URIs, in its order
}

// ExpandClient returns s with every client template in its args, env and
// headers replaced by v's values, in one pass (a value that itself looks
// like a template is not expanded again). An arg that is exactly
// ${client.roots} becomes one arg per root; elsewhere the paths are joined
// with the OS list separator. Secret entries are left alone: their values
// are placeholders, filled in later from the keychain. A template whose
// value is missing is an error naming the template and the server.
func ExpandClient(s Server, v ClientValues) (Server, error) {
	if !s.UsesClientTemplates() {
		return s, nil
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("server %q: %w: %s", s.Name, ErrTemplateValue, fmt.Sprintf(format, args...))
	}
	values := map[string]string{}
	var paths []string
	if s.UsesRootTemplates() {
		if len(v.Roots) == 0 {
			return s, bad("%s and %s name the client's roots, and this client gave none (it did not declare the roots capability, or listed no roots)", TemplateClientRoot, TemplateClientRoots)
		}
		if len(v.Roots) > MaxTemplateRoots {
			return s, bad("the client gave %d roots; at most %d reach %s (cap MaxTemplateRoots)", len(v.Roots), MaxTemplateRoots, TemplateClientRoots)
		}
		for _, r := range v.Roots {
			p, err := RootPath(r)
			if err != nil {
				return s, bad("%v", err)
			}
			paths = append(paths, p)
		}
		values[TemplateClientRoot] = paths[0]
		values[TemplateClientRoots] = strings.Join(paths, string(os.PathListSeparator))
	}
	for _, t := range []struct{ name, value, what string }{
		{TemplateClientName, v.Name, "the client gave no name in its clientInfo"},
		{TemplateTokenName, v.Token, "the client used no token (the router's auth is off, or the call came from inside the router)"},
	} {
		if !s.usesTemplate(t.name) {
			continue
		}
		if t.value == "" {
			return s, bad("%s is missing: %s", t.name, t.what)
		}
		if len(t.value) > MaxTemplateNameBytes {
			return s, bad("%s is %d bytes, over the cap of %d (MaxTemplateNameBytes)", t.name, len(t.value), MaxTemplateNameBytes)
		}
		if strings.IndexFunc(t.value, unicode.IsControl) >= 0 {
			return s, bad("%s holds a control character", t.name)
		}
		values[t.name] = t.value
	}
	var pairs []string
	for k, val := range values {
		pairs = append(pairs, k, val)
	}
	r := strings.NewReplacer(pairs...)

	out := s
	out.Args = nil
	for _, a := range s.Args {
		if a == TemplateClientRoots {
			out.Args = append(out.Args, paths...)
			continue
		}
		out.Args = append(out.Args, r.Replace(a))
	}
	expand := func(m map[string]string, secret []string) map[string]string {
		if m == nil {
			return nil
		}
		o := make(map[string]string, len(m))
		for k, val := range m {
			if slices.Contains(secret, k) {
				o[k] = val
				continue
			}
			o[k] = r.Replace(val)
		}
		return o
	}
	out.Env = expand(s.Env, s.SecretEnv)
	out.Headers = expand(s.Headers, s.SecretHeaders)
	for k, val := range out.Env {
		if strings.ContainsRune(val, 0) {
			return s, bad("env %s would hold a NUL byte", k)
		}
	}
	for k, val := range out.Headers {
		if err := CheckHeader(k, val); err != nil {
			return s, bad("header %s: %v", k, err)
		}
	}
	return out, nil
}

// RootPath is the local path of a file:// root URI: absolute and cleaned,
// so that it can never be taken for a command-line option.
func RootPath(uri string) (string, error) {
	if len(uri) > MaxTemplateRootPath {
		return "", fmt.Errorf("a root URI is %d bytes, over the cap of %d (MaxTemplateRootPath)", len(uri), MaxTemplateRootPath)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("root %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("root %q is not a file:// URI", uri)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("root %q names host %q; only local roots can be paths", uri, u.Host)
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	p = filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("root %q is not an absolute path", uri)
	}
	if strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("root %q holds a control character", uri)
	}
	return p, nil
}
