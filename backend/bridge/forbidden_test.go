package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/store"
)

// A token bound to one profile, pointed at another profile's endpoint,
// gets a 403: connect explains it to the client, does not retry, and
// exits non-zero (it used to exit 0, so a client's launcher saw success).
func TestForbiddenProfileIsExplainedAndExitsNonZero(t *testing.T) {
	r := startRouter(t, t.TempDir(), routerOptions{auth: true, noPeer: true})
	ctx := context.Background()
	for _, name := range []string{"pa", "pb"} {
		if _, err := r.c.Profiles.Create(ctx, store.Profile{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	secret, _, err := r.c.Auth.CreateToken(ctx, auth.NewToken{Name: "bound", Profile: "pa"})
	if err != nil {
		t.Fatal(err)
	}

	b := startBridge(t, Options{URL: r.url + "/pb", Token: secret})
	b.send(initialize(1, `{}`))
	_, m := b.response("1", 10*time.Second)
	var e struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(m["error"], &e); err != nil {
		t.Fatalf("want an error response, got %v", m)
	}
	if !strings.Contains(e.Message, "HTTP 403") || !strings.Contains(e.Message, `"pa"`) || !strings.Contains(e.Message, "MCPR_TOKEN") {
		t.Errorf("error message %q", e.Message)
	}
	if strings.Contains(b.log.String(), "retrying") {
		t.Errorf("a 403 was retried:\n%s", b.log.String())
	}
	if err := b.stdinEOF(); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("Run after a 403 returned %v, want an error naming the 403", err)
	}

	// The same token on its own profile's endpoint works.
	good := startBridge(t, Options{URL: r.url + "/pa", Token: secret})
	good.handshake(`{}`)
	good.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	good.result("2", 10*time.Second)
	if err := good.stdinEOF(); err != nil {
		t.Errorf("Run on the token's own profile: %v", err)
	}
}
