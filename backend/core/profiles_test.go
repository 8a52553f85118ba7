package core

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/discovery"
	"github.com/mcp-router/mcp-router/backend/gateway"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
)

// toolsAt lists the tools a token sees at url (a profile's endpoint or
// plain /mcp), sorted.
func toolsAt(t *testing.T, url, token string) []string {
	t.Helper()
	c, err := mcpClient(t, url, token)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	names := listTools(t, c)
	slices.Sort(names)
	return names
}

func testmcpTools(server string, tools ...string) []string {
	if len(tools) == 0 {
		tools = []string{"delete_note", "digest", "show", "sleep"}
	}
	out := make([]string, len(tools))
	for i, n := range tools {
		out[i] = server + "__" + n
	}
	return out
}

// Profiles at the endpoint: /mcp/<name> lists exactly the profile's
// servers and selected tools and refuses the rest on both call paths; a
// token bound to one profile cannot reach another's endpoint or tools;
// a session belongs to its profile. On the code before profiles, /mcp/<name>
// was a 404 and a bound token did not exist.
func TestProfilesAtTheEndpoint(t *testing.T) {
	dir := t.TempDir()
	ep := serve(t, dir, []spec.Server{testmcp.Server("one"), testmcp.Server("two"), testmcp.Server("three")}, false)
	ctx := context.Background()
	if _, err := ep.core.Profiles.Create(ctx, store.Profile{Name: "pa", Servers: []string{"one", "two"},
		Tools: map[string][]string{"two": {"show"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ep.core.Profiles.Create(ctx, store.Profile{Name: "pb", Servers: []string{"three"}}); err != nil {
		t.Fatal(err)
	}
	free, _, err := ep.core.Auth.Create(ctx, "free", nil)
	if err != nil {
		t.Fatal(err)
	}
	bound, _, err := ep.core.Auth.CreateToken(ctx, auth.NewToken{Name: "bound", Profile: "pa"})
	if err != nil {
		t.Fatal(err)
	}
	scoped, _, err := ep.core.Auth.Create(ctx, "scoped", []string{"two", "three"})
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := ep.url+"/pa", ep.url+"/pb"
	wantA := append(testmcpTools("one"), "two__show")
	slices.Sort(wantA)

	t.Run("a profile lists exactly its tools", func(t *testing.T) {
		if got := toolsAt(t, pa, free); !slices.Equal(got, wantA) {
			t.Errorf("/mcp/pa: %v, want %v", got, wantA)
		}
		if got := toolsAt(t, pb, free); !slices.Equal(got, testmcpTools("three")) {
			t.Errorf("/mcp/pb: %v", got)
		}
		all := append(append(testmcpTools("one"), testmcpTools("three")...), testmcpTools("two")...)
		if got := toolsAt(t, ep.url, free); !slices.Equal(got, all) {
			t.Errorf("/mcp (the default profile): %v, want %v", got, all)
		}
	})
	t.Run("a profile never widens a token's scope", func(t *testing.T) {
		if got := toolsAt(t, pa, scoped); !slices.Equal(got, []string{"two__show"}) {
			t.Errorf("scoped token at /mcp/pa: %v", got)
		}
	})
	t.Run("tools outside the profile are unknown on both call paths", func(t *testing.T) {
		call := tokenSession(t, pa, free)
		for i, name := range []string{"two__digest", "three__show"} {
			fast := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, 10+i, name))
			slow := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{"progressToken":"p%d"}}}`, 20+i, name, i))
			for _, body := range [][]byte{fast, slow} {
				if e := errorIn(t, body); e.Data["reason"] != "unknown_tool" {
					t.Errorf("%s at /mcp/pa: %+v", name, e)
				}
			}
		}
		ok := call(`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"two__show","arguments":{}}}`)
		if strings.Contains(string(ok), `"error"`) {
			t.Errorf("two__show at /mcp/pa: %s", ok)
		}
	})
	t.Run("a bound token reaches its profile only", func(t *testing.T) {
		code, _, body := postAs(t, pb, bound, "", string(initializeBody))
		if code != http.StatusForbidden || !strings.Contains(string(body), `bound to profile \"pa\"`) {
			t.Errorf("bound token at /mcp/pb: %d %s", code, body)
		}
		if got := toolsAt(t, pa, bound); !slices.Equal(got, wantA) {
			t.Errorf("bound token at /mcp/pa: %v", got)
		}
		// Plain /mcp is its profile, never everything.
		if got := toolsAt(t, ep.url, bound); !slices.Equal(got, wantA) {
			t.Errorf("bound token at /mcp: %v", got)
		}
		call := tokenSession(t, ep.url, bound)
		if e := errorIn(t, call(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"three__show","arguments":{}}}`)); e.Data["reason"] != "unknown_tool" {
			t.Errorf("bound token calling three__show at /mcp: %+v", e)
		}
	})
	t.Run("a session belongs to its profile", func(t *testing.T) {
		code, hdr, _ := postAs(t, pa, free, "", string(initializeBody))
		sid := hdr.Get("Mcp-Session-Id")
		if code != http.StatusOK || sid == "" {
			t.Fatalf("initialize at /mcp/pa: %d", code)
		}
		code, _, body := postAs(t, pb, free, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		if code != http.StatusNotFound {
			t.Errorf("the session of /mcp/pa at /mcp/pb: %d %s", code, body)
		}
	})
	t.Run("an unknown profile is a 404", func(t *testing.T) {
		for _, path := range []string{"/nope", "/..", "/a/b"} {
			code, _, body := postAs(t, ep.url+path, free, "", string(initializeBody))
			if code != http.StatusNotFound {
				t.Errorf("/mcp%s: %d %s", path, code, body)
			}
		}
	})
	t.Run("a removed profile leaves its bound token nothing", func(t *testing.T) {
		if err := ep.core.Profiles.Remove(ctx, "pa"); err != nil {
			t.Fatal(err)
		}
		for _, url := range []string{ep.url, pa} {
			code, _, body := postAs(t, url, bound, "", string(initializeBody))
			if code != http.StatusNotFound || !strings.Contains(string(body), "does not exist") {
				t.Errorf("bound token at %s after its profile went: %d %s", url, code, body)
			}
		}
	})
}

// A profile written by another process (the CLI) reaches a running router
// through the configuration revision.
func TestProfileChangedByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	ep := serve(t, dir, []spec.Server{testmcp.Server("one"), testmcp.Server("two")}, true)
	other, err := store.Open(dir + "/mcp-router.db")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Profiles().Create(context.Background(), store.Profile{Name: "later", Mode: profile.ModeAll, Servers: []string{"two"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok := ep.core.Profiles.Lookup("later"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the profile written by another process never reached the router")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := toolsAt(t, ep.url+"/later", ""); !slices.Equal(got, testmcpTools("two")) {
		t.Errorf("/mcp/later: %v", got)
	}
}

// No profile can take a path the endpoint's mux gives to something else
// (the server card at /mcp/server-card): it would never be served.
func TestProfileNamesAvoidTheEndpointsOtherPaths(t *testing.T) {
	if err := profile.CheckName(strings.TrimPrefix(discovery.ServerCardSuffix, "/")); err == nil {
		t.Errorf("a profile may be named %q, which %s%s serves", discovery.ServerCardSuffix, gateway.PathMCP, discovery.ServerCardSuffix)
	}
}
