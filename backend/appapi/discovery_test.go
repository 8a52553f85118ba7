package appapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

func TestDiscoverServer(t *testing.T) {
	f := newFixture(t)
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(server.NewMCPServer("found-me", "2.0")))
	host := httptest.NewServer(mux)
	defer host.Close()

	got, err := f.api.DiscoverServer(host.URL)
	if err != nil || got.Endpoint != host.URL+"/mcp" || got.Transport != "streamable-http" || len(got.Steps) < 5 {
		t.Fatalf("%v %+v", err, got)
	}
	if last := got.Steps[len(got.Steps)-1]; !last.OK || !strings.Contains(last.Result, "found-me") {
		t.Errorf("last step %+v", last)
	}
	if rows, _ := f.c.Store.Servers().List(t.Context()); len(rows) != 0 {
		t.Errorf("discovery added %+v", rows)
	}
	// Nothing there: no error, no endpoint, the steps tried.
	empty := httptest.NewServer(http.NotFoundHandler())
	defer empty.Close()
	got, err = f.api.DiscoverServer(empty.URL)
	if err != nil || got.Endpoint != "" || len(got.Steps) == 0 {
		t.Errorf("nothing there: %v %+v", err, got)
	}
	if _, err := f.api.DiscoverServer("file:///etc/passwd"); err == nil || !strings.Contains(err.Error(), "is not an http(s) URL") {
		t.Errorf("bad URL: %v", err)
	}
}
