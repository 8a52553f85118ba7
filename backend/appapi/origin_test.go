package appapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The question these tests answer: can a page the router did not serve —
// on another localhost port, with auth off (`serve --no-auth`), where no
// token stands in its way — make the UI API do anything? The headers are
// what Chromium 156 sent, recorded against a logging server: the UI's own
// page (fetch with Content-Type: application/json as
// frontend/src/api/http.ts does, EventSource, the session GET) and a page
// on http://localhost:<another port> (a no-cors text/plain POST, a CORS
// preflight, an EventSource and an <img> of the event stream).

// status sends one request to base and returns its status code, the
// Access-Control-Allow-Origin it answered and the start of its body. The
// body of a 200 event stream is not read (it never ends).
func status(t *testing.T, base, method, path, host string, hdr map[string]string, body string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var text string
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		text = string(b)
	}
	return resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), text
}

func with(base map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(base)+len(kv)/2)
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

// TestCrossSitePOSTRunsNothing is the attack of issue 24: with `serve
// --no-auth`, a page on http://localhost:8080 POSTs text/plain (no
// preflight) to AddServersFromJSON a server whose command leaves a file.
// Refused with 403, and nothing ran: no server stored, no file. The same
// call from the UI's own page then adds the server and its command runs,
// so the test sees a run when there is one.
func TestCrossSitePOSTRunsNothing(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh for the marker command")
	}
	f := newFixture(t)
	base := serveUI(t, f, HTTPOptions{NoAuth: true, Heartbeat: time.Hour})
	port := strings.TrimPrefix(base, "http://127.0.0.1:")
	mark := filepath.Join(t.TempDir(), "ran")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"csrf": map[string]any{"command": sh, "args": []string{"-c", "echo ran > '" + mark + "'; exec sleep 60"}}}})
	args, _ := json.Marshal([]string{string(cfg)})

	attacks := []struct {
		name string
		host string
		hdr  map[string]string
	}{
		// The request: text/plain from Origin http://localhost:8080.
		{"text/plain from localhost:8080", "localhost:" + port,
			map[string]string{"Origin": "http://localhost:8080", "Content-Type": "text/plain"}},
		// What Chromium sends for fetch(url, {method: "POST", mode: "no-cors", body}).
		{"Chromium no-cors POST", "localhost:" + port, map[string]string{"Origin": "http://localhost:8080",
			"Content-Type": "text/plain;charset=UTF-8", "Accept": "*/*",
			"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "empty"}},
		// The same page reaching the router as 127.0.0.1.
		{"text/plain from 127.0.0.1:8080", "", map[string]string{"Origin": "http://127.0.0.1:8080", "Content-Type": "text/plain"}},
		// An HTML form: application/x-www-form-urlencoded, Sec-Fetch-Dest document.
		{"form from localhost:8080", "localhost:" + port, map[string]string{"Origin": "http://localhost:8080",
			"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-site",
			"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}},
	}
	for _, a := range attacks {
		code, acao, body := status(t, base, http.MethodPost, PathCall+"AddServersFromJSON", a.host, a.hdr, string(args))
		if code != http.StatusForbidden || acao != "" || !strings.Contains(body, "is not this router's own") {
			t.Errorf("%s: %d (Access-Control-Allow-Origin %q) %s, want 403", a.name, code, acao, body)
		}
	}
	// Give a command that was started the time to leave its mark.
	time.Sleep(time.Second)
	if rows, err := f.c.Store.Servers().List(context.Background()); err != nil || len(rows) != 0 {
		t.Fatalf("refused requests stored servers: %v %v", rows, err)
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Fatalf("the command ran: %v", err)
	}

	// The control: the UI's own page (Chromium's headers) adds it, and the
	// command runs.
	code, _, body := status(t, base, http.MethodPost, PathCall+"AddServersFromJSON", "", map[string]string{
		"Origin": base, "Content-Type": "application/json", "Accept": "*/*",
		"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}, string(args))
	if code != http.StatusOK || !strings.Contains(body, `"csrf"`) {
		t.Fatalf("the UI's own call: %d %s", code, body)
	}
	testpeers.Eventually(t, 20*time.Second, "the imported server's command to run", func() bool {
		_, err := os.Stat(mark)
		return err == nil
	})
}

// TestUIAPIAnswersOnlyItsOwnPages: which requests reach the UI API with
// auth off, by Origin, Sec-Fetch-Site and Content-Type.
func TestUIAPIAnswersOnlyItsOwnPages(t *testing.T) {
	f := newFixture(t)
	base := serveUI(t, f, HTTPOptions{NoAuth: true, Heartbeat: time.Hour})
	port := strings.TrimPrefix(base, "http://127.0.0.1:")
	other := "http://localhost:8080"

	// The UI's own page in Chromium.
	pageCall := map[string]string{"Origin": base, "Content-Type": "application/json", "Accept": "*/*",
		"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}
	pageGet := map[string]string{"Accept": "*/*", "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}
	pageEvents := with(pageGet, "Accept", "text/event-stream")
	// Node's fetch (test/ui's helpers) and curl: no Origin, no Sec-Fetch-Site.
	nodeCall := map[string]string{"Content-Type": "application/json", "Accept": "*/*", "Sec-Fetch-Mode": "cors"}
	curl := map[string]string{"Content-Type": "application/json"}

	cases := []struct {
		name, method, path, host string
		hdr                      map[string]string
		want                     int
	}{
		{"the page's call", "POST", PathCall + "ListServers", "", pageCall, 200},
		{"the page's call, charset", "POST", PathCall + "ListServers", "", with(pageCall, "Content-Type", "application/json; charset=utf-8"), 200},
		{"the page opened as localhost", "POST", PathCall + "ListServers", "localhost:" + port, with(pageCall, "Origin", "http://localhost:"+port), 200},
		// `npm run dev`: Vite's proxy forwards the page's Host and Origin.
		{"the page through Vite's proxy", "POST", PathCall + "ListServers", "localhost:5173", with(pageCall, "Origin", "http://localhost:5173"), 200},
		{"the page's session", "GET", PathSession, "", pageGet, 200},
		{"the page's event stream", "GET", PathEvents, "", pageEvents, 200},
		{"the event stream opened by hand", "GET", PathEvents, "", with(pageEvents, "Sec-Fetch-Site", "none"), 200},
		{"node fetch", "POST", PathCall + "ListServers", "", nodeCall, 200},
		{"curl", "POST", PathCall + "ListServers", "", curl, 200},
		{"curl, event stream", "GET", PathEvents, "", nil, 200},

		{"JSON from another loopback port", "POST", PathCall + "ListServers", "", with(curl, "Origin", "http://127.0.0.1:8080"), 403},
		{"JSON from localhost:8080", "POST", PathCall + "ListServers", "localhost:" + port, with(pageCall, "Origin", other, "Sec-Fetch-Site", "same-site"), 403},
		{"JSON from the other name of this port", "POST", PathCall + "ListServers", "", with(pageCall, "Origin", "http://localhost:"+port), 403},
		{"JSON from a sandboxed frame", "POST", PathCall + "ListServers", "", with(pageCall, "Origin", "null"), 403},
		{"JSON from a file", "POST", PathCall + "ListServers", "", with(pageCall, "Origin", "file://"), 403},
		{"cross-site without an Origin", "POST", PathCall + "ListServers", "", with(curl, "Sec-Fetch-Site", "cross-site"), 403},
		{"same-site without an Origin", "POST", PathCall + "ListServers", "", with(curl, "Sec-Fetch-Site", "same-site"), 403},
		{"preflight from localhost:8080", "OPTIONS", PathCall + "ListServers", "localhost:" + port, map[string]string{"Origin": other,
			"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type",
			"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}, 403},
		{"EventSource from localhost:8080", "GET", PathEvents, "localhost:" + port, with(pageEvents, "Origin", other, "Sec-Fetch-Site", "same-site"), 403},
		{"<img> of the event stream from localhost:8080", "GET", PathEvents, "localhost:" + port, map[string]string{"Accept": "image/*,*/*;q=0.8",
			"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}, 403},
		{"event stream from another loopback port", "GET", PathEvents, "", map[string]string{"Origin": "http://127.0.0.1:8080"}, 403},
		{"session from localhost:8080", "GET", PathSession, "localhost:" + port, with(pageGet, "Origin", other, "Sec-Fetch-Site", "same-site"), 403},

		{"text/plain without an Origin", "POST", PathCall + "ListServers", "", with(curl, "Content-Type", "text/plain"), 415},
		{"text/plain from the page", "POST", PathCall + "ListServers", "", with(pageCall, "Content-Type", "text/plain;charset=UTF-8"), 415},
		{"a form without an Origin", "POST", PathCall + "ListServers", "", with(curl, "Content-Type", "application/x-www-form-urlencoded"), 415},
		{"a form from the page", "POST", PathCall + "ListServers", "", with(pageCall, "Content-Type", "application/x-www-form-urlencoded"), 415},
		{"multipart", "POST", PathCall + "ListServers", "", with(curl, "Content-Type", "multipart/form-data; boundary=x"), 415},
		{"no Content-Type", "POST", PathCall + "ListServers", "", with(curl, "Content-Type", ""), 415},
		{"a JSON look-alike", "POST", PathCall + "ListServers", "", with(curl, "Content-Type", "application/jsonp"), 415},
	}
	for _, tc := range cases {
		code, acao, body := status(t, base, tc.method, tc.path, tc.host, tc.hdr, "[]")
		if code != tc.want || acao != "" {
			t.Errorf("%s: %d (Access-Control-Allow-Origin %q) %s, want %d", tc.name, code, acao, body, tc.want)
			continue
		}
		switch tc.want {
		case 403:
			if !strings.Contains(body, "the UI API answers only the pages the router serves at /ui/") &&
				!strings.Contains(body, "may not use this router") { // gateway's guardLocal, before the UI
				t.Errorf("%s: 403 says %s", tc.name, body)
			}
		case 415:
			if !strings.Contains(body, "a UI API call needs Content-Type: application/json") {
				t.Errorf("%s: 415 says %s", tc.name, body)
			}
		}
	}
}
