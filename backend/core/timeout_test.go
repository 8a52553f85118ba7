package core

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// The timeout setting bounds every request to a server without a timeout of
// its own, and a change applies to the next request; a server's own timeout
// wins over it.
func TestTimeoutSettingIsTheDefault(t *testing.T) {
	follows := everythingDef(t, "follows") // TimeoutSeconds 0: the setting
	own := everythingDef(t, "own")
	own.TimeoutSeconds = 10
	e := serve(t, t.TempDir(), []spec.Server{follows, own}, true)
	ctx := context.Background()
	stdio := newStdioClient(t, e.core)
	id := 100
	call := func(server string) (ok bool, message string) {
		id++
		stdio.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s__trigger-long-running-operation","arguments":{"duration":2,"steps":1}}}`, id, server))
		body := stdio.answer(id)
		if strings.Contains(string(body), `"error"`) {
			return false, errorIn(t, body).Message
		}
		return true, ""
	}

	if err := e.core.Settings.Set(ctx, settings.KeyTimeout, "1"); err != nil {
		t.Fatal(err)
	}
	if ok, msg := call("follows"); ok || !strings.HasPrefix(msg, "follows: timed out: no answer within 1s") {
		t.Errorf("follows with the setting at 1 s: ok %v, %q; want a 1 s timeout", ok, msg)
	}
	if ok, msg := call("own"); !ok {
		t.Errorf("own (10 s of its own) with the setting at 1 s: %q", msg)
	}
	if err := e.core.Settings.Set(ctx, settings.KeyTimeout, "10"); err != nil {
		t.Fatal(err)
	}
	if ok, msg := call("follows"); !ok {
		t.Errorf("follows with the setting at 10 s: %q", msg)
	}
}
