package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// fixture is an HTTP host serving documents and real mcp-go endpoints.
type fixture struct {
	*httptest.Server
	mux *http.ServeMux
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{mux: http.NewServeMux()}
	f.Server = httptest.NewServer(f.mux)
	t.Cleanup(f.Close)
	return f
}

func mcpServer() *server.MCPServer { return server.NewMCPServer("fixture", "9.9.9") }

// streamable serves a real streamable HTTP MCP endpoint at path.
func (f *fixture) streamable(path string) {
	f.mux.Handle(path, server.NewStreamableHTTPServer(mcpServer(), server.WithEndpointPath(path)))
}

// sse serves a real legacy SSE endpoint at path.
func (f *fixture) sse(path string) {
	s := server.NewSSEServer(mcpServer(), server.WithSSEEndpoint(path), server.WithMessageEndpoint(path+"/message"))
	f.mux.Handle(path, s.SSEHandler())
	f.mux.Handle(path+"/message", s.MessageHandler())
}

func (f *fixture) doc(path string, v any) {
	f.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch d := v.(type) {
		case string:
			fmt.Fprint(w, d)
		default:
			_ = json.NewEncoder(w).Encode(d)
		}
	})
}

func card(remotes ...Remote) ServerCard {
	return ServerCard{Schema: ServerCardSchema, Name: "example.test/fixture", Version: "9.9.9", Description: "A fixture.", Remotes: remotes}
}

func discover(t *testing.T, u string) (Found, error) {
	t.Helper()
	return (&Prober{}).Discover(context.Background(), u)
}

func stepOK(f Found, what, url string) bool {
	for _, s := range f.Steps {
		if s.What == what && s.URL == url {
			return s.OK
		}
	}
	return false
}

func tried(f Found, url string) bool {
	for _, s := range f.Steps {
		if s.URL == url {
			return true
		}
	}
	return false
}

func TestDiscoverThroughTheAICatalog(t *testing.T) {
	fx := newFixture(t)
	fx.streamable("/svc/mcp")
	fx.doc("/.well-known/ai-catalog.json", Catalog{SpecVersion: "1.0", Entries: []CatalogEntry{
		{Identifier: "urn:air:other", Type: "application/a2a-agent-card+json", URL: "/agent"},
		{Identifier: "urn:air:x:mcp:fixture", Type: ServerCardType, URL: "/svc/server-card"},
	}})
	fx.doc("/svc/server-card", card(Remote{Type: TransportStreamable, URL: fx.URL + "/svc/mcp"}))
	f, err := discover(t, fx.URL)
	if err != nil {
		t.Fatalf("%v\n%+v", err, f.Steps)
	}
	if f.Endpoint != fx.URL+"/svc/mcp" || f.Transport != TransportStreamable || f.NeedsAuth || f.Name != "example.test/fixture" {
		t.Errorf("found %+v", f)
	}
	if !stepOK(f, "ai-catalog", fx.URL+PathAICatalog) || !stepOK(f, "server-card", fx.URL+"/svc/server-card") || !stepOK(f, TransportStreamable, fx.URL+"/svc/mcp") {
		t.Errorf("steps %+v", f.Steps)
	}
	if tried(f, fx.URL+"/agent") {
		t.Error("fetched an entry that is not a server card")
	}
}

func TestDiscoverInlineCardInTheCatalog(t *testing.T) {
	fx := newFixture(t)
	fx.streamable("/inline/mcp")
	data, _ := json.Marshal(card(Remote{Type: TransportStreamable, URL: "/inline/mcp"}))
	fx.doc("/.well-known/ai-catalog.json", Catalog{Entries: []CatalogEntry{{Identifier: "urn:air:x:mcp:i", Type: ServerCardType, Data: data}}})
	f, err := discover(t, fx.URL+"/")
	if err != nil || f.Endpoint != fx.URL+"/inline/mcp" {
		t.Fatalf("%v %+v", err, f)
	}
}

func TestDiscoverTheServerCardNextToTheURL(t *testing.T) {
	fx := newFixture(t)
	fx.streamable("/api/rpc")
	fx.doc("/api/server-card", card(Remote{Type: TransportStreamable, URL: "/api/rpc"},
		Remote{Type: TransportStreamable, URL: "https://{tenant}.example/mcp"})) // templated: skipped
	f, err := discover(t, fx.URL+"/api")
	if err != nil || f.Endpoint != fx.URL+"/api/rpc" || !stepOK(f, "server-card", fx.URL+"/api/server-card") {
		t.Fatalf("%v %+v", err, f)
	}
	if tried(f, "https://{tenant}.example/mcp") {
		t.Error("tried a templated URL")
	}
	// No catalog here: tried, not found, and said so.
	for _, s := range f.Steps {
		if s.What == "ai-catalog" && (s.OK || !strings.Contains(s.Result, "404")) {
			t.Errorf("catalog step %+v", s)
		}
	}
}

func TestDiscoverTheSeedWellKnownDocument(t *testing.T) {
	fx := newFixture(t)
	fx.streamable("/x/mcp")
	fx.doc("/.well-known/mcp", `{"mcpVersion":"2025-11-25","endpoint":"/x/mcp","capabilities":{"tools":{"endpoint":"/x/mcp"}},"authentication":{"type":"none"}}`)
	f, err := discover(t, fx.URL)
	if err != nil || f.Endpoint != fx.URL+"/x/mcp" || f.MCPVersion != "2025-11-25" || !stepOK(f, "well-known", fx.URL+"/.well-known/mcp") {
		t.Fatalf("%v %+v", err, f)
	}
}

func TestDiscoverACardAtWellKnownMCPJSON(t *testing.T) {
	fx := newFixture(t)
	fx.sse("/legacy")
	fx.doc("/.well-known/mcp.json", card(Remote{Type: TransportSSE, URL: "/legacy"}))
	f, err := discover(t, fx.URL)
	if err != nil || f.Endpoint != fx.URL+"/legacy" || f.Transport != TransportSSE {
		t.Fatalf("%v %+v", err, f)
	}
}

func TestDiscoverThroughProtectedResourceMetadata(t *testing.T) {
	fx := newFixture(t)
	fx.doc("/.well-known/oauth-protected-resource", map[string]any{"resource": "", "authorization_servers": []string{}})
	fx.mux.HandleFunc("/.well-known/oauth-protected-resource/deep/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":["https://auth.example"]}`, "http://"+r.Host+"/deep/mcp")
	})
	fx.mux.HandleFunc("/deep/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="/.well-known/oauth-protected-resource/deep/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	// Given the endpoint's own URL: path-specific metadata first.
	f, err := discover(t, fx.URL+"/deep/mcp")
	if err != nil || f.Endpoint != fx.URL+"/deep/mcp" || !f.NeedsAuth || len(f.AuthorizationServers) != 1 ||
		f.ResourceMetadata != fx.URL+"/.well-known/oauth-protected-resource/deep/mcp" {
		t.Fatalf("%v %+v", err, f)
	}
	// Given the bare host, the bare metadata has no resource: the 401 of
	// the endpoint named nowhere is not found, and the steps say so.
	g, err := discover(t, fx.URL)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("bare host: %v %+v", err, g)
	}
	for _, s := range g.Steps {
		if s.What == "resource-metadata" && (s.OK || s.Result != "no resource member") {
			t.Errorf("metadata step %+v", s)
		}
	}
}

func TestDiscoverFallsBackToStreamableThenSSE(t *testing.T) {
	// A bare base URL with streamable HTTP at /mcp and no documents.
	fx := newFixture(t)
	fx.streamable("/mcp")
	f, err := discover(t, fx.URL)
	if err != nil || f.Endpoint != fx.URL+"/mcp" || f.Transport != TransportStreamable || !strings.Contains(f.Steps[len(f.Steps)-1].Result, "MCP server fixture 9.9.9") {
		t.Fatalf("%v %+v", err, f)
	}
	// Legacy SSE only, at /sse.
	old := newFixture(t)
	old.sse("/sse")
	f, err = discover(t, old.URL)
	if err != nil || f.Endpoint != old.URL+"/sse" || f.Transport != TransportSSE {
		t.Fatalf("%v %+v", err, f)
	}
	if !tried(f, old.URL) || !tried(f, old.URL+"/mcp") {
		t.Errorf("streamable HTTP not tried first: %+v", f.Steps)
	}
}

func TestDiscoverBadDocumentsAndNothingThere(t *testing.T) {
	fx := newFixture(t)
	fx.doc("/.well-known/ai-catalog.json", "<html>not json</html>")
	fx.doc("/.well-known/mcp", `{"hello":"world"}`)
	fx.mux.HandleFunc("/.well-known/mcp.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"mcpVersion":"` + strings.Repeat("x", maxDoc) + `"}`))
	})
	fx.mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"jsonrpc":"2.0","id":1}`) })
	f, err := discover(t, fx.URL)
	if !errors.Is(err, ErrNotFound) || f.Endpoint != "" {
		t.Fatalf("%v %+v", err, f)
	}
	want := map[string]string{
		fx.URL + PathAICatalog:        "not JSON",
		fx.URL + PathWellKnownMCP:     "neither an mcpVersion document nor a server card",
		fx.URL + PathWellKnownMCPJSON: "larger than 1 MiB",
		fx.URL + "/mcp":               "not an MCP initialize result",
	}
	for u, msg := range want {
		found := false
		for _, s := range f.Steps {
			if s.URL == u && !s.OK && strings.Contains(s.Result, msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("no failed step %s %q in %+v", u, msg, f.Steps)
		}
	}
	for _, bad := range []string{"", "ftp://x", "not a url", "http://user:pw@host/"} {
		if _, err := discover(t, bad); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
