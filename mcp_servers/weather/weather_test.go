package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// jmaServer serves testdata/ as the JMA's /bosai tree; down makes it
// answer 503.
func jmaServer(t *testing.T) (*httptest.Server, *atomic.Bool, *atomic.Int32) {
	t.Helper()
	var down atomic.Bool
	var hits atomic.Int32
	files := http.FileServer(http.Dir("testdata"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if down.Load() {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		switch {
		case r.URL.Path == "/bosai/common/const/area.json":
			r.URL.Path = "/area.json"
		case strings.HasPrefix(r.URL.Path, "/bosai/forecast/data/forecast/"):
			r.URL.Path = "/forecast/" + strings.TrimPrefix(r.URL.Path, "/bosai/forecast/data/forecast/")
		default:
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &down, &hits
}

func newClient(t *testing.T, base string) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(NewServer(NewJMA(base, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo: mcp.Implementation{Name: "test", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func call(t *testing.T, c *client.Client, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestTools(t *testing.T) {
	srv, down, _ := jmaServer(t)
	c := newClient(t, srv.URL+"/bosai")
	tests := []struct {
		name, tool string
		args       map[string]any
		isError    bool
		want       []string
		not        []string
	}{
		{"areas by Japanese name", "list_areas", map[string]any{"query": "東京"}, false,
			[]string{"130000 東京都 (Tokyo), office", "130010 東京地方 (Tokyo), region of office 130000"}, []string{"大阪"}},
		{"areas by English name, any case", "list_areas", map[string]any{"query": "osaka"}, false, []string{"270000 大阪府 (Osaka)"}, []string{"東京"}},
		{"areas by part of a name", "list_areas", map[string]any{"query": "izu"}, false, []string{"130020 伊豆諸島北部", "130030 伊豆諸島南部"}, nil},
		{"every office", "list_areas", map[string]any{}, false, []string{"016000", "130000", "270000"}, []string{"130020"}},
		{"no area", "list_areas", map[string]any{"query": "Atlantis"}, true, []string{`no area matches "Atlantis"`}, nil},
		{"forecast by Japanese name", "get_forecast", map[string]any{"area": "東京"}, false,
			[]string{"Forecast for 東京都 (Tokyo), issued 2026-10-08T17:00:00+09:00 by 気象庁", "2026-10-09: 晴れ; wind: 北の風 後 南の風",
				"chance of rain: 10-08 18:00 0%", "temperatures at 東京: 10-09 09:00 24°C", "伊豆諸島北部 (130020)"}, nil},
		{"forecast by English name", "get_forecast", map[string]any{"area": "Osaka"}, false,
			[]string{"Forecast for 大阪府 (Osaka)", "by 大阪管区気象台", "2026-10-10: 雨 夜 は くもり", "temperatures at 大阪: 10-09 09:00 25°C"}, nil},
		{"forecast of a region", "get_forecast", map[string]any{"area": "Northern Izu Islands"}, false,
			[]string{"Forecast for 伊豆諸島北部", "2026-10-10: 雨; wind: 東の風 強く"}, []string{"東京地方 (130010)"}},
		{"forecast by code, full-width prefecture suffix", "get_forecast", map[string]any{"area": "大阪府"}, false, []string{"大阪府 (270000)"}, nil},
		{"unknown area", "get_forecast", map[string]any{"area": "Narnia"}, true, []string{`unknown area "Narnia"; call list_areas`}, nil},
		{"ambiguous area", "get_forecast", map[string]any{"area": "諸島"}, true, []string{"matches several areas"}, nil},
		{"no area given", "get_forecast", map[string]any{"area": " "}, true, []string{"area is required"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, isErr := call(t, c, tt.tool, tt.args)
			if isErr != tt.isError {
				t.Fatalf("isError %v, want %v: %s", isErr, tt.isError, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in:\n%s", w, text)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(text, n) {
					t.Errorf("unexpected %q in:\n%s", n, text)
				}
			}
		})
	}
	// The JMA down: a tool error that says so, not a protocol error.
	down.Store(true)
	text, isErr := call(t, c, "get_forecast", map[string]any{"area": "Tokyo"})
	if !isErr || !strings.Contains(text, "forecast service failed") || !strings.Contains(text, "503") {
		t.Fatalf("upstream down: %v %s", isErr, text)
	}
}

func TestUpstreamDownBeforeTheAreaList(t *testing.T) {
	srv, down, _ := jmaServer(t)
	down.Store(true)
	c := newClient(t, srv.URL+"/bosai")
	text, isErr := call(t, c, "list_areas", map[string]any{"query": "Tokyo"})
	if !isErr || !strings.Contains(text, "503 Service Unavailable") {
		t.Fatalf("%v %s", isErr, text)
	}
	srv.Close() // nothing listening at all
	text, isErr = call(t, c, "get_forecast", map[string]any{"area": "Tokyo"})
	if !isErr || !strings.Contains(text, "forecast service failed") {
		t.Fatalf("%v %s", isErr, text)
	}
}

func TestAreaListIsCached(t *testing.T) {
	srv, _, hits := jmaServer(t)
	c := newClient(t, srv.URL+"/bosai")
	call(t, c, "get_forecast", map[string]any{"area": "Tokyo"})
	call(t, c, "get_forecast", map[string]any{"area": "Osaka"})
	if n := hits.Load(); n != 3 { // area.json once, two forecasts
		t.Fatalf("%d requests to the JMA, want 3", n)
	}
}

func TestCommandLine(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--base-url", "ftp://x"}, 2, "must be an http or https URL"},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--nope"}, 2, "flag provided but not defined"},
	} {
		var errOut bytes.Buffer
		if code := run(tt.args, strings.NewReader(""), &bytes.Buffer{}, &errOut); code != tt.code || !strings.Contains(errOut.String(), tt.msg) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, errOut.String())
		}
	}
	// stdin at EOF: the server ends cleanly.
	if code := run(nil, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatalf("exit %d at EOF", code)
	}
}

// The sample server is independent of the router (seed 003): nothing it
// builds from, directly or not, is a package of the app.
func TestImportsNothingFromTheApp(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/mark3labs/mcp-go/server") {
		t.Fatalf("go list printed too little to check: %q", out)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/mcp-router/mcp-router/") && !strings.HasPrefix(d, "github.com/mcp-router/mcp-router/mcp_servers/weather") {
			t.Errorf("the weather server depends on %s", d)
		}
	}
}
