package core

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/health"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func getProbe(t *testing.T, addr, path, host string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
	if host != "" {
		req.Host = host
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The probes over real HTTP on a router with tokens on: no token needed,
// /healthz follows the database, /livez does not, and the loopback
// listener's DNS-rebinding guard holds for them as for /mcp.
func TestHealthProbesOverRealHTTP(t *testing.T) {
	ep := serve(t, t.TempDir(), nil, false)
	for _, p := range []string{health.PathReady, health.PathLive} {
		if code, body := getProbe(t, ep.addr, p, ""); code != http.StatusOK || body != "ok" {
			t.Errorf("GET %s without a token: %d %q, want 200 ok", p, code, body)
		}
		if code, _ := getProbe(t, ep.addr, p, "evil.example:3282"); code != http.StatusForbidden {
			t.Errorf("GET %s with a foreign Host on a loopback listener: %d, want 403", p, code)
		}
	}
	// The database gone: not ready, still alive.
	if err := ep.core.Store.Close(); err != nil {
		t.Fatal(err)
	}
	if code, body := getProbe(t, ep.addr, health.PathReady, ""); code != http.StatusServiceUnavailable {
		t.Errorf("GET %s with the database closed: %d %q, want 503", health.PathReady, code, body)
	}
	if code, body := getProbe(t, ep.addr, health.PathLive, ""); code != http.StatusOK {
		t.Errorf("GET %s with the database closed: %d %q, want 200", health.PathLive, code, body)
	}
}

// A database that hands out no connection (every one taken, as when it
// hangs): /healthz answers 503 within its 2 s, and 200 once it answers.
func TestHealthzOfAHungDatabase(t *testing.T) {
	ep := serve(t, t.TempDir(), nil, true)
	db, err := ep.core.Store.DB().DB()
	if err != nil {
		t.Fatal(err)
	}
	var held []*sql.Conn
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		c, err := db.Conn(ctx)
		cancel()
		if err != nil {
			break
		}
		held = append(held, c)
	}
	if len(held) == 0 {
		t.Fatal("took no connection from the pool")
	}
	start := time.Now()
	code, body := getProbe(t, ep.addr, health.PathReady, "")
	took := time.Since(start)
	if code != http.StatusServiceUnavailable || body != "database did not answer within 2s" {
		t.Errorf("GET %s with the pool used up: %d %q, want 503 naming the 2s", health.PathReady, code, body)
	}
	if took > health.DefaultTimeout+time.Second {
		t.Errorf("GET %s with the pool used up took %v", health.PathReady, took)
	}
	for _, c := range held {
		c.Close()
	}
	testpeers.Eventually(t, 5*time.Second, "/healthz to answer 200 again", func() bool {
		code, _ := getProbe(t, ep.addr, health.PathReady, "")
		return code == http.StatusOK
	})
}
