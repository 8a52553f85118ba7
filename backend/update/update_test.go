package update

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testdata/latest.json has the shape of GitHub's answer to GET
// /repos/{owner}/{repo}/releases/latest (every field GitHub sends, in its
// order, per docs.github.com/rest/releases/releases#get-the-latest-release),
// for this project's repository: it has published no release to record yet.
// ratelimit.json and notfound.json are GitHub's error bodies.

// github serves a recorded answer for the project's latest release.
type github struct {
	srv  *httptest.Server
	hits atomic.Int32
	last atomic.Value // *http.Request
}

func newGitHub(t *testing.T, status int, file string, hdr map[string]string) *github {
	t.Helper()
	body, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	g := &github{}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.hits.Add(1)
		g.last.Store(r)
		if r.URL.Path != "/repos/mcp-router/mcp-router/releases/latest" {
			http.NotFound(w, r)
			return
		}
		for k, v := range hdr {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *github) checker(current string) *Checker {
	return &Checker{API: g.srv.URL, Current: current}
}

func TestCheckFindsANewerRelease(t *testing.T) {
	g := newGitHub(t, 200, "latest.json", nil)
	r, err := g.checker("v0.3.2").Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Newer || r.DevBuild || r.Current != "v0.3.2" || r.Latest != "v0.4.0" || r.Name != "v0.4.0" ||
		r.URL != "https://github.com/mcp-router/mcp-router/releases/tag/v0.4.0" ||
		r.PublishedAt != "2026-11-20T09:31:02Z" || !strings.HasPrefix(r.Notes, "## What's Changed") {
		t.Errorf("result %+v", r)
	}
	if _, err := time.Parse(time.RFC3339, r.CheckedAt); err != nil {
		t.Errorf("checkedAt %q: %v", r.CheckedAt, err)
	}
	req := g.last.Load().(*http.Request)
	if req.Method != http.MethodGet || req.Header.Get("Accept") != "application/vnd.github+json" ||
		req.Header.Get("User-Agent") != "mcp-router/v0.3.2" {
		t.Errorf("request %s %v", req.Method, req.Header)
	}
	if g.hits.Load() != 1 {
		t.Errorf("%d requests, want 1 (nothing else is fetched: no asset)", g.hits.Load())
	}
}

func TestCheckComparesVersions(t *testing.T) {
	g := newGitHub(t, 200, "latest.json", nil) // latest is v0.4.0
	for _, c := range []struct {
		current    string
		newer, dev bool
	}{
		{"v0.4.0", false, false},
		{"v0.4.1", false, false},
		{"v0.10.0", false, false}, // numeric, not string, comparison
		{"v0.3.9", true, false},
		{"0.3.9", true, false},
		{"v0.4.0-rc.1", true, false}, // a pre-release of the same version is older
		{"v0.4.0-dirty", false, true},
		{"v0.4.0-3-g1a2b3c4", false, true},        // commits after the release
		{"v0.3.2-14-g1a2b3c4d-dirty", true, true}, // after an older release
		{"v0.4.0-rc.1-2-gdeadbee", true, true},
		{"dev", false, true},
		{"", false, true},
		{"1a2b3c4", false, true}, // git describe --always without any tag
		{"1a2b3c4-dirty", false, true},
	} {
		r, err := g.checker(c.current).Check(context.Background())
		if err != nil {
			t.Fatalf("%q: %v", c.current, err)
		}
		if r.Newer != c.newer || r.DevBuild != c.dev || r.Latest != "v0.4.0" {
			t.Errorf("running %q: newer %v dev %v, want %v %v", c.current, r.Newer, r.DevBuild, c.newer, c.dev)
		}
	}
}

func TestCheckErrorsSayWhatHappened(t *testing.T) {
	reset := time.Date(2026, 11, 26, 23, 47, 0, 0, time.UTC).Unix()
	cases := []struct {
		name   string
		status int
		file   string
		hdr    map[string]string
		is     error
		want   string
	}{
		{"rate limited", 403, "ratelimit.json", map[string]string{"X-RateLimit-Remaining": "0",
			"X-RateLimit-Reset": strconv.FormatInt(reset, 10)}, ErrRateLimited, "try again after 23:47 UTC"},
		{"secondary rate limit", 429, "ratelimit.json", map[string]string{"Retry-After": "60"}, ErrRateLimited, "try again in 60 seconds"},
		{"no release", 404, "notfound.json", nil, ErrNoRelease, "mcp-router/mcp-router has no published release"},
		{"other 403", 403, "notfound.json", map[string]string{"X-RateLimit-Remaining": "42"}, ErrBadAnswer, "403 Forbidden: Not Found"},
		{"server error", 502, "notfound.json", nil, ErrBadAnswer, "502 Bad Gateway"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newGitHub(t, c.status, c.file, c.hdr)
			_, err := g.checker("v0.3.0").Check(context.Background())
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %v containing %q", err, c.is, c.want)
			}
		})
	}
}

func serve(t *testing.T, h http.HandlerFunc) *Checker {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &Checker{API: srv.URL, Current: "v0.3.0"}
}

func TestCheckRefusesMalformedAnswers(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"not JSON", `<html>captive portal</html>`, "unexpected answer from GitHub: invalid character"},
		{"cut short", `{"tag_name": "v0.4`, "unexpected answer from GitHub: unexpected end of JSON input"},
		{"a list", `[]`, "unexpected answer from GitHub: json: cannot unmarshal array"},
		{"no tag", `{"name": "latest"}`, "the release has no tag_name"},
		{"not a version", `{"tag_name": "nightly"}`, `the latest release's tag "nightly" is not a version`},
		{"short version", `{"tag_name": "v1.2"}`, `the latest release's tag "v1.2" is not a version`},
		{"wrong type", `{"tag_name": 4}`, "cannot unmarshal number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(c.body)) })
			_, err := ch.Check(context.Background())
			if !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	t.Run("too big", func(t *testing.T) {
		ch := serve(t, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"tag_name":"v1.0.0","body":"`))
			_, _ = w.Write([]byte(strings.Repeat("x", maxAnswer)))
			_, _ = w.Write([]byte(`"}`))
		})
		if _, err := ch.Check(context.Background()); !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), "over 1048576 bytes") {
			t.Errorf("error %v", err)
		}
	})
}

// The UI opens the URL in the browser: only a release page of the project
// on github.com is passed on; anything else becomes the page built from the
// tag. Long notes are cut.
func TestCheckPassesOnOnlyTheProjectsReleasePage(t *testing.T) {
	for _, htmlURL := range []string{
		"javascript:alert(1)",
		"https://evil.example/mcp-router/mcp-router/releases/tag/v9.0.0",
		"https://github.com/someone-else/mcp-router/releases/tag/v9.0.0",
		"http://github.com/mcp-router/mcp-router/releases/tag/v9.0.0",
		"https://github.com/mcp-router/mcp-router/releases/../../../evil",
		"",
	} {
		ch := serve(t, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"tag_name":"v9.0.0","html_url":` + quote(htmlURL) + `,"body":"` + strings.Repeat("é", 5000) + `"}`))
		})
		r, err := ch.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if r.URL != "https://github.com/mcp-router/mcp-router/releases/tag/v9.0.0" {
			t.Errorf("html_url %q passed on as %q", htmlURL, r.URL)
		}
		if n := len([]rune(r.Notes)); n != maxNotes+1 {
			t.Errorf("notes of %d runes, want %d (cut, marked)", n, maxNotes+1)
		}
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func TestCheckOffline(t *testing.T) {
	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	_, err = (&Checker{API: "http://" + addr, Current: "v0.3.0"}).Check(context.Background())
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), addr) || strings.Contains(err.Error(), "Get ") {
		t.Errorf("error %v", err)
	}
	// An answer that never comes, with a short client timeout.
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(block) })
	_, err = (&Checker{API: srv.URL, Client: &http.Client{Timeout: 200 * time.Millisecond}}).Check(context.Background())
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "did not answer within the time allowed") {
		t.Errorf("error %v", err)
	}
}

func TestCheckRefusesABadRepo(t *testing.T) {
	g := newGitHub(t, 200, "latest.json", nil)
	for _, repo := range []string{"mcp-router", "../../etc/passwd", "a/b/c", "a/b?x=1"} {
		ch := g.checker("v0.1.0")
		ch.Repo = repo
		if _, err := ch.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "want owner/name") {
			t.Errorf("repo %q: %v", repo, err)
		}
	}
	if g.hits.Load() != 0 {
		t.Errorf("%d requests for bad repos", g.hits.Load())
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{
		"v1.2.3":                {Base: "v1.2.3"},
		"1.2.3":                 {Base: "v1.2.3"},
		"v1.2.3-dirty":          {Base: "v1.2.3", Dev: true},
		"v1.2.3-4-gabcdef0":     {Base: "v1.2.3", Dev: true},
		"v1.2.3-rc.1":           {Base: "v1.2.3-rc.1"},
		"v1.2.3-rc.1-4-gabcdef": {Base: "v1.2.3-rc.1", Dev: true},
		"dev":                   {Dev: true},
		"abcdef0":               {Dev: true},
		"v1.2":                  {Dev: true},
	} {
		if got := ParseVersion(in); got != want {
			t.Errorf("ParseVersion(%q) = %+v, want %+v", in, got, want)
		}
	}
}
