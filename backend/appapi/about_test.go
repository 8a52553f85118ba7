package appapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/update"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// releases serves the recorded answer of backend/update/testdata (latest:
// v0.4.0) and counts the requests; status other than 200 serves GitHub's
// rate-limit answer.
type releases struct {
	srv    *httptest.Server
	hits   atomic.Int32
	status atomic.Int32
}

func newReleases(t *testing.T) *releases {
	t.Helper()
	latest, err := os.ReadFile(filepath.Join(testpeers.RepoRoot(t), "backend", "update", "testdata", "latest.json"))
	if err != nil {
		t.Fatal(err)
	}
	limited, err := os.ReadFile(filepath.Join(testpeers.RepoRoot(t), "backend", "update", "testdata", "ratelimit.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := &releases{}
	r.status.Store(200)
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.hits.Add(1)
		if st := int(r.status.Load()); st != 200 {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.WriteHeader(st)
			_, _ = w.Write(limited)
			return
		}
		_, _ = w.Write(latest)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func TestAboutAndUpdateChecks(t *testing.T) {
	f := newFixture(t)
	rel := newReleases(t)
	f.api.opts.Updates = &update.Checker{API: rel.srv.URL, Current: "v0.3.2"}

	info, err := f.api.About()
	if err != nil || info.Version != core.Version || info.DevBuild != update.ParseVersion(core.Version).Dev ||
		info.CheckForUpdates || info.LastCheck != nil {
		t.Fatalf("About on a new router: %+v, %v", info, err)
	}
	// Off by default: the page opening asks nothing.
	if _, err := f.api.CheckForUpdates(false); !errors.Is(err, ErrUpdateChecksOff) {
		t.Errorf("automatic check while off: %v", err)
	}
	if n := rel.hits.Load(); n != 0 {
		t.Fatalf("%d requests to GitHub with checks off and no click", n)
	}
	// The user's click asks, setting or not.
	r, err := f.api.CheckForUpdates(true)
	if err != nil || !r.Newer || r.Latest != "v0.4.0" || r.Current != "v0.3.2" ||
		r.URL != "https://github.com/mcp-router/mcp-router/releases/tag/v0.4.0" {
		t.Fatalf("Check now: %+v, %v", r, err)
	}
	info, _ = f.api.SetCheckForUpdates(true)
	if !info.CheckForUpdates || info.LastCheck == nil || info.LastCheck.Latest != "v0.4.0" {
		t.Errorf("after turning checks on: %+v", info)
	}
	if !f.c.Settings.CheckForUpdates(t.Context()) {
		t.Error("checkForUpdates not stored")
	}
	// On: the page opening gets the recent result without asking again.
	before := rel.hits.Load()
	if r, err := f.api.CheckForUpdates(false); err != nil || r.Latest != "v0.4.0" {
		t.Errorf("automatic check while on: %+v, %v", r, err)
	}
	if rel.hits.Load() != before {
		t.Error("an automatic check within the interval asked GitHub again")
	}
	// A failed check says why and keeps the last good result.
	rel.status.Store(403)
	if _, err := f.api.CheckForUpdates(true); !errors.Is(err, update.ErrRateLimited) {
		t.Errorf("rate limited: %v", err)
	}
	if info, _ := f.api.About(); info.LastCheck == nil || info.LastCheck.Latest != "v0.4.0" {
		t.Errorf("a failed check dropped the last result: %+v", info)
	}
	if info, _ := f.api.SetCheckForUpdates(false); info.CheckForUpdates {
		t.Error("could not turn checks off")
	}
	if _, err := f.api.CheckForUpdates(false); !errors.Is(err, ErrUpdateChecksOff) {
		t.Errorf("automatic check after turning off: %v", err)
	}
}

// Over the browser UI's HTTP API: a client token cannot make the router
// contact GitHub or change the setting; the admin token can.
func TestUpdateCheckOverHTTP(t *testing.T) {
	h := newHTTPFixture(t, nil)
	rel := newReleases(t)
	h.api.opts.Updates = &update.Checker{API: rel.srv.URL, Current: "v0.4.0"}
	client, err := h.api.CreateToken("laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, args string }{{"CheckForUpdates", "[true]"}, {"SetCheckForUpdates", "[true]"}, {"About", "[]"}} {
		if r := h.call(t, c.method, client.Token, c.args); r.code != http.StatusForbidden || !strings.Contains(r.body, "client token") {
			t.Errorf("%s with a client token: %d %s", c.method, r.code, r.body)
		}
	}
	if rel.hits.Load() != 0 || h.c.Settings.CheckForUpdates(t.Context()) {
		t.Fatalf("a client token reached GitHub (%d) or the setting", rel.hits.Load())
	}
	r := h.call(t, "CheckForUpdates", h.token, "[true]")
	var got update.Result
	if r.code != 200 || json.Unmarshal([]byte(r.body), &got) != nil || got.Newer || got.Latest != "v0.4.0" {
		t.Errorf("CheckForUpdates with the admin token: %d %s", r.code, r.body)
	}
	// A bad argument is refused before anything is asked.
	before := rel.hits.Load()
	if r := h.call(t, "CheckForUpdates", h.token, `["yes"]`); r.code != 400 {
		t.Errorf("CheckForUpdates(\"yes\"): %d %s", r.code, r.body)
	}
	if rel.hits.Load() != before {
		t.Error("a refused call asked GitHub")
	}
}
