package core

import (
	"bufio"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/gateway"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
)

// sseEndpoint opens the SSE stream at url and returns the message
// endpoint its first event names (the stream stays open for the test).
func sseEndpoint(t *testing.T, url, token string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, ""
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return resp.StatusCode, data
		}
	}
	t.Fatalf("no endpoint event at %s", url)
	return 0, ""
}

// Profiles over the legacy SSE transport, as at /mcp/<name>: /sse/<name>
// lists exactly the profile's tools and refuses the others, its stream
// names /message/<name> to post to, its session is unknown (as another
// credential's) at plain /message and at another profile's path, a bound token cannot open
// another profile's stream, and an unknown profile is a 404. Before, /sse
// had no profile: /sse/<name> was a 404.
func TestProfilesOverSSE(t *testing.T) {
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
	base := strings.TrimSuffix(ep.url, gateway.PathMCP)
	wantA := append(testmcpTools("one"), "two__show")
	slices.Sort(wantA)
	sseTools := func(url, token string) []string {
		t.Helper()
		names := listTools(t, sseClientWith(t, url, map[string]string{"Authorization": "Bearer " + token}))
		slices.Sort(names)
		return names
	}

	if got := sseTools(base+"/sse/pa", free); !slices.Equal(got, wantA) {
		t.Errorf("/sse/pa: %v, want %v", got, wantA)
	}
	if got := sseTools(base+"/sse/pb", free); !slices.Equal(got, testmcpTools("three")) {
		t.Errorf("/sse/pb: %v", got)
	}
	all := append(append(testmcpTools("one"), testmcpTools("three")...), testmcpTools("two")...)
	if got := sseTools(base+"/sse", free); !slices.Equal(got, all) {
		t.Errorf("/sse (the default profile): %v, want %v", got, all)
	}
	c := sseClientWith(t, base+"/sse/pa", map[string]string{"Authorization": "Bearer " + free})
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "three__show", map[string]any{}
	if res, err := c.CallTool(cctx, req); err == nil && !res.IsError {
		t.Errorf("three__show called at /sse/pa: %+v", res)
	}

	code, endpoint := sseEndpoint(t, base+"/sse/pa", free)
	if code != http.StatusOK || !strings.HasPrefix(endpoint, "/message/pa?sessionId=") {
		t.Fatalf("/sse/pa's endpoint: %d %q", code, endpoint)
	}
	session := strings.TrimPrefix(endpoint, "/message/pa")
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if code, _, body := postAs(t, base+"/message/pa"+session, free, "", ping); code != http.StatusAccepted {
		t.Errorf("a message at its own profile's path: %d %s", code, body)
	}
	// As any session the caller does not own (gateway.unknownSSESession).
	for _, path := range []string{"/message", "/message/pb"} {
		if code, _, body := postAs(t, base+path+session, free, "", ping); code != http.StatusBadRequest || !strings.Contains(string(body), "Invalid session ID") {
			t.Errorf("the session of /sse/pa at %s: %d %s", path, code, body)
		}
	}
	if code, _ := sseEndpoint(t, base+"/sse/pb", bound); code != http.StatusForbidden {
		t.Errorf("a token bound to pa at /sse/pb: %d", code)
	}
	if code, endpoint := sseEndpoint(t, base+"/sse", bound); code != http.StatusOK || !strings.HasPrefix(endpoint, "/message?sessionId=") {
		t.Errorf("a token bound to pa at plain /sse: %d %q", code, endpoint)
	}
	if got := sseTools(base+"/sse", bound); !slices.Equal(got, wantA) {
		t.Errorf("a token bound to pa at plain /sse: %v", got)
	}
	if code, _ := sseEndpoint(t, base+"/sse/nope", free); code != http.StatusNotFound {
		t.Errorf("/sse/nope: %d", code)
	}
}
