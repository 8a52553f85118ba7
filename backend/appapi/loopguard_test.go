package appapi

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// serveEndpoint runs f's endpoint on a free loopback port (not the port
// setting, as `serve --listen` does) and returns the bound address.
func serveEndpoint(t *testing.T, f *fixture) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- f.c.Serve(ctx, core.ServeOptions{Addr: "127.0.0.1:0", Ready: func(addr string) { ready <- addr }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case addr := <-ready:
		return addr
	case err := <-done:
		t.Fatal(err)
	}
	return ""
}

// withOther puts the router's own entry, as a snippet printed it, next to
// another server in the same client config.
func withOther(t *testing.T, snippet string) string {
	t.Helper()
	var doc map[string]map[string]any
	if err := json.Unmarshal([]byte(snippet), &doc); err != nil {
		t.Fatalf("snippet %q: %v", snippet, err)
	}
	for _, servers := range doc {
		servers["other"] = map[string]any{"command": "uvx", "args": []string{"other-server"}}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Pasting or importing the snippet the router itself prints imports the
// other servers of the file and skips the router's own entry, naming it and
// saying why; AddServer and UpdateServer refuse a definition that points
// at the router, and nothing of it is stored.
func TestTheUIRefusesThisRouter(t *testing.T) {
	// `mcp-router connect` without --url reads the default data dir's
	// settings: keep that one empty, so it means the default endpoint.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv(config.DataDirEnv, "")
	f := newFixture(t)
	addr := serveEndpoint(t, f)
	port := addr[strings.LastIndex(addr, ":")+1:]

	for _, tc := range []struct{ client, mode, want string }{
		{config.ClientClaudeCode, config.ModeHTTP, "http://" + addr + "/mcp is this router's own endpoint"},
		{config.ClientCursor, config.ModeStdio, `"/opt/mcp-router/mcp-router connect --url http://` + addr + `/mcp" is the stdio bridge to this router's own endpoint`},
		{config.ClientVSCode, config.ModeStdio, "is the stdio bridge to this router's own endpoint"},
		{config.ClientVSCode, config.ModeHTTP, "is this router's own endpoint"},
	} {
		snippet, err := f.api.Snippet(tc.client, tc.mode, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := f.api.AddServersFromJSON(withOther(t, snippet))
		if err != nil {
			t.Fatalf("%s %s: %v", tc.client, tc.mode, err)
		}
		if !reflect.DeepEqual(rep.Added, []string{"other"}) || len(rep.Skipped) != 1 || rep.Skipped[0].Name != config.SnippetServerName ||
			!strings.HasPrefix(rep.Skipped[0].Reason, "points at this router: ") || !strings.Contains(rep.Skipped[0].Reason, tc.want) {
			t.Errorf("%s %s: report %+v, want other added and mcp-router skipped (%s)", tc.client, tc.mode, rep, tc.want)
		}
		if _, err := f.api.GetServer(config.SnippetServerName); err == nil {
			t.Fatalf("%s %s: the router's own entry was stored", tc.client, tc.mode)
		}
		if err := f.api.RemoveServer("other"); err != nil {
			t.Fatal(err)
		}
	}

	// The same through a client's config file on disk.
	snippet, err := f.api.Snippet(config.ClientClaudeCode, config.ModeHTTP, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(file, []byte(withOther(t, snippet)), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := f.api.ImportClientConfig(file)
	if err != nil || !reflect.DeepEqual(rep.Added, []string{"other"}) || len(rep.Skipped) != 1 || rep.Skipped[0].Name != config.SnippetServerName {
		t.Errorf("ImportClientConfig = %+v, %v", rep, err)
	}

	// The Add form and the edit form.
	refused := []spec.Server{
		{Name: "bound", URL: "http://localhost:" + port + "/mcp"},
		{Name: "bound-v6", URL: "http://[::1]:" + port + "/sse", Transport: spec.SSE},
		{Name: "setting", URL: "http://127.0.0.1:3282/mcp/"},
		{Name: "bridge", Command: "/opt/mcp-router/mcp-router", Args: []string{"connect", "--url", "http://127.0.0.1:" + port}},
		{Name: "bridge-default", Command: "mcp-router", Args: []string{"connect"}},
		{Name: "again", Command: "mcp-router", Args: []string{"--data-dir", f.c.DataDir, "stdio"}},
	}
	for _, def := range refused {
		_, err := f.api.AddServer(def)
		wantErr(t, "AddServer "+def.Name, err, `server "`+def.Name+`" points at this router: `)
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("AddServer %s: %q is not one line", def.Name, err)
		}
		if _, err := f.api.GetServer(def.Name); err == nil {
			t.Errorf("AddServer %s: stored", def.Name)
		}
	}
	if _, err := f.api.AddServer(spec.Server{Name: "elsewhere", URL: "http://127.0.0.1:1/mcp"}); err != nil {
		t.Fatalf("another port: %v", err)
	}
	_, err = f.api.UpdateServer("elsewhere", spec.Server{URL: "http://127.0.0.1:" + port + "/mcp"})
	wantErr(t, "UpdateServer onto the endpoint", err, "points at this router")
	if got, err := f.api.GetServer("elsewhere"); err != nil || got.URL != "http://127.0.0.1:1/mcp" {
		t.Errorf("after a refused edit: %+v, %v", got, err)
	}
	servers, _ := f.api.ListServers()
	if len(servers) != 2 { // "other" from the file import, "elsewhere"
		t.Errorf("servers = %+v", servers)
	}
}

// The UI's HTTP API answers a refused AddServer with 400 and the one-line
// reason, which the Add dialog shows.
func TestHTTPAddServerRefusesThisRouter(t *testing.T) {
	h := newHTTPFixture(t, nil)
	def, _ := json.Marshal([]spec.Server{{Name: "self", URL: h.base + "/mcp"}})
	r := h.call(t, "AddServer", h.token, string(def))
	if r.code != http.StatusBadRequest {
		t.Fatalf("AddServer of the endpoint: %d %s", r.code, r.body)
	}
	if msg := errorOf(t, r); !strings.Contains(msg, `server "self" points at this router: `+h.base+"/mcp is this router's own endpoint") {
		t.Errorf("error = %q", msg)
	}
	if _, err := h.api.GetServer("self"); err == nil {
		t.Error("stored")
	}
}
