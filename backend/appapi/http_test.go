package appapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

type httpFixture struct {
	*fixture
	base  string // http://127.0.0.1:port
	token string // an admin token
}

// newHTTPFixture serves a real router's endpoint, /ui/ included, on a
// loopback port, with auth on (the default) and an admin token made.
func newHTTPFixture(t *testing.T, assets fstest.MapFS) *httpFixture {
	t.Helper()
	return newHTTPFixtureWith(t, assets, core.Options{})
}

// newHTTPFixtureWith is newHTTPFixture with the core's options.
func newHTTPFixtureWith(t *testing.T, assets fstest.MapFS, o core.Options) *httpFixture {
	t.Helper()
	f := newFixtureWith(t, o, everything(t, "everything"))
	secret, _, err := f.c.Auth.CreateAdmin(context.Background(), "browser")
	if err != nil {
		t.Fatal(err)
	}
	return &httpFixture{fixture: f, base: serveUI(t, f, HTTPOptions{Assets: assets, Heartbeat: time.Hour}), token: secret}
}

// serveUI serves f's router, with the UI of options o, on a loopback port
// until the test ends (with o.NoAuth as `serve --no-auth`); the base URL.
func serveUI(t *testing.T, f *fixture, o HTTPOptions) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- f.c.Serve(ctx, core.ServeOptions{Addr: "127.0.0.1:0", NoAuth: o.NoAuth,
			UI:    Handler(f.api, o),
			Ready: func(addr string) { ready <- addr }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case addr := <-ready:
		return "http://" + addr
	case err := <-done:
		t.Fatal(err)
	}
	return ""
}

type reply struct {
	code int
	body string
	hdr  http.Header
}

// do sends a request as the pages do; hdr are name, value pairs set on it
// (an empty value removes the header, "Host" sets the Host).
func (h *httpFixture) do(t *testing.T, method, path, token, body string, hdr ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, h.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json") // as the pages send (frontend/src/api/http.ts)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		switch {
		case hdr[i] == "Host":
			req.Host = hdr[i+1]
		case hdr[i+1] == "":
			req.Header.Del(hdr[i])
		default:
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(b), resp.Header}
}

func (h *httpFixture) call(t *testing.T, method, token, args string) reply {
	t.Helper()
	return h.do(t, http.MethodPost, PathCall+method, token, args)
}

func errorOf(t *testing.T, r reply) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &e); err != nil || e.Error == "" {
		t.Errorf("error body is not {\"error\": …}: %d %q", r.code, r.body)
	}
	return e.Error
}

func TestHTTPCallsAuthAndErrors(t *testing.T) {
	h := newHTTPFixture(t, nil)
	scoped, err := h.api.CreateToken("scoped", []string{"everything"})
	if err != nil {
		t.Fatal(err)
	}
	client, err := h.api.CreateToken("laptop", nil)
	if err != nil {
		t.Fatal(err)
	}

	r := h.call(t, "ListServers", h.token, "[]")
	var views []ServerView
	if r.code != 200 || json.Unmarshal([]byte(r.body), &views) != nil || len(views) != 1 || views[0].Name != "everything" {
		t.Fatalf("ListServers = %d %s", r.code, r.body)
	}
	if r := h.call(t, "ListServers", h.token, ""); r.code != 200 {
		t.Errorf("an empty body is no arguments: %d %s", r.code, r.body)
	}
	if r := h.call(t, "SetServerEnabled", h.token, `["everything", true]`); r.code != 200 || r.body != "null" {
		t.Errorf("a method without a result = %d %q", r.code, r.body)
	}
	if r := h.call(t, "EndpointStatus", h.token, "[]"); r.code != 200 ||
		r.body != `{"url":"`+h.base+`/mcp","running":true,"authEnabled":true}` {
		t.Errorf("EndpointStatus while serving = %d %s", r.code, r.body)
	}
	// The snippet names the address the endpoint listens on, not the port
	// setting (3282) this fixture does not use.
	if r := h.call(t, "Snippet", h.token, `["cursor", "http", "", []]`); r.code != 200 || !strings.Contains(r.body, h.base+`/mcp`) {
		t.Errorf("Snippet while serving = %d %s; want %s/mcp", r.code, r.body, h.base)
	}
	if r := h.call(t, "GetServer", h.token, `["everything"]`); r.code != 200 || !strings.Contains(r.body, `"command"`) {
		t.Errorf("GetServer = %d %s", r.code, r.body)
	}

	cases := []struct {
		name, method, token, args string
		code                      int
		msg                       string
	}{
		{"no token", "ListServers", "", "[]", 401, "missing bearer token"},
		{"wrong token", "ListServers", "mcpr_wrongwrongwrongwrongwrongwrongwrong", "[]", 401, "token"},
		{"client token", "ListServers", client.Token, "[]", 403, `token "laptop" is a client token`},
		{"scoped client token", "ListServers", scoped.Token, "[]", 403, `token "scoped" is a client token`},
		{"unknown method", "DropDatabase", h.token, "[]", 404, `no method "DropDatabase"`},
		{"lower-case method", "listServers", h.token, "[]", 404, "no method"},
		{"too few arguments", "GetServer", h.token, "[]", 400, "takes 1 argument(s) (a string), got 0"},
		{"too many arguments", "ListServers", h.token, `["x"]`, 400, "takes 0 argument(s)"},
		{"wrong type", "GetServer", h.token, "[42]", 400, "argument 1 must be a string, not a JSON number"},
		{"wrong type in a struct", "QueryLogs", h.token, `[{"limit": "ten"}]`, 400, "argument 1"},
		{"not an array", "GetServer", h.token, `{"name": "x"}`, 400, "must be a JSON array"},
		{"bad JSON", "GetServer", h.token, `["x"`, 400, "must be a JSON array"},
		{"method error", "SetPrefixMode", h.token, `["everything", "sometimes"]`, 400, "want always or never"},
		{"not found", "GetServer", h.token, `["nope"]`, 404, "not found"},
	}
	for _, tc := range cases {
		r := h.call(t, tc.method, tc.token, tc.args)
		if r.code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, r.code, r.body, tc.code)
			continue
		}
		if msg := errorOf(t, r); !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: message %q lacks %q", tc.name, msg, tc.msg)
		}
	}
	if r := h.do(t, http.MethodGet, PathCall+"ListServers", h.token, ""); r.code != 405 {
		t.Errorf("GET a call = %d", r.code)
	}
	if r := h.do(t, http.MethodGet, "/ui/api/nothing", h.token, ""); r.code != 404 || errorOf(t, r) == "" {
		t.Errorf("unknown API path = %d %s", r.code, r.body)
	}

	// The same DNS-rebinding guard as /mcp.
	for _, hdr := range [][]string{{"Host", "evil.example"}, {"Origin", "http://evil.example"}} {
		if r := h.do(t, http.MethodPost, PathCall+"ListServers", h.token, "[]", hdr...); r.code != 403 {
			t.Errorf("%s %s: %d", hdr[0], hdr[1], r.code)
		}
	}
	// A loopback Origin is not enough: it must be the router's own
	// (origin_test.go has the cases).
	if r := h.do(t, http.MethodPost, PathCall+"ListServers", h.token, "[]", "Origin", "http://localhost:5173"); r.code != 403 {
		t.Errorf("the Origin of another loopback port: %d", r.code)
	}
	if r := h.do(t, http.MethodPost, PathCall+"ListServers", h.token, "[]", "Origin", h.base); r.code != 200 {
		t.Errorf("the router's own Origin: %d %s", r.code, r.body)
	}

	// Session: what the login page needs to know. Only an admin token
	// opens the UI; a client token is named as one, with the command that
	// makes an admin token.
	const hint = `"hint":"create an admin token with: mcp-router tokens create NAME --admin"`
	for _, tc := range []struct {
		name, token, query, want string
	}{
		{"no token", "", "", `{"authRequired":true,"valid":false}`},
		{"admin token", h.token, "", `{"authRequired":true,"valid":true,"role":"admin"}`},
		{"admin token in the query", "", "?token=" + h.token, `{"authRequired":true,"valid":true,"role":"admin"}`},
		{"client token", client.Token, "", `{"authRequired":true,"valid":false,"role":"client","error":"token \"laptop\" is a client token: ` +
			`it reaches the MCP endpoint (/mcp, /sse) only; the browser UI and its API need an admin token",` + hint + `}`},
		{"client token in the query", "", "?token=" + scoped.Token, `{"authRequired":true,"valid":false,"role":"client","error":"token \"scoped\" is a client token: ` +
			`it reaches the MCP endpoint (/mcp, /sse) only; the browser UI and its API need an admin token",` + hint + `}`},
		{"bad token", "mcpr_nope", "", `{"authRequired":true,"valid":false,"error":"unknown token",` + hint + `}`},
	} {
		if r := h.do(t, http.MethodGet, PathSession+tc.query, tc.token, ""); r.code != 200 || r.body != tc.want {
			t.Errorf("session %s = %d %s, want %s", tc.name, r.code, r.body, tc.want)
		}
	}
	// Auth off: no token needed, the session says so.
	if _, err := h.api.SaveSettings(func() AppSettings { s, _ := h.api.GetSettings(); s.AuthEnabled = false; return s }()); err != nil {
		t.Fatal(err)
	}
	if r := h.do(t, http.MethodGet, PathSession, "", ""); r.body != `{"authRequired":false,"valid":true}` {
		t.Errorf("session with auth off = %s", r.body)
	}
	if r := h.call(t, "ListServers", "", "[]"); r.code != 200 {
		t.Errorf("call with auth off = %d %s", r.code, r.body)
	}
}

// TestEveryBoundMethodIsReachableAndDocumented: the HTTP API reaches every
// exported method of *API (the set Wails binds), and docs/ui-api.md lists
// exactly those methods.
func TestEveryBoundMethodIsReachableAndDocumented(t *testing.T) {
	h := newHTTPFixture(t, nil)
	for _, m := range Methods() {
		// A body that is not an array reaches the method's argument
		// decoding: 400, never the 404 of an unknown method.
		if r := h.call(t, m, h.token, "{"); r.code != 400 {
			t.Errorf("%s: %d %s", m, r.code, r.body)
		}
	}
	doc, err := os.ReadFile(filepath.Join(testpeers.RepoRoot(t), "docs", "ui-api.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start, end := strings.Index(text, "## Methods"), strings.Index(text, "## Events")
	if start < 0 || end < start {
		t.Fatal("docs/ui-api.md has no Methods section before Events")
	}
	var documented []string
	for _, m := range regexp.MustCompile("`([A-Z][A-Za-z]+)\\(").FindAllStringSubmatch(text[start:end], -1) {
		documented = append(documented, m[1])
	}
	sort.Strings(documented)
	documented = slices.Compact(documented)
	if got := Methods(); !slices.Equal(got, documented) {
		t.Errorf("exported methods of *API and docs/ui-api.md differ:\n code: %v\n docs: %v", got, documented)
	}
}

func TestHTTPEventStream(t *testing.T) {
	h := newHTTPFixture(t, nil)
	if r := h.do(t, http.MethodGet, PathEvents, "", ""); r.code != 401 {
		t.Errorf("events without a token = %d", r.code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.base+PathEvents+"?token="+h.token, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := make(chan [2]string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				events <- [2]string{name, strings.TrimPrefix(line, "data: ")}
			}
		}
		close(events)
	}()
	s, _ := h.api.GetSettings()
	s.Theme = "dark"
	body, _ := json.Marshal([]any{s})
	if r := h.call(t, "SaveSettings", h.token, string(body)); r.code != 200 {
		t.Fatalf("SaveSettings = %d %s", r.code, r.body)
	}
	// And a server event from a real restart.
	if r := h.call(t, "RestartServer", h.token, `["everything"]`); r.code != 200 {
		t.Fatalf("RestartServer = %d %s", r.code, r.body)
	}
	got := map[string]string{}
	for len(got) < 2 {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("stream ended; got %v", got)
			}
			if ev[0] == EventSettingsChanged || ev[0] == EventServersChanged {
				got[ev[0]] = ev[1]
			}
		case <-ctx.Done():
			t.Fatalf("events so far: %v", got)
		}
	}
	var as AppSettings
	if err := json.Unmarshal([]byte(got[EventSettingsChanged]), &as); err != nil || as.Theme != "dark" {
		t.Errorf("settings:changed data = %s", got[EventSettingsChanged])
	}
	var v ServerView
	if err := json.Unmarshal([]byte(got[EventServersChanged]), &v); err != nil || v.Name != "everything" {
		t.Errorf("servers:changed data = %s", got[EventServersChanged])
	}
}

func TestHTTPServesThePages(t *testing.T) {
	assets := fstest.MapFS{
		"index.html":       {Data: []byte(`<!doctype html><html><head><script type="module" src="./assets/app-1.js"></script></head><body></body></html>`)},
		"assets/app-1.js":  {Data: []byte("console.log('app')")},
		"favicon.svg":      {Data: []byte("<svg/>")},
		"assets/style.css": {Data: []byte("body{}")},
	}
	h := newHTTPFixture(t, assets)
	cases := []struct {
		path, want string
		code       int
	}{
		{"/ui/", `<head><base href="/ui/"><script`, 200},
		{"/ui/index.html", `<base href="/ui/">`, 200},
		{"/ui/servers/everything", `<base href="/ui/">`, 200}, // a deep link opens the app
		{"/ui/assets/app-1.js", "console.log('app')", 200},
		{"/ui/favicon.svg", "<svg/>", 200},
		{"/ui/assets/missing.js", "not found", 404},
		{"/ui/../mcp-router.db", "404 page not found", 404}, // cleaned out of /ui/: the gateway's 404
		{"/ui/..%2f..%2fgo.mod", "not found", 404},          // stays inside the assets
		{"/ui/%2e%2e/%2e%2e/go.mod", "not found", 404},
	}
	for _, tc := range cases {
		r := h.do(t, http.MethodGet, tc.path, "", "") // pages need no token; the API does
		if r.code != tc.code || !strings.Contains(r.body, tc.want) {
			t.Errorf("GET %s = %d %q, want %d with %q", tc.path, r.code, r.body, tc.code, tc.want)
		}
	}
	if r := h.do(t, http.MethodGet, "/ui/assets/app-1.js", "", ""); !strings.Contains(r.hdr.Get("Cache-Control"), "immutable") {
		t.Errorf("hashed asset cache header = %q", r.hdr.Get("Cache-Control"))
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(h.base + "/ui")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("/ui = %d → %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// /mcp still works next to the UI.
	if r := h.do(t, http.MethodPost, "/mcp", "", `{}`); r.code != 401 {
		t.Errorf("/mcp without a token = %d", r.code)
	}
}

func TestHTTPWithoutAssetsOrAuth(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(Handler(f.api, HTTPOptions{NoAuth: true}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(b), "no web UI") {
		t.Errorf("/ui/ without assets = %d %s", resp.StatusCode, b)
	}
	resp, err = http.Post(srv.URL+PathCall+"GetSettings", "application/json", strings.NewReader("[]"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"theme":"system"`) {
		t.Errorf("--no-auth call = %d %s", resp.StatusCode, b)
	}
	resp, _ = http.Get(srv.URL + PathSession)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != `{"authRequired":false,"valid":true}` {
		t.Errorf("--no-auth session = %s", b)
	}
}
