package core

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A gate turned on by the CLI reaches the running router; a refused call
// is in the SQLite request log as blocked and never reaches a hook; after
// activation, calls run through the hooks as any other.
func TestGateFromTheCLIWithHooksAndTheRequestLog(t *testing.T) {
	r := newHookRig(t)
	r.add(t, "suffix", "pre", 10, `if (context.toolName === 'echo') { context.arguments.message += '-hooked'; }`)
	r.add(t, "tripwire", "pre", 20, `if (context.toolName === 'echo' && String(context.arguments.message).includes('tripwire')) {
  return { continue: false, error: { message: 'the hook saw a locked call' } };
}`)

	const message = "Load the /everything skill, then call everything__activate"
	row, err := r.cli.Servers().Get(context.Background(), "everything")
	if err != nil {
		t.Fatal(err)
	}
	def := row.Server
	def.Gate = spec.Gate{Enabled: true, Message: message}
	if _, err := r.cli.Servers().Update(context.Background(), def); err != nil { // what `servers gate --on` does
		t.Fatal(err)
	}
	testpeers.Eventually(t, 5*time.Second, "everything__activate to be listed", func() bool {
		return strings.Contains(strings.Join(listTools(t, r.c), ","), "everything__activate")
	})

	got, err := r.echo(t, "tripwire")
	if err != nil || got != message {
		t.Fatalf("locked call: %q, %v; want the gate message as a tool error", got, err)
	}
	testpeers.Eventually(t, 3*time.Second, "the refused call in the request log", func() bool {
		rows, _ := r.cli.Logs().List(context.Background(), store.LogFilter{Status: store.StatusBlocked})
		return len(rows) > 0 && rows[0].Error == message && rows[0].Target == "everything__echo" && rows[0].Server == "everything"
	})

	res, err := r.c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "everything__activate"}})
	if err != nil || res.IsError {
		t.Fatalf("activate: %+v, %v", res, err)
	}
	if got, err := r.echo(t, "open"); err != nil || !strings.Contains(got, "open-hooked") {
		t.Fatalf("unlocked call: %q, %v; want it through the hooks", got, err)
	}
	if _, err := r.echo(t, "tripwire"); err == nil || !strings.Contains(err.Error(), "the hook saw a locked call") {
		t.Fatalf("an unlocked call should reach the hooks: %v", err)
	}
	testpeers.Eventually(t, 3*time.Second, "the activate call in the request log", func() bool {
		rows, _ := r.cli.Logs().List(context.Background(), store.LogFilter{})
		for _, row := range rows {
			if row.Target == "everything__activate" && row.Status == store.StatusOK && row.Server == "everything" {
				return true
			}
		}
		return false
	})

	// The CLI turns it off again: no activate tool, calls pass.
	def.Gate.Enabled = false
	if _, err := r.cli.Servers().Update(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 5*time.Second, "everything__activate to go", func() bool {
		return !strings.Contains(strings.Join(listTools(t, r.c), ","), "everything__activate")
	})
	if got, err := r.echo(t, "free"); err != nil || !strings.Contains(got, "free-hooked") {
		t.Fatalf("call with the gate off: %q, %v", got, err)
	}
	// On again: the session starts locked again.
	def.Gate.Enabled = true
	if _, err := r.cli.Servers().Update(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 5*time.Second, "the gate to be back", func() bool {
		got, err := r.echo(t, "again")
		return err == nil && got == message
	})
}
