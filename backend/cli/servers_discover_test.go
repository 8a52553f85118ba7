package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/discovery"
)

// discoveryHost is an HTTP host with a catalog pointing at a card whose
// remote is a real mcp-go streamable endpoint at /svc/mcp.
func discoveryHost(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/svc/mcp", server.NewStreamableHTTPServer(server.NewMCPServer("fixture", "1.0.0"), server.WithEndpointPath("/svc/mcp")))
	mux.HandleFunc("/.well-known/ai-catalog.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"specVersion":"1.0","entries":[{"identifier":"urn:air:x:mcp:f","type":%q,"url":"/svc/server-card"}]}`, discovery.ServerCardType)
	})
	mux.HandleFunc("/svc/server-card", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"$schema":%q,"name":"example.test/fixture","version":"1.0.0","description":"d","remotes":[{"type":"streamable-http","url":"/svc/mcp"}]}`, discovery.ServerCardSchema)
	})
	return srv
}

func TestServersDiscover(t *testing.T) {
	dir := t.TempDir()
	host := discoveryHost(t)
	out := mustRun(t, dir, "servers", "discover", host.URL)
	for _, want := range []string{
		"Tried for " + host.URL,
		"ok  ai-catalog",
		"ok  server-card",
		"ok  streamable-http",
		"Found: " + host.URL + "/svc/mcp (streamable-http)",
		"Name: example.test/fixture 1.0.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	var f discovery.Found
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "discover", host.URL, "--json")), &f); err != nil || f.Endpoint != host.URL+"/svc/mcp" || len(f.Steps) < 3 {
		t.Errorf("--json: %v %+v", err, f)
	}
	if rows := list(t, dir); len(rows) != 0 {
		t.Errorf("discover added a server: %+v", rows)
	}

	// Nothing there: exit 1, every attempt listed.
	empty := httptest.NewServer(http.NotFoundHandler())
	defer empty.Close()
	r := run(t, dir, "", "servers", "discover", empty.URL)
	if r.code != ExitError || !strings.Contains(r.stdout, "No MCP endpoint found.") || !strings.Contains(r.stdout, "--  sse") ||
		!strings.Contains(r.stdout, empty.URL+"/.well-known/mcp.json") || !strings.Contains(r.stderr, "no MCP endpoint found") {
		t.Errorf("nothing there: %+v", r)
	}
	for _, bad := range []string{"ftp://x", "nope"} {
		if r := run(t, dir, "", "servers", "discover", bad); r.code != ExitUsage || !strings.Contains(r.stderr, "is not an http(s) URL") {
			t.Errorf("%s: %+v", bad, r)
		}
	}
}

func TestServersAddDiscoversABareBaseURL(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	host := discoveryHost(t)
	r := run(t, dir, "", "servers", "add", "found", "--url", host.URL, "--header", "Authorization=Bearer upstream-secret")
	if r.code != 0 || !strings.Contains(r.stdout, "added found (http: "+host.URL+"/svc/mcp)") || !strings.Contains(r.stderr, "ok  ai-catalog") {
		t.Fatalf("add: %+v", r)
	}
	rows := list(t, dir)
	if len(rows) != 1 || rows[0].URL != host.URL+"/svc/mcp" || rows[0].Transport != "http" || rows[0].Headers["Authorization"] != "Bearer upstream-secret" {
		t.Errorf("stored %+v", rows)
	}

	// Legacy SSE only.
	mux := http.NewServeMux()
	sse := server.NewSSEServer(server.NewMCPServer("old", "1"), server.WithSSEEndpoint("/sse"), server.WithMessageEndpoint("/message"))
	mux.Handle("/sse", sse.SSEHandler())
	mux.Handle("/message", sse.MessageHandler())
	old := httptest.NewServer(mux)
	defer old.Close()
	mustRun(t, dir, "servers", "add", "old", "--url", old.URL+"/")
	if row := byName(t, dir, "old"); row.URL != old.URL+"/sse" || row.Transport != "sse" {
		t.Errorf("stored %+v", row)
	}

	// Nothing found: nothing stored, the attempts shown.
	empty := httptest.NewServer(http.NotFoundHandler())
	defer empty.Close()
	r = run(t, dir, "", "servers", "add", "none", "--url", empty.URL)
	if r.code != ExitError || !strings.Contains(r.stderr, "No MCP endpoint found.") || !strings.Contains(r.stderr, "give the endpoint itself with --url") {
		t.Errorf("nothing found: %+v", r)
	}
	// A URL with a path, or --transport, is taken as given: no probing.
	mustRun(t, dir, "servers", "add", "asis", "--url", empty.URL+"/mcp")
	mustRun(t, dir, "servers", "add", "asis2", "--url", empty.URL, "--transport", "http")
	if len(list(t, dir)) != 4 || byName(t, dir, "asis").URL != empty.URL+"/mcp" || byName(t, dir, "asis2").URL != empty.URL {
		t.Errorf("stored %+v", list(t, dir))
	}
}

func byName(t *testing.T, dir, name string) listed {
	t.Helper()
	for _, r := range list(t, dir) {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no server %s", name)
	return listed{}
}

// A catalog that points back at this router is refused by the loop guard
// after discovery, and nothing is stored.
func TestServersAddDiscoveryCannotLoopToThisRouter(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	// "This router": a real MCP endpoint on the port of the port setting.
	self := httptest.NewServer(server.NewStreamableHTTPServer(server.NewMCPServer("self", "1")))
	defer self.Close()
	port := self.URL[strings.LastIndex(self.URL, ":")+1:]
	mustRun(t, dir, "settings", "set", "port", port)

	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/mcp", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"mcpVersion":"2025-11-25","endpoint":%q,"capabilities":{}}`, self.URL+"/mcp")
	})
	lure := httptest.NewServer(mux)
	defer lure.Close()
	r := run(t, dir, "", "servers", "add", "lure", "--url", lure.URL)
	u, _ := url.Parse(self.URL)
	if r.code != ExitError || !strings.Contains(r.stderr, "points at this router") || !strings.Contains(r.stderr, u.Host) {
		t.Errorf("loop through discovery: %+v", r)
	}
	if rows := list(t, dir); len(rows) != 0 {
		t.Errorf("stored %+v", rows)
	}
}

func TestServersAddPassUpstreamAuth(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "gh", "--url", "http://127.0.0.1:4999/mcp", "--pass-upstream-auth")
	var rows []struct {
		Name             string `json:"name"`
		PassUpstreamAuth bool   `json:"passUpstreamAuth"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "servers", "list", "--json")), &rows); err != nil || len(rows) != 1 || !rows[0].PassUpstreamAuth {
		t.Fatalf("%v %+v", err, rows)
	}
	if out := mustRun(t, dir, "servers", "show", "gh"); !strings.Contains(out, "X-Upstream-Authorization is sent as Authorization") {
		t.Errorf("show: %s", out)
	}
	mustRun(t, dir, "servers", "add", "plain", "--url", "http://127.0.0.1:4999/mcp")
	if out := mustRun(t, dir, "servers", "show", "plain"); strings.Contains(out, "X-Upstream-Authorization") {
		t.Errorf("off by default: %s", out)
	}
	// Only for HTTP/SSE servers.
	r := run(t, dir, "", "servers", "add", "local", "--pass-upstream-auth", "--", "echo")
	if r.code == 0 || !strings.Contains(r.stderr, "passUpstreamAuth is for http and sse servers") {
		t.Errorf("stdio: %+v", r)
	}
	r = run(t, dir, "", "servers", "add", "state_gate", "--builtin", "--pass-upstream-auth")
	if r.code != ExitUsage {
		t.Errorf("builtin: %+v", r)
	}
}

func TestServersUpdatePassUpstreamAuth(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "gh", "--url", "http://127.0.0.1:4999/mcp")
	mustRun(t, dir, "servers", "update", "gh", "--pass-upstream-auth")
	if out := mustRun(t, dir, "servers", "show", "gh"); !strings.Contains(out, "X-Upstream-Authorization") {
		t.Errorf("on: %s", out)
	}
	mustRun(t, dir, "servers", "update", "gh", "--pass-upstream-auth=false")
	if out := mustRun(t, dir, "servers", "show", "gh"); strings.Contains(out, "X-Upstream-Authorization") {
		t.Errorf("off: %s", out)
	}
	mustRun(t, dir, "servers", "add", "local", "--", "echo")
	if r := run(t, dir, "", "servers", "update", "local", "--pass-upstream-auth"); r.code != ExitUsage || !strings.Contains(r.stderr, "is for HTTP/SSE servers") {
		t.Errorf("stdio: %+v", r)
	}
}
