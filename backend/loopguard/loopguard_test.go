package loopguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// fakeDNS answers lookups from a table and counts them.
type fakeDNS struct {
	table map[string][]netip.Addr
	asked []string
}

func (d *fakeDNS) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	d.asked = append(d.asked, host)
	if a, ok := d.table[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

func newDNS() *fakeDNS {
	return &fakeDNS{table: map[string][]netip.Addr{
		"lvh.me":      {netip.MustParseAddr("127.0.0.1")},
		"example.com": {netip.MustParseAddr("93.184.216.34")},
		"v6loop.test": {netip.MustParseAddr("::1")},
	}}
}

func TestURLs(t *testing.T) {
	self := func(listen ...string) Self {
		return Self{Listen: listen, Lookup: newDNS().lookup}
	}
	def := Self{Listen: []string{"127.0.0.1:3282"}}
	def.Lookup = newDNS().lookup
	tests := []struct {
		name    string
		self    Self
		url     string
		refused bool
	}{
		// The router's own endpoint in every spelling that reaches it.
		{"the snippet's URL", def, "http://127.0.0.1:3282/mcp", true},
		{"trailing slash", def, "http://127.0.0.1:3282/mcp/", true},
		{"no path", def, "http://127.0.0.1:3282", true},
		{"root path", def, "http://127.0.0.1:3282/", true},
		{"legacy SSE path", def, "http://127.0.0.1:3282/sse", true},
		{"odd path", def, "http://127.0.0.1:3282//mcp///", true},
		{"query, fragment and user info", def, "http://u:p@127.0.0.1:3282/mcp?x=1#y", true},
		{"localhost", def, "http://localhost:3282/mcp", true},
		{"LOCALHOST", def, "http://LOCALHOST:3282/sse", true},
		{"localhost with the root dot", def, "http://localhost.:3282/mcp", true},
		{"a .localhost name", def, "http://router.localhost:3282/mcp", true},
		{"localhost.localdomain", def, "http://localhost.localdomain:3282/mcp", true},
		{"IPv6 loopback", def, "http://[::1]:3282/mcp", true},
		{"IPv4-mapped loopback", def, "http://[::ffff:127.0.0.1]:3282/mcp", true},
		{"another 127/8 address", def, "http://127.0.0.2:3282/mcp", true},
		{"127.x.y.z", def, "http://127.1.2.3:3282/sse", true},
		{"0.0.0.0", def, "http://0.0.0.0:3282/mcp", true},
		{"[::]", def, "http://[::]:3282/mcp", true},
		{"https spelling", def, "https://localhost:3282/mcp", true},
		{"surrounding spaces", def, "  http://127.0.0.1:3282/mcp  ", true},
		{"a name that resolves to loopback", def, "http://lvh.me:3282/mcp", true},
		{"a name that resolves to ::1", def, "http://v6loop.test:3282/mcp", true},
		{"the configured port", self("127.0.0.1:4000"), "http://localhost:4000/mcp", true},
		{"the bound port while serving --listen", self("127.0.0.1:3282", "127.0.0.1:45678"), "http://127.0.0.1:45678/mcp", true},
		{"listening on ::1", self("[::1]:3282"), "http://localhost:3282/mcp", true},
		{"port 80 from the scheme", self("127.0.0.1:80"), "http://localhost/mcp", true},
		{"a specific listen address", self("192.0.2.7:3282"), "http://192.0.2.7:3282/mcp", true},
		{"every interface: loopback", self("0.0.0.0:3282"), "http://127.0.0.1:3282/mcp", true},
		{"every interface: [::]", self("[::]:3282"), "http://localhost:3282/mcp", true},

		// Not this router.
		{"another port", def, "http://127.0.0.1:3283/mcp", false},
		{"another port on localhost", def, "http://localhost:8080/mcp", false},
		{"no port: 80", def, "http://127.0.0.1/mcp", false},
		{"https without port: 443", def, "https://localhost/mcp", false},
		{"another host", def, "http://192.0.2.10:3282/mcp", false},
		{"a public name on the same port", def, "http://example.com:3282/mcp", false},
		{"a name that does not resolve", def, "http://nowhere.invalid:3282/mcp", false},
		{"old default after a port change", self("127.0.0.1:4000"), "http://127.0.0.1:3282/mcp", false},
		{"loopback when listening on one LAN address", self("192.0.2.7:3282"), "http://127.0.0.1:3282/mcp", false},
		{"another LAN address", self("192.0.2.7:3282"), "http://192.0.2.8:3282/mcp", false},
		{"every interface: a foreign address", self("0.0.0.0:3282"), "http://192.0.2.10:3282/mcp", false},
		{"nothing known about the router", Self{}, "http://127.0.0.1:3282/mcp", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			transport := spec.HTTP
			if strings.Contains(tt.url, "/sse") {
				transport = spec.SSE
			}
			err := tt.self.Check(context.Background(), spec.Server{Name: "me", Transport: transport, URL: tt.url})
			if got := err != nil; got != tt.refused {
				t.Fatalf("Check(%s) = %v, want refused=%v", tt.url, err, tt.refused)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrSelf) || !errors.Is(err, spec.ErrInvalid) {
				t.Errorf("error %v does not match ErrSelf and spec.ErrInvalid", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, `server "me" points at this router`) ||
				!strings.Contains(msg, strings.TrimSpace(tt.url)) || !strings.Contains(msg, "cannot be its own upstream") {
				t.Errorf("message %q: want one line naming the server, the URL and why", msg)
			}
		})
	}
}

// A name is looked up only when the URL's port is one the router listens
// on: adding https://api.example.com/mcp costs no DNS query.
func TestLooksUpNamesOnlyOnTheRoutersPort(t *testing.T) {
	dns := newDNS()
	s := Self{Listen: []string{"127.0.0.1:3282"}, Lookup: dns.lookup}
	for _, u := range []string{"https://example.com/mcp", "http://example.com:8080/mcp", "http://localhost:3282/mcp", "http://127.0.0.1:3282/mcp"} {
		_ = s.Check(context.Background(), spec.Server{Name: "x", URL: u, Transport: spec.HTTP})
	}
	if len(dns.asked) != 0 {
		t.Errorf("looked up %v", dns.asked)
	}
	_ = s.Check(context.Background(), spec.Server{Name: "x", URL: "http://example.com:3282/mcp", Transport: spec.HTTP})
	if len(dns.asked) != 1 {
		t.Errorf("looked up %v, want example.com once", dns.asked)
	}
}

// Listening on every interface, the router is reached through this
// machine's own addresses and host name too.
func TestEveryInterface(t *testing.T) {
	s := Self{Listen: []string{"0.0.0.0:3282"}, Lookup: newDNS().lookup}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, ia := range addrs {
		p, err := netip.ParsePrefix(ia.String())
		if err != nil || p.Addr().Is6() && p.Addr().IsLinkLocalUnicast() {
			continue
		}
		u := "http://" + net.JoinHostPort(p.Addr().String(), "3282") + "/mcp"
		if err := s.Check(context.Background(), spec.Server{Name: "x", URL: u, Transport: spec.HTTP}); !errors.Is(err, ErrSelf) {
			t.Errorf("%s: %v, want refused", u, err)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no interface address to check")
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		u := "http://" + strings.ToUpper(name) + ":3282/mcp"
		if err := s.Check(context.Background(), spec.Server{Name: "x", URL: u, Transport: spec.HTTP}); !errors.Is(err, ErrSelf) {
			t.Errorf("%s (this host's name): %v, want refused", u, err)
		}
	}
}

// writeExe writes an executable file.
func writeExe(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCommands(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	defaultDir, err := config.ResolveDataDirEnv("", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}

	// This router's binary has a name of its own (as a test binary does);
	// another file named mcp-router is a router binary by its name.
	bin := writeExe(t, filepath.Join(root, "opt", "router-1.2", "myrouter"))
	link := filepath.Join(root, "links", "r")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(root, "links", "hard")
	if err := os.Link(bin, hard); err != nil {
		t.Fatal(err)
	}
	pathDir := filepath.Join(root, "path")
	if err := os.MkdirAll(pathDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(pathDir, "myrouter")); err != nil {
		t.Fatal(err)
	}
	named := writeExe(t, filepath.Join(root, "other", "mcp-router"))
	namedLink := filepath.Join(pathDir, "router-alias")
	if err := os.Symlink(named, namedLink); err != nil {
		t.Fatal(err)
	}
	other := writeExe(t, filepath.Join(pathDir, "some-server"))
	t.Setenv("PATH", pathDir)

	dataDir := filepath.Join(root, "data")
	otherDir := filepath.Join(root, "data2")
	otherWithDB := filepath.Join(root, "data3")
	if err := os.MkdirAll(otherWithDB, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config.DBPath(otherWithDB), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dataLink := filepath.Join(root, "data-link")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dataDir, dataLink); err != nil {
		t.Fatal(err)
	}

	// The router runs on dataDir (from the environment it passes on) and
	// the default endpoint.
	env := map[string]string{config.DataDirEnv: dataDir}
	s := Self{Listen: []string{"127.0.0.1:3282"}, DataDir: dataDir, Executable: bin, Lookup: newDNS().lookup,
		Getenv: func(k string) string { return env[k] }}
	// The same router started on the default data dir, from an
	// environment without MCP_ROUTER_DATA_DIR (the desktop app).
	desktop := s
	desktop.DataDir = defaultDir
	desktop.Getenv = func(string) string { return "" }

	tests := []struct {
		name    string
		self    Self
		command string
		args    []string
		env     map[string]string
		refused bool
	}{
		// The snippet's stdio form, and connect in every way it reaches us.
		{"the snippet: absolute path, connect", s, bin, []string{"connect"}, map[string]string{"MCPR_TOKEN": "mcpr_x"}, true},
		{"the snippet for another port", s, bin, []string{"connect", "--url", "http://127.0.0.1:3282/mcp"}, nil, true},
		{"connect --url=", s, bin, []string{"connect", "--url=http://localhost:3282/sse"}, nil, true},
		{"connect via a symlink", s, link, []string{"connect"}, nil, true},
		{"connect via a hard link", s, hard, []string{"connect"}, nil, true},
		{"connect found on PATH", s, "myrouter", []string{"connect"}, nil, true},
		{"connect: any binary named mcp-router", s, named, []string{"connect"}, nil, true},
		{"connect: mcp-router by name, not on PATH", s, "mcp-router", []string{"connect"}, nil, true},
		{"connect: a symlink to a binary named mcp-router", s, "router-alias", []string{"connect"}, nil, true},
		{"connect: mcp-router.exe", s, `C:\Program Files\MCP Router\mcp-router.exe`, []string{"connect"}, nil, true},
		{"connect with global flags first", s, bin, []string{"--log-level", "debug", "connect", "--token", "t"}, nil, true},
		{"connect to the URL in $MCPR_URL", s, bin, []string{"connect"}, map[string]string{"MCPR_URL": "http://[::1]:3282/mcp"}, true},
		{"connect on a data dir without a database: the default endpoint", s, bin, []string{"--data-dir", otherDir, "connect"}, nil, true},
		{"connect from the desktop's default data dir", desktop, bin, []string{"connect"}, nil, true},
		{"stdio on this data dir", s, bin, []string{"stdio"}, nil, true},
		{"stdio with --data-dir naming it", s, bin, []string{"--data-dir", dataDir, "stdio"}, nil, true},
		{"stdio with --data-dir after the subcommand", s, bin, []string{"stdio", "--data-dir=" + dataDir}, nil, true},
		{"stdio through a symlinked data dir", s, bin, []string{"stdio", "--data-dir", dataLink}, nil, true},
		{"stdio: data dir from the server's env", s, "myrouter", []string{"stdio"}, map[string]string{config.DataDirEnv: dataDir + "/"}, true},
		{"stdio from the desktop's default data dir", desktop, "mcp-router", []string{"stdio"}, nil, true},
		{"serve on this data dir", s, bin, []string{"serve", "--listen", "127.0.0.1:4000"}, nil, true},
		{"the desktop app on this data dir", s, bin, nil, nil, true},

		// Not this router.
		{"another binary with connect", s, other, []string{"connect"}, nil, false},
		{"another binary on PATH with stdio", s, "some-server", []string{"stdio"}, nil, false},
		{"npx with connect", s, "npx", []string{"-y", "some-bridge", "connect"}, nil, false},
		{"connect to another port", s, bin, []string{"connect", "--url", "http://127.0.0.1:4000/mcp"}, nil, false},
		{"connect to another machine", s, bin, []string{"connect", "--url", "http://example.com:3282/mcp"}, nil, false},
		{"connect to $MCPR_URL elsewhere", s, bin, []string{"connect"}, map[string]string{"MCPR_URL": "http://127.0.0.1:4000/mcp"}, false},
		{"connect on another router's data dir: its settings decide", s, bin, []string{"--data-dir", otherWithDB, "connect"}, nil, false},
		{"stdio on another data dir", s, bin, []string{"--data-dir", otherDir, "stdio"}, nil, false},
		{"stdio: another data dir in the server's env", s, bin, []string{"stdio"}, map[string]string{config.DataDirEnv: otherDir}, false},
		{"stdio --help", s, bin, []string{"stdio", "--help"}, nil, false},
		{"a CLI command that serves nothing", s, bin, []string{"servers", "list"}, nil, false},
		{"version", s, bin, []string{"version"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := spec.Server{Name: "me", Command: tt.command, Args: tt.args, Env: tt.env}
			def.Normalize()
			err := tt.self.Check(context.Background(), def)
			if got := err != nil; got != tt.refused {
				t.Fatalf("Check(%s) = %v, want refused=%v", def.Target(), err, tt.refused)
			}
			if err == nil {
				return
			}
			msg := err.Error()
			if !errors.Is(err, ErrSelf) || strings.Contains(msg, "\n") || !strings.Contains(msg, `server "me" points at this router`) {
				t.Errorf("message %q: want one line naming the server", msg)
			}
		})
	}
}

func TestParseRouterArgs(t *testing.T) {
	tests := []struct {
		args []string
		want routerArgs
	}{
		{nil, routerArgs{}},
		{[]string{"connect"}, routerArgs{sub: "connect"}},
		{[]string{"--data-dir", "/d", "stdio"}, routerArgs{sub: "stdio", dataDir: "/d"}},
		{[]string{"--data-dir=/d", "--log-level=warn", "connect", "--url", "http://x"}, routerArgs{sub: "connect", dataDir: "/d", url: "http://x", urlSet: true}},
		{[]string{"connect", "--url="}, routerArgs{sub: "connect", urlSet: true}},
		{[]string{"stdio", "-h"}, routerArgs{sub: "stdio", help: true}},
		{[]string{"--", "stdio"}, routerArgs{sub: "stdio"}},
		{[]string{"--data-dir"}, routerArgs{}},
	}
	for _, tt := range tests {
		if got := parseRouterArgs(tt.args); got != tt.want {
			t.Errorf("parseRouterArgs(%q) = %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

// FuzzCheck feeds definitions from outside (an imported file) to Check: it
// must not panic, and a refusal is always one line naming the server.
func FuzzCheck(f *testing.F) {
	f.Add("http://127.0.0.1:3282/mcp", "", "")
	f.Add("http://[::1%25eth0]:3282/x", "", "")
	f.Add("", "mcp-router", "connect --url http://localhost:3282")
	f.Add("", "mcp-router", "--data-dir")
	f.Add("", "/usr/bin/mcp-router", "stdio --data-dir=~/x")
	s := Self{Listen: []string{"127.0.0.1:3282", "[::]:4000"}, DataDir: f.TempDir(),
		Lookup: func(context.Context, string) ([]netip.Addr, error) { return nil, errors.New("offline") }}
	f.Fuzz(func(t *testing.T, url, command, args string) {
		def := spec.Server{Name: "f", URL: url, Command: command, Args: strings.Fields(args)}
		err := s.Check(context.Background(), def)
		if err != nil && (strings.Contains(err.Error(), "\n") || !errors.Is(err, ErrSelf)) {
			t.Fatalf("bad refusal %q", err)
		}
	})
}
