package registry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// hostile serves body for every request, counting them and keeping the
// last raw path asked.
func hostile(t *testing.T, status int, body string) (*Client, *atomic.Int32, *atomic.Value) {
	t.Helper()
	var n atomic.Int32
	var path atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		path.Store(r.URL.EscapedPath() + "?" + r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL + "/", MaxBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	return c, &n, &path
}

const okEntry = `{"server":{"name":"io.github.a/b","version":"1.0.0"},"_meta":{"io.modelcontextprotocol.registry/official":{"isLatest":true}}}`

func TestClientAsksTheV0API(t *testing.T) {
	c, _, path := hostile(t, 200, `{"servers":[`+okEntry+`],"metadata":{"nextCursor":"io.github.a/b:1.0.0","count":1}}`)
	page, err := c.Search(context.Background(), "  files ", "abc", 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := path.Load().(string); got != "/v0/servers?cursor=abc&limit=5&search=files&version=latest" {
		t.Fatalf("asked %s", got)
	}
	if len(page.Servers) != 1 || page.Metadata.NextCursor != "io.github.a/b:1.0.0" {
		t.Fatalf("page %+v", page)
	}
	c, _, path = hostile(t, 200, okEntry)
	if _, err := c.Get(context.Background(), "io.github.a/b", ""); err != nil {
		t.Fatal(err)
	}
	// The name's '/' stays one path segment (%2F), as the API wants.
	if got := path.Load().(string); got != "/v0/servers/io.github.a%2Fb/versions/latest?" {
		t.Fatalf("asked %s", got)
	}
}

func TestClientRefusesHostileAnswers(t *testing.T) {
	huge := `{"servers":[{"server":{"name":"io.github.a/b","version":"1","description":"` + strings.Repeat("A", 70<<10) + `"}}]}`
	cases := map[string]struct {
		status int
		body   string
		get    bool
		want   error
		msg    string
	}{
		"huge":               {200, huge, false, ErrBadAnswer, "larger than 64 KB (the registryMaxKB setting"},
		"malformed":          {200, `{"servers":[{"server":`, false, ErrBadAnswer, "not the v0 API's JSON"},
		"two values":         {200, `{"servers":[]} {"servers":[]}`, false, ErrBadAnswer, "more than one JSON value"},
		"name with ../":      {200, `{"servers":[{"server":{"name":"io.github.a/../../etc","version":"1"}}]}`, false, ErrBadAnswer, "not a registry name"},
		"name with shell":    {200, `{"servers":[{"server":{"name":"io.github.a/$(rm -rf ~)","version":"1"}}]}`, false, ErrBadAnswer, "not a registry name"},
		"version with shell": {200, `{"servers":[{"server":{"name":"io.github.a/b","version":"1;id"}}]}`, false, ErrBadAnswer, "not a version"},
		"page too long":      {200, `{"servers":[` + okEntry + `,` + okEntry + `,` + okEntry + `]}`, false, ErrBadAnswer, "3 servers in a page of at most 2"},
		"cursor too long":    {200, `{"servers":[],"metadata":{"nextCursor":"` + strings.Repeat("c", 2000) + `"}}`, false, ErrBadAnswer, "next cursor is longer"},
		"too many packages":  {200, `{"server":{"name":"io.github.a/b","version":"1","packages":[` + strings.Repeat(`{"registryType":"npm","identifier":"x"},`, 40) + `{"registryType":"npm","identifier":"x"}]}}`, true, ErrBadAnswer, "more than the cap of 32"},
		"another server":     {200, `{"server":{"name":"io.github.other/c","version":"1"}}`, true, ErrBadAnswer, "asked for io.github.a/b"},
		"not found":          {404, `{"title":"Not Found","detail":"Server not found"}`, true, ErrNotFound, "not found in the registry"},
		"server error":       {500, `{"detail":"boom\u001b[31m"}`, false, nil, "HTTP 500: boom [31m"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cl, _, _ := hostile(t, c.status, c.body)
			var err error
			if c.get {
				_, err = cl.Get(context.Background(), "io.github.a/b", "")
			} else {
				_, err = cl.Search(context.Background(), "", "", 2)
			}
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err %v, want %v with %q", err, c.want, c.msg)
			}
		})
	}
}

func TestClientRefusesBadRequestsWithoutAsking(t *testing.T) {
	c, n, _ := hostile(t, 200, okEntry)
	ctx := context.Background()
	for _, name := range []string{"../etc/passwd", "a/b/../c", "io.github.a/b?x=1", "io.github.a/b c", "noslash", "io.github.a/" + strings.Repeat("x", 300)} {
		if _, err := c.Get(ctx, name, ""); !errors.Is(err, ErrBadInput) {
			t.Errorf("Get(%q): %v", name, err)
		}
	}
	if _, err := c.Get(ctx, "io.github.a/b", "1.0/../2"); !errors.Is(err, ErrBadInput) {
		t.Errorf("version with /: %v", err)
	}
	if _, err := c.Search(ctx, "ab", "", 0); !errors.Is(err, ErrBadInput) {
		t.Errorf("short search: %v", err)
	}
	if _, err := c.Search(ctx, "files", "", MaxLimit+1); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "1-100") {
		t.Errorf("limit past the page cap: %v", err)
	}
	if _, err := c.Search(ctx, "files", strings.Repeat("c", MaxCursorLen+1), 0); !errors.Is(err, ErrBadInput) {
		t.Errorf("long cursor: %v", err)
	}
	if n.Load() != 0 {
		t.Fatalf("%d requests sent for refused input", n.Load())
	}
	if _, err := New(Options{BaseURL: "file:///etc"}); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "registryURL") {
		t.Fatalf("file URL: %v", err)
	}
}
