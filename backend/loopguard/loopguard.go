// Package loopguard keeps the router from becoming its own upstream. Check
// tells whether a server definition points at this very router — its own
// endpoint URL in any spelling that reaches it, or its own binary run as
// `connect` to that endpoint or as `stdio`/`serve` on its own data
// directory — so that `servers add`, `servers import`, the UI's add, edit and
// import, and the AddServer API can refuse it with one clear line.
//
// What a definition cannot show (a reverse proxy, a forwarded port, a
// wrapper script) is caught when the server is started: the router announces
// an instance id in its initialize result and package upstream refuses a
// server that answers with it (docs/endpoint.md).
package loopguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// ErrSelf is wrapped by every refusal, for errors.Is.
var ErrSelf = errors.New("points at this router")

// Error is a definition refused because it points at this router.
type Error struct {
	Server string // the definition's name
	Reason string // why it is this router, e.g. "http://localhost:3282/mcp is this router's own endpoint (127.0.0.1:3282)"
}

func (e *Error) Error() string {
	return fmt.Sprintf("server %q %v: %s; a router cannot be its own upstream", e.Server, ErrSelf, e.Reason)
}

func (e *Error) Is(target error) bool { return target == ErrSelf || target == spec.ErrInvalid }

// binaryName is the router's command name, without ".exe".
const binaryName = "mcp-router"

// envURL is the variable `mcp-router connect` reads its endpoint from when
// --url is not given (backend/cli/cmd_connect.go).
const envURL = "MCPR_URL"

// Self describes this router: where its endpoint listens, which binary it
// is and which data directory it serves. Zero fields are filled from the
// running process where that is possible (Executable, Getenv, Lookup).
type Self struct {
	// Listen are the host:port addresses the endpoint listens on: the
	// listen and port settings, and the bound address while it serves.
	Listen []string
	// DataDir is the router's data directory.
	DataDir string
	// Executable is this router's binary; "" means os.Executable.
	Executable string
	// Getenv reads the environment a stdio server inherits from the
	// router; nil means os.Getenv. A definition's own env comes first.
	Getenv func(string) string
	// Lookup resolves a host name to addresses; nil means the system
	// resolver with a 2 s limit. Names are looked up only when the URL's
	// port is one the router listens on.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Check returns an *Error (matching ErrSelf and spec.ErrInvalid) when def
// points at this router, nil otherwise.
func (s Self) Check(ctx context.Context, def spec.Server) error {
	if why := s.Reason(ctx, def); why != "" {
		return &Error{Server: def.Name, Reason: why}
	}
	return nil
}

// Refuse is Check for an import (config.ImportServers): the reason to skip
// a definition, "points at this router: …", or "" to import it.
func (s Self) Refuse(ctx context.Context) config.Refuse {
	return func(def spec.Server) string {
		if why := s.Reason(ctx, def); why != "" {
			return fmt.Sprintf("%v: %s", ErrSelf, why)
		}
		return ""
	}
}

// Reason says why def points at this router, or "" when it does not.
func (s Self) Reason(ctx context.Context, def spec.Server) string {
	if def.Command != "" {
		return s.commandReason(ctx, def)
	}
	if def.URL != "" {
		if ep, ok := s.endpointOf(ctx, def.URL); ok {
			return fmt.Sprintf("%s is this router's own endpoint (it listens on %s)", def.URL, ep)
		}
	}
	return ""
}

// endpointOf reports which of the router's listen addresses raw reaches.
func (s Self) endpointOf(ctx context.Context, raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", false
	}
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		default:
			return "", false
		}
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	var resolved []netip.Addr
	looked := false
	for _, l := range s.Listen {
		lh, lp, err := net.SplitHostPort(l)
		if err != nil || lp != port {
			continue
		}
		listen, err := netip.ParseAddr(lh)
		if err != nil {
			continue
		}
		listen = listen.WithZone("").Unmap()
		if reaches(host, listen) {
			return l, true
		}
		if _, err := netip.ParseAddr(host); err == nil || loopbackName(host) || host == "" {
			continue // an address literal or a loopback name: nothing to look up
		}
		if !looked {
			resolved, looked = s.lookup(ctx, host), true
		}
		for _, a := range resolved {
			if reaches(a.String(), listen) {
				return l, true
			}
		}
	}
	return "", false
}

// reaches reports whether a client connecting to host (a name or an
// address literal) reaches a socket listening on listen (same port). Every
// loopback spelling counts as the same place: 127.0.0.1, 127.x.y.z, ::1,
// ::ffff:127.0.0.1, localhost and *.localhost; 0.0.0.0 and :: reach the
// local machine too. A router listening on every interface is also reached
// through this machine's own addresses and host name.
func reaches(host string, listen netip.Addr) bool {
	local := loopbackName(host)
	var addr netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addr = a.WithZone("").Unmap()
		local = addr.IsLoopback() || addr.IsUnspecified()
	}
	switch {
	case listen.IsLoopback():
		return local
	case listen.IsUnspecified():
		return local || (addr.IsValid() && localAddr(addr)) || (!addr.IsValid() && hostName(host))
	default:
		return addr.IsValid() && addr == listen
	}
}

// loopbackName reports names that always mean this machine.
func loopbackName(host string) bool {
	switch host {
	case "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback":
		return true
	}
	return strings.HasSuffix(host, ".localhost") // RFC 6761
}

// localAddr reports whether a is one of this machine's interface addresses.
func localAddr(a netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, ia := range addrs {
		if p, err := netip.ParsePrefix(ia.String()); err == nil && p.Addr().WithZone("").Unmap() == a {
			return true
		}
	}
	return false
}

// hostName reports whether host is this machine's name.
func hostName(host string) bool {
	name, err := os.Hostname()
	if err != nil || name == "" {
		return false
	}
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	short, _, _ := strings.Cut(name, ".")
	return host == name || host == short
}

func (s Self) lookup(ctx context.Context, host string) []netip.Addr {
	if s.Lookup != nil {
		addrs, _ := s.Lookup(ctx, host)
		return addrs
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	return addrs
}

// commandReason checks a stdio definition: is it this router's binary (the
// same file, by path, by name on PATH or through a symlink; or any binary
// named mcp-router), run in a way that reaches this router?
func (s Self) commandReason(ctx context.Context, def spec.Server) string {
	if !s.isRouterBinary(def.Command) {
		return ""
	}
	getenv := s.childEnv(def)
	a := parseRouterArgs(def.Args)
	cmdline := strings.TrimSpace(def.Target())
	switch a.sub {
	case "connect":
		// Where connect goes: --url, else $MCPR_URL, else the settings of
		// its data directory, else the default endpoint.
		target := a.url
		if !a.urlSet {
			target = strings.TrimSpace(getenv(envURL))
		}
		if target == "" {
			dir, err := config.ResolveDataDirEnv(a.dataDir, getenv)
			switch {
			case err != nil:
				return ""
			case s.DataDir != "" && samePath(dir, s.DataDir):
				return fmt.Sprintf("%q is the stdio bridge to this router (it reads the endpoint from this router's data directory %s)", cmdline, s.DataDir)
			case exists(config.DBPath(dir)):
				return "" // another router's settings decide; checked when it starts
			}
			target = config.DefaultEndpointURL
		}
		if ep, ok := s.endpointOf(ctx, withScheme(target)); ok {
			return fmt.Sprintf("%q is the stdio bridge to this router's own endpoint (%s, where it listens on %s)", cmdline, target, ep)
		}
	case "stdio", "serve", "":
		if a.help {
			return ""
		}
		if s.sameDataDir(a.dataDir, getenv) {
			what := "this router again, on stdin/stdout,"
			switch a.sub {
			case "serve":
				what = "this router again, headless,"
			case "":
				what = "this router's desktop app again"
			}
			return fmt.Sprintf("%q runs %s on this router's own data directory %s", cmdline, what, s.DataDir)
		}
	}
	return ""
}

// withScheme turns a bare host:port (connect accepts only URLs, but be
// generous) into a URL.
func withScheme(raw string) string {
	if strings.Contains(raw, "://") {
		return raw
	}
	return "http://" + raw
}

// isRouterBinary finds command as the supervisor will (exec.LookPath) and
// reports whether it is this router's binary or any binary named mcp-router.
func (s Self) isRouterBinary(command string) bool {
	if routerName(command) {
		return true
	}
	path, err := exec.LookPath(command)
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && routerName(real) {
		return true
	}
	self := s.Executable
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return false
		}
	}
	a, err := os.Stat(path)
	if err != nil {
		return false
	}
	b, err := os.Stat(self)
	if err != nil {
		return false
	}
	return os.SameFile(a, b) // follows symlinks; hard links too
}

func routerName(path string) bool {
	base := filepath.Base(strings.ReplaceAll(path, `\`, "/"))
	if runtime.GOOS == "windows" || strings.HasSuffix(strings.ToLower(base), ".exe") {
		base = strings.TrimSuffix(strings.ToLower(base), ".exe")
	}
	return base == binaryName
}

// childEnv reads the environment the stdio server would get: its own env
// over the router's.
func (s Self) childEnv(def spec.Server) func(string) string {
	parent := s.Getenv
	if parent == nil {
		parent = os.Getenv
	}
	return func(k string) string {
		if v, ok := def.Env[k]; ok {
			return v
		}
		return parent(k)
	}
}

// sameDataDir reports whether a router started with --data-dir flag (or
// none) and getenv's environment would use this router's data directory.
func (s Self) sameDataDir(flag string, getenv func(string) string) bool {
	if s.DataDir == "" {
		return false
	}
	dir, err := config.ResolveDataDirEnv(flag, getenv)
	if err != nil {
		return false
	}
	return samePath(dir, s.DataDir)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// routerArgs is what matters of an mcp-router command line.
type routerArgs struct {
	sub     string // the subcommand; "" for the bare command (the desktop app)
	dataDir string
	url     string
	urlSet  bool
	help    bool // --help or -h: prints and exits
}

// valueFlags are the router's flags that take a value (cobra accepts
// "--flag value" and "--flag=value", before or after the subcommand).
var valueFlags = map[string]bool{"--data-dir": true, "--log-level": true, "--url": true, "--token": true, "--listen": true}

func parseRouterArgs(args []string) routerArgs {
	var a routerArgs
	subSeen := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			if !subSeen && i+1 < len(args) {
				a.sub = args[i+1]
			}
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			if !subSeen {
				a.sub, subSeen = arg, true
			}
			continue
		}
		name, val, hasVal := strings.Cut(arg, "=")
		if valueFlags[name] && !hasVal && i+1 < len(args) {
			val = args[i+1]
			i++
		}
		switch name {
		case "--data-dir":
			a.dataDir = val
		case "--url":
			a.url, a.urlSet = strings.TrimSpace(val), true
		case "--help", "-h":
			a.help = true
		}
	}
	return a
}
